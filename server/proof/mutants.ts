/**
 * Mutants of the lines a task changed (issue 14, the mutation probe): small, plausible mistakes
 * a test suite that really checks the work would notice — a flipped comparison or operator, a
 * shifted boundary, a swapped return value, a dropped statement, a changed string. Each mutant
 * changes one place of one line; the probe runs the task's tests against it and reports those
 * nobody notices ("no test notices if line 14 returns 0").
 *
 * JavaScript and TypeScript, Python, Go (issue 29) and Rust. A reading of lines, not a parse:
 * comments and string contents are skipped where that is easy to see, and a mutant that does not
 * load simply counts as killed — in Go a dropped assignment can leave a variable unused, which
 * does not compile, so such a mutant counts as killed without a test noticing it. Rust compiles
 * every mutant before a test runs, and a compile takes longer than most tests, so its mutants are
 * the conservative few that compile: operators only where spaced as rustfmt writes binary ones.
 */
import type { ChecksPreset } from '../../shared/seed.ts';
import { rustCode, rustSpans } from '../../shared/test-cases.ts';

export interface Mutant {
  /** 1-based line in the file. */
  line: number;
  /** What changed, in words. */
  description: string;
  /** The whole file with this one change. */
  source: string;
}

export type Language = 'js' | 'py' | 'go' | 'rs';

export function languageOf(file: string): Language | null {
  if (/\.(?:[cm]?[jt]s|[jt]sx)$/.test(file)) return 'js';
  if (file.endsWith('.py')) return 'py';
  // A Go test file is a test, not the work: its mutants would prove nothing about the code.
  if (file.endsWith('.go') && !file.endsWith('_test.go')) return 'go';
  if (file.endsWith('.rs')) {
    // Likewise Rust's integration tests (a crate's `tests/` folder), and a package's build script
    // (`build.rs` outside `src/`), which runs at build time and is no code a test calls.
    const buildScript = /(?:^|\/)build\.rs$/.test(file) && !/(?:^|\/)src\//.test(file);
    return /(?:^|\/)tests\//.test(file) || buildScript ? null : 'rs';
  }
  return null;
}

/**
 * The sources a preset's runner exercises: what its tests can kill. A Rust addon in a JavaScript
 * project, or a Python script beside a Go module, is not built or run by that project's tests, so
 * its every mutant would survive and say nothing. The custom command may run anything.
 */
const RUNS: Record<ChecksPreset, readonly Language[] | null> = {
  vitest: ['js'],
  jest: ['js'],
  mocha: ['js'],
  ava: ['js'],
  tap: ['js'],
  uvu: ['js'],
  node: ['js'],
  pytest: ['py'],
  unittest: ['py'],
  go: ['go'],
  cargo: ['rs'],
  custom: null,
};

/** Whether `file` is a source the preset's tests exercise, in a language mutantsFor mutates. */
export function mutatedUnder(preset: ChecksPreset, file: string): boolean {
  const language = languageOf(file);
  return language !== null && (RUNS[preset]?.includes(language) ?? true);
}

