/**
 * The test cases a test file declares, read from its text: pytest functions (`test_*`, and
 * `Class::test_*` inside a `Test*` class or a unittest `TestCase`) and the titles of `it`/`test` calls for the JavaScript
 * runners (node:test, vitest, jest, mocha). The seed's criterion ↔ test matrix names cases this
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

/** Whether this module can read the file's cases: Python, or JavaScript and TypeScript. */
export function canReadTestCases(file: string): boolean {
  return isPythonTest(file) || /\.(?:[cm]?[jt]s|[jt]sx)$/.test(file);
}

/** The case names `file` declares, in order, without repeats. */
export function collectTestCases(file: string, content: string): string[] {
  const names = isPythonTest(file) ? pythonCases(content) : jsCases(content);
  return [...new Set(names)];
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
  return methods.length === 1 ? methods[0]! : null;
}
