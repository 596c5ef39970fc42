/**
 * Mutants of the lines a task changed (issue 14, the mutation probe): small, plausible mistakes
 * a test suite that really checks the work would notice — a flipped comparison or operator, a
 * shifted boundary, a swapped return value, a dropped statement, a changed string. Each mutant
 * changes one place of one line; the probe runs the task's tests against it and reports those
 * nobody notices ("no test notices if line 14 returns 0").
 *
 * JavaScript and TypeScript, Python, and Go (issue 29). A reading of lines, not a parse: comments
 * and string contents are skipped where that is easy to see, and a mutant that does not load
 * simply counts as killed — in Go a dropped assignment can leave a variable unused, which does
 * not compile, so such a mutant counts as killed without a test noticing it.
 */

export interface Mutant {
  /** 1-based line in the file. */
  line: number;
  /** What changed, in words. */
  description: string;
  /** The whole file with this one change. */
  source: string;
}

type Language = 'js' | 'py' | 'go';

export function languageOf(file: string): Language | null {
  if (/\.(?:[cm]?[jt]s|[jt]sx)$/.test(file)) return 'js';
  if (file.endsWith('.py')) return 'py';
  // A Go test file is a test, not the work: its mutants would prove nothing about the code.
  if (file.endsWith('.go') && !file.endsWith('_test.go')) return 'go';
  return null;
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
};

const NUMBER = /(?<![\w$.])\d+(?![\w.])/g;
const STRING = /(['"])((?:\\.|(?!\1)[^\\\n])+)\1/g;
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
};

/**
 * Whether `start` lies in an error's message: inside the still-open parentheses of an exception
 * being made or thrown, on this line or opened at the end of the previous one, or a value thrown
 * bare (`throw 'x'`).
 */
function isErrorMessage(code: string, start: number, lang: Language, previous: string): boolean {
  const before = code.slice(0, start);
  if (lang === 'js' && /\bthrow\s+(?![\s\w$(])/.test(before)) return true;
  const text = /\(\s*$/.test(previous) ? `${previous}\n${before}` : before;
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
 * declares, so it is left alone (what follows would not compile without it).
 */
const STATEMENT: Record<Language, RegExp> = {
  js: /^(\s*)(?:throw\b.*|[\w$.[\]]+\s*(?:[-+*/]?=|\().*;)\s*$/,
  py: /^(\s*)(?:raise\b.*|[\w.[\]]+\s*(?:[-+*/]?=(?!=)|\().*)$/,
  go: /^(\s*)(?:panic\(.*|[\w.[\]]+\s*(?:[-+*/]?=(?!=)|\().*)$/,
};
/** What a dropped statement leaves: an empty statement of the language. */
const DROPPED: Record<Language, string> = { js: '/* dropped */;', py: 'pass  # dropped', go: '// dropped' };

/** The mutants of the given lines (1-based) of `source`, at most `limit`, in line order. */
export function mutantsFor(file: string, source: string, lines: readonly number[], limit = 200): Mutant[] {
  const lang = languageOf(file);
  if (lang === null) return [];
  const all = source.split('\n');
  const out: Mutant[] = [];
  const withLine = (n: number, text: string) => all.map((l, i) => (i === n - 1 ? text : l)).join('\n');
  for (const n of [...new Set(lines)].sort((a, b) => a - b)) {
    const text = all[n - 1];
    if (text === undefined || text.trim() === '' || isComment(text, lang)) continue;
    const code = codeOf(text, lang);
    const rest = text.slice(code.length);
    const zones = zonesOf(code, lang);
    // A change inside a string or comment is no change of logic, and one inside a regex's
    // character class (`[0-9<>]`) is one no test of the work would be written against.
    // An error's message is words for a person, not a value a test of the work pins: nothing in
    // the arguments of an error being made is mutated (its concatenations and numbers included).
    const inert = (index: number) => zones.kind[index] === TEXT || zones.kind[index] === REGEX_CLASS || isErrorMessage(code, index, lang, previous);
    const previous = n >= 2 ? codeOf(all[n - 2]!, lang) : '';
    const add = (newCode: string, description: string) => {
      if (newCode !== code && out.length < limit) out.push({ line: n, description, source: withLine(n, newCode + rest) });
    };
    // Imports, exports of names and declarations without logic are left alone, and so is a
    // directive ('use strict'): no test of the work could tell it was changed.
    if (/^\s*(?:import\b|from\s+\S+\s+import\b|export\s*\{|\}\s*from\b)/.test(code)) continue;
    if (lang === 'js' && /^\s*(['"])use [\w ]+\1;?\s*$/.test(code)) continue;
    // Go's package clause and imports (an import block's lines are a path, maybe named).
    if (lang === 'go' && /^\s*(?:package\s|import\b|(?:[\w.]+\s+)?"[^"]*"\s*$)/.test(code)) continue;

    for (const [pattern, to, words] of SWAPS[lang]) {
      for (const m of code.matchAll(pattern)) {
        if (inert(m.index)) continue;
        add(code.slice(0, m.index) + to + code.slice(m.index + m[0].length), words);
      }
    }
    for (const m of code.matchAll(NUMBER)) {
      if (inert(m.index)) continue;
      const value = Number(m[0]);
      add(code.slice(0, m.index) + String(value + 1) + code.slice(m.index + m[0].length), `turns ${value} into ${value + 1}`);
    }
    for (const m of code.matchAll(STRING)) {
      if (!zones.stringStarts.has(m.index) || isErrorMessage(code, m.index, lang, previous)) continue;
      // In Go single quotes make a rune, which cannot hold a word.
      if (lang === 'go' && m[1] === "'") continue;
      // Another value, not an empty one: an empty string is often the case a test already checks.
      add(
        code.slice(0, m.index) + m[1] + STRING_MUTANT + m[1] + code.slice(m.index + m[0].length),
        `changes the string ${m[0]} to ${m[1]}${STRING_MUTANT}${m[1]}`,
      );
    }
    // Go has no value every type takes (nil is not an int's), so its returns are left alone.
    const ret = lang === 'js' ? /^(\s*)return\s+(?!;)(.+?);?\s*$/.exec(code) : lang === 'py' ? /^(\s*)return\s+(.+?)\s*$/.exec(code) : null;
    if (ret) {
      const replacement = lang === 'js' ? 'undefined' : 'None';
      add(`${ret[1]}return ${replacement}${lang === 'js' ? ';' : ''}`, `returns ${replacement} instead of ${ret[2]!.trim().replace(/;$/, '')}`);
    }
    // A whole statement dropped: a call or an assignment on its own line, or a throw/raise.
    const dropped = STATEMENT[lang].exec(code);
    if (dropped && !/^\s*(?:const|let|var)\b/.test(code)) {
      add(`${dropped[1]}${DROPPED[lang]}`, `drops the statement ${code.trim()}`);
    }
  }
  return out;
}
