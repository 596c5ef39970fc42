/**
 * The test machinery (issue 28, item 4): the files that decide how the acceptance tests run, so
 * that a worker which cannot make the code pass cannot make the tests pass instead. Locked like
 * the acceptance tests, from the session's base commit on (the seed commits only add test files,
 * so the base holds the seed's version of every one of these).
 *
 * Which files, from each runner's documentation:
 * - pytest: `conftest.py` anywhere (hooks such as `pytest_runtest_makereport` rewrite outcomes);
 *   `pytest.ini`/`.pytest.ini`/`pytest.toml`/`.pytest.toml` whole; the `[pytest]` section of
 *   `tox.ini`, `[tool:pytest]` of `setup.cfg`, the `tool.pytest` tables of `pyproject.toml`; the
 *   plugin modules those settings name (`-p name` in addopts) and `pytest_plugins` in a conftest.
 * - Python itself: `sitecustomize.py`, `usercustomize.py` and `*.pth` anywhere (the worktree is on
 *   PYTHONPATH, and a venv's site-packages reads `.pth` lines that start with `import`), and the
 *   `__init__.py` of the acceptance tests' folders (imported before the test module).
 * - vitest: `vitest.config.*`, `vitest.workspace.*`, `vitest.projects.*`, and `vite.config.*`
 *   whole — a JS config is code, so its `test` section can be built from anything in the file.
 * - jest: `jest.config.*`; babel-jest's `.babelrc*`/`babel.config.*`; `.swcrc` for @swc/jest.
 * - mocha: `.mocharc*` (cjs, js, mjs, yaml, yml, jsonc, json). ava: `ava.config.*`. nyc/c8:
 *   `.nycrc*`, `.c8rc*` (nyc's `require` loads modules into the run).
 * - npm: `.npmrc` (`node-options` reaches every script it runs), and `package.json`'s `scripts`
 *   and runner sections (`jest`, `mocha`, `ava`, `c8`, `nyc`, `vitest`, `babel`), compared as
 *   parsed JSON so a dependency added to the same file is not a change.
 * - go: `go.work` whole; `go.mod`'s `replace` and `toolchain` directives; a `_test.go` file with a
 *   `TestMain` (which decides how its package's tests run and what the binary prints and exits
 *   with); and the files under a `testdata/` folder that the seed has (fixtures and golden files
 *   the tests compare with; new ones are the worker's).
 * - cargo: `build.rs` (a build script runs before the tests compile, with the worktree writable:
 *   it could rewrite them), `.cargo/config` and `.cargo/config.toml` anywhere (`[target.*].runner`
 *   wraps every test binary; `[env]`, rustflags), `rust-toolchain`/`rust-toolchain.toml`, and
 *   Cargo.toml's `[[test]]` targets (`harness = false` swaps libtest for the file's own `main`),
 *   `[patch.*]`/`[replace]` (a dependency's code swapped), `[profile.*]`, and `[package]`'s
 *   `build`/`autotests` keys; its dependencies are the worker's to add.
 * - bun: `bunfig.toml` (`[test] preload` runs a module before every test file, where it could
 *   replace `expect`). deno: `deno.json`/`deno.jsonc` (an import map can point the tests' imports,
 *   the code under test or `@std/assert`, at other files). Both run through the custom preset.
 * - Every setup, require or plugin file those configs name, read from the config: JSON configs
 *   and package.json parsed; YAML and JS/TS configs read best-effort (YAML line by line; for a JS
 *   config, its string literals, since running it to learn its value would run the worker's code).
 *
 * Not included: `tsconfig.json`. vitest transforms with esbuild and jest with babel-jest or
 * ts-jest; none of them resolves imports by `compilerOptions.paths` unless a plugin or a
 * `moduleNameMapper` in their own (locked) config says so, so a tsconfig change can break the
 * build but cannot make a failing assertion pass. Also not followed: files a setup file itself
 * imports, and a virtualenv or `node_modules` inside the worktree (the installer writes `.pth`
 * files there, and Tilth cannot tell those from the worker's).
 */
import fs from 'node:fs';
import path from 'node:path';
import { git, readBlobs } from '../git/git-base.ts';

/** How a machinery file is compared: whole, or only the part of it that configures the tests. */
export type MachineryKind =
  | 'whole'
  | 'package_json'
  | 'pyproject'
  | 'setup_cfg'
  | 'tox_ini'
  | 'entry_points'
  | 'go_mod'
  | 'go_test'
  | 'testdata'
  | 'cargo_toml';

