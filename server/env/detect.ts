/**
 * Environment detection (issue 12): what a repository's own checkout uses to run its tests —
 * package manager, test runner and where that runner looks for tests, TypeScript, module type,
 * Python interpreter and layout. Read from files only: no network, and never the repository's
 * code (config files are read for literal values, not loaded), so it is safe on any folder and
 * quick enough for every workspace check.
 *
 * Which runner, when a repository shows several: what `npm test` runs (the `test` script) beats
 * a config file, which beats a dependency that may be left over. A Python project with pytest
 * configured wins over a package.json, because Python projects often carry one for a front end
 * or a linter; a JavaScript runner named in a script or config wins over a Python one that is
 * only installed.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  DEFAULT_TEST_GLOBS,
  type PackageManager,
  type ProjectEnv,
  type PythonEnv,
  type PythonManager,
  type TestRunner,
  TestRunnerSchema,
  type UndrivenRunner,
  type WorkspacePackage,
  goBuildsFolder,
} from '../../shared/project-env.ts';
import { type WorkspaceDecl, workspaceDecl, workspaceFolders } from './workspace.ts';
import { findOnPath } from '../proc/which.ts';
import { hasSection, iniWords, jsLiteral, parseJsonc, rustImportName, tomlStrings, yamlStrings } from './config-read.ts';

/** Folders projects keep tests in, most usual first; `test_dirs` lists the ones that exist. */
const CONVENTIONAL_TEST_DIRS = ['tests', 'test', '__tests__', 'spec', 'src/__tests__', 'src/test'];

const LOCKFILES: [string, PackageManager][] = [
  ['pnpm-lock.yaml', 'pnpm'],
  ['yarn.lock', 'yarn'],
  ['bun.lock', 'bun'],
  ['bun.lockb', 'bun'],
  ['package-lock.json', 'npm'],
  ['npm-shrinkwrap.json', 'npm'],
];

const CONFIG_EXTS = ['ts', 'mts', 'cts', 'js', 'mjs', 'cjs'];
const PYTHON_MANIFESTS = ['pyproject.toml', 'setup.py', 'setup.cfg', 'Pipfile'];
/** Top-level Python files that are tooling, not the project's importable code. */
const PYTHON_TOOLING = new Set(['setup', 'conftest', 'noxfile', 'fabfile', 'tasks', 'manage', 'docs']);
const TEST_FILE_LIMIT = 40;
const READ_LIMIT = 256 * 1024;

type Strength = 'script' | 'config' | 'dependency' | 'files';
interface Found {
  /** A runner Tilth drives, or one it names but does not drive yet (never swapped for another). */
  runner: TestRunner | UndrivenRunner;
  strength: Strength;
  evidence: string;
  /** A runner Tilth drives only from some version on, found older (tap before 18). */
  undriven?: true;
}

function isUndriven(runner: TestRunner | UndrivenRunner): runner is UndrivenRunner {
  return !TestRunnerSchema.safeParse(runner).success;
}

/**
 * Reads the repository at `root` (its working tree) and says what it runs its tests with; with
 * `workspace` (the default), also the packages a workspace root declares, each read the same way.
 */
export async function detectProjectEnv(root: string, options: { workspace?: boolean } = {}): Promise<ProjectEnv> {
  const repo = new RepoFiles(root);
  const top = await repo.list('.');
  const pkg = asRecord(parseJsonc((await repo.read('package.json')) ?? ''));
  const hasPkg = top.has('package.json');

  const { manager, lockfile } = packageManager(pkg, top);
  const deps = dependencyNames(pkg);
  const typescript = top.has('tsconfig.json') || deps.has('typescript');
  const js = hasPkg ? await findJsRunner(repo, top, pkg) : null;
  const python = await pythonEnv(repo, top);
  const py = python ? await findPythonRunner(repo, top) : null;

  const cargoToml = (await repo.read('Cargo.toml')) ?? '';
  const other = otherRunner(top, hasPkg, hasSection(cargoToml, 'package'));

  const chosen = olderTap(pickRunner(js, py, other), pkg);
  const driven = chosen && !chosen.undriven && !isUndriven(chosen.runner) ? { ...chosen, runner: chosen.runner } : null;
  const undriven = chosen && (chosen.undriven || isUndriven(chosen.runner)) ? { runner: chosen.runner as UndrivenRunner, evidence: chosen.evidence } : null;
  const globs = driven ? await testGlobs(repo, top, pkg, driven.runner) : [];
  const languages: ProjectEnv['languages'] = [];
  const jsLanguage = typescript ? 'typescript' : 'javascript';
  if (hasPkg || typescript) languages.push(jsLanguage);
  if (python) languages[driven && isPythonRunner(driven.runner) ? 'unshift' : 'push']('python');
  // A Go or Rust project leads with its language when its runner is the one chosen.
  for (const [file, language, runner] of [
    ['go.mod', 'go', 'go'],
    ['Cargo.toml', 'rust', 'cargo'],
  ] as const) {
    if (top.has(file)) languages[chosen?.runner === runner ? 'unshift' : 'push'](language);
  }

  const own: ProjectEnv = {
    languages,
    package_manager: manager,
    lockfile,
    module_type: pkg ? (pkg.type === 'module' ? 'esm' : 'commonjs') : null,
    typescript,
    test_runner: driven?.runner ?? null,
    test_runner_evidence: driven?.evidence ?? null,
    undriven_runner: undriven,
    test_dirs:
      driven?.runner === 'go'
        ? await goTestDirs(repo)
        : driven?.runner === 'cargo'
          ? ['tests']
          : await testDirs(repo, globs, python !== null && (chosen === null || (driven !== null && isPythonRunner(driven.runner)))),
    test_globs: globs,
    python,
    ...(driven?.runner === 'cargo' ? { rust_crate: await rustLibrary(repo, cargoToml) } : {}),
    node_modules: await repo.isDir('node_modules'),
    setup_command: (await repo.isFile('.tilth/setup')) ? '.tilth/setup' : null,
  };
  if (options.workspace === false) return own;
  const decl = workspaceDecl({
    packageJson: pkg,
    manager,
    pnpmWorkspace: top.has('pnpm-workspace.yaml') ? await repo.read('pnpm-workspace.yaml') : null,
    cargoToml: top.has('Cargo.toml') ? cargoToml : null,
    goWork: top.has('go.work') ? await repo.read('go.work') : null,
  });
  if (decl) return withWorkspace(own, decl, await workspacePackages(repo, decl));
  // Go modules side by side with no go.work (`api/go.mod`, `tools/cli/go.mod`): each is tested
  // from its folder, as its users do (`cd api && go test ./...`). Looked for only where nothing
  // else was found, so other repositories' checks pay nothing for it.
  if (own.test_runner === null && !own.undriven_runner && !top.has('go.mod')) {
    const modules = await workspacePackages(repo, NESTED_GO_MODULES);
    if (modules.packages.some((p) => p.test_runner === 'go')) return withWorkspace(own, NESTED_GO_MODULES, modules);
  }
  return own;
}

