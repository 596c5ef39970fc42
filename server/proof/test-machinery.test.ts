import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../testing/temp-dir.ts';
import {
  branchMachineryCheck,
  type MachineryKind,
  machineryChanges,
  machineryKind,
  machineryMessage,
  machineryPart,
  machineryPaths,
  machineryWriteLock,
  normalizeRel,
  type ShadowRule,
  shadowedModule,
  type TreeView,
  worktreeMachineryChanges,
  worktreeView,
} from './test-machinery.ts';

/** A tree from path → content. */
function view(files: Record<string, string>): TreeView {
  return { files: new Set(Object.keys(files)), read: (rel) => (rel in files ? Buffer.from(files[rel]!) : null) };
}

const PKG = JSON.stringify({ name: 'x', scripts: { test: 'mocha' }, dependencies: { ms: '1' }, mocha: { require: './test/setup.js' } }, null, 2);

describe('which files are test machinery', () => {
  it('knows the runners’ own config files by name, and leaves source files and installed packages alone', () => {
    for (const f of [
      'conftest.py',
      'tests/conftest.py',
      'pytest.ini',
      '.pytest.toml',
      'sitecustomize.py',
      'src/usercustomize.py',
      'lib/evil.pth',
      'vitest.config.mts',
      'vitest.workspace.json',
      'vite.config.ts',
      'jest.config.cjs',
      '.mocharc.yml',
      '.mocharc.json',
      'ava.config.mjs',
      '.babelrc',
      'babel.config.js',
      '.npmrc',
      'bunfig.toml',
      'deno.json',
      'deno.jsonc',
    ]) {
      expect(machineryKind(f), f).toBe('whole');
    }
    expect(machineryKind('package.json')).toBe('package_json');
    expect(machineryKind('pyproject.toml')).toBe('pyproject');
    expect(machineryKind('setup.cfg')).toBe('setup_cfg');
    expect(machineryKind('tox.ini')).toBe('tox_ini');
    for (const f of ['src/calc.py', 'tsconfig.json', 'README.md', 'node_modules/x/jest.config.js', 'tests/test_t001_x.py'])
      expect(machineryKind(f), f).toBeNull();
  });

  it('compares package.json by its scripts and runner sections only: a dependency or reordered keys are no change, a test script is', async () => {
    const base = view({ 'package.json': PKG });
    const deps = JSON.parse(PKG) as Record<string, Record<string, string>>;
    deps.dependencies!.left = '2';
    expect(await machineryChanges(base, view({ 'package.json': JSON.stringify(deps) }), [], [])).toEqual([]);
    const reordered = { mocha: { require: './test/setup.js' }, scripts: { test: 'mocha' }, name: 'x', dependencies: { ms: '1' } };
    expect(await machineryChanges(base, view({ 'package.json': JSON.stringify(reordered) }), [], [])).toEqual([]);
    const script = JSON.parse(PKG) as Record<string, Record<string, string>>;
    script.scripts!.test = 'exit 0';
    expect(await machineryChanges(base, view({ 'package.json': JSON.stringify(script) }), [], [])).toEqual([{ path: 'package.json', change: 'changed' }]);
  });

  it('compares pyproject.toml, setup.cfg and tox.ini by their pytest sections only', async () => {
    const pyproject = '[project]\nname = "x"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n';
    const base = view({ 'pyproject.toml': pyproject, 'setup.cfg': '[metadata]\nname = x\n', 'tox.ini': '[tox]\nenvlist = py3\n' });
    const same = view({
      'pyproject.toml': pyproject.replace('name = "x"', 'name = "y"\ndependencies = ["attrs"]'),
      'setup.cfg': '[metadata]\nname = y\n',
      'tox.ini': '[tox]\nenvlist = py311\n',
    });
    expect(await machineryChanges(base, same, [], [])).toEqual([]);
    const gamed = view({
      'pyproject.toml': pyproject.replace('testpaths = ["tests"]', 'testpaths = ["tests"]\naddopts = "--deselect tests"'),
      'setup.cfg': '[metadata]\nname = x\n\n[tool:pytest]\naddopts = -p no:python\n',
      'tox.ini': '[tox]\nenvlist = py3\n[pytest]\naddopts = -x\n',
    });
    expect((await machineryChanges(base, gamed, [], [])).map((c) => c.path)).toEqual(['pyproject.toml', 'setup.cfg', 'tox.ini']);
    // Dotted keys under [tool] count as the pytest table too.
    expect(
      await machineryChanges(view({ 'pyproject.toml': '[tool]\n' }), view({ 'pyproject.toml': '[tool]\npytest.ini_options.addopts = "-x"\n' }), [], []),
    ).toHaveLength(1);
  });

  it('follows the setup, require and plugin files the configs name', async () => {
    const files = {
      'package.json': PKG,
      'test/setup.js': '',
      '.mocharc.yml': "spec: test/**/*.js\nrequire:\n  - './test/hooks.js'\n",
      'test/hooks.js': '',
      'jest.config.js': "module.exports = { setupFilesAfterEnv: ['<rootDir>/jest/after.ts'], testEnvironment: 'node' };\n",
      'jest/after.ts': '',
      'pytest.ini': '[pytest]\naddopts = -p tools.plug -q\n',
      'tools/plug.py': '',
      'tests/conftest.py': 'import pytest\nfrom app import make\n\npytest_plugins = ["tests.fixtures.db"]\n',
      'tests/fixtures/db.py': '',
      'app.py': '',
      'src/calc.js': '',
    };
    const paths = await machineryPaths(view(files), view(files), ['tests/test_t001_x.py']);
    expect([...paths.keys()].sort()).toEqual(
      [
        '.mocharc.yml',
        'jest.config.js',
        'jest/after.ts',
        'package.json',
        'pytest.ini',
        'test/hooks.js',
        'test/setup.js',
        'tests/conftest.py',
        'tests/fixtures/db.py',
        'tools/plug.py',
      ].sort(),
    );
  });

  it('names each file with how it changed, and leaves out the paths the seed allows', async () => {
    const base = view({ 'conftest.py': 'a', 'vitest.config.ts': 'b', 'src/x.ts': '' });
    const now = view({ 'vitest.config.ts': 'c', 'sitecustomize.py': 'd', 'src/x.ts': 'changed' });
    const changes = await machineryChanges(base, now, [], []);
    expect(changes).toEqual([
      { path: 'conftest.py', change: 'deleted' },
      { path: 'sitecustomize.py', change: 'added' },
      { path: 'vitest.config.ts', change: 'changed' },
    ]);
    expect(await machineryChanges(base, now, [], ['./conftest.py', 'sitecustomize.py'])).toEqual([{ path: 'vitest.config.ts', change: 'changed' }]);
    expect(machineryMessage(changes, 'abcdef0123456789')).toContain(
      'Restore them as they were at the seed (git show abcdef012345:conftest.py > conftest.py; rm sitecustomize.py; git show abcdef012345:vitest.config.ts > vitest.config.ts)',
    );
  });
});