export interface MachineryChange {
  path: string;
  change: 'changed' | 'added' | 'deleted';
}

const WHOLE_NAMES = new Set([
  'conftest.py',
  'sitecustomize.py',
  'usercustomize.py',
  'pytest.ini',
  '.pytest.ini',
  'pytest.toml',
  '.pytest.toml',
  '.mocharc',
  '.babelrc',
  '.nycrc',
  '.c8rc',
  '.swcrc',
  '.npmrc',
  'go.work',
  'build.rs',
  'rust-toolchain',
  'rust-toolchain.toml',
  'bunfig.toml',
  'deno.json',
  'deno.jsonc',
  '.taprc',
]);
/** `<stem>.<anything>`: vitest.config.ts, jest.config.mjs, .mocharc.yml, … */
const WHOLE_STEMS = [
  'vitest.config.',
  'vitest.workspace.',
  'vitest.projects.',
  'vite.config.',
  'jest.config.',
  'ava.config.',
  '.taprc.',
  '.mocharc.',
  '.babelrc.',
  'babel.config.',
  '.nycrc.',
  '.c8rc.',
];
const SECTION_NAMES: Record<string, MachineryKind> = {
  'package.json': 'package_json',
  'pyproject.toml': 'pyproject',
  'setup.cfg': 'setup_cfg',
  'tox.ini': 'tox_ini',
};
/** package.json's sections that decide how tests run. */
const PACKAGE_SECTIONS = ['scripts', 'jest', 'mocha', 'ava', 'tap', 'c8', 'nyc', 'vitest', 'babel'];
/** Folders never walked: git's, installed packages (linked from the checkout, read-only). */
const SKIPPED_DIRS = new Set(['.git', 'node_modules']);

/** Whether a path is machinery by its name alone, and how it is compared; null when it is not. */
export function machineryKind(rel: string): MachineryKind | null {
  const name = path.posix.basename(rel);
  if (rel.split('/').some((part) => SKIPPED_DIRS.has(part))) return null;
  if (WHOLE_NAMES.has(name) || name.endsWith('.pth')) return 'whole';
  if (WHOLE_STEMS.some((stem) => name.startsWith(stem))) return 'whole';
  if (path.posix.basename(path.posix.dirname(rel)) === '.cargo' && (name === 'config' || name === 'config.toml')) return 'whole';
  // A distribution's metadata on the path: pytest loads the `pytest11` plugins it names.
  if (name === 'entry_points.txt' && /\.(dist|egg)-info$/.test(path.posix.dirname(rel))) return 'entry_points';
  if (name === 'Cargo.toml') return 'cargo_toml';
  if (name === 'go.mod') return 'go_mod';
  if (name.endsWith('_test.go')) return 'go_test';
  if (rel.split('/').slice(0, -1).includes('testdata')) return 'testdata';
  return SECTION_NAMES[name] ?? null;
}

/**
 * The modules a Python run of the checks imports (proof/python-runner-modules.ts) and the worktree
 * folders ahead of them on its path: a module of that name in one of those folders is imported
 * in place of the runner's, so it is machinery.
 */
export interface ShadowRule {
  /** Relative folders, `''` for the root. */
  folders: readonly string[];
  modules: ReadonlySet<string>;
}

const MODULE_FILE = /^([^.]+)\.(py|pyc|so|pyd)$|^([^.]+)\.[^.]+\.(so|pyd)$/;

/**
 * The runner's module that `rel` would stand in for: a `<name>.py` (or compiled module) in one of
 * the rule's folders, or any file of a `<name>/` package there (one with an `__init__.py`; a folder
 * without is a namespace portion, which never wins over a real module). Null when it stands in
 * for none.
 */
export function shadowedModule(rel: string, rule: ShadowRule | undefined, hasFile: (rel: string) => boolean): string | null {
  if (!rule) return null;
  for (const folder of rule.folders) {
    const prefix = folder === '' ? '' : `${folder}/`;
    if (!rel.startsWith(prefix)) continue;
    const rest = rel.slice(prefix.length);
    const slash = rest.indexOf('/');
    if (slash < 0) {
      const m = MODULE_FILE.exec(rest);
      const name = m?.[1] ?? m?.[3];
      if (name !== undefined && rule.modules.has(name)) return name;
      continue;
    }
    const name = rest.slice(0, slash);
    const init = `${prefix}${name}/__init__.py`;
    if (rule.modules.has(name) && (rel === init || hasFile(init))) return name;
  }
  return null;
}

