/**
 * Reading one setting out of a project's config file without running it. Config files are the
 * repository's code (a `vitest.config.ts` may import anything), so Tilth never executes them: it
 * takes a value only when it is written as a literal — a string or an array of strings — and
 * otherwise says it does not know, and the runner's default applies.
 */

type Token = { kind: 'string'; value: string } | { kind: 'word'; value: string } | { kind: 'punct'; value: string };

/**
 * The literal at `keys` in a JS/TS config: `['test', 'include']` finds `include` inside the
 * object under `test` (as in `defineConfig({ test: { include: [...] } })`), and never the
 * `include` of `test.coverage`. `[]` keys means the outermost object (`module.exports = {…}`).
 * Returns null when the key is absent or its value is not a plain string or string array.
 */
export function jsLiteral(source: string, keys: string[]): string[] | null {
  const tokens = tokenize(source);
  // One entry per open bracket: the key it is the value of ('' for an array or a call).
  const stack: string[] = [];
  // The key whose value starts at token `valueAt` (a `{` there opens that key's object).
  let pending: { key: string; valueAt: number } | null = null;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const next = tokens[i + 1];
    if ((t.kind === 'word' || t.kind === 'string') && next?.kind === 'punct' && next.value === ':' && stack.at(-1) !== '[') {
      const path = stack.filter((k) => k !== '{}');
      if (t.value === keys.at(-1) && sameKeys(path, keys.slice(0, -1))) return literalAt(tokens, i + 2);
      pending = { key: t.value, valueAt: i + 2 };
      i++;
      continue;
    }
    if (t.kind !== 'punct') continue;
    if (t.value === '{') stack.push(pending?.valueAt === i ? pending.key : '{}');
    else if (t.value === '[') stack.push('[');
    else if (t.value === '(') stack.push('{}');
    else if (t.value === '}' || t.value === ']' || t.value === ')') stack.pop();
  }
  return null;
}

function sameKeys(path: string[], keys: string[]): boolean {
  return path.length === keys.length && path.every((k, i) => k === keys[i]);
}

function literalAt(tokens: Token[], start: number): string[] | null {
  const first = tokens[start];
  if (first?.kind === 'string') {
    const after = tokens[start + 1];
    return after === undefined || (after.kind === 'punct' && [',', '}', ';'].includes(after.value)) ? [first.value] : null;
  }
  if (first?.kind !== 'punct' || first.value !== '[') return null;
  const values: string[] = [];
  for (let i = start + 1; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.kind === 'punct' && t.value === ']') return values;
    if (t.kind === 'punct' && t.value === ',') continue;
    if (t.kind !== 'string') return null; // a variable, a spread, a call: not a literal
    values.push(t.value);
  }
  return null;
}

/** Strings (quotes and templates without `${}`), words and punctuation; comments dropped. */
function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '/' && source[i + 1] === '/') {
      const end = source.indexOf('\n', i);
      i = end === -1 ? source.length : end;
    } else if (c === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2);
      i = end === -1 ? source.length : end + 2;
    } else if (c === '"' || c === "'" || c === '`') {
      let value = '';
      let j = i + 1;
      let interpolated = false;
      while (j < source.length && source[j] !== c) {
        if (source[j] === '\\') {
          value += source[j + 1] ?? '';
          j += 2;
          continue;
        }
        if (c === '`' && source[j] === '$' && source[j + 1] === '{') interpolated = true;
        value += source[j];
        j++;
      }
      tokens.push(interpolated ? { kind: 'word', value: '`…`' } : { kind: 'string', value });
      i = j + 1;
    } else if (/[\w$]/.test(c)) {
      let j = i;
      while (j < source.length && /[\w$]/.test(source[j]!)) j++;
      tokens.push({ kind: 'word', value: source.slice(i, j) });
      i = j;
    } else {
      tokens.push({ kind: 'punct', value: c });
      i++;
    }
  }
  return tokens;
}

