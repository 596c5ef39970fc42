/**
 * The test cases a test file declares, read from its text: pytest functions (`test_*`, and
 * `Class::test_*` inside a `Test*` class or a unittest `TestCase`), the titles of `it`/`test` calls for the JavaScript
 * runners (node:test, vitest, jest, mocha, AVA), Go's `TestX` functions with their literal `t.Run` subtests (`TestX/sub`),
 * and Rust's `#[test]` functions by their path through inline modules (`inner::deep`). The seed's criterion ↔ test matrix names cases this
 * way; the sink refuses a name the file does not declare, and the red proof then runs each one.
 *
 * A reading, not a run: titles built at run time (a template with `${…}`, a loop over a table)
 * are not seen, and such a case cannot be named in the matrix — the seed names literal titles.
 */

const PY_DEF = /^([ \t]*)(?:async[ \t]+)?def[ \t]+(test\w*)[ \t]*\(/;
const PY_CLASS = /^([ \t]*)class[ \t]+(\w+)[ \t]*(\([^)]*\))?[ \t]*:/;
/** A literal title in quotes or backticks (a template without `${}`), as the first argument. */
const JS_TITLE = String.raw`\(\s*(?:\{\s*name\s*:\s*)?(?:(['"])((?:\\.|(?!\1)[^\\\n])*)\1|` + '`' + String.raw`((?:\\.|[^` + '`' + String.raw`\\$])*)` + '`)';
/**
 * `it(`, `test(`, `it.only(`, `test.skip(`, AVA's `test.serial.skip(`, `t.test(`, deno's
 * `Deno.test(` and `Deno.test.ignore({ name: ` … then a literal title; read where an identifier starts.
 */
const JS_CASE = new RegExp(String.raw`(?:it|test|t\.test|Deno\.test)(?:\.(?:only|skip|todo|concurrent|failing|serial|ignore)){0,2}\s*` + JS_TITLE, 'y');
/** `describe(`, `context(`, `suite(` and their modifiers, then a literal title: a group whose title starts its cases' full names. */
const JS_GROUP = new RegExp(String.raw`(?:describe|context|suite)(?:\.(?:only|skip|todo|concurrent|sequential|shuffle)){0,2}\s*` + JS_TITLE, 'y');

/**
 * How the matrix writes a JavaScript case inside `describe` blocks: the groups' titles, then its
 * own, joined by this (as jest and vitest print them). A case outside any group is its title.
 */
export const JS_NAME_SEPARATOR = ' › ';

/** A JavaScript full name as jest, vitest, mocha and node join it, by spaces: what their name filters and reports use. */
export function spacedName(name: string): string {
  return name.split(JS_NAME_SEPARATOR).join(' ');
}

/** A JavaScript case's own title: the last part of its full name. */
export function ownTitle(name: string): string {
  return name.split(JS_NAME_SEPARATOR).at(-1)!;
}

export function isPythonTest(file: string): boolean {
  return file.endsWith('.py');
}

/** A Python file as the module an import (and unittest, and JUnit's classname) names: `tests/test_a.py` → `tests.test_a`. */
export function pythonModule(file: string): string {
  return file.replace(/\.py$/, '').split('/').join('.');
}

/** Whether this module can read the file's cases: Python, Go, Rust, or JavaScript and TypeScript. */
export function canReadTestCases(file: string): boolean {
  return isPythonTest(file) || file.endsWith('_test.go') || file.endsWith('.rs') || /\.(?:[cm]?[jt]s|[jt]sx)$/.test(file);
}

/** The case names `file` declares, in order, without repeats. */
export function collectTestCases(file: string, content: string): string[] {
  const names = isPythonTest(file)
    ? pythonCases(content)
    : file.endsWith('.go')
      ? goCases(content)
      : file.endsWith('.rs')
        ? rustCases(content)
        : UVU_IMPORT.test(content)
          ? [...jsCases(content), ...uvuCases(content)]
          : jsCases(content);
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

/** A stretch of Rust source that is not code, its prefix and delimiters included. */
export interface RustSpan {
  start: number;
  /** Just past its last character. */
  end: number;
  /** `string` is a plain, byte or C string (`"…"`, `b"…"`, `c"…"`); `raw_string` one with an `r` (`r#"…"#`). */
  kind: 'line_comment' | 'block_comment' | 'string' | 'raw_string' | 'char';
}

/** A char or byte literal at the quote: one character or one escape, then the closing quote. */
const RUST_CHAR = /'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F_]{1,8}\}|[^\n])|[^\\'\n])'/uy;
const RUST_WORD = /\w+/y;
const RUST_HASHES = /#*/y;