describe("Go's test machinery", () => {
  const GO_MOD = 'module example.com/todo\n\ngo 1.19\n\nrequire github.com/stretchr/testify v1.9.0\n';
  const TEST_MAIN = 'package todo\n\nimport (\n\t"os"\n\t"testing"\n)\n\nfunc TestMain(m *testing.M) {\n\tm.Run()\n\tos.Exit(0)\n}\n';

  it('knows go.work whole, go.mod by its replace and toolchain directives, a TestMain, and testdata the seed has', () => {
    expect(machineryKind('go.work')).toBe('whole');
    expect(machineryKind('go.mod')).toBe('go_mod');
    expect(machineryKind('tools/go.mod')).toBe('go_mod');
    expect(machineryKind('todo/todo_test.go')).toBe('go_test');
    expect(machineryKind('todo/testdata/golden.txt')).toBe('testdata');
    expect(machineryKind('testdata/a/b.json')).toBe('testdata');
    for (const f of ['todo/todo.go', 'go.sum', 'todo/testdata.go', 'testdata', 'todo/x_test.go.txt']) expect(machineryKind(f), f).toBeNull();
  });

  it('compares go.mod by what changes what builds: a new require is no change, a replace or a toolchain is, in either form', () => {
    const part = (text: string) => machineryPart('go_mod', Buffer.from(text));
    expect(part(GO_MOD)).toBe('');
    expect(part(`${GO_MOD}require golang.org/x/text v0.3.0\n`)).toBe('');
    expect(part(`${GO_MOD}replace  github.com/stretchr/testify   => ./fake // never fails\n`)).toBe('replace github.com/stretchr/testify => ./fake');
    expect(part(`${GO_MOD}replace (\n\tgithub.com/a/b => ./b\n\n\t// a note\n\tgithub.com/c/d v1.0.0 => ../d\n)\ntoolchain go1.22.0\n`)).toBe(
      'replace github.com/a/b => ./b\nreplace github.com/c/d v1.0.0 => ../d\ntoolchain go1.22.0',
    );
    expect(part('toolchain (\n\tgo1.21.0\n)\n')).toBe('toolchain go1.21.0');
    expect(machineryPart('go_mod', null)).toBe('');
  });

  it('locks a TestMain added or changed, lets the worker write other test files, and locks the testdata the seed has but not a new fixture', async () => {
    const base = view({ 'go.mod': GO_MOD, 'todo/todo_test.go': 'package todo\n', 'todo/testdata/golden.txt': 'want', 'main_test.go': TEST_MAIN });
    const now = view({
      'go.mod': GO_MOD,
      'todo/todo_test.go': `${TEST_MAIN}\nfunc TestMore(t *testing.T) {}\n`,
      'todo/extra_test.go': 'package todo\n\nfunc TestExtra(t *testing.T) {}\n',
      'todo/main2_test.go': TEST_MAIN,
      'todo/testdata/golden.txt': 'whatever the code prints',
      'todo/testdata/new.txt': 'a fixture of the worker',
      'main_test.go': TEST_MAIN.replace('os.Exit(0)', 'os.Exit(m.Run())'),
    });
    expect(await machineryChanges(base, now, [], [])).toEqual([
      { path: 'main_test.go', change: 'changed' },
      { path: 'todo/main2_test.go', change: 'added' },
      { path: 'todo/testdata/golden.txt', change: 'changed' },
      { path: 'todo/todo_test.go', change: 'changed' },
    ]);
    const gone = view({ 'go.mod': GO_MOD, 'todo/todo_test.go': 'package todo\n', 'main_test.go': TEST_MAIN });
    expect(await machineryChanges(base, gone, [], [])).toEqual([{ path: 'todo/testdata/golden.txt', change: 'deleted' }]);
    expect(machineryMessage([{ path: 'todo/testdata/golden.txt', change: 'changed' }], 'abcdef0123456789')).toContain(
      'git show abcdef012345:todo/testdata/golden.txt > todo/testdata/golden.txt',
    );
  });
});