/** Go modules one or two folders down, for a repository with neither a go.mod nor a go.work at its root. */
const NESTED_GO_MODULES: WorkspaceDecl = { tool: 'go', evidence: 'go.mod files in subfolders', patterns: ['*', '*/*'], manifest: 'go.mod' };

/** Each package of `decl`, detected as a project of its own, and the languages of those with a runner. */
async function workspacePackages(repo: RepoFiles, decl: WorkspaceDecl): Promise<{ packages: WorkspacePackage[]; languages: ProjectEnv['languages'] }> {
  const dirs = await workspaceFolders(decl, repo);
  const found = await Promise.all(
    dirs.map(async (dir): Promise<{ pkg: WorkspacePackage; languages: ProjectEnv['languages'] }> => {
      const env = await detectProjectEnv(path.join(repo.root, dir), { workspace: false });
      const pkg: WorkspacePackage = {
        dir,
        name: await packageName(repo, dir, decl.manifest),
        test_runner: env.test_runner,
        test_runner_evidence: env.test_runner_evidence,
        undriven_runner: env.undriven_runner ?? null,
        test_dirs: env.test_dirs,
        test_globs: env.test_globs,
        typescript: env.typescript,
        module_type: env.module_type,
        ...(env.rust_crate !== undefined ? { rust_crate: env.rust_crate } : {}),
        node_modules: env.node_modules,
      };
      return { pkg, languages: env.test_runner === null ? [] : env.languages };
    }),
  );
  return { packages: found.map((f) => f.pkg), languages: found.flatMap((f) => f.languages) };
}

async function packageName(repo: RepoFiles, dir: string, manifest: WorkspaceDecl['manifest']): Promise<string> {
  const text = (await repo.read(`${dir}/${manifest}`)) ?? '';
  const name =
    manifest === 'package.json'
      ? asRecord(parseJsonc(text))?.name
      : manifest === 'Cargo.toml'
        ? tomlStrings(text, 'package', 'name')?.[0]
        : /^module\s+(\S+)/m.exec(text)?.[1];
  return typeof name === 'string' && name !== '' ? name : dir;
}

/**
 * The root's environment with its workspace. A root that names no runner of its own (most
 * monorepos: `pnpm -r test`, a virtual Cargo manifest) takes the one most of its packages use,
 * so the session's preset is the packages' and each test runs with its own package's runner.
 */
function withWorkspace(
  own: ProjectEnv,
  decl: WorkspaceDecl,
  { packages, languages }: { packages: WorkspacePackage[]; languages: ProjectEnv['languages'] },
): ProjectEnv {
  const workspace = { tool: decl.tool, evidence: decl.evidence, packages };
  const driven = packages.filter((p) => p.test_runner !== null);
  const rootDrives = own.test_runner !== null && (own.test_runner_evidence ?? '').startsWith('scripts.');
  if (driven.length === 0 || rootDrives) return { ...own, workspace };
  const counts = new Map<TestRunner, number>();
  for (const p of driven) counts.set(p.test_runner!, (counts.get(p.test_runner!) ?? 0) + 1);
  const runner = [...counts].sort((a, b) => b[1] - a[1])[0]![0];
  const users = driven.filter((p) => p.test_runner === runner);
  return {
    ...own,
    languages: [...new Set([...own.languages, ...languages])],
    test_runner: runner,
    test_runner_evidence: `${decl.evidence}: ${users.length} of ${packages.length} packages (${users
      .slice(0, 3)
      .map((p) => `${p.dir}: ${p.test_runner_evidence}`)
      .join('; ')}${users.length > 3 ? '; …' : ''})`,
    undriven_runner: null,
    workspace,
  };
}

export function isPythonRunner(runner: TestRunner): boolean {
  return runner === 'pytest' || runner === 'unittest';
}

// ── package manager ───────────────────────────────────────────────────────────────────────────

function packageManager(pkg: Record<string, unknown> | null, top: Set<string>): { manager: PackageManager | null; lockfile: string | null } {
  // `packageManager` (corepack) is the project's own statement; a lockfile is the next best thing.
  const declared = typeof pkg?.packageManager === 'string' ? /^(npm|pnpm|yarn|bun)@/.exec(pkg.packageManager)?.[1] : undefined;
  if (declared) {
    const manager = declared as PackageManager;
    return { manager, lockfile: LOCKFILES.find(([file, m]) => m === manager && top.has(file))?.[0] ?? null };
  }
  const found = LOCKFILES.find(([file]) => top.has(file));
  if (found) return { manager: found[1], lockfile: found[0] };
  return { manager: pkg ? 'npm' : null, lockfile: null };
}