/**
 * The comments and literals of Rust source, in order. Read here for the brace tracking of
 * `rustCases`, and by the mutation probe (server/proof/mutants.ts) to tell a Rust line's code
 * from its text: one reading of Rust's literals for both. A quote that opens no char literal is
 * a lifetime or a label (`'a`, `'outer:`), which is code; block comments nest, as in Rust.
 */
export function rustSpans(source: string): RustSpan[] {
  const spans: RustSpan[] = [];
  let i = 0;
  const add = (kind: RustSpan['kind'], end: number) => {
    spans.push({ start: i, end, kind });
    i = end;
  };
  while (i < source.length) {
    const c = source[i]!;
    if (c === '/' && source[i + 1] === '/') {
      const end = source.indexOf('\n', i);
      add('line_comment', end === -1 ? source.length : end);
    } else if (c === '/' && source[i + 1] === '*') {
      let depth = 0;
      let j = i;
      do {
        const two = source.slice(j, j + 2);
        depth += two === '/*' ? 1 : two === '*/' ? -1 : 0;
        j += two === '/*' || two === '*/' ? 2 : 1;
      } while (depth > 0 && j < source.length);
      add('block_comment', j);
    } else if (c === '"') {
      add('string', rustStringEnd(source, i + 1));
    } else if (c === "'") {
      const end = rustCharEnd(source, i);
      if (end === null) i++;
      else add('char', end);
    } else if (/[A-Za-z_]/.test(c)) {
      // A name, or the prefix of a literal: b"…", c"…", b'…', r"…", r#"…"#, br"…", cr"…".
      RUST_WORD.lastIndex = i;
      const word = RUST_WORD.exec(source)![0];
      const j = i + word.length;
      RUST_HASHES.lastIndex = j;
      const hashes = /^[bc]?r$/.test(word) ? RUST_HASHES.exec(source)![0] : null;
      const byteChar = word === 'b' && source[j] === "'" ? rustCharEnd(source, j) : null;
      if ((word === 'b' || word === 'c') && source[j] === '"') add('string', rustStringEnd(source, j + 1));
      else if (byteChar !== null) add('char', byteChar);
      else if (hashes !== null && source[j + hashes.length] === '"') {
        // A raw string ends at the first quote followed by as many # as it opened with (`r#type` is a name).
        const close = source.indexOf(`"${hashes}`, j + hashes.length + 1);
        add('raw_string', close === -1 ? source.length : close + 1 + hashes.length);
      } else i = j;
    } else i++;
  }
  return spans;
}

/** Just past the char literal whose quote is at `at`; null when the quote opens none (a lifetime, a label). */
function rustCharEnd(source: string, at: number): number | null {
  RUST_CHAR.lastIndex = at;
  return RUST_CHAR.test(source) ? RUST_CHAR.lastIndex : null;
}

/** Just past the closing quote of the string whose text starts at `from` (Rust strings may span lines). */
function rustStringEnd(source: string, from: number): number {
  let j = from;
  while (j < source.length && source[j] !== '"') j += source[j] === '\\' ? 2 : 1;
  return Math.min(source.length, j + 1);
}

/** `source` with every comment and literal blanked out (newlines kept), so braces and brackets are code's own. */
export function rustCode(source: string, spans: readonly RustSpan[] = rustSpans(source)): string {
  let out = '';
  let at = 0;
  for (const span of spans) {
    out += source.slice(at, span.start) + source.slice(span.start, span.end).replace(/[^\n]/g, ' ');
    at = span.end;
  }
  return out + source.slice(at);
}

/**
 * An attribute that makes a function a test libtest runs: `#[test]`, and the async runtimes'
 * `#[tokio::test]`, `#[async_std::test]`, `#[actix_rt::test]` (any path ending in `test`), with
 * or without arguments. `#[test_case(…)]` and `#[rstest]` are not read: their cases' names are
 * made from the arguments, so such a file's generated cases cannot be named in the matrix.
 */
const RUST_TEST_ATTRIBUTE = /^\s*(?:\w+\s*::\s*)*test\s*(?:\([\s\S]*\))?\s*$/;
/** What the walk through a Rust file stops at: an attribute, an inline module, a function's name, a brace, the end of an item. */
const RUST_TOKEN = /#!?\[|\bmod\s+(?:r#)?(\w+)\s*\{|\bfn\s+(?:r#)?(\w+)|[{};]/g;

/**
 * Rust's tests by the names libtest gives them: each function marked with a test attribute,
 * prefixed by the inline modules around it (`mod inner { #[test] fn deep() {} }` is
 * `inner::deep`). Other attributes may come between the test attribute and the `fn`
 * (`#[ignore]`, `#[should_panic]`), and the `fn` may be `pub`, `async`, `unsafe`. A test
 * attribute counts for the next item only, and only at module level: a function inside a
 * function, an `impl` or a macro's body is no test libtest names. `mod x;` declares a module in
 * another file, which holds its own cases.
 */