describe("cargo's test machinery", () => {
  const CARGO = '[package]\nname = "todo"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n';

  it('knows build.rs, .cargo/config(.toml), rust-toolchain(.toml) whole and Cargo.toml by its test tables', () => {
    for (const f of [
      'build.rs',
      'rust-toolchain',
      'rust-toolchain.toml',
      '.cargo/config',
      '.cargo/config.toml',
      'crates/a/.cargo/config.toml',
      'crates/a/build.rs',
    ]) {
      expect(machineryKind(f), f).toBe('whole');
    }
    expect(machineryKind('Cargo.toml')).toBe('cargo_toml');
    expect(machineryKind('crates/a/Cargo.toml')).toBe('cargo_toml');
    for (const f of ['src/lib.rs', 'Cargo.lock', 'tests/t001_x.rs', 'config.toml', 'src/.cargo.rs', 'cargo/config.toml'])
      expect(machineryKind(f), f).toBeNull();
  });

  it('compares Cargo.toml by what changes how the tests build: a new dependency is no change; a test target, a patch, a profile, a build script key are', () => {
    const part = (text: string) => machineryPart('cargo_toml', Buffer.from(text));
    expect(part(CARGO)).toBe('');
    expect(part(`${CARGO}serde = "1" # a note\n\n[dev-dependencies]\nproptest = "1"\n`)).toBe('');
    expect(part(`${CARGO}\n[[test]]\nname = "t001_add" # no libtest\nharness = false\n`)).toBe(
      '[[test]]\n[[test]]: name = "t001_add"\n[[test]]: harness = false',
    );
    expect(part(`${CARGO}\n[patch.crates-io]\nlibc = { path = "../libc" }\n\n[replace]\n"a:1.0.0" = { path = "a" }\n`)).toBe(
      '[patch.crates-io]\npatch.crates-io: libc = { path = "../libc" }\n[replace]\nreplace: "a:1.0.0" = { path = "a" }',
    );
    expect(part(`${CARGO}\n[profile.test]\nopt-level = 3\n`)).toBe('[profile.test]\nprofile.test: opt-level = 3');
    expect(part(CARGO.replace('edition = "2021"\n', 'edition = "2021"\nbuild = "gen.rs"\nautotests = false\n'))).toBe(
      'package: build = "gen.rs"\npackage: autotests = false',
    );
    expect(machineryPart('cargo_toml', null)).toBe('');
  });

  it('locks a build script added, and lets the worker add a dependency', async () => {
    const base = view({ 'Cargo.toml': CARGO, 'src/lib.rs': '' });
    const now = view({
      'Cargo.toml': `${CARGO}itoa = "1"\n`,
      'src/lib.rs': 'pub fn x() {}',
      'build.rs': 'fn main() {}',
      '.cargo/config.toml': '[env]\nX = "1"\n',
    });
    expect(await machineryChanges(base, now, [], [])).toEqual([
      { path: '.cargo/config.toml', change: 'added' },
      { path: 'build.rs', change: 'added' },
    ]);
  });
});

describe("the Python runner's modules, stood in for", () => {
  const rule: ShadowRule = { folders: ['', 'src', 'tests'], modules: new Set(['pytest', '_pytest', 'json', 'pluggy']) };
  const none = () => false;

  it('names the module a top-level file or a compiled module of a path folder would replace', () => {
    expect(shadowedModule('pytest.py', rule, none)).toBe('pytest');
    expect(shadowedModule('src/json.py', rule, none)).toBe('json');
    expect(shadowedModule('tests/pluggy.pyc', rule, none)).toBe('pluggy');
    expect(shadowedModule('_pytest.cpython-311-x86_64-linux-gnu.so', rule, none)).toBe('_pytest');
    expect(shadowedModule('json.pyd', rule, none)).toBe('json');
  });

  it('names any file of a package (with its __init__.py) of that name, and not a namespace folder without one', () => {
    expect(shadowedModule('_pytest/__init__.py', rule, none)).toBe('_pytest');
    expect(shadowedModule('_pytest/junitxml.py', rule, (p) => p === '_pytest/__init__.py')).toBe('_pytest');
    expect(shadowedModule('src/pluggy/hooks.py', rule, (p) => p === 'src/pluggy/__init__.py')).toBe('pluggy');
    expect(shadowedModule('_pytest/junitxml.py', rule, none)).toBeNull();
    expect(shadowedModule('_pytest/junitxml.py', rule, (p) => p === 'src/_pytest/__init__.py')).toBeNull();
  });

  it('leaves other names, other folders, deeper files and non-modules alone', () => {
    expect(shadowedModule('todo.py', rule, none)).toBeNull();
    expect(shadowedModule('app/pytest.py', rule, none)).toBeNull();
    expect(shadowedModule('src/app/json.py', rule, () => true)).toBeNull();
    expect(shadowedModule('pytest.txt', rule, none)).toBeNull();
    expect(shadowedModule('pytest', rule, none)).toBeNull();
    expect(shadowedModule('testsjson.py', rule, none)).toBeNull();
    expect(shadowedModule('pytest.py', undefined, none)).toBeNull();
  });

  it("treats a distribution's entry points as machinery by their pytest11 plugins only", () => {
    expect(machineryKind('evil-1.0.dist-info/entry_points.txt')).toBe('entry_points');
    expect(machineryKind('src/mine.egg-info/entry_points.txt')).toBe('entry_points');
    expect(machineryKind('docs/entry_points.txt')).toBeNull();
    const plugin = Buffer.from('[console_scripts]\nmine = mine:main\n\n[pytest11]\nevil = evil_plugin\n');
    expect(machineryPart('entry_points', plugin)).toContain('evil = evil_plugin');
    expect(machineryPart('entry_points', plugin)).not.toContain('console_scripts');
    expect(machineryPart('entry_points', Buffer.from('[console_scripts]\nmine = mine:main\n'))).toBe(machineryPart('entry_points', null));
  });

  it('counts an added or changed stand-in as a change, and a project module of another name or an unchanged one as none', async () => {
    const base = view({ 'src/json.py': 'ours', 'todo.py': '' });
    const now = view({ 'src/json.py': 'ours', 'todo.py': 'x', 'pytest.py': 'fake', '_pytest/__init__.py': '', 'tests/extra.py': '' });
    expect(await machineryChanges(base, now, [], [], rule)).toEqual([
      { path: '_pytest/__init__.py', change: 'added' },
      { path: 'pytest.py', change: 'added' },
    ]);
    expect(await machineryChanges(base, now, [], ['pytest.py'], rule)).toEqual([{ path: '_pytest/__init__.py', change: 'added' }]);
    expect(await machineryChanges(base, now, [], [])).toEqual([]);
    expect(await machineryChanges(base, view({ 'src/json.py': 'changed', 'todo.py': '' }), [], [], rule)).toEqual([{ path: 'src/json.py', change: 'changed' }]);
  });
});