/** The text a file is compared by: the whole content, or only its test sections (missing file: ''). */
export function machineryPart(kind: MachineryKind, content: Buffer | null): string | null {
  if (kind === 'whole' || kind === 'testdata') return content === null ? null : content.toString('latin1');
  const text = content?.toString('utf8') ?? '';
  switch (kind) {
    case 'go_mod':
      return goModDirectives(text);
    case 'cargo_toml':
      return cargoTestTables(text);
    case 'go_test':
      // Only a test file with a TestMain runs the package's tests its own way (and can exit 0 or
      // print test2json's lines after they ran); any other test file is the worker's to write.
      return /^func TestMain\(/m.test(text) ? text : '';
    case 'package_json':
      return packageSections(text);
    case 'pyproject':
      return pyprojectPytest(text);
    case 'setup_cfg':
      return iniSection(text, 'tool:pytest');
    case 'tox_ini':
      return iniSection(text, 'pytest');
    case 'entry_points':
      return iniSection(text, 'pytest11');
  }
}

/**
 * go.mod's directives that change what builds rather than what is required: `replace` (a
 * dependency's code swapped for a folder the worker writes, a testing library that never fails)
 * and `toolchain`, in their single-line and block forms, comments dropped.
 */
function goModDirectives(text: string): string {
  const kept: string[] = [];
  let block: string | null = null;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    if (block !== null) {
      if (line === ')') block = null;
      else if (line !== '') kept.push(`${block} ${line}`);
      continue;
    }
    const open = /^(replace|toolchain)\s*\($/.exec(line);
    if (open) block = open[1]!;
    else if (/^(?:replace|toolchain)\s/.test(line)) kept.push(line.replace(/\s+/g, ' '));
  }
  return kept.join('\n');
}

/** Cargo.toml's tables that decide how the tests build and run (see the module's doc), comments and blank lines dropped. */
function cargoTestTables(text: string): string {
  const kept: string[] = [];
  let table = '';
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\s+#.*$|^\s*#.*$/, '').trim();
    const header = /^\[\[?\s*([^\]]+?)\s*\]\]?$/.exec(line);
    if (header) table = line.startsWith('[[') ? `[[${header[1]}]]` : header[1]!;
    if (line === '') continue;
    const whole = table === '[[test]]' || table === 'replace' || /^(?:patch|profile)(?:\.|$)/.test(table);
    if (whole || (table === 'package' && /^(?:build|autotests)\s*=/.test(line))) kept.push(header ? line : `${table}: ${line}`);
  }
  return kept.join('\n');
}

function packageSections(text: string): string {
  if (text.trim() === '') return '';
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text; // not JSON: any change counts
  }
  if (!isRecord(parsed)) return text;
  const picked: Record<string, unknown> = {};
  for (const key of PACKAGE_SECTIONS) if (key in parsed) picked[key] = parsed[key];
  return canonical(picked);
}

/** JSON with object keys sorted, so reordering keys is not a change. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isRecord(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The meaningful lines (trimmed, no blanks or comments) of an INI section. */
function iniSection(text: string, section: string): string {
  const out: string[] = [];
  let inside = false;
  for (const raw of text.split(/\r?\n/)) {
    const header = /^\s*\[([^\]]+)\]\s*$/.exec(raw);
    if (header) {
      inside = header[1]!.trim() === section;
      if (inside) out.push(`[${section}]`);
      continue;
    }
    const line = raw.trim();
    if (inside && line !== '' && !line.startsWith('#') && !line.startsWith(';')) out.push(line);
  }
  return out.join('\n');
}

/**
 * pyproject.toml's pytest settings, read best-effort without a TOML parser: the tables named
 * `tool.pytest` or `tool.pytest.*`, the `pytest…` keys of a `[tool]` table, and dotted
 * `tool.pytest…` keys before any table.
 */