function rustCases(content: string): string[] {
  const code = rustCode(content);
  const out: string[] = [];
  // Each open brace: the inline module it opens, or null for any other block.
  const scopes: (string | null)[] = [];
  let marked = false;
  RUST_TOKEN.lastIndex = 0;
  for (let m = RUST_TOKEN.exec(code); m !== null; m = RUST_TOKEN.exec(code)) {
    if (m[0].startsWith('#')) {
      const end = closingBracket(code, m.index + m[0].length);
      if (m[0] === '#[' && RUST_TEST_ATTRIBUTE.test(code.slice(m.index + 2, end))) marked = true;
      RUST_TOKEN.lastIndex = end + 1;
      continue;
    }
    if (m[1] !== undefined) scopes.push(m[1]);
    else if (m[2] !== undefined) {
      if (marked && scopes.every((s) => s !== null)) out.push([...scopes, m[2]].join('::'));
    } else if (m[0] === '{') scopes.push(null);
    else if (m[0] === '}') scopes.pop();
    marked = false;
  }
  return out;
}

/** The index of the `]` closing the bracket opened just before `from` (or the end of the text). */
function closingBracket(code: string, from: number): number {
  let depth = 1;
  for (let i = from; i < code.length; i++) {
    if (code[i] === '[') depth++;
    else if (code[i] === ']' && --depth === 0) return i;
  }
  return code.length;
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

/**
 * JavaScript's cases by their full names: each literal-titled `it`/`test` with the titles of the
 * `describe` blocks around it. Parentheses are counted outside strings, templates, comments and
 * regular expressions to know which call a case is inside.
 */
/** `const Name = suite('title')` (uvu): the variable its cases are called on, and the suite's name. */
const UVU_SUITE = /(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*suite\s*\(\s*(?:(['"])((?:\\.|(?!\2)[^\\\n])*)\2|`((?:\\.|[^`\\$])*)`)/g;
const UVU_IMPORT = /(?:from\s*|require\s*\(\s*)['"]uvu['"]/;

/**
 * uvu's cases: `Name('title', …)`, `Name.only(…)` and `Name.skip(…)` on a suite made by
 * `const Name = suite('suite')`, named `suite › title`; uvu's own `test('title')` outside any
 * suite is the title (read by jsCases). uvu has no nesting.
 */
function uvuCases(content: string): string[] {
  const out: string[] = [];
  for (const m of content.matchAll(UVU_SUITE)) {
    const name = unescapeLiteral(m[3] ?? m[4] ?? '');
    const call = new RegExp(String.raw`(?<![\w$.])${m[1]!.replace(/\$/g, '\\$')}(?:\.(?:only|skip))?\s*` + JS_TITLE, 'g');
    for (const c of content.matchAll(call)) {
      const title = unescapeLiteral(c[2] ?? c[3] ?? '');
      if (title.trim() !== '') out.push(name ? `${name}${JS_NAME_SEPARATOR}${title}` : title);
    }
  }
  return out;
}

function jsCases(content: string): string[] {
  const out: (string | null)[] = [];
  /**
   * The calls the scanner is inside: describe blocks, and cases. A case with cases inside it (a
   * node:test or node-tap subtest holding subtests) is a group, as its runner reports it: its own
   * name leaves the list (`at` is where it was), and its title starts theirs.
   */
  const groups: { title: string; depth: number; at: number | null }[] = [];
  let depth = 0;
  /** The last significant character: a `/` after one of these starts a regular expression. */
  let last = '';
  let i = 0;
  const n = content.length;
  while (i < n) {
    const ch = content[i]!;
    if (ch === '/' && content[i + 1] === '/') {
      const end = content.indexOf('\n', i);
      i = end < 0 ? n : end;
      continue;
    }
    if (ch === '/' && content[i + 1] === '*') {
      const end = content.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
      continue;
    }
    if (ch === '"' || ch === "'") {
      i = skipQuoted(content, i, ch);
      last = ch;
      continue;
    }
    if (ch === '`') {
      i = skipTemplate(content, i);
      last = ch;
      continue;
    }
    if (ch === '/' && (last === '' || '(,=:[!&|?{};+-*%<>~^'.includes(last))) {
      i = skipRegex(content, i);
      last = '/';
      continue;
    }
    if (/[A-Za-z_$]/.test(ch) && !/[\w$.]/.test(content[i - 1] ?? '')) {
      const call = matchAt(JS_GROUP, content, i) ?? matchAt(JS_CASE, content, i);
      if (call) {
        const title = unescapeLiteral(call.title);
        const outer = groups.at(-1);
        if (call.re === JS_CASE && outer?.at != null) {
          out[outer.at] = null;
          outer.at = null;
        }
        if (call.re === JS_GROUP) groups.push({ title, depth, at: null });
        else if (title.trim() !== '') {
          out.push([...groups.map((g) => g.title), title].join(JS_NAME_SEPARATOR));
          groups.push({ title, depth, at: out.length - 1 });
        }
        // The call's `(` is open; its title is read.
        depth++;
        i = call.end;
        last = ',';
        continue;
      }
      const word = /[\w$]+/y;
      word.lastIndex = i;
      i += word.exec(content)![0].length;
      last = 'a';
      continue;
    }
    if (ch === '(') depth++;
    else if (ch === ')') {
      depth--;
      while (groups.length > 0 && groups.at(-1)!.depth >= depth) groups.pop();
    }
    if (!/\s/.test(ch)) last = ch;
    i++;
  }
  return out.filter((name) => name !== null);
}

function matchAt(re: RegExp, content: string, at: number): { re: RegExp; title: string; end: number } | null {
  re.lastIndex = at;
  const m = re.exec(content);
  return m ? { re, title: m[2] ?? m[3] ?? '', end: re.lastIndex } : null;
}

/** The index after a quoted string that starts at `at`. */
function skipQuoted(content: string, at: number, quote: string): number {
  let i = at + 1;
  while (i < content.length && content[i] !== quote && content[i] !== '\n') i += content[i] === '\\' ? 2 : 1;
  return i + 1;
}

/** The index after a template literal that starts at `at`, its `${…}` parts skipped by their braces. */
function skipTemplate(content: string, at: number): number {
  let i = at + 1;
  while (i < content.length && content[i] !== '`') {
    if (content[i] === '\\') i += 2;
    else if (content[i] === '$' && content[i + 1] === '{') {
      let braces = 1;
      i += 2;
      while (i < content.length && braces > 0) {
        const c = content[i]!;
        if (c === '"' || c === "'") i = skipQuoted(content, i, c);
        else if (c === '`') i = skipTemplate(content, i);
        else {
          if (c === '{') braces++;
          else if (c === '}') braces--;
          i++;
        }
      }
    } else i++;
  }
  return i + 1;
}

/** The index after a regular expression literal that starts at `at` (a `/` inside a class does not end it). */
function skipRegex(content: string, at: number): number {
  let i = at + 1;
  let inClass = false;
  while (i < content.length && content[i] !== '\n') {
    const c = content[i]!;
    if (c === '\\') i += 2;
    else {
      if (c === '[') inClass = true;
      else if (c === ']') inClass = false;
      else if (c === '/' && !inClass) return i + 1;
      i++;
    }
  }
  return i;
}

function unescapeLiteral(text: string): string {
  return text.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c === 't' ? '\t' : c));
}

/** The JavaScript cases whose own title is `title`, by their full names (more than one: the title alone names none). */
export function casesTitled(cases: readonly string[], title: string): string[] {
  return cases.filter((c) => c.endsWith(`${JS_NAME_SEPARATOR}${title.trim()}`) || c === title.trim());
}

/**
 * Whether `name` is one of the file's cases, and which. A JavaScript case inside `describe`
 * blocks, a pytest method, or a Rust test inside modules, may be named by the end of its path
 * when only one case ends so (`adds` for `todo › adds`): `test_x` for
 * `Class::test_x`, `deep` or `inner::deep` for `outer::inner::deep`. A Go subtest may be named as
 * written or by its title alone; everything else must match exactly.
 */
export function findTestCase(cases: readonly string[], name: string): string | null {
  const wanted = name.trim();
  if (cases.includes(wanted)) return wanted;
  // A JavaScript case inside describe blocks: its full name written with ` > ` (as vitest's
  // listing and bun print it) or with spaces (as jest's and mocha's reports join it), or the end
  // of it when only one case ends so.
  const js = wanted.split(' > ').join(JS_NAME_SEPARATOR);
  if (cases.includes(js)) return js;
  const spaced = cases.filter((c) => c.includes(JS_NAME_SEPARATOR) && spacedName(c) === wanted);
  if (spaced.length === 1) return spaced[0]!;
  const nested = cases.filter((c) => c.endsWith(`${JS_NAME_SEPARATOR}${js}`));
  if (nested.length === 1) return nested[0]!;
  const methods = cases.filter((c) => c.endsWith(`::${wanted}`));
  if (methods.length === 1) return methods[0]!;
  // A Go subtest, named as written in `t.Run` (spaces and all) or by its title alone.
  const go = goSubtestName(wanted);
  if (cases.includes(go)) return go;
  const subtests = cases.filter((c) => c.endsWith(`/${go}`));
  return subtests.length === 1 ? subtests[0]! : null;
}