describe('the worktree against its seed commit', () => {
  let dir: string | null = null;
  afterEach(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    dir = null;
  });
  const sh = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

  function write(d: string, files: Record<string, string>, links: Record<string, string> = {}): void {
    for (const [rel, content] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(d, rel)), { recursive: true });
      fs.writeFileSync(path.join(d, rel), content);
    }
    for (const [rel, target] of Object.entries(links)) fs.symlinkSync(target, path.join(d, rel));
  }
  function commit(d: string, message: string): string {
    sh(d, 'add', '-A');
    sh(d, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', message);
    return sh(d, 'rev-parse', 'HEAD');
  }
  function repoWith(files: Record<string, string>, links: Record<string, string> = {}): { dir: string; base: string } {
    const d = tempDir('tilth-machinery-unit-');
    dir = d;
    write(d, files, links);
    sh(d, 'init', '-q');
    return { dir: d, base: commit(d, 'base') };
  }

  it('sees files git ignores and links swapped in, and skips node_modules and virtualenvs', async () => {
    const { dir: d, base } = repoWith({ '.gitignore': 'sitecustomize.py\n.venv/\n', 'conftest.py': 'x = 1\n', 'src/a.py': '' });
    fs.writeFileSync(path.join(d, 'sitecustomize.py'), 'import os\n');
    fs.rmSync(path.join(d, 'conftest.py'));
    fs.symlinkSync('src/a.py', path.join(d, 'conftest.py'));
    fs.mkdirSync(path.join(d, 'node_modules/x'), { recursive: true });
    fs.writeFileSync(path.join(d, 'node_modules/x/jest.config.js'), '');
    fs.mkdirSync(path.join(d, '.venv/lib/site-packages'), { recursive: true });
    fs.writeFileSync(path.join(d, '.venv/pyvenv.cfg'), '');
    fs.writeFileSync(path.join(d, '.venv/lib/site-packages/_editable.pth'), '');
    const changes = await worktreeMachineryChanges({ source: d, baseSha: base, allowed: [] }, d, []);
    expect(changes).toEqual([
      { path: 'conftest.py', change: 'changed' },
      { path: 'sitecustomize.py', change: 'added' },
    ]);
    expect(worktreeView(d).files.has('node_modules/x/jest.config.js')).toBe(false);
  });

  it('lets the file tools write code and dependencies, and refuses machinery with one sentence', async () => {
    const { dir: d, base } = repoWith({ 'package.json': PKG, 'test/setup.js': '', 'src/a.js': '' });
    const lock = await machineryWriteLock({ source: d, baseSha: base, allowed: ['.mocharc.json'] }, d, []);
    expect(lock.refusal('src/a.js', null, 'x')).toBeNull();
    expect(lock.refusal('.mocharc.json', null, '{}')).toBeNull();
    expect(lock.refusal('test/setup.js', Buffer.from(''), 'x')).toMatch(
      /^test\/setup\.js decides how the tests run, so the worker may not change it .*seed review/,
    );
    const withDep = JSON.stringify({ ...(JSON.parse(PKG) as object), dependencies: { ms: '1', left: '2' } });
    expect(lock.refusal('package.json', Buffer.from(PKG), withDep)).toBeNull();
    const withScript = JSON.stringify({ ...(JSON.parse(PKG) as object), scripts: { test: 'exit 0' } });
    expect(lock.refusal('package.json', Buffer.from(PKG), withScript)).toMatch(/^the test settings of package\.json decide how the tests run/);
  });

  it("lets the file tools write Go tests and new fixtures, and refuses a TestMain, a replace and the seed's fixtures", async () => {
    const { dir: d, base } = repoWith({ 'go.mod': 'module x\n', 'todo/testdata/golden.txt': 'want', 'todo/todo.go': 'package todo\n' });
    const lock = await machineryWriteLock({ source: d, baseSha: base, allowed: [] }, d, []);
    expect(lock.refusal('todo/extra_test.go', null, 'package todo\n\nfunc TestX(t *testing.T) {}\n')).toBeNull();
    expect(lock.refusal('todo/testdata/new.txt', null, 'mine')).toBeNull();
    expect(lock.refusal('go.mod', Buffer.from('module x\n'), 'module x\n\nrequire y v1.0.0\n')).toBeNull();
    expect(lock.refusal('todo/extra_test.go', null, 'package todo\n\nfunc TestMain(m *testing.M) {}\n')).toMatch(
      /^the test settings of todo\/extra_test\.go decide/,
    );
    expect(lock.refusal('go.mod', Buffer.from('module x\n'), 'module x\nreplace y => ./y\n')).toMatch(/^the test settings of go\.mod decide/);
    expect(lock.refusal('todo/testdata/golden.txt', Buffer.from('want'), 'got')).toMatch(/^todo\/testdata\/golden\.txt decides/);
  });

  it('walks nested folders, sees a deleted file, and tells a link kept from a link replaced by its target’s name', async () => {
    const { dir: d, base } = repoWith({ 'tests/conftest.py': 'a = 1\n', 'pytest.ini': '[pytest]\n', 'src/a.py': '' }, { 'conftest.py': 'src/a.py' });
    expect(await worktreeMachineryChanges({ source: d, baseSha: base, allowed: [] }, d, [])).toEqual([]);
    fs.writeFileSync(path.join(d, 'tests/conftest.py'), 'a = 2\n');
    fs.rmSync(path.join(d, 'pytest.ini'));
    expect(await worktreeMachineryChanges({ source: d, baseSha: base, allowed: [] }, d, [])).toEqual([
      { path: 'pytest.ini', change: 'deleted' },
      { path: 'tests/conftest.py', change: 'changed' },
    ]);
    fs.rmSync(path.join(d, 'conftest.py'));
    fs.writeFileSync(path.join(d, 'conftest.py'), 'src/a.py');
    expect((await worktreeMachineryChanges({ source: d, baseSha: base, allowed: [] }, d, [])).map((c) => c.path)).toEqual([
      'conftest.py',
      'pytest.ini',
      'tests/conftest.py',
    ]);
  });

  it('compares a branch head with its base, following the files the base’s configs name', async () => {
    const { dir: d, base } = repoWith({ '.mocharc.json': '{ "require": "lib/setup.js" }', 'lib/setup.js': 'a', 'src/a.js': '' });
    write(d, { 'lib/setup.js': 'b', 'conftest.py': '', 'src/a.js': 'changed' });
    const head = commit(d, 'head');
    expect(await branchMachineryCheck({ source: d, baseSha: base, allowed: [] }, head, [])).toEqual([
      { path: 'conftest.py', change: 'added' },
      { path: 'lib/setup.js', change: 'changed' },
    ]);
    expect(await branchMachineryCheck({ source: d, baseSha: base, allowed: ['lib/setup.js'] }, head, [])).toEqual([{ path: 'conftest.py', change: 'added' }]);
  });

  it("refuses a file that would stand in for the Python runner's module, saying which", async () => {
    const { dir: d, base } = repoWith({ 'todo/__init__.py': '', 'tests/test_a.py': '' });
    const shadow: ShadowRule = { folders: ['', 'tests'], modules: new Set(['pytest', '_pytest']) };
    const lock = await machineryWriteLock({ source: d, baseSha: base, allowed: [], shadow }, d, []);
    expect(lock.refusal('pytest.py', null, 'import sys')).toMatch(
      /^pytest\.py would be imported in place of `pytest`, a module the test runner itself uses.*seed review/,
    );
    expect(lock.refusal('tests/_pytest/__init__.py', null, '')).toMatch(/^tests\/_pytest\/__init__\.py would be imported in place of `_pytest`/);
    expect(lock.refusal('todo/pytest.py', null, '')).toBeNull();
    const allowed = await machineryWriteLock({ source: d, baseSha: base, allowed: ['pytest.py'], shadow }, d, []);
    expect(allowed.refusal('pytest.py', null, '')).toBeNull();
    fs.writeFileSync(path.join(d, 'pytest.py'), 'fake');
    expect(await worktreeMachineryChanges({ source: d, baseSha: base, allowed: [], shadow }, d, [])).toEqual([{ path: 'pytest.py', change: 'added' }]);
  });

  it('refuses a write to a whole machinery file even when it keeps the content', async () => {
    const { dir: d, base } = repoWith({ 'conftest.py': 'x = 1\n' });
    const lock = await machineryWriteLock({ source: d, baseSha: base, allowed: [] }, d, []);
    expect(lock.refusal('conftest.py', Buffer.from('x = 1\n'), 'x = 1\n')).toMatch(/^conftest\.py decides how the tests run/);
    expect(lock.refusal('./conftest.py', null, '')).toMatch(/^conftest\.py decides/);
  });
});

