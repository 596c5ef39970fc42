import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../testing/temp-dir.ts';
import {
  machineryChanges,
  machineryKind,
  machineryMessage,
  machineryPaths,
  machineryWriteLock,
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

describe('the worktree against its seed commit', () => {
  let dir: string | null = null;
  afterEach(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    dir = null;
  });
  const sh = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

  function repoWith(files: Record<string, string>): { dir: string; base: string } {
    const d = tempDir('tilth-machinery-unit-');
    dir = d;
    for (const [rel, content] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(d, rel)), { recursive: true });
      fs.writeFileSync(path.join(d, rel), content);
    }
    sh(d, 'init', '-q');
    sh(d, 'add', '-A');
    sh(d, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'base');
    return { dir: d, base: sh(d, 'rev-parse', 'HEAD') };
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
