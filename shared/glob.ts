/**
 * A small glob matcher for the globs test runners take from their configs (vitest `include`, jest
 * `testMatch`, mocha `spec`, pytest `python_files`): `**`, `*`, `?`, `[…]`, `{a,b}` and the
 * extglobs `?(…)`, `*(…)`, `+(…)`, `@(…)`, `!(…)`. Pure, so the browser can use it too; it only
 * decides whether a file name Tilth proposes would be picked up, never lists files.
 */

/** `./test/*.js` and `<rootDir>/test/*.js` both mean `test/*.js` from the project root. */
export function normaliseGlob(glob: string): string {
  return glob
    .trim()
    .replace(/^<rootDir>\//, '')
    .replace(/^(\.\/)+/, '');
}

/** Whether `file` (relative to the root, `/`-separated) matches `glob`. */
export function globMatches(glob: string, file: string): boolean {
  return globToRegExp(glob).test(file);
}

export function globToRegExp(glob: string): RegExp {
  return new RegExp(`^${translate(normaliseGlob(glob))}$`);
}

function translate(glob: string): string {
  let out = '';
  let i = 0;
  while (i < glob.length) {
    const c = glob[i]!;
    const next = glob[i + 1];
    if (c === '*' && next === '*') {
      // `**/` is any number of folders (none included); a trailing `**` is anything below.
      if (glob[i + 2] === '/') {
        out += '(?:[^/]+/)*';
        i += 3;
      } else {
        out += '.*';
        i += 2;
      }
      continue;
    }
    if ('?*+@!'.includes(c) && next === '(') {
      const end = closing(glob, i + 1, '(', ')');
      if (end !== -1) {
        const alternatives = splitTop(glob.slice(i + 2, end), '|')
          .map(translate)
          .join('|');
        out +=
          c === '?'
            ? `(?:${alternatives})?`
            : c === '*'
              ? `(?:${alternatives})*`
              : c === '+'
                ? `(?:${alternatives})+`
                : c === '@'
                  ? `(?:${alternatives})`
                  : '[^/]*';
        i = end + 1;
        continue;
      }
    }
    if (c === '{') {
      const end = closing(glob, i, '{', '}');
      if (end !== -1) {
        out += `(?:${splitTop(glob.slice(i + 1, end), ',')
          .map(translate)
          .join('|')})`;
        i = end + 1;
        continue;
      }
    }
    if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end !== -1) {
        const body = glob
          .slice(i + 1, end)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\');
        out += `[${body}]`;
        i = end + 1;
        continue;
      }
    }
    if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    i++;
  }
  return out;
}

/** The index of the bracket closing the one at `start`, counting nesting; -1 when unbalanced. */
function closing(text: string, start: number, open: string, close: string): number {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    if (text[i] === open) depth++;
    else if (text[i] === close && --depth === 0) return i;
  }
  return -1;
}

/** Splits on `sep` outside any bracket: `a,{b,c}` → [`a`, `{b,c}`]. */
function splitTop(text: string, sep: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '{' || c === '(' || c === '[') depth++;
    else if (c === '}' || c === ')' || c === ']') depth--;
    else if (c === sep && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}