describe('the files a config names, key by key', () => {
  const KEYS = [
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
  ];
  const named = async (files: Record<string, string>) =>
    [...(await machineryPaths(view(files), view(files), [])).keys()].filter((f) => f.startsWith('lib/')).sort();

  it.each(KEYS)('locks a file named under %s in a JSON config, nested or in a list, and not one under another key', async (key) => {
    const config = { [key]: ['./lib/a.js'], nested: { [key]: 'lib/b' }, spec: 'lib/c.js' };
    expect(await named({ '.mocharc.json': JSON.stringify(config), 'lib/a.js': '', 'lib/b.ts': '', 'lib/c.js': '' })).toEqual(['lib/a.js', 'lib/b.ts']);
  });

  it('reads JSON with comments and trailing commas, keeping a // inside a string', async () => {
    const jsonc = '{\n  // the setup\n  "require": ["lib/a.js", /* more */ "lib//b.js",],\n  "spec": "lib/c.js", /* end */\n}\n';
    expect(await named({ '.mocharc.jsonc': jsonc, 'lib/a.js': '', 'lib//b.js': '', 'lib/c.js': '' })).toEqual(['lib/a.js']);
    // An escaped quote does not end the string; a comment never closed ends the text.
    const escaped = '{ "require": ["lib/\\"q.js", "lib/a.js"] } /* open';
    expect(await named({ '.mocharc.jsonc': escaped, 'lib/a.js': '' })).toEqual(['lib/a.js']);
  });

  it('falls back to every quoted name of a config that is not JSON', async () => {
    expect(await named({ '.babelrc': "{ plugins: ['lib/p.js'] }", 'lib/p.js': '' })).toEqual(['lib/p.js']);
  });

  it('reads YAML keys and lists under a file-naming key, quoted or not, with a comment, and no other key', async () => {
    const yml = "spec: lib/s.js\nrequire: 'lib/a.js'  # the setup\nfile:\n  - lib/b.js\n  - \"lib/c.js\"\nui: [lib/d.js, 'lib/e.js']\nother:\n  - lib/f.js\n";
    const files = Object.fromEntries(['s', 'a', 'b', 'c', 'd', 'e', 'f'].map((n) => [`lib/${n}.js`, '']));
    expect(await named({ '.mocharc.yml': yml, ...files })).toEqual(['lib/a.js', 'lib/b.js', 'lib/c.js', 'lib/d.js', 'lib/e.js']);
  });

  it('resolves a name by its extensions and index files, from the config folder or the root, and never outside or by a pattern', async () => {
    const config = JSON.stringify({
      require: ['./a', 'b', 'lib/c', '<rootDir>/lib/d', 'file:lib/e.js', '../../lib/x.js', 'lib/*.js', '/abs/lib/y.js', 'lib/sp ace.js', ''],
    });
    const files = {
      'lib/a.cjs': '',
      'lib/b/index.ts': '',
      'lib/c.mts': '',
      'lib/d.json': '',
      'lib/e.js': '',
      'lib/x.js': '',
      'lib/y.js': '',
      'lib/sp ace.js': '',
    };
    expect(await named({ 'lib/.mocharc.json': config, ...files })).toEqual([
      'lib/.mocharc.json',
      'lib/a.cjs',
      'lib/b/index.ts',
      'lib/c.mts',
      'lib/d.json',
      'lib/e.js',
    ]);
  });
});

