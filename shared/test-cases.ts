/**
 * The test cases a test file declares, read from its text: pytest functions (`test_*`, and
 * `Class::test_*` inside a `Test*` class or a unittest `TestCase`), the titles of `it`/`test` calls for the JavaScript
 * runners (node:test, vitest, jest, mocha), and Go's `TestX` functions with their literal `t.Run` subtests (`TestX/sub`). The seed's criterion ↔ test matrix names cases this
 * way; the sink refuses a name the file does not declare, and the red proof then runs each one.
 *
 * A reading, not a run: titles built at run time (a template with `${…}`, a loop over a table)
 * are not seen, and such a case cannot be named in the matrix — the seed names literal titles.
 */

const PY_DEF = /^([ \t]*)(?:async[ \t]+)?def[ \t]+(test\w*)[ \t]*\(/;
const PY_CLASS = /^([ \t]*)class[ \t]+(\w+)[ \t]*(\([^)]*\))?[ \t]*:/;
/** `it(`, `test(`, `it.only(`, `test.skip(`, `t.test(` … then a literal title in quotes or backticks. */
const JS_CASE =
  /(?:^|[^\w$.])(?:it|test|t\.test)(?:\.(?:only|skip|todo|concurrent|failing))?\s*\(\s*(?:(['"])((?:\\.|(?!\1)[^\\\n])*)\1|`((?:\\.|[^`\\$])*)`)/g;

export function isPythonTest(file: string): boolean {
  return file.endsWith('.py');
}

/** Whether this module can read the file's cases: Python, Go, or JavaScript and TypeScript. */
export function canReadTestCases(file: string): boolean {
  return isPythonTest(file) || file.endsWith('_test.go') || /\.(?:[cm]?[jt]s|[jt]sx)$/.test(file);
}

/** The case names `file` declares, in order, without repeats. */
export function collectTestCases(file: string, content: string): string[] {
  const names = isPythonTest(file) ? pythonCases(content) : file.endsWith('.go') ? goCases(content) : jsCases(content);
  return [...new Set(names)];
}

/** A subtest's name as go reports it: spaces become `_` (what `go test -run` matches too). */
export function goSubtestName(title: string): string {
  return title.replaceAll(' ', '_');
}

const GO_TEST_FUNC = /^func\s+((?:Test|Fuzz)(?![a-z])\w*)\s*\(/;
/** `t.Run("literal"` (any receiver), with a plain or raw string literal. */
const GO_RUN = /\b\w+\.Run\(\s*(?:"((?:\\.|[^"\\\n])*)"|`([^`]*)`)/y;

/**
 * Go's tests by the names go gives them: each top-level `TestX`, and each `t.Run("title", …)`
 * with a literal title inside it as `TestX/title` (nested: `TestX/a/b`). Braces are counted
 * outside strings, runes and comments to know which `Run` is inside which.
 */
function goCases(content: string): string[] {
  const out: string[] = [];
  const stack: { name: string; depth: number }[] = [];
  let depth = 0;
  let pending: string | null = null;
  let i = 0;
  const atLineStart = () => i === 0 || content[i - 1] === '\n';
  while (i < content.length) {
    const c = content[i]!;
    if (c === '/' && content[i + 1] === '/') {
      i = content.indexOf('\n', i) === -1 ? content.length : content.indexOf('\n', i);
      continue;
    }
    if (c === '/' && content[i + 1] === '*') {
      const end = content.indexOf('*/', i + 2);
      i = end === -1 ? content.length : end + 2;
      continue;
    }
    if (depth === 0 && atLineStart()) {
      const func = GO_TEST_FUNC.exec(content.slice(i, content.indexOf('\n', i) === -1 ? undefined : content.indexOf('\n', i)));
      if (func) {
        out.push(func[1]!);
        pending = func[1]!;
      }
    }
    if (c === '"' || c === '`' || c === "'") {
      i = skipLiteral(content, i);
      continue;
    }
    if (/\w/.test(c) && (i === 0 || !/\w/.test(content[i - 1]!)) && stack.length > 0) {
      GO_RUN.lastIndex = i;
      const run = GO_RUN.exec(content);
      if (run) {
        const title = run[1] !== undefined ? run[1].replace(/\\(.)/g, '$1') : run[2]!;
        const name = `${stack.map((s) => s.name).join('/')}/${goSubtestName(title)}`;
        out.push(name);
        pending = name;
        i = GO_RUN.lastIndex;
        continue;
      }
    }
    if (c === '{') {
      depth++;
      if (pending !== null) {
        stack.push({ name: pending.split('/').at(-1)!, depth });
        pending = null;
      }
    } else if (c === '}') {
      if (stack.at(-1)?.depth === depth) stack.pop();
      depth--;
    }
    i++;
  }
  return out;
}

/** The index just past the string, raw string or rune literal starting at `start`. */
function skipLiteral(content: string, start: number): number {
  const quote = content[start]!;
  let i = start + 1;
  while (i < content.length && content[i] !== quote) {
    if (quote !== '`' && content[i] === '\\') i++;
    else if (quote !== '`' && content[i] === '\n') return i;
    i++;
  }
  return i + 1;
}

function pythonCases(content: string): string[] {
  const out: string[] = [];
  // The class being read, and the indent of its body (set by its first line).
  let inClass: { indent: number; body: number | null; name: string } | null = null;
  for (const line of content.split('\n')) {
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const indent = /^[ \t]*/.exec(line)![0].length;
    if (inClass && indent <= inClass.indent) inClass = null;
    if (inClass && inClass.body === null) inClass.body = indent;
    const cls = PY_CLASS.exec(line);
    if (cls) {
      // pytest collects `Test*` classes and unittest TestCase subclasses, whatever their name.
      const collected = cls[2]!.startsWith('Test') || /\bTestCase\b/.test(cls[3] ?? '');
      inClass = collected ? { indent: cls[1]!.length, body: null, name: cls[2]! } : null;
      continue;
    }
    const def = PY_DEF.exec(line);
    if (!def) continue;
    const depth = def[1]!.length;
    if (depth === 0) out.push(def[2]!);
    else if (inClass && depth === inClass.body) out.push(`${inClass.name}::${def[2]!}`);
  }
  return out;
}

function jsCases(content: string): string[] {
  const out: string[] = [];
  for (const m of content.matchAll(JS_CASE)) {
    const raw = m[2] ?? m[3] ?? '';
    out.push(unescapeLiteral(raw));
  }
  return out.filter((name) => name.trim() !== '');
}

function unescapeLiteral(text: string): string {
  return text.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c === 't' ? '\t' : c));
}

/**
 * Whether `name` is one of the file's cases. A pytest method may be named bare (`test_x`) as
 * well as `Class::test_x`; everything else must match exactly.
 */
export function findTestCase(cases: readonly string[], name: string): string | null {
  const wanted = name.trim();
  if (cases.includes(wanted)) return wanted;
  const methods = cases.filter((c) => c.endsWith(`::${wanted}`));
  if (methods.length === 1) return methods[0]!;
  // A Go subtest, named as written in `t.Run` (spaces and all) or by its title alone.
  const go = goSubtestName(wanted);
  if (cases.includes(go)) return go;
  const subtests = cases.filter((c) => c.endsWith(`/${go}`));
  return subtests.length === 1 ? subtests[0]! : null;
}