function dependencyNames(pkg: Record<string, unknown> | null): Set<string> {
  const names = new Set<string>();
  for (const key of ['dependencies', 'devDependencies']) {
    const deps = asRecord(pkg?.[key]);
    if (deps) for (const name of Object.keys(deps)) names.add(name);
  }
  return names;
}

// ── JavaScript runners ────────────────────────────────────────────────────────────────────────

const JS_RUNNERS = ['vitest', 'jest', 'mocha', 'ava', 'tap', 'uvu'] as const;

async function findJsRunner(repo: RepoFiles, top: Set<string>, pkg: Record<string, unknown> | null): Promise<Found | null> {
  const script = testScript(pkg);
  const configs = jsRunnerConfigs(top, pkg);
  const fromScript = script ? runnerInScript(script) : null;
  if (script && fromScript) {
    const config = configs.find((c) => c.runner === fromScript);
    return { runner: fromScript, strength: 'script', evidence: config?.evidence ?? `scripts.test: ${script.length > 40 ? `${script.slice(0, 39)}…` : script}` };
  }
  if (configs[0]) return configs[0];
  for (const runner of JS_RUNNERS) {
    for (const key of ['devDependencies', 'dependencies']) {
      if (asRecord(pkg?.[key])?.[runner] !== undefined) return { runner, strength: 'dependency', evidence: `${key}.${runner}` };
    }
  }
  // No runner named anywhere: test files that import node:test say it is Node's own.
  for (const dir of ['tests', 'test']) {
    for (const file of await repo.filesIn(dir)) {
      if (!/\.[cm]?[jt]s$/.test(file)) continue;
      if (/['"]node:test['"]/.test((await repo.read(file)) ?? '')) return { runner: 'node', strength: 'files', evidence: `${file} imports node:test` };
    }
  }
  return null;
}

/** The first Tilth drives: tap 18 rewrote its runner (flags, reporters, coverage) and earlier ones are not driven. */
const FIRST_DRIVEN_TAP = 18;

/** node-tap declared at a major before 18 (its range's first number) stays named, not driven. */
function olderTap(found: Found | null, pkg: Record<string, unknown> | null): Found | null {
  if (found?.runner !== 'tap') return found;
  const range = ['devDependencies', 'dependencies'].map((key) => asRecord(pkg?.[key])?.tap).find((v): v is string => typeof v === 'string') ?? '';
  // A range with no number (`latest`, a git URL) says nothing of the version: driven.
  const major = /\d+/.exec(range)?.[0];
  if (major === undefined || Number(major) >= FIRST_DRIVEN_TAP) return found;
  return { ...found, undriven: true, evidence: `${found.evidence}; tap ${major}: Tilth drives ${FIRST_DRIVEN_TAP} and later` };
}

function jsRunnerConfigs(top: Set<string>, pkg: Record<string, unknown> | null): Found[] {
  const found: Found[] = [];
  const file = (stem: string, exts: string[]) => exts.map((e) => `${stem}.${e}`).find((f) => top.has(f));
  const vitest = file('vitest.config', CONFIG_EXTS) ?? file('vitest.workspace', [...CONFIG_EXTS, 'json']);
  if (vitest) found.push({ runner: 'vitest', strength: 'config', evidence: vitest });
  const jest = file('jest.config', [...CONFIG_EXTS, 'json']);
  if (jest) found.push({ runner: 'jest', strength: 'config', evidence: jest });
  else if (pkg?.jest !== undefined) found.push({ runner: 'jest', strength: 'config', evidence: 'package.json "jest"' });
  const mocha = file('.mocharc', [...CONFIG_EXTS, 'json', 'jsonc', 'yaml', 'yml']);
  if (mocha) found.push({ runner: 'mocha', strength: 'config', evidence: mocha });
  else if (pkg?.mocha !== undefined) found.push({ runner: 'mocha', strength: 'config', evidence: 'package.json "mocha"' });
  const ava = file('ava.config', ['js', 'cjs', 'mjs']);
  if (ava) found.push({ runner: 'ava', strength: 'config', evidence: ava });
  else if (pkg?.ava !== undefined) found.push({ runner: 'ava', strength: 'config', evidence: 'package.json "ava"' });
  const tap = ['.taprc', '.taprc.yml', '.taprc.yaml', '.taprc.json'].find((f) => top.has(f));
  if (tap) found.push({ runner: 'tap', strength: 'config', evidence: tap });
  else if (pkg?.tap !== undefined) found.push({ runner: 'tap', strength: 'config', evidence: 'package.json "tap"' });
  return found;
}

/** The `test` script, following one `npm run x` / `pnpm x` / `yarn x` hop to the script it names. */
function testScript(pkg: Record<string, unknown> | null): string | null {
  const scripts = asRecord(pkg?.scripts);
  const test = scripts?.test;
  if (typeof test !== 'string') return null;
  const hop = /^(?:npm run|pnpm(?: run)?|yarn(?: run)?|bun run)\s+([\w:.-]+)\s*$/.exec(test.trim());
  const target = hop ? scripts?.[hop[1]!] : undefined;
  return typeof target === 'string' ? target : test;
}

/** Commands of a script: `a && b; c | d` → the words of each, wrappers and env settings dropped. */
function scriptCommands(script: string): string[][] {
  const wrappers = new Set(['npx', 'pnpx', 'bunx', 'exec', 'cross-env', 'c8', 'nyc', 'dotenv', '--', 'env', 'run']);
  return script
    .split(/&&|\|\||[;|]/)
    .map((part) => part.trim().split(/\s+/).filter(Boolean))
    .map((words) => {
      let i = 0;
      while (i < words.length && (wrappers.has(words[i]!) || /^\w+=/.test(words[i]!) || ((words[i] === 'pnpm' || words[i] === 'yarn') && i === 0))) i++;
      return words.slice(i);
    })
    .filter((words) => words.length > 0);
}

/** The first runner a script runs: `xo && ava && tsd` → ava; `bun test`, `go test ./...` and `cargo test` by their subcommand. */
function runnerInScript(script: string): TestRunner | UndrivenRunner | null {
  for (const words of scriptCommands(script)) {
    const command = path.posix.basename(words[0]!);
    if ((JS_RUNNERS as readonly string[]).includes(command)) return command as TestRunner;
    if ((command === 'node' || command === 'tsx') && words.includes('--test')) return 'node';
    if ((command === 'bun' || command === 'deno' || command === 'go' || command === 'cargo') && words[1] === 'test') return command;
  }
  return null;
}

/** Non-flag words after the runner in the test script (mocha's specs, node --test's paths). */
function scriptPaths(pkg: Record<string, unknown> | null, runner: TestRunner): { paths: string[]; flags: string[] } {
  const script = testScript(pkg);
  if (!script) return { paths: [], flags: [] };
  for (const words of scriptCommands(script)) {
    const command = path.posix.basename(words[0]!);
    if (command !== runner && !(runner === 'node' && (command === 'node' || command === 'tsx') && words.includes('--test'))) continue;
    const rest = words.slice(1);
    const flags = rest.filter((w) => w.startsWith('-'));
    const paths: string[] = [];
    for (let i = 0; i < rest.length; i++) {
      const word = rest[i]!;
      // A flag's value (`--require x`, `--reporter spec`) is not a path; `--flag=value` carries its own.
      if (word.startsWith('-')) {
        if (!word.includes('=') && VALUE_FLAGS.has(word)) i++;
        continue;
      }
      paths.push(word.replace(/^(['"])(.*)\1$/, '$2'));
    }
    return { paths, flags };
  }
  return { paths: [], flags: [] };
}

const VALUE_FLAGS = new Set([
  '--require',
  '-r',
  '--reporter',
  '-R',
  '--ui',
  '-u',
  '--timeout',
  '-t',
  '--config',
  '--import',
  '--loader',
  '--extension',
  '--file',
  '--ignore',
  '--grep',
  '-g',
  '--test-reporter',
  '--test-name-pattern',
]);

// ── Python ───────────────────────────────────────────────────────────────────────────────────

async function pythonEnv(repo: RepoFiles, top: Set<string>): Promise<PythonEnv | null> {
  const manifest = PYTHON_MANIFESTS.some((f) => top.has(f)) || [...top].some((f) => /^requirements.*\.txt$/.test(f));
  const srcPackages = await pythonPackagesIn(repo, 'src');
  const flatPackages = await pythonPackagesIn(repo, '.');
  const testFiles = [...(await repo.filesIn('tests')), ...(await repo.filesIn('test'))].filter((f) => f.endsWith('.py'));
  // Loose `.py` files beside a package.json are helper scripts of a JavaScript project; without one
  // they are a Python project's modules.
  const loose = flatPackages.packages.length > 0 && !top.has('package.json');
  if (!manifest && srcPackages.packages.length === 0 && flatPackages.withInit.length === 0 && testFiles.length === 0 && !loose) return null;
  const srcLayout = srcPackages.withInit.length > 0;
  const manager = await pythonManager(repo, top);
  const version = pythonVersion((await repo.read('.python-version')) ?? '');
  const { interpreter, source } = await pythonInterpreter(repo, manager?.tool ?? null, version);
  return {
    interpreter,
    source,
    manager,
    python_version: version,
    src_layout: srcLayout,
    packages: srcLayout ? srcPackages.packages : flatPackages.packages,
  };
}

/** The environment tool a Python project declares: its lockfile first, then its configuration. */
async function pythonManager(repo: RepoFiles, top: Set<string>): Promise<PythonEnv['manager']> {
  const pyproject = top.has('pyproject.toml') ? ((await repo.read('pyproject.toml')) ?? '') : '';
  const found: [boolean, PythonManager, string][] = [
    [top.has('uv.lock'), 'uv', 'uv.lock'],
    [top.has('poetry.lock'), 'poetry', 'poetry.lock'],
    [top.has('Pipfile.lock') || top.has('Pipfile'), 'pipenv', top.has('Pipfile.lock') ? 'Pipfile.lock' : 'Pipfile'],
    [hasSection(pyproject, 'tool.poetry'), 'poetry', 'pyproject.toml [tool.poetry]'],
    [hasSection(pyproject, 'tool.uv'), 'uv', 'pyproject.toml [tool.uv]'],
    [top.has('hatch.toml') || /^\[tool\.hatch\.envs\b/m.test(pyproject), 'hatch', top.has('hatch.toml') ? 'hatch.toml' : 'pyproject.toml [tool.hatch.envs]'],
    [top.has('tox.ini') || hasSection(pyproject, 'tool.tox'), 'tox', top.has('tox.ini') ? 'tox.ini' : 'pyproject.toml [tool.tox]'],
    [top.has('noxfile.py'), 'nox', 'noxfile.py'],
  ];
  const first = found.find(([yes]) => yes);
  return first ? { tool: first[1], evidence: first[2] } : null;
}

/** `3.11` from a `.python-version` of `3.11.7` (pyenv's), `3.11` or `cpython-3.11` (uv's); null otherwise. */
export function pythonVersion(text: string): string | null {
  const line = text.split(/\r?\n/).find((l) => l.trim() !== '' && !l.trim().startsWith('#')) ?? '';
  return /^(?:cpython-|python)?(3\.\d+)(?:[.\w+-]*)?$/.exec(line.trim())?.[1] ?? null;
}

/**
 * Where the project's tests run, as its users run them: its own virtualenv in the repository
 * (`.venv`, `venv`; uv's lives in `.venv`), Poetry's outside it, a tox or nox environment the
 * checkout has, else the `python3.X` `.python-version` asks for when the PATH has it, else `python3`.
 */
async function pythonInterpreter(repo: RepoFiles, manager: PythonManager | null, version: string | null): Promise<Pick<PythonEnv, 'interpreter' | 'source'>> {
  for (const venv of ['.venv', 'venv']) {
    if (await repo.isFile(`${venv}/bin/python`)) return { interpreter: path.join(repo.root, venv, 'bin', 'python'), source: 'venv' };
  }
  if (manager === 'poetry') {
    const venv = await poetryVenv(repo, version);
    if (venv) return { interpreter: path.join(venv, 'bin', 'python'), source: 'poetry' };
  }
  if (manager === 'pipenv') {
    const venv = await pipenvVenv(repo);
    if (venv) return { interpreter: path.join(venv, 'bin', 'python'), source: 'pipenv' };
  }
  for (const tool of ['tox', 'nox'] as const) {
    if (manager !== tool) continue;
    const envs = (await repo.folders(`.${tool}`)).sort();
    const wanted = version ? `py${version.replace('.', '')}` : null;
    const order = [...envs.filter((e) => e === wanted), ...envs.filter((e) => /test/.test(e)), ...envs];
    for (const name of order) {
      if (await repo.isFile(`.${tool}/${name}/pyvenv.cfg`)) return { interpreter: path.join(repo.root, `.${tool}`, name, 'bin', 'python'), source: tool };
    }
  }
  if (version && findOnPath(`python${version}`)) return { interpreter: `python${version}`, source: 'system' };
  return { interpreter: 'python3', source: 'system' };
}

/**
 * Pipenv's virtualenv for the project, outside the repository: under WORKON_HOME, else
 * `virtualenvs` in the user's data folder (XDG_DATA_HOME, `~/.local/share`). Pipenv names it after
 * the project's folder and a hash of its path, and writes the project's path into its `.project`
 * file, which is what picks it here (no guess at the name; two checkouts of one project get
 * one each). Read from files only; Pipenv is not run. Null when there is none
 * (`PIPENV_VENV_IN_PROJECT` makes `.venv`, found first).
 */
async function pipenvVenv(repo: RepoFiles): Promise<string | null> {
  // HOME first, as Python's expanduser reads it.
  const home = process.env.HOME ?? os.homedir();
  const base = process.env.WORKON_HOME ?? path.join(process.env.XDG_DATA_HOME ?? path.join(home, '.local', 'share'), 'virtualenvs');
  const real = await fs.realpath(repo.root);
  const envs = (await fs.readdir(base).catch(() => [] as string[])).sort().slice(0, PIPENV_ENVS_READ);
  for (const name of envs) {
    const venv = path.join(base, name);
    const project = (await fs.readFile(path.join(venv, '.project'), 'utf8').catch(() => '')).trim();
    // Pipenv writes an absolute path; anything else (empty, relative) would resolve from Tilth's own folder.
    if (!path.isAbsolute(project) || (await fs.realpath(project).catch(() => null)) !== real) continue;
    if (
      await fs.stat(path.join(venv, 'pyvenv.cfg')).then(
        (st) => st.isFile(),
        () => false,
      )
    )
      return venv;
  }
  return null;
}

/** How many of Pipenv's virtualenvs detection reads a `.project` file of, at most. */
const PIPENV_ENVS_READ = 1000;

/**
 * Poetry's virtualenv for the project, outside the repository: Poetry names it after the
 * project and its folder (`<name>-<8 characters of base64url(sha256(real path))>-py3.X`) under
 * its `virtualenvs` folder (POETRY_VIRTUALENVS_PATH, else POETRY_CACHE_DIR's or the user cache's
 * `pypoetry/virtualenvs`). The Python version the checkout last used (`envs.toml`), else the one
 * `.python-version` names, else the newest. Found by name and read from files only, as detection
 * is: Poetry itself is not run. Null when there is none (not installed yet, or `in-project`, whose
 * `.venv` is found first).
 */
async function poetryVenv(repo: RepoFiles, version: string | null): Promise<string | null> {
  const pyproject = (await repo.read('pyproject.toml')) ?? '';
  const name = tomlStrings(pyproject, 'tool.poetry', 'name')?.[0] ?? tomlStrings(pyproject, 'project', 'name')?.[0];
  if (!name) return null;
  const cache = process.env.POETRY_CACHE_DIR ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'pypoetry');
  const base = process.env.POETRY_VIRTUALENVS_PATH ?? path.join(cache, 'virtualenvs');
  let real: string;
  try {
    real = await fs.realpath(repo.root);
  } catch {
    return null;
  }
  const hash = createHash('sha256').update(real).digest('base64url').slice(0, 8);
  // Poetry's own sanitising: these characters become `_`, and the name is cut at 42.
  const sanitized = name
    .toLowerCase()
    .replace(/[ $`!*@"\\\r\n\t]/g, '_')
    .slice(0, 42);
  const stem = `${sanitized}-${hash}`;
  const envs = await fs.readdir(base).catch(() => [] as string[]);
  const versions = envs.flatMap((e) => (e.startsWith(`${stem}-py`) ? [e.slice(stem.length + 3)] : []));
  const used = /^minor\s*=\s*"([\d.]+)"/m.exec((await fs.readFile(path.join(base, 'envs.toml'), 'utf8').catch(() => '')).split(`[${stem}]`)[1] ?? '')?.[1];
  const newest = [...versions].sort((a, b) => Number(b.split('.')[1]) - Number(a.split('.')[1]));
  for (const v of [used, version, ...newest]) {
    if (!v || !versions.includes(v)) continue;
    const venv = path.join(base, `${stem}-py${v}`);
    if ((await fs.stat(path.join(venv, 'pyvenv.cfg')).catch(() => null))?.isFile()) return venv;
  }
  return null;
}

/** Importable names directly in `dir`: packages (folders with `__init__.py`) and `.py` modules. */
async function pythonPackagesIn(repo: RepoFiles, dir: string): Promise<{ packages: string[]; withInit: string[] }> {
  const withInit: string[] = [];
  const modules: string[] = [];
  for (const entry of await repo.entries(dir)) {
    if (entry.dir) {
      if (/^(tests?|docs?|examples?|scripts|build|dist|node_modules|venv)$/.test(entry.name) || entry.name.startsWith('.')) continue;
      if (await repo.isFile(path.posix.join(dir, entry.name, '__init__.py'))) withInit.push(entry.name);
    } else if (/^[A-Za-z_]\w*\.py$/.test(entry.name)) {
      const name = entry.name.slice(0, -3);
      if (!PYTHON_TOOLING.has(name) && !/^test_|_test$/.test(name)) modules.push(name);
    }
  }
  return { packages: [...withInit, ...modules].sort(), withInit };
}

async function findPythonRunner(repo: RepoFiles, top: Set<string>): Promise<Found | null> {
  if (top.has('pytest.ini')) return { runner: 'pytest', strength: 'config', evidence: 'pytest.ini' };
  const pyproject = (await repo.read('pyproject.toml')) ?? '';
  if (hasSection(pyproject, 'tool.pytest.ini_options')) return { runner: 'pytest', strength: 'config', evidence: 'pyproject.toml [tool.pytest.ini_options]' };
  if (hasSection((await repo.read('setup.cfg')) ?? '', 'tool:pytest')) return { runner: 'pytest', strength: 'config', evidence: 'setup.cfg [tool:pytest]' };
  if (hasSection((await repo.read('tox.ini')) ?? '', 'pytest')) return { runner: 'pytest', strength: 'config', evidence: 'tox.ini [pytest]' };
  for (const file of ['conftest.py', 'tests/conftest.py', 'test/conftest.py']) {
    if (await repo.isFile(file)) return { runner: 'pytest', strength: 'config', evidence: file };
  }
  // Tests written as unittest classes, with no pytest anywhere, run with unittest.
  const testFiles = [...(await repo.filesIn('tests')), ...(await repo.filesIn('test'))].filter((f) => /(^|\/)test[^/]*\.py$/.test(f));
  const sources = await Promise.all(testFiles.slice(0, TEST_FILE_LIMIT).map(async (f) => ({ file: f, text: (await repo.read(f)) ?? '' })));
  const pytestDeclared = /(^|[\s"'[,])pytest\b/m.test(pyproject) || (await requirementsMention(repo, top, 'pytest')) || (await venvHas(repo, 'pytest'));
  const unittestOnly =
    sources.length > 0 &&
    sources.every((s) => /^\s*(import unittest|from unittest\b)/m.test(s.text) && !/^\s*(import pytest|from pytest\b)|^def test_/m.test(s.text));
  if (unittestOnly && !pytestDeclared) return { runner: 'unittest', strength: 'files', evidence: `${sources[0]!.file} uses unittest` };
  if (pytestDeclared) return { runner: 'pytest', strength: 'dependency', evidence: 'pytest dependency' };
  if (sources.length > 0) return { runner: 'pytest', strength: 'files', evidence: `${sources[0]!.file}` };
  return null;
}

async function requirementsMention(repo: RepoFiles, top: Set<string>, name: string): Promise<boolean> {
  for (const file of [...top].filter((f) => /^requirements.*\.txt$/.test(f))) {
    if (new RegExp(`^\\s*${name}\\b`, 'mi').test((await repo.read(file)) ?? '')) return true;
  }
  return false;
}

async function venvHas(repo: RepoFiles, module: string): Promise<boolean> {
  for (const venv of ['.venv', 'venv']) {
    for (const lib of await repo.entries(`${venv}/lib`)) {
      if (lib.name.startsWith('python') && (await repo.isDir(`${venv}/lib/${lib.name}/site-packages/${module}`))) return true;
    }
  }
  return false;
}

/**
 * A project whose own manifest names its runner, outside package.json and Python: `go.mod`,
 * `Cargo.toml`, and `deno.json` without a package.json (Deno projects with one say so in it).
 */
function otherRunner(top: Set<string>, hasPkg: boolean, cargoPackage: boolean): Found | null {
  if (top.has('go.mod')) return { runner: 'go', strength: 'config', evidence: 'go.mod' };
  if (top.has('Cargo.toml')) {
    // A manifest with no [package] is a workspace of crates only, whose tests live in the members.
    return cargoPackage
      ? { runner: 'cargo', strength: 'config', evidence: 'Cargo.toml' }
      : { runner: 'cargo_workspace', strength: 'config', evidence: 'Cargo.toml: a workspace with no crate at its root' };
  }
  const deno = ['deno.json', 'deno.jsonc'].find((f) => top.has(f));
  if (deno && !hasPkg) return { runner: 'deno', strength: 'config', evidence: deno };
  return null;
}

function pickRunner(js: Found | null, py: Found | null, other: Found | null): Found | null {
  if (py?.strength === 'config') return py;
  if (js && (js.strength === 'script' || js.strength === 'config')) return js;
  return other ?? py ?? js;
}

// ── where the tests are ───────────────────────────────────────────────────────────────────────

async function testGlobs(repo: RepoFiles, top: Set<string>, pkg: Record<string, unknown> | null, runner: TestRunner): Promise<string[]> {
  switch (runner) {
    case 'vitest': {
      for (const stem of ['vitest.config', 'vite.config']) {
        const file = CONFIG_EXTS.map((e) => `${stem}.${e}`).find((f) => top.has(f));
        const include = file ? jsLiteral((await repo.read(file)) ?? '', ['test', 'include']) : null;
        if (include) return include;
      }
      return DEFAULT_TEST_GLOBS.vitest;
    }
    case 'jest': {
      const file = [...CONFIG_EXTS, 'json'].map((e) => `jest.config.${e}`).find((f) => top.has(f));
      const text = file ? ((await repo.read(file)) ?? '') : '';
      const config = file?.endsWith('.json') ? asRecord(parseJsonc(text)) : asRecord(pkg?.jest);
      const read = (key: string) => (config ? stringList(config[key]) : file ? jsLiteral(text, [key]) : null);
      const testMatch = read('testMatch') ?? DEFAULT_TEST_GLOBS.jest;
      const roots = read('roots');
      if (!roots) return testMatch;
      return roots.flatMap((r) =>
        testMatch.map((m) => `${r.replace(/^<rootDir>\/?/, '').replace(/\/$/, '') || '.'}/${m.replace(/^\*\*\//, '**/')}`.replace(/^\.\//, '')),
      );
    }
    case 'mocha': {
      const fromScript = scriptPaths(pkg, 'mocha');
      const recursive = fromScript.flags.includes('--recursive') || (await mochaSetting(repo, top, pkg, 'recursive'))?.[0] === 'true';
      const specs = fromScript.paths.length > 0 ? fromScript.paths : await mochaSetting(repo, top, pkg, 'spec');
      if (!specs) return recursive ? ['./test/**/*.{js,cjs,mjs}'] : DEFAULT_TEST_GLOBS.mocha;
      // A folder as a spec means the files in it (and below it with --recursive).
      return Promise.all(specs.map(async (p) => ((await repo.isDir(p)) ? `${p.replace(/\/$/, '')}/${recursive ? '**/' : ''}*.{js,cjs,mjs}` : p)));
    }
    case 'ava': {
      // AVA's `files`, in package.json or ava.config.*; a list of exclusions only keeps its defaults.
      const file = ['js', 'cjs', 'mjs'].map((e) => `ava.config.${e}`).find((f) => top.has(f));
      const files = file ? jsLiteral((await repo.read(file)) ?? '', ['files']) : stringList(asRecord(pkg?.ava)?.files);
      const included = files?.filter((g) => !g.startsWith('!')) ?? [];
      return included.length > 0 ? included : DEFAULT_TEST_GLOBS.ava;
    }
    case 'tap': {
      // package.json's `tap.include`, else the files the script names, else tap's defaults.
      const include = stringList(asRecord(pkg?.tap)?.include);
      if (include && include.length > 0) return include;
      const { paths } = scriptPaths(pkg, 'tap');
      if (paths.length === 0) return DEFAULT_TEST_GLOBS.tap;
      return Promise.all(paths.map(async (p) => ((await repo.isDir(p)) ? `${p.replace(/\/$/, '')}/**/*.{js,cjs,mjs,ts}` : p)));
    }
    case 'uvu': {
      // `uvu <dir> [pattern]`: every script file under the folder, or those whose name the
      // pattern (a regular expression) asks for by its usual suffix; no folder: uvu's default.
      const [dir, pattern] = scriptPaths(pkg, 'uvu').paths;
      if (!dir) return DEFAULT_TEST_GLOBS.uvu;
      const suffix = pattern && /spec/i.test(pattern) ? '.spec' : pattern && /test/i.test(pattern) ? '.test' : '';
      return [`${dir.replace(/\/$/, '')}/**/*${suffix}.{js,mjs,cjs}`];
    }
    case 'node': {
      const { paths } = scriptPaths(pkg, 'node');
      if (paths.length === 0) return DEFAULT_TEST_GLOBS.node;
      // A folder given to `node --test` means the test files under it.
      return Promise.all(paths.map(async (p) => ((await repo.isDir(p)) ? `${p.replace(/\/$/, '')}/**/*.?(c|m)js` : p)));
    }
    case 'pytest': {
      const ini = (await repo.read('pytest.ini')) ?? '';
      const pyproject = (await repo.read('pyproject.toml')) ?? '';
      const cfg = (await repo.read('setup.cfg')) ?? '';
      const setting = (key: string) =>
        iniWords(ini, 'pytest', key) ?? tomlStrings(pyproject, 'tool.pytest.ini_options', key) ?? iniWords(cfg, 'tool:pytest', key);
      const files = setting('python_files') ?? ['test_*.py', '*_test.py'];
      const paths = setting('testpaths');
      return paths ? paths.flatMap((p) => files.map((f) => `${p.replace(/\/$/, '')}/**/${f}`)) : files.map((f) => `**/${f}`);
    }
    case 'unittest':
      return DEFAULT_TEST_GLOBS.unittest;
    case 'go':
    case 'cargo':
      return DEFAULT_TEST_GLOBS[runner];
  }
}

async function mochaSetting(repo: RepoFiles, top: Set<string>, pkg: Record<string, unknown> | null, key: string): Promise<string[] | null> {
  const file = ['.mocharc.js', '.mocharc.cjs', '.mocharc.mjs', '.mocharc.json', '.mocharc.jsonc', '.mocharc.yaml', '.mocharc.yml'].find((f) => top.has(f));
  if (!file) return stringList(asRecord(pkg?.mocha)?.[key]);
  const text = (await repo.read(file)) ?? '';
  if (/\.jsonc?$/.test(file)) return stringList(asRecord(parseJsonc(text))?.[key]);
  if (/\.ya?ml$/.test(file)) return yamlStrings(text, key);
  if (key === 'recursive') return /\brecursive\s*:\s*true\b/.test(text) ? ['true'] : null;
  return jsLiteral(text, [key]);
}

/** Conventional test folders that exist, then folders the runner's globs start in. */
async function testDirs(repo: RepoFiles, globs: string[], python: boolean): Promise<string[]> {
  const fromGlobs = globs
    .map((g) => g.replace(/^<rootDir>\//, '').replace(/^(\.\/)+/, ''))
    .map((g) => g.split('/').filter((_, i, parts) => i < parts.length - 1))
    .map((parts) => parts.slice(0, parts.findIndex((p) => /[*?[{(!]/.test(p)) === -1 ? parts.length : parts.findIndex((p) => /[*?[{(!]/.test(p))).join('/'))
    .filter((d) => d !== '');
  const candidates = [...new Set([...fromGlobs, ...(python ? ['tests', 'test'] : CONVENTIONAL_TEST_DIRS)])];
  const dirs: string[] = [];
  for (const dir of candidates) if (await repo.isDir(dir)) dirs.push(dir);
  // Keep the runner's own folders first, then the conventional order.
  return dirs.sort((a, b) => rank(a, fromGlobs) - rank(b, fromGlobs));
}

/**
 * The name a crate's integration tests import its library by: `[lib] name`, else `[package] name`
 * with `-` as `_` (how rustc names the crate); null when there is no library to import — no
 * `[lib]` table and no `src/lib.rs` (a binary crate's code is out of its tests' reach).
 */
async function rustLibrary(repo: RepoFiles, cargoToml: string): Promise<string | null> {
  if (!hasSection(cargoToml, 'lib') && !(await repo.isFile('src/lib.rs'))) return null;
  return rustImportName(cargoToml);
}

/** How deep and how wide the look for Go's test folders goes: enough for a module's packages, bounded for a monorepo. */
const GO_WALK = { depth: 4, folders: 400 };

/**
 * The package folders of a Go module that hold `_test.go` files, breadth first (the shallowest,
 * most central packages first); the root package is not listed (its tests sit at the root). Folders
 * go ignores (`vendor`, `testdata`, names starting with `.` or `_`) are skipped.
 */
async function goTestDirs(repo: RepoFiles): Promise<string[]> {
  const found: string[] = [];
  let level = ['.'];
  let seen = 0;
  for (let depth = 0; depth <= GO_WALK.depth && level.length > 0 && seen < GO_WALK.folders; depth++) {
    const next: string[] = [];
    for (const dir of level) {
      if (++seen > GO_WALK.folders) break;
      const entries = await repo.entries(dir);
      if (dir !== '.' && entries.some((e) => !e.dir && e.name.endsWith('_test.go'))) found.push(dir);
      for (const e of entries) {
        if (e.dir && goBuildsFolder(e.name) && e.name !== 'node_modules') {
          next.push(dir === '.' ? e.name : `${dir}/${e.name}`);
        }
      }
    }
    level = next;
  }
  return found;
}

function rank(dir: string, fromGlobs: string[]): number {
  const i = fromGlobs.indexOf(dir);
  return i !== -1 ? i : fromGlobs.length + CONVENTIONAL_TEST_DIRS.indexOf(dir);
}

// ── reading files ─────────────────────────────────────────────────────────────────────────────

/** The repository's files, read through one place: bounded reads, and missing means empty. */
class RepoFiles {
  constructor(readonly root: string) {}

  private abs(rel: string): string {
    return path.join(this.root, rel);
  }

  async entries(rel: string): Promise<{ name: string; dir: boolean }[]> {
    try {
      const entries = await fs.readdir(this.abs(rel), { withFileTypes: true });
      return entries.map((e) => ({ name: e.name, dir: e.isDirectory() }));
    } catch {
      return [];
    }
  }

  async folders(rel: string): Promise<string[]> {
    return (await this.entries(rel)).filter((e) => e.dir).map((e) => e.name);
  }

  async list(rel: string): Promise<Set<string>> {
    return new Set((await this.entries(rel)).map((e) => e.name));
  }

  /** Files directly in `rel` and one folder down, as paths relative to the root. */
  async filesIn(rel: string): Promise<string[]> {
    const files: string[] = [];
    for (const entry of await this.entries(rel)) {
      const child = path.posix.join(rel, entry.name);
      if (!entry.dir) files.push(child);
      else if (!entry.name.startsWith('.') && entry.name !== 'node_modules') {
        for (const inner of await this.entries(child)) if (!inner.dir) files.push(path.posix.join(child, inner.name));
      }
      if (files.length >= TEST_FILE_LIMIT) break;
    }
    return files.sort();
  }

  async read(rel: string): Promise<string | null> {
    try {
      const handle = await fs.open(this.abs(rel), 'r');
      try {
        const buffer = Buffer.alloc(READ_LIMIT);
        const { bytesRead } = await handle.read(buffer, 0, READ_LIMIT, 0);
        return buffer.subarray(0, bytesRead).toString('utf8');
      } finally {
        await handle.close();
      }
    } catch {
      return null;
    }
  }

  async isFile(rel: string): Promise<boolean> {
    return (await fs.stat(this.abs(rel)).catch(() => null))?.isFile() ?? false;
  }

  async isDir(rel: string): Promise<boolean> {
    return (await fs.stat(this.abs(rel)).catch(() => null))?.isDirectory() ?? false;
  }
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function stringList(value: unknown): string[] | null {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string')) return value as string[];
  return null;
}