describe('the part of a settings file that is compared', () => {
  const part = (kind: MachineryKind, text: string | null) => machineryPart(kind, text === null ? null : Buffer.from(text));

  it('reads a missing package.json or pyproject.toml as empty, and a missing whole file as absent', () => {
    expect(part('package_json', null)).toBe('');
    expect(part('pyproject', null)).toBe('');
    expect(part('whole', null)).toBeNull();
    expect(part('whole', 'x = 1\n')).toBe('x = 1\n');
  });

  it('keeps package.json’s runner sections as canonical JSON: keys sorted at every depth, lists in order, null kept', () => {
    const pkg = {
      name: 'x',
      jest: null,
      scripts: { test: 'jest', build: 'tsc' },
      mocha: { spec: ['b', 'a'], require: [{ z: 1, y: [true, 2] }] },
      dependencies: {},
    };
    expect(part('package_json', JSON.stringify(pkg))).toBe(
      '{"jest":null,"mocha":{"require":[{"y":[true,2],"z":1}],"spec":["b","a"]},"scripts":{"build":"tsc","test":"jest"}}',
    );
    expect(part('package_json', JSON.stringify({ name: 'x' }))).toBe('{}');
  });

  it('compares a blank package.json as empty, and one that is not a JSON object by its whole text', () => {
    expect(part('package_json', '  \n')).toBe('');
    expect(part('package_json', '{ "scripts": ')).toBe('{ "scripts": ');
    expect(part('package_json', '["scripts"]')).toBe('["scripts"]');
  });

  it('keeps the trimmed lines of tox.ini’s [pytest] sections, without blanks, comments or look-alike headers', () => {
    const ini = [
      'top = 1',
      '[tox]',
      'envlist = py3',
      '[pytest] = 1',
      '  [ pytest ]  ',
      '# a comment',
      '; another',
      '',
      '   addopts = -x   ',
      'markers = [slow]',
      '[testenv]',
      'commands = pytest',
      '[pytest]',
      'xfail_strict = true',
    ].join('\n');
    expect(part('tox_ini', ini)).toBe('[pytest]\naddopts = -x\nmarkers = [slow]\n[pytest]\nxfail_strict = true');
    expect(part('setup_cfg', '[metadata]\nname = x\n[tool:pytest]\naddopts = -q\n[pytest]\nignored = 1\n')).toBe('[tool:pytest]\naddopts = -q');
  });

  it('keeps pyproject.toml’s tool.pytest tables, the pytest keys of a [tool] table and dotted tool.pytest keys before any table', () => {
    const toml = [
      'tool.pytest.ini_options.addopts = "-q"',
      'name = "x"',
      '[tool]',
      '"pytest".ini_options = { addopts = "-x" }',
      'black = { line-length = 100 }',
      '  [ tool . pytest . ini_options ]   # the tests',
      '',
      '# a comment',
      '  addopts = "-p plug"  ',
      'markers = [',
      '  ["slow"],',
      ']',
      '[[tool.pytest.extra]]',
      'a = 1',
      '[tool.pytestish]',
      'b = 2',
      '[project]',
      'pytest = 1',
      'tool.pytest.c = 3',
    ].join('\n');
    expect(part('pyproject', toml)).toBe(
      [
        'tool.pytest.ini_options.addopts = "-q"',
        'tool: "pytest".ini_options = { addopts = "-x" }',
        '[tool.pytest.ini_options]',
        'addopts = "-p plug"',
        'markers = [',
        '["slow"],',
        ']',
        '[tool.pytest.extra]',
        'a = 1',
      ].join('\n'),
    );
  });
});

