/**
 * Mutants of the lines a task changed (issue 14, the mutation probe): small, plausible mistakes
 * a test suite that really checks the work would notice — a flipped comparison or operator, a
 * shifted boundary, a swapped return value, a dropped statement, a changed string. Each mutant
 * changes one place of one line; the probe runs the task's tests against it and reports those
 * nobody notices ("no test notices if line 14 returns 0").
 *
 * A reading of lines, not a parse: comments and string contents are skipped where that is easy
 * to see, and a mutant that does not load simply counts as killed.
 */

export interface Mutant {
  /** 1-based line in the file. */
  line: number;
  /** What changed, in words. */
  description: string;
  /** The whole file with this one change. */
  source: string;
}

type Language = 'js' | 'py';

export function languageOf(file: string): Language | null {
  if (/\.(?:[cm]?[jt]s|[jt]sx)$/.test(file)) return 'js';
  if (file.endsWith('.py')) return 'py';
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
};

const NUMBER = /(?<![\w$.])\d+(?![\w.])/g;
const STRING = /(['"])((?:\\.|(?!\1)[^\\\n])+)\1/g;
const STRING_MUTANT = 'mutant';

function isComment(text: string, lang: Language): boolean {
  const t = text.trim();
  return lang === 'js' ? t.startsWith('//') || t.startsWith('*') || t.startsWith('/*') : t.startsWith('#');
}

/** Where the code part of a line ends (before a trailing comment), roughly. */
function codeOf(text: string, lang: Language): string {
  const marker = lang === 'js' ? /\s\/\/\s/ : /\s#\s/;
  const m = marker.exec(text);
  return m ? text.slice(0, m.index) : text;
}

/** Outside string literals: a swap inside a string is not a change of logic. */
function inString(code: string, index: number): boolean {
  let quote: string | null = null;
  for (let i = 0; i < index; i++) {
    const c = code[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'" || c === '`') quote = c;
  }
  return quote !== null;
}

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
    const add = (newCode: string, description: string) => {
      if (newCode !== code && out.length < limit) out.push({ line: n, description, source: withLine(n, newCode + rest) });
    };
    // Imports, exports of names and declarations without logic are left alone.
    if (/^\s*(?:import\b|from\s+\S+\s+import\b|export\s*\{|\}\s*from\b)/.test(code)) continue;

    for (const [pattern, to, words] of SWAPS[lang]) {
      for (const m of code.matchAll(pattern)) {
        if (inString(code, m.index)) continue;
        add(code.slice(0, m.index) + to + code.slice(m.index + m[0].length), words);
      }
    }
    for (const m of code.matchAll(NUMBER)) {
      if (inString(code, m.index)) continue;
      const value = Number(m[0]);
      add(code.slice(0, m.index) + String(value + 1) + code.slice(m.index + m[0].length), `turns ${value} into ${value + 1}`);
    }
    for (const m of code.matchAll(STRING)) {
      if (inString(code, m.index)) continue;
      // Another value, not an empty one: an empty string is often the case a test already checks.
      add(
        code.slice(0, m.index) + m[1] + STRING_MUTANT + m[1] + code.slice(m.index + m[0].length),
        `changes the string ${m[0]} to ${m[1]}${STRING_MUTANT}${m[1]}`,
      );
    }
    const ret = lang === 'js' ? /^(\s*)return\s+(?!;)(.+?);?\s*$/.exec(code) : /^(\s*)return\s+(.+?)\s*$/.exec(code);
    if (ret) {
      const replacement = lang === 'js' ? 'undefined' : 'None';
      add(`${ret[1]}return ${replacement}${lang === 'js' ? ';' : ''}`, `returns ${replacement} instead of ${ret[2]!.trim().replace(/;$/, '')}`);
    }
    // A whole statement dropped: a call or an assignment on its own line, or a throw/raise.
    const statement = lang === 'js' ? /^(\s*)(?:throw\b.*|[\w$.[\]]+\s*(?:[-+*/]?=|\().*;)\s*$/ : /^(\s*)(?:raise\b.*|[\w.[\]]+\s*(?:[-+*/]?=(?!=)|\().*)$/;
    const dropped = statement.exec(code);
    if (dropped && !/^\s*(?:const|let|var)\b/.test(code)) {
      add(lang === 'js' ? `${dropped[1]}/* dropped */;` : `${dropped[1]}pass  # dropped`, `drops the statement ${code.trim()}`);
    }
  }
  return out;
}