/** Swaps tried on a line, in order; each applies at one occurrence at a time. */
const SWAPS: Record<Language, [RegExp, string, string][]> = {
  js: [
    [/===/g, '!==', 'flips === to !=='],
    [/!==/g, '===', 'flips !== to ==='],
    [/(?<![=!<>])<=(?!=)/g, '<', 'turns <= into <'],
    [/(?<![=!<>=])>=(?!=)/g, '>', 'turns >= into >'],
    [/(?<![<=>-])<(?![=<])/g, '<=', 'turns < into <='],
    [/(?<![=>-])>(?![=>])/g, '>=', 'turns > into >='],
    [/&&/g, '||', 'turns && into ||'],
    [/\|\|/g, '&&', 'turns || into &&'],
    [/(?<![+\w$])\+(?![+=])/g, '-', 'turns + into -'],
    [/(?<![-\w$])-(?![-=>])/g, '+', 'turns - into +'],
    [/\btrue\b/g, 'false', 'turns true into false'],
    [/\bfalse\b/g, 'true', 'turns false into true'],
  ],
  py: [
    [/==/g, '!=', 'flips == to !='],
    [/!=/g, '==', 'flips != to =='],
    [/(?<![=!<>])<=/g, '<', 'turns <= into <'],
    [/(?<![=!<>])>=/g, '>', 'turns >= into >'],
    [/(?<![<=>-])<(?![=<])/g, '<=', 'turns < into <='],
    [/(?<![=>-])>(?![=>])/g, '>=', 'turns > into >='],
    [/\band\b/g, 'or', 'turns and into or'],
    [/\bor\b/g, 'and', 'turns or into and'],
    [/\bnot /g, '', 'drops a not'],
    [/\bTrue\b/g, 'False', 'turns True into False'],
    [/\bFalse\b/g, 'True', 'turns False into True'],
  ],
  go: [
    [/==/g, '!=', 'flips == to !='],
    [/!=/g, '==', 'flips != to =='],
    [/(?<![=!<>:])<=/g, '<', 'turns <= into <'],
    [/(?<![=!<>:])>=/g, '>', 'turns >= into >'],
    // Not `<-` (a channel), `<<` or `>>` (shifts).
    [/(?<![<=>])<(?![=<-])/g, '<=', 'turns < into <='],
    [/(?<![=>-])>(?![=>])/g, '>=', 'turns > into >='],
    [/&&/g, '||', 'turns && into ||'],
    [/\|\|/g, '&&', 'turns || into &&'],
    [/(?<![+\w])\+(?![+=])/g, '-', 'turns + into -'],
    [/(?<![-\w<])-(?![-=])/g, '+', 'turns - into +'],
    [/\btrue\b/g, 'false', 'turns true into false'],
    [/\bfalse\b/g, 'true', 'turns false into true'],
  ],
  // Only an operator spaced as rustfmt writes a binary one, with an operand's end before it: a
  // `<` or `>` may be generics (`Vec<T>`, `::<`), half of `->`, `=>`, `<<` or `>>`, and `||` may
  // open a closure (`move || …`), none of them written so. A `+` before a lifetime, `?Sized`,
  // `dyn` or a CamelCase name that is no path (`T: Clone + Send`) joins trait bounds.
  rs: [
    [/(?<=[\w)\]'"?] )==(?= )/g, '!=', 'flips == to !='],
    [/(?<=[\w)\]'"?] )!=(?= )/g, '==', 'flips != to =='],
    [/(?<=[\w)\]'"?] )<=(?= )/g, '<', 'turns <= into <'],
    [/(?<=[\w)\]'"?] )>=(?= )/g, '>', 'turns >= into >'],
    [/(?<=[\w)\]'"?] )<(?= )/g, '<=', 'turns < into <='],
    [/(?<=[\w)\]'"?] )>(?= )/g, '>=', 'turns > into >='],
    [/(?<=[\w)\]'"?] )&&(?= )/g, '||', 'turns && into ||'],
    [/(?<=[\w)\]'"?] )(?<!\bmove )\|\|(?= )/g, '&&', 'turns || into &&'],
    [/(?<=[\w)\]'"?] )\+(?= (?!['?]|dyn\b|[A-Z]\w*[a-z]\w*(?!\w|::|\()))/g, '-', 'turns + into -'],
    [/(?<=[\w)\]'"?] )-(?= )/g, '+', 'turns - into +'],
    [/\btrue\b/g, 'false', 'turns true into false'],
    [/\bfalse\b/g, 'true', 'turns false into true'],
  ],
};

const NUMBER = /(?<![\w$.])\d+(?![\w.])/g;
/**
 * A Rust integer literal, decimal, with `_` separators and a type suffix kept by its mutant
 * (`1u32`); beside a range's `..` too, but not a float's or a tuple field's (`1.5`, `pair.0`).
 */
const RUST_NUMBER = /(?<!\w|(?<!\.)\.)(\d[\d_]*)([ui](?:8|16|32|64|128|size))?(?!\w|\.(?!\.))/g;

/** The largest value a suffix's type holds (`usize` as on 64-bit targets): one past it does not compile. */
function rustIntMax(suffix: string): bigint {
  const bits = BigInt(suffix.endsWith('size') ? 64 : Number(suffix.slice(1)));
  return (1n << (suffix.startsWith('i') ? bits - 1n : bits)) - 1n;
}
/** A string literal at its opening quote. */
const STRING = /(['"])((?:\\.|(?!\1)[^\\\n])+)\1/y;
const STRING_MUTANT = 'mutant';

function isComment(text: string, lang: Language): boolean {
  const t = text.trim();
  return lang === 'py' ? t.startsWith('#') : t.startsWith('//') || t.startsWith('*') || t.startsWith('/*');
}

/** Where the code part of a line ends (before a trailing comment), roughly. */
function codeOf(text: string, lang: Language): string {
  const marker = lang === 'py' ? /\s#\s/ : /\s\/\/\s/;
  const m = marker.exec(text);
  return m ? text.slice(0, m.index) : text;
}

/**
 * What each character of a line's code is: code, inside a string literal (or a comment), or
 * inside a regular expression's character class — and where each string literal starts. A
 * reading of one line: a string or a regex opened on an earlier line is not seen.
 */
interface Zones {
  /** Per character: 0 code, 1 string or comment, 2 regex character class, 3 the rest of a regex literal. */
  kind: Uint8Array;
  /** Where the string literals start (their opening quote). */
  stringStarts: Set<number>;
}

const TEXT = 1;
const REGEX_CLASS = 2;
const REGEX = 3;
/** After these, a `/` opens a regex literal rather than dividing. */
const REGEX_AFTER_CHAR = /[(,=:[!&|?{};+\-*%<>~^]/;
const REGEX_AFTER_WORD = /\b(?:return|typeof|case|in|of|delete|void|throw|new|else|do|yield|await)$/;

function zonesOf(code: string, lang: Language): Zones {
  const kind = new Uint8Array(code.length);
  const stringStarts = new Set<number>();
  let i = 0;
  while (i < code.length) {
    const c = code[i]!;
    if (c === '"' || c === "'" || (c === '`' && lang !== 'py')) {
      stringStarts.add(i);
      let j = i + 1;
      while (j < code.length && code[j] !== c) j += code[j] === '\\' ? 2 : 1;
      kind.fill(TEXT, i, Math.min(code.length, j + 1));
      i = j + 1;
    } else if (lang !== 'py' && c === '/' && (code[i + 1] === '/' || code[i + 1] === '*')) {
      const end = code[i + 1] === '/' ? code.length : code.indexOf('*/', i + 2);
      const stop = end < 0 ? code.length : code[i + 1] === '/' ? end : end + 2;
      kind.fill(TEXT, i, stop);
      i = stop;
    } else if (lang === 'js' && c === '/' && opensRegex(code.slice(0, i))) {
      let j = i + 1;
      let inClass = false;
      kind[i] = REGEX;
      while (j < code.length && (inClass || code[j] !== '/')) {
        const step = code[j] === '\\' ? 2 : 1;
        if (!inClass && code[j] === '[') inClass = true;
        kind.fill(inClass ? REGEX_CLASS : REGEX, j, Math.min(code.length, j + step));
        if (inClass && code[j] === ']') inClass = false;
        j += step;
      }
      kind.fill(REGEX, j, Math.min(code.length, j + 1));
      i = j + 1;
    } else i++;
  }
  return { kind, stringStarts };
}

function opensRegex(before: string): boolean {
  const t = before.trimEnd();
  return t === '' || REGEX_AFTER_CHAR.test(t.at(-1)!) || REGEX_AFTER_WORD.test(t);
}

/** An opening of an exception (or a throw) whose first string argument is its message. */
const ERROR_CALL: Record<Language, RegExp> = {
  js: /(?:\bthrow\s+(?:new\s+)?[\w$.]*|\b[\w$.]*(?:Error|Exception))\s*\(/g,
  py: /(?:\braise\s+[\w.]+|\b[\w.]*(?:Error|Exception|Warning))\s*\(/g,
  go: /\b(?:errors\.New|fmt\.Errorf|panic)\s*\(/g,
  // Panics, `Err(…)`, `.expect(…)`, io's `Error::new`, and anyhow's `bail!`, `anyhow!` and
  // `.context(…)` take messages. `include_str!`, `include_bytes!`, `env!` and `option_env!` take
  // a file or a variable of the build: another one does not compile, or is no change of logic.
  rs: /(?:\b(?:panic|unreachable|todo|unimplemented|bail|anyhow|include_str|include_bytes|env|option_env)!|\.(?:expect|context)|\bErr|\bError::(?:new|other))\s*\(/g,
};

/**
 * Whether `start` lies in an error's message: inside the still-open parentheses of an exception
 * being made or thrown, on this line or opened at the end of the previous one (in Rust, on any
 * line of the statement so far: `previous` is all of them), or a value thrown bare (`throw 'x'`).
 */
function isErrorMessage(code: string, start: number, lang: Language, previous: string): boolean {
  const before = code.slice(0, start);
  if (lang === 'js' && /\bthrow\s+(?![\s\w$(])/.test(before)) return true;
  const text = lang === 'rs' || /\(\s*$/.test(previous) ? `${previous}\n${before}` : before;
  let open = -1;
  for (const m of text.matchAll(ERROR_CALL[lang])) open = m.index + m[0].length;
  if (open < 0) return false;
  let depth = 1;
  for (const ch of text.slice(open)) {
    if (ch === '(') depth++;
    else if (ch === ')' && --depth === 0) return false;
  }
  return true;
}

/**
 * A whole statement on its own line: a call or an assignment, or a throw/raise/panic. Go's `:=`
 * declares, so it is left alone (what follows would not compile without it). Rust's is read with
 * its literals blanked out: a call or a macro ending the statement (`x.push(y);`, `save(&t)?;`,
 * `println!(…);`) or a spaced assignment (`self.n += 1;`) — never a `let` (what follows would not
 * compile without it), a `return` (nor would the function), or an item (`const`, `use`, `fn`…).
 */
const STATEMENT: Record<Language, RegExp> = {
  js: /^(\s*)(?:throw\b.*|[\w$.[\]]+\s*(?:[-+*/]?=|\().*;)\s*$/,
  py: /^(\s*)(?:raise\b.*|[\w.[\]]+\s*(?:[-+*/]?=(?!=)|\().*)$/,
  go: /^(\s*)(?:panic\(.*|[\w.[\]]+\s*(?:[-+*/]?=(?!=)|\().*)$/,
  rs: /^(\s*)(?!(?:let|return|break|continue|const|static|use|mod|pub|type|impl|fn|struct|enum|trait|extern|unsafe|if|while|for|loop|match|else)\b)\*?[\w:]+[^;]*?(?: (?:[-+*/%&|^]|<<|>>)?= .*|\)\??(?:\.await\??)?);$/,
};
/** What a dropped statement leaves: an empty statement of the language. */
const DROPPED: Record<Language, string> = { js: '/* dropped */;', py: 'pass  # dropped', go: '// dropped', rs: '// dropped' };

/** One line as the mutants read it. */
interface LineReading {
  /** The line's code, without a trailing comment: what a mutant rewrites. */
  code: string;
  /** The code as its structure is read: Rust's with its literals and comments blanked out, any other the code itself. */
  plain: string;
  zones: Zones;
  /**
   * Rust: the lines of the statement this line continues, blanked like `plain` ('' when a
   * statement starts on this line: the code before it ends one or opens or closes a block).
   */
  before?: string;
}

/** A line of JavaScript, Python or Go, read on its own; null when blank or a comment. */
function readLine(text: string | undefined, lang: Language): LineReading | null {
  if (text === undefined || text.trim() === '' || isComment(text, lang)) return null;
  const code = codeOf(text, lang);
  return { code, plain: code, zones: zonesOf(code, lang) };
}

const IN_LITERAL = 1;
const IN_COMMENT = 2;
const CFG_TEST = /#\[\s*cfg\s*\(\s*test\s*\)\s*\]/g;
const CFG_TEST_MODULE = /#!\[\s*cfg\s*\(\s*test\s*\)\s*\]/;

/**
 * A Rust file's lines, read from the whole file, since a literal or a comment may span lines (a
 * raw string, a block comment): null for a line with nothing to mutate — blank, only a comment,
 * going on with a literal or a comment from the line before, or part of an item under `#[cfg(test)]`.
 */
function rustReader(source: string, all: readonly string[]): (n: number) => LineReading | null {
  const spans = rustSpans(source);
  const within = new Uint8Array(source.length);
  const quotes: number[] = [];
  for (const span of spans) {
    within.fill(span.kind.endsWith('comment') ? IN_COMMENT : IN_LITERAL, span.start, span.end);
    // A plain, byte or C string's quote: a raw string's text is left alone (often a pattern or a document).
    if (span.kind === 'string') quotes.push(source[span.start] === '"' ? span.start : span.start + 1);
  }
  const blank = rustCode(source, spans);
  const blankLines = blank.split('\n');
  const starts: number[] = [];
  for (let i = 0, at = 0; i < all.length; at += all[i]!.length + 1, i++) starts.push(at);
  const tests = cfgTestLines(blank);
  return (n) => {
    const text = all[n - 1];
    if (text === undefined || tests.has(n)) return null;
    const base = starts[n - 1]!;
    // A literal or a comment crossing into the line takes its newline along.
    if (base > 0 && within[base - 1] !== 0) return null;
    let end = text.length;
    while (end > 0 && (within[base + end - 1] === IN_COMMENT || /\s/.test(text[end - 1]!))) end--;
    if (end === 0) return null;
    const kind = new Uint8Array(end);
    for (let i = 0; i < end; i++) if (within[base + i] !== 0) kind[i] = TEXT;
    const stringStarts = new Set(quotes.filter((q) => q >= base && q < base + end).map((q) => q - base));
    const before: string[] = [];
    for (let k = n - 2; k >= 0 && !/[;{}]\s*$/.test(blankLines[k]!); k--) if (blankLines[k]!.trim() !== '') before.unshift(blankLines[k]!);
    return { code: text.slice(0, end), plain: blank.slice(base, base + end), zones: { kind, stringStarts }, before: before.join('\n') };
  };
}

/**
 * The lines (1-based) of every item under `#[cfg(test)]`: the unit tests' `mod tests { … }` and
 * test-only helpers are tests, not the work, and a whole file under `#![cfg(test)]` is. An item
 * runs from its attribute to the `;` or `,` ending it, or the `}` closing its block, counted in
 * `blank` (the file with literals and comments blanked out).
 */
function cfgTestLines(blank: string): Set<number> {
  const lineAt = (offset: number) => blank.slice(0, offset).split('\n').length;
  if (CFG_TEST_MODULE.test(blank)) return new Set(Array.from({ length: lineAt(blank.length) }, (_, i) => i + 1));
  const lines = new Set<number>();
  for (const m of blank.matchAll(CFG_TEST)) {
    let depth = 0;
    let end = m.index + m[0].length;
    for (; end < blank.length; end++) {
      const c = blank[end]!;
      if ('([{'.includes(c)) depth++;
      else if (')]}'.includes(c) && (--depth < 0 || (depth === 0 && c === '}'))) break;
      else if (depth === 0 && (c === ';' || c === ',')) break;
    }
    for (let n = lineAt(m.index); n <= lineAt(end); n++) lines.add(n);
  }
  return lines;
}

/** Whether every bracket the line opens it closes, in order. */
function balanced(plain: string): boolean {
  let depth = 0;
  for (const c of plain) {
    if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c) && --depth < 0) return false;
  }
  return depth === 0;
}

/** The mutants of the given lines (1-based) of `source`, at most `limit`, in line order. */
export function mutantsFor(file: string, source: string, lines: readonly number[], limit = 200): Mutant[] {
  const lang = languageOf(file);
  if (lang === null) return [];
  const all = source.split('\n');
  const read = lang === 'rs' ? rustReader(source, all) : (n: number) => readLine(all[n - 1], lang);
  const out: Mutant[] = [];
  const withLine = (n: number, text: string) => all.map((l, i) => (i === n - 1 ? text : l)).join('\n');
  for (const n of [...new Set(lines)].sort((a, b) => a - b)) {
    const line = read(n);
    if (line === null) continue;
    const { code, plain, zones } = line;
    const rest = all[n - 1]!.slice(code.length);
    const previous = line.before ?? (n >= 2 ? codeOf(all[n - 2]!, lang) : '');
    // A change inside a string or comment is no change of logic, and one inside a regex's
    // character class (`[0-9<>]`) is one no test of the work would be written against.
    // An error's message is words for a person, not a value a test of the work pins: nothing in
    // the arguments of an error being made is mutated (its concatenations and numbers included).
    const inert = (index: number) => zones.kind[index] === TEXT || zones.kind[index] === REGEX_CLASS || isErrorMessage(plain, index, lang, previous);
    const add = (newCode: string, description: string) => {
      if (newCode !== code && out.length < limit) out.push({ line: n, description, source: withLine(n, newCode + rest) });
    };
    // Imports, exports of names and declarations without logic are left alone, and so is a
    // directive ('use strict'): no test of the work could tell it was changed.
    if (/^\s*(?:import\b|from\s+\S+\s+import\b|export\s*\{|\}\s*from\b)/.test(code)) continue;
    if (lang === 'js' && /^\s*(['"])use [\w ]+\1;?\s*$/.test(code)) continue;
    // Go's package clause and imports (an import block's lines are a path, maybe named).
    if (lang === 'go' && /^\s*(?:package\s|import\b|(?:[\w.]+\s+)?"[^"]*"\s*$)/.test(code)) continue;
    // Rust's `use` and `mod` lines name code, and an attribute (`#[derive(…)]`, `#[inline]`) is
    // read by the compiler: a changed one does not compile or changes no logic.
    if (lang === 'rs' && /^\s*(?:#!?\[|(?:pub(?:\([^)]*\))?\s+)?(?:use|mod|extern\s+crate)\b)/.test(plain)) continue;

    for (const [pattern, to, words] of SWAPS[lang]) {
      for (const m of code.matchAll(pattern)) {
        if (inert(m.index)) continue;
        add(code.slice(0, m.index) + to + code.slice(m.index + m[0].length), words);
      }
    }
    if (lang === 'rs') {
      for (const m of code.matchAll(RUST_NUMBER)) {
        if (inert(m.index)) continue;
        const value = BigInt(m[1]!.replaceAll('_', '')) + 1n;
        if (m[2] !== undefined && value > rustIntMax(m[2])) continue;
        const next = `${value}${m[2] ?? ''}`;
        add(code.slice(0, m.index) + next + code.slice(m.index + m[0].length), `turns ${m[0]} into ${next}`);
      }
    } else {
      for (const m of code.matchAll(NUMBER)) {
        if (inert(m.index)) continue;
        const value = Number(m[0]);
        add(code.slice(0, m.index) + String(value + 1) + code.slice(m.index + m[0].length), `turns ${value} into ${value + 1}`);
      }
    }
    for (const start of [...zones.stringStarts].sort((a, b) => a - b)) {
      STRING.lastIndex = start;
      const m = STRING.exec(code);
      if (m === null || isErrorMessage(plain, start, lang, previous)) continue;
      // In Go single quotes make a rune, which cannot hold a word.
      if (lang === 'go' && m[1] === "'") continue;
      // A Rust string with a brace is most likely a format string (`format!`, `write!`, `println!`):
      // another one without its placeholders does not compile when arguments go with them.
      if (lang === 'rs' && /[{}]/.test(m[2]!)) continue;
      // Another value, not an empty one: an empty string is often the case a test already checks.
      add(code.slice(0, start) + m[1] + STRING_MUTANT + m[1] + code.slice(start + m[0].length), `changes the string ${m[0]} to ${m[1]}${STRING_MUTANT}${m[1]}`);
    }
    // Go and Rust have no value every type takes (nil is not an int's), so their returns are left alone.
    const ret = lang === 'js' ? /^(\s*)return\s+(?!;)(.+?);?\s*$/.exec(code) : lang === 'py' ? /^(\s*)return\s+(.+?)\s*$/.exec(code) : null;
    if (ret) {
      const replacement = lang === 'js' ? 'undefined' : 'None';
      add(`${ret[1]}return ${replacement}${lang === 'js' ? ';' : ''}`, `returns ${replacement} instead of ${ret[2]!.trim().replace(/;$/, '')}`);
    }
    // A whole statement dropped: a call or an assignment on its own line, or a throw/raise. A
    // Rust one only when the line holds all of it: its brackets balanced, and the code before it
    // ending a statement or opening a block (not `let total =` going on onto this line).
    const dropped = STATEMENT[lang].exec(plain);
    const whole = lang !== 'rs' || (balanced(plain) && line.before === '');
    if (dropped && whole && !/^\s*(?:const|let|var)\b/.test(code)) {
      add(`${dropped[1]}${DROPPED[lang]}`, `drops the statement ${code.trim()}`);
    }
  }
  return out;
}