describe('the files a config names, file by file', () => {
  const keys = async (files: Record<string, string>, locked: string[] = []) => [...(await machineryPaths(view(files), view(files), locked)).keys()].sort();

  it('reads package.json’s scripts as command lines, and a package.json that is not JSON names nothing', async () => {
    const pkg = JSON.stringify({ scripts: { test: 'mocha -r lib/hook.js --require=lib/other.js' } });
    expect(await keys({ 'package.json': pkg, 'lib/hook.js': '', 'lib/other.js': '', 'lib/no.js': '' })).toEqual([
      'lib/hook.js',
      'lib/other.js',
      'package.json',
    ]);
    expect(await keys({ 'package.json': '{ "scripts": ', 'lib/a.js': '' })).toEqual(['package.json']);
  });

  it('passes over null values in a JSON config', async () => {
    expect(await keys({ '.mocharc.json': '{ "timeout": null, "require": "lib/a.js" }', 'lib/a.js': '' })).toEqual(['.mocharc.json', 'lib/a.js']);
  });

  it('reads pytest_plugins as a list, a tuple without spaces or one string, and not a variable that only ends with the name', async () => {
    const files = {
      'tests/conftest.py': 'my_pytest_plugins = ["tools.fake"]\npytest_plugins=("tests.fixtures.db","tests.fixtures.web")\n',
      'sub/conftest.py': 'pytest_plugins = "sub.plug"\n',
      'odd/conftest.py': 'pytest_plugins = ["tools/slash", "tools-x.plug", "tools.plug-x"]\n',
      'tools/fake.py': '',
      'tests/fixtures/db.py': '',
      'tests/fixtures/web.py': '',
      'sub/plug.py': '',
      'tools/slash.py': '',
      'tools-x/plug.py': '',
      'tools/plug-x.py': '',
    };
    expect(await keys(files)).toEqual([
      'odd/conftest.py',
      'sub/conftest.py',
      'sub/plug.py',
      'tests/conftest.py',
      'tests/fixtures/db.py',
      'tests/fixtures/web.py',
    ]);
  });

  it('reads each pytest settings file by its own section, with -p apart or joined, modules under src or as packages', async () => {
    const files = {
      'tox.ini': '[testenv]\ncommands = pytest -p tools.no_tox\n[pytest]\naddopts = -p tools.tox\n',
      'setup.cfg': '[options]\nx = -p tools.no_cfg\n[tool:pytest]\naddopts = -ptools.cfg tools/extra.py\n',
      'pyproject.toml': '[project]\nx = "-p tools.no_py"\n[tool.pytest.ini_options]\naddopts = "-p tools.py"\n',
      'pytest.ini': '[pytest]\naddopts = -p plug_src -p tools.pkg\n',
      'tools/tox.py': '',
      'tools/no_tox.py': '',
      'tools/cfg.py': '',
      'tools/no_cfg.py': '',
      'tools/extra.py': '',
      'tools/py.py': '',
      'tools/no_py.py': '',
      'src/plug_src.py': '',
      'tools/pkg/__init__.py': '',
    };
    expect(await keys(files)).toEqual([
      'pyproject.toml',
      'pytest.ini',
      'setup.cfg',
      'src/plug_src.py',
      'tools/cfg.py',
      'tools/extra.py',
      'tools/pkg/__init__.py',
      'tools/py.py',
      'tools/tox.py',
      'tox.ini',
    ]);
  });

  it('reads YAML with a quoted key, a space before the colon and trailing spaces, and skips commented-out lines', async () => {
    const yml = [
      '# require: lib/x1.js',
      '"require": lib/a.js   ',
      "'file' : lib/b.js",
      'ui:',
      '  # - lib/x2.js',
      "  - lib/it's.js",
      'reporter: ["lib/c.js", lib/it\'s2.js]',
    ].join('\n');
    const files = Object.fromEntries(['x1', 'x2', 'a', 'b', 'c', "it's", "it's2", 'its', 'its2'].map((n) => [`lib/${n}.js`, '']));
    expect(await keys({ '.mocharc.yaml': yml, ...files })).toEqual(['.mocharc.yaml', 'lib/a.js', 'lib/b.js', 'lib/c.js', "lib/it's.js", "lib/it's2.js"]);
  });

  it.each(['vitest.config.js', 'vitest.config.ts', 'vitest.config.mjs', 'vitest.config.cts', 'vitest.config.jsx', 'vitest.config.tsx', '.mocharc.yml.js'])(
    'reads every plain string of %s, template literals too, and never an empty, long, patterned or absolute name',
    async (config) => {
      const source = "export default { spec: [`./t.js`, '', 'sp ace.js', '*.js', '{b}.js', '/abs.js'] };\n";
      const files = { [`lib/${config}`]: source, 'lib/t.js': '', 'lib/index.js': '', 'lib/sp ace.js': '', 'lib/*.js': '', 'lib/{b}.js': '', 'lib/abs.js': '' };
      expect(await keys(files)).toEqual([`lib/${config}`, 'lib/t.js'].sort());
    },
  );

  it('takes a name of 300 characters and not one longer', async () => {
    const at = (n: number) => `lib/${'a'.repeat(n - 7)}.js`;
    expect(at(300)).toHaveLength(300);
    const config = JSON.stringify({ require: [at(300), at(301)] });
    expect(await keys({ '.mocharc.json': config, [at(300)]: '', [at(301)]: '' })).toEqual(['.mocharc.json', at(300)]);
  });

  it.each(['', '.js', '.cjs', '.mjs', '.ts', '.cts', '.mts', '.jsx', '.tsx', '.json', '.py', '/index.js', '/index.ts', '/__init__.py'])(
    'resolves a name written without its ending to lib/m%s',
    async (ending) => {
      expect(await keys({ '.mocharc.json': '{ "require": "lib/m" }', [`lib/m${ending}`]: '' })).toEqual(['.mocharc.json', `lib/m${ending}`]);
    },
  );

  it('follows no names from Python’s startup files, .npmrc or source files', async () => {
    const files = {
      'sitecustomize.py': "'lib/a.js'\n",
      'usercustomize.py': "'lib/a.js'\n",
      'lib/x.pth': "'lib/a.js'\n",
      '.npmrc': 'script-shell="lib/a.js"\n',
      'src/app.js': "require('../lib/a.js'); const s = 'lib/a.js';\n",
      'lib/a.js': '',
    };
    expect(await keys(files)).toEqual(['.npmrc', 'lib/x.pth', 'sitecustomize.py', 'usercustomize.py']);
  });

  it('passes over a config it cannot read', async () => {
    const unreadable: TreeView = { files: new Set(['conftest.py', 'lib/a.py']), read: () => null };
    expect([...(await machineryPaths(unreadable, unreadable, [])).keys()]).toEqual(['conftest.py']);
  });

  it('keeps package.json compared by its sections when a config names it', async () => {
    const files = { 'jest.config.js': "const pkg = require('./package.json');\n", 'package.json': PKG };
    expect((await machineryPaths(view(files), view(files), [])).get('package.json')).toBe('package_json');
    const withDep = JSON.stringify({ ...(JSON.parse(PKG) as object), dependencies: { ms: '1', left: '2' } });
    expect(await machineryChanges(view(files), view({ ...files, 'package.json': withDep }), [], [])).toEqual([]);
  });

  it('locks the __init__.py of every folder above an acceptance test, and no other', async () => {
    const files = { 'tests/__init__.py': '', 'tests/unit/__init__.py': '', 'other/__init__.py': '', 'tests/unit/test_x.py': '' };
    const paths = await machineryPaths(view(files), view(files), ['tests/unit/test_x.py']);
    expect(Object.fromEntries(paths)).toEqual({ 'tests/__init__.py': 'whole', 'tests/unit/__init__.py': 'whole' });
  });
});

describe('what the worker is told', () => {
  it('lists each file and how to put it back, quoting names the shell would split', () => {
    const message = machineryMessage(
      [
        { path: 'package.json', change: 'changed' },
        { path: "it's here/conftest.py", change: 'deleted' },
        { path: 'a b.pth', change: 'added' },
      ],
      'abcdef0123456789',
    );
    expect(message).toBe(
      "These files decide how the tests run, and only the user may change them: package.json (changed), it's here/conftest.py (deleted), a b.pth (added). " +
        'Restore them as they were at the seed (put the test settings of package.json back as `git show abcdef012345:package.json` has them; ' +
        "git show abcdef012345:'it'\\''s here/conftest.py' > 'it'\\''s here/conftest.py'; rm 'a b.pth') and make the code pass the tests as they are. " +
        'The user can allow a task to change one of them in seed review ("may change test setup").',
    );
  });

  it('normalizes a path the way the lock compares it', () => {
    expect(normalizeRel('tests\\conftest.py')).toBe('tests/conftest.py');
    expect(normalizeRel('./a/../conftest.py')).toBe('conftest.py');
  });
});