/** The lines of `[section]` in an INI or TOML file, up to the next section header. */
/** A table header, `[name]` or TOML's array of tables `[[name]]`, with a comment after it or not. */
const HEADER = /^\s*(\[\[?)\s*([^[\]#]+?)\s*\]\]?\s*(?:#.*)?$/;

function sectionLines(text: string, section: string): string[] | null {
  const lines = text.split(/\r?\n/);
  const start = lines.findIndex((l) => {
    const header = HEADER.exec(l);
    return header?.[1] === '[' && header[2] === section;
  });
  if (start === -1) return null;
  const rest = lines.slice(start + 1);
  // Any header ends the section, `[[bin]]` included: its keys are not the section's.
  const end = rest.findIndex((l) => HEADER.test(l));
  return end === -1 ? rest : rest.slice(0, end);
}

export function hasSection(text: string, section: string): boolean {
  return sectionLines(text, section) !== null;
}

/** `key = "x"` or `key = ["x", "y"]` (arrays may span lines) in a TOML `[section]`. */
export function tomlStrings(text: string, section: string, key: string): string[] | null {
  const lines = sectionLines(text, section);
  if (!lines) return null;
  const at = lines.findIndex((l) => new RegExp(`^\\s*${key}\\s*=`).test(l));
  if (at === -1) return null;
  const uncomment = (line: string) => line.replace(/\s*#[^"']*$/, '').trim();
  let value = uncomment(lines[at]!.replace(/^[^=]*=/, ''));
  for (let i = at + 1; value.startsWith('[') && !value.includes(']') && i < lines.length; i++) value += ` ${uncomment(lines[i]!)}`;
  const strings = [...value.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'/g)].map((m) => m[1] ?? m[2] ?? '');
  return strings.length > 0 ? strings : null;
}

/**
 * The name a Rust test writes in `use name::…` for a Cargo.toml's library: `[lib] name`, else the
 * `[package]` name, `-` read as `_`; null with neither (a virtual workspace manifest).
 */
export function rustImportName(cargoToml: string): string | null {
  const name = tomlStrings(cargoToml, 'lib', 'name')?.[0] ?? tomlStrings(cargoToml, 'package', 'name')?.[0];
  return name ? name.replaceAll('-', '_') : null;
}

/** `key = a b` (values split on whitespace, continuation lines included) in an INI `[section]`. */
export function iniWords(text: string, section: string, key: string): string[] | null {
  const lines = sectionLines(text, section);
  if (!lines) return null;
  const at = lines.findIndex((l) => new RegExp(`^${key}\\s*[=:]`).test(l));
  if (at === -1) return null;
  const parts = [lines[at]!.replace(/^[^=:]*[=:]/, '')];
  for (let i = at + 1; i < lines.length && /^\s+\S/.test(lines[i]!); i++) parts.push(lines[i]!);
  const words = parts.join(' ').split(/\s+/).filter(Boolean);
  return words.length > 0 ? words : null;
}

/** A top-level YAML key whose value is a scalar or a block/flow list of scalars. */
export function yamlStrings(text: string, key: string): string[] | null {
  const lines = text.split(/\r?\n/);
  const at = lines.findIndex((l) => new RegExp(`^${key}\\s*:`).test(l));
  if (at === -1) return null;
  const inline = lines[at]!.replace(/^[^:]*:/, '')
    .replace(/\s+#.*$/, '')
    .trim();
  const unquote = (s: string) => s.trim().replace(/^(['"])(.*)\1$/, '$2');
  if (inline.startsWith('['))
    return inline
      .replace(/^\[|\]$/g, '')
      .split(',')
      .map(unquote)
      .filter(Boolean);
  if (inline !== '') return [unquote(inline)];
  const items: string[] = [];
  for (let i = at + 1; i < lines.length; i++) {
    const item = /^\s+-\s+(.*)$/.exec(lines[i]!);
    if (!item) break;
    items.push(unquote(item[1]!.replace(/\s+#.*$/, '')));
  }
  return items.length > 0 ? items : null;
}

/** JSON with line and block comments and trailing commas (tsconfig, .mocharc.jsonc); null when unreadable. */
export function parseJsonc(text: string): unknown {
  const stripped = tokenizeJsonc(text);
  try {
    return JSON.parse(stripped) as unknown;
  } catch {
    return null;
  }
}

function tokenizeJsonc(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end === -1 ? text.length : end + 1;
    } else {
      out += c;
    }
  }
  return out.replace(/,(\s*[}\]])/g, '$1');
}