function pyprojectPytest(text: string): string {
  const out: string[] = [];
  let table = '';
  for (const raw of text.split(/\r?\n/)) {
    const header = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/.exec(raw);
    if (header) {
      table = header[1]!.replace(/["'\s]/g, '');
      if (table === 'tool.pytest' || table.startsWith('tool.pytest.')) out.push(`[${table}]`);
      continue;
    }
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const key = line.replace(/["'\s]/g, '');
    if (table === 'tool.pytest' || table.startsWith('tool.pytest.')) out.push(line);
    else if (table === 'tool' && key.startsWith('pytest')) out.push(`tool: ${line}`);
    else if (table === '' && key.startsWith('tool.pytest')) out.push(line);
  }
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Files the configs name

/** Keys of a parsed runner config whose values name files that run with the tests. */
const FILE_KEYS = new Set([
  'require',
  'file',
  'setupFiles',
  'setupFilesAfterEnv',
  'globalSetup',
  'globalTeardown',
  'testEnvironment',
  'snapshotResolver',
  'testRunner',
  'testSequencer',
  'transform',
  'moduleNameMapper',
  'resolver',
  'reporters',
  'reporter',
  'ui',
  'plugins',
  'presets',
  'preset',
  'node-option',
  'nodeArguments',
  'workspace',
  'projects',
  'config',
  'package',
  'extends',
]);
const RESOLVE_EXTENSIONS = ['', '.js', '.cjs', '.mjs', '.ts', '.cts', '.mts', '.jsx', '.tsx', '.json', '.py', '/index.js', '/index.ts', '/__init__.py'];
const JS_EXT = /\.(c|m)?(j|t)sx?$/;

/** A tree to read machinery from: the base commit's, or the worktree as it is now. */
export interface TreeView {
  /** Every file's path, relative, with `/`. */
  files: ReadonlySet<string>;
  read(rel: string): Buffer | null;
  /** Fetches these files first, so `read` stays synchronous (a commit's blobs come from git in one batch). */
  preload?(names: string[]): Promise<void>;
}

/** Every string value under a FILE_KEYS key (any depth) of a parsed config; all of them for `scripts`. */
function namedStrings(value: unknown, keyed: boolean, out: string[]): void {
  if (typeof value === 'string') {
    if (keyed) out.push(...value.split(/[\s=]+/));
  } else if (Array.isArray(value)) {
    for (const v of value) namedStrings(v, keyed, out);
  } else if (isRecord(value)) {
    for (const [k, v] of Object.entries(value)) namedStrings(v, keyed || FILE_KEYS.has(k), out);
  }
}

/** JSON with `//` and `/* *\/` comments (mocharc.jsonc, .babelrc) parsed; null when it is not. */
function parseJsonc(text: string): unknown {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '"') {
      const start = i;
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      out += text.slice(start, i + 1);
    } else if (ch === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (ch === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
    } else out += ch;
  }
  try {
    return JSON.parse(out.replace(/,(\s*[}\]])/g, '$1'));
  } catch {
    return null;
  }
}

/** Candidate file names a config mentions (not yet resolved). */
function mentionedNames(rel: string, text: string): { paths: string[]; modules: string[] } {
  const name = path.posix.basename(rel);
  const paths: string[] = [];
  const modules: string[] = [];
  if (name === 'package.json') {
    const parsed = parseJsonc(text);
    if (isRecord(parsed)) for (const key of PACKAGE_SECTIONS) if (key in parsed) namedStrings(parsed[key], true, paths);
  } else if (name === 'conftest.py') {
    const plugins = /^pytest_plugins\s*=\s*(\[[^\]]*\]|\([^)]*\)|(['"])[^'"]*\2)/m.exec(text);
    if (plugins) for (const m of plugins[1]!.matchAll(/['"]([^'"]+)['"]/g)) modules.push(m[1]!);
  } else if (/^(\.?pytest\.(ini|toml)|tox\.ini|setup\.cfg|pyproject\.toml)$/.test(name)) {
    const section =
      name === 'tox.ini'
        ? iniSection(text, 'pytest')
        : name === 'setup.cfg'
          ? iniSection(text, 'tool:pytest')
          : name === 'pyproject.toml'
            ? pyprojectPytest(text)
            : text;
    const tokens = section.split(/[\s"',[\]=]+/).filter(Boolean);
    tokens.forEach((token, i) => {
      if (token === '-p' && tokens[i + 1]) modules.push(tokens[i + 1]!);
      else if (token.startsWith('-p') && token.length > 2) modules.push(token.slice(2));
      else paths.push(token);
    });
  } else if (/\.ya?ml$/.test(name)) {
    // Best-effort YAML: `key: value` and `- item` lines under a file-naming key.
    let key = '';
    for (const line of text.split(/\r?\n/)) {
      const pair = /^\s*['"]?([\w-]+)['"]?\s*:\s*(.*)$/.exec(line);
      const item = /^\s*-\s+(.*)$/.exec(line);
      if (pair) {
        key = pair[1]!;
        if (FILE_KEYS.has(key) && pair[2]) paths.push(...unquoteYaml(pair[2]));
      } else if (item && FILE_KEYS.has(key)) paths.push(...unquoteYaml(item[1]!));
    }
  } else if (JS_EXT.test(name)) {
    // Best-effort: a JS/TS config is code, so every plain string literal in it is a candidate.
    for (const m of text.matchAll(/(['"`])((?:\\.|(?!\1)[^\\\n])*)\1/g)) if (!m[2]!.includes('${')) paths.push(m[2]!);
  } else {
    const parsed = parseJsonc(text);
    if (parsed !== null) namedStrings(parsed, false, paths);
    else for (const m of text.matchAll(/["']([^"'\n]+)["']/g)) paths.push(m[1]!);
  }
  return { paths, modules };
}

function unquoteYaml(value: string): string[] {
  const v = value.replace(/\s+#.*$/, '').trim();
  if (v.startsWith('['))
    return v
      .slice(1, -1)
      .split(',')
      .map((s) => s.trim().replace(/^['"]|['"]$/g, ''));
  return [v.replace(/^['"]|['"]$/g, '')];
}

/** The files of `files` a mention can mean, relative to the config's folder or the root. */
function resolveMention(mention: string, configDir: string, files: ReadonlySet<string>): string[] {
  const cleaned = mention.replace(/^<rootDir>\//, '').replace(/^file:/, '');
  if (cleaned === '' || cleaned.length > 300 || /[*?{}\s]/.test(cleaned) || path.posix.isAbsolute(cleaned)) return [];
  const found: string[] = [];
  for (const base of new Set([path.posix.normalize(path.posix.join(configDir, cleaned)), path.posix.normalize(cleaned)])) {
    if (base.startsWith('..')) continue;
    for (const ext of RESOLVE_EXTENSIONS) {
      const candidate = `${base}${ext}`;
      if (files.has(candidate)) {
        found.push(candidate);
        break;
      }
    }
  }
  return found;
}

/** `a.b` → `a/b.py` or `a/b/__init__.py`, under the root, `src` or the config's folder. */
function resolveModule(module: string, configDir: string, files: ReadonlySet<string>): string[] {
  if (!/^[A-Za-z_][\w.]*$/.test(module)) return [];
  const rel = module.split('.').join('/');
  const found: string[] = [];
  for (const dir of new Set(['', 'src', configDir])) {
    for (const candidate of [`${rel}.py`, `${rel}/__init__.py`]) {
      const p = path.posix.normalize(path.posix.join(dir, candidate));
      if (files.has(p)) found.push(p);
    }
  }
  return found;
}

/** The files the configs in `view` name (setup, require, plugin files), resolved in `files`. */
function namedFiles(view: TreeView, files: ReadonlySet<string>): Set<string> {
  const named = new Set<string>();
  for (const rel of view.files) {
    if (!machineryKind(rel)) continue;
    const name = path.posix.basename(rel);
    if (name === 'sitecustomize.py' || name === 'usercustomize.py' || name.endsWith('.pth') || name === '.npmrc') continue;
    const content = view.read(rel);
    if (content === null) continue;
    const dir = path.posix.dirname(rel) === '.' ? '' : path.posix.dirname(rel);
    const { paths, modules } = mentionedNames(rel, content.toString('utf8'));
    for (const p of paths) for (const f of resolveMention(p, dir, files)) named.add(f);
    for (const m of modules) for (const f of resolveModule(m, dir, files)) named.add(f);
  }
  return named;
}

/** The `__init__.py` of each folder above the acceptance tests (they load before the test module). */
function testPackageInits(lockedTests: readonly string[]): string[] {
  const inits = new Set<string>();
  for (const test of lockedTests) {
    const parts = test.split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) inits.add(`${parts.slice(0, i).join('/')}/__init__.py`);
  }
  return [...inits];
}

// ---------------------------------------------------------------------------------------------
// The two trees

/** The commit's tree in `repo` (a session's source repository shares its objects with the worktree). */
export async function commitView(repo: string, rev: string): Promise<TreeView> {
  const out = await git(repo).raw(['ls-tree', '-r', '-z', '--full-tree', rev]);
  const files = new Set<string>();
  const links = new Set<string>();
  for (const entry of out.split('\0')) {
    const tab = entry.indexOf('\t');
    if (tab < 0) continue;
    const [mode, type] = entry.slice(0, tab).split(' ');
    if (type !== 'blob') continue;
    const rel = entry.slice(tab + 1);
    files.add(rel);
    if (mode === '120000') links.add(rel);
  }
  const cache = new Map<string, Buffer | null>();
  return {
    files,
    read: (rel) => cache.get(rel) ?? null,
    preload: (names) => loadBlobs(repo, rev, names, links, cache),
  };
}

async function loadBlobs(repo: string, rev: string, names: string[], links: Set<string>, cache: Map<string, Buffer | null>): Promise<void> {
  const wanted = names.filter((n) => !cache.has(n));
  const blobs = await readBlobs(
    repo,
    wanted.map((n) => `${rev}:${n}`),
  );
  wanted.forEach((n, i) => {
    const blob = blobs[i] ?? null;
    cache.set(n, blob !== null && links.has(n) ? Buffer.concat([Buffer.from('\0symlink:'), blob]) : blob);
  });
}

/** A folder that is a virtualenv: its site-packages `.pth` files are the installer's. */
function isVenv(dir: string): boolean {
  return fs.existsSync(path.join(dir, 'pyvenv.cfg'));
}

/**
 * The worktree as it is now, walked without following links (a link is content of its own), with
 * the folders of installed packages it holds and the walk skips (`node_modules`, virtualenvs).
 */
export function worktreeView(worktree: string): TreeView & { dependencyDirs: string[] } {
  const files = new Set<string>();
  const dependencyDirs: string[] = [];
  const walk = (dir: string, rel: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const childRel = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (e.name === '.git') continue;
        if (e.name === 'node_modules' || isVenv(path.join(dir, e.name))) {
          dependencyDirs.push(childRel);
          continue;
        }
        walk(path.join(dir, e.name), childRel);
      } else files.add(childRel);
    }
  };
  walk(worktree, '');
  return {
    files,
    dependencyDirs,
    read(rel) {
      const abs = path.join(worktree, rel);
      const stat = fs.lstatSync(abs, { throwIfNoEntry: false });
      if (stat?.isSymbolicLink()) return Buffer.from(`\0symlink:${fs.readlinkSync(abs)}`);
      return stat?.isFile() ? fs.readFileSync(abs) : null;
    },
  };
}

/**
 * The machinery paths of a base and a current tree: every file matching the names above in
 * either, the files the base's configs name, and the acceptance tests' package `__init__.py`.
 */
export async function machineryPaths(base: TreeView, now: TreeView, lockedTests: readonly string[], shadow?: ShadowRule): Promise<Map<string, MachineryKind>> {
  const all = new Set([...base.files, ...now.files]);
  const byName = [...all].filter((f) => machineryKind(f) !== null);
  await Promise.all([base.preload?.(byName), now.preload?.(byName)]);
  const paths = new Map<string, MachineryKind>();
  for (const f of byName) paths.set(f, machineryKind(f)!);
  for (const f of all) if (!paths.has(f) && shadowedModule(f, shadow, (p) => all.has(p)) !== null) paths.set(f, 'whole');
  for (const f of namedFiles(base, all)) if (!paths.has(f)) paths.set(f, 'whole');
  for (const f of testPackageInits(lockedTests)) if (!paths.has(f) && all.has(f)) paths.set(f, 'whole');
  await Promise.all([base.preload?.([...paths.keys()]), now.preload?.([...paths.keys()])]);
  return paths;
}

/** The machinery that differs between `base` and `now`, less the paths the task may change. */
export async function machineryChanges(
  base: TreeView,
  now: TreeView,
  lockedTests: readonly string[],
  allowed: readonly string[],
  shadow?: ShadowRule,
): Promise<MachineryChange[]> {
  const allow = new Set(allowed.map(normalizeRel));
  const changes: MachineryChange[] = [];
  for (const [rel, kind] of await machineryPaths(base, now, lockedTests, shadow)) {
    if (allow.has(rel)) continue;
    const before = machineryPart(kind, base.read(rel));
    const after = machineryPart(kind, now.read(rel));
    if (before === after) continue;
    // A new fixture is the worker's; one the seed's tests read is not.
    if (kind === 'testdata' && before === null) continue;
    changes.push({ path: rel, change: base.read(rel) === null ? 'added' : now.read(rel) === null ? 'deleted' : 'changed' });
  }
  return changes.sort((a, b) => a.path.localeCompare(b.path));
}

export function normalizeRel(rel: string): string {
  return path.posix.normalize(rel.replace(/\\/g, '/')).replace(/^\.\//, '');
}

/** What the worker is told: each file, how it changed, and how to put it back. */
export function machineryMessage(changes: MachineryChange[], baseSha: string): string {
  const rev = baseSha.slice(0, 12);
  const listed = changes.map((c) => `${c.path} (${c.change})`).join(', ');
  const restore = changes
    .map((c) => {
      if (c.change === 'added') return `rm ${shellWord(c.path)}`;
      const kind = machineryKind(c.path);
      if (kind && kind !== 'whole' && kind !== 'testdata') return `put the test settings of ${c.path} back as \`git show ${rev}:${c.path}\` has them`;
      return `git show ${rev}:${shellWord(c.path)} > ${shellWord(c.path)}`;
    })
    .join('; ');
  return `These files decide how the tests run, and only the user may change them: ${listed}. Restore them as they were at the seed (${restore}) and make the code pass the tests as they are. The user can allow a task to change one of them in seed review ("may change test setup").`;
}

function shellWord(s: string): string {
  return /^[\w./@+-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`;
}

/** What a task's checks need to compare the worktree with the seed. */
export interface MachineryInput {
  /** The session's source repository (the worktree shares its objects). */
  source: string;
  /** The session's base commit: the seed's version of every machinery file. */
  baseSha: string;
  /** Paths the seed lets this task (and the done tasks) change. */
  allowed: string[];
  /** A Python runner's modules and the folders where a file would stand in for one; absent for other runners. */
  shadow?: ShadowRule | undefined;
}

/** The worktree's machinery changes against the seed. */
export async function worktreeMachineryChanges(input: MachineryInput, worktree: string, lockedTests: readonly string[]): Promise<MachineryChange[]> {
  return machineryChanges(await commitView(input.source, input.baseSha), worktreeView(worktree), lockedTests, input.allowed, input.shadow);
}

/**
 * The machinery a session branch changed from its base that no done task was allowed to change,
 * for the merge preview: a session whose commits changed it ran its acceptance tests on it.
 */
export async function branchMachineryCheck(input: MachineryInput, head: string, lockedTests: readonly string[]): Promise<MachineryChange[]> {
  return machineryChanges(await commitView(input.source, input.baseSha), await commitView(input.source, head), lockedTests, input.allowed, input.shadow);
}

/**
 * The file tools' lock: a write to a machinery path is refused with one sentence. For a file
 * compared by its test sections (package.json, pyproject.toml, …) only a write that changes
 * those sections is refused.
 */
export interface MachineryWriteLock {
  refusal(rel: string, current: Buffer | null, next: string): string | null;
}

export async function machineryWriteLock(input: MachineryInput, worktree: string, lockedTests: readonly string[]): Promise<MachineryWriteLock> {
  const base = await commitView(input.source, input.baseSha);
  const now = worktreeView(worktree);
  const named = await machineryPaths(base, now, lockedTests, input.shadow);
  const allow = new Set(input.allowed.map(normalizeRel));
  return {
    refusal(rel, current, next) {
      const p = normalizeRel(rel);
      if (allow.has(p)) return null;
      const module = shadowedModule(p, input.shadow, (f) => now.files.has(f) || base.files.has(f));
      if (module !== null) {
        return `${p} would be imported in place of \`${module}\`, a module the test runner itself uses, so the worker may not write it (name the module otherwise); the user can allow this task to change it in seed review ("may change test setup").`;
      }
      const kind = machineryKind(p) ?? named.get(p) ?? null;
      if (kind === null || (kind === 'testdata' && current === null)) return null;
      if (kind !== 'whole' && machineryPart(kind, current) === machineryPart(kind, Buffer.from(next))) return null;
      const what = kind === 'whole' || kind === 'testdata' ? `${p} decides` : `the test settings of ${p} decide`;
      return `${what} how the tests run, so the worker may not change it (make the code pass the tests as they are); the user can allow this task to change it in seed review ("may change test setup").`;
    },
  };
}
