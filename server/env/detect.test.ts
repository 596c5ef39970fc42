import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_TEST_GLOBS, type ProjectEnv } from '../../shared/project-env.ts';
import { tempDir } from '../testing/temp-dir.ts';
import { detectProjectEnv } from './detect.ts';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A throwaway repository: path → content (a trailing `/` makes a folder). */
function repo(files: Record<string, string | object>): string {
  const root = tempDir('tilth-env-');
  made.push(root);
  for (const [file, content] of Object.entries(files)) {
    const target = path.join(root, file);
    if (file.endsWith('/')) {
      fs.mkdirSync(target, { recursive: true });
      continue;
    }
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, typeof content === 'string' ? content : JSON.stringify(content));
  }
  return root;
}

const VITEST_TS_CONFIG = `import { defineConfig } from 'vitest/config';
// include: ['nothing/**'] in a comment is not the setting
export default defineConfig({
  test: {
    coverage: { include: ['src/**'] },
    include: ['tests/**/*.test.ts'],
  },
});
`;

type Case = { name: string; files: Record<string, string | object>; expected: Partial<ProjectEnv> };

const cases: Case[] = [
  {
    name: 'an ESM package whose test script is node --test (the js-todo shape)',
    files: {
      'package.json': { type: 'module', scripts: { test: 'node --test' } },
      'src/todo.js': '',
      'tests/todo.test.js': "import { test } from 'node:test';",
    },
    expected: {
      languages: ['javascript'],
      package_manager: 'npm',
      lockfile: null,
      module_type: 'esm',
      typescript: false,
      test_runner: 'node',
      test_runner_evidence: 'scripts.test: node --test',
      test_dirs: ['tests'],
      test_globs: DEFAULT_TEST_GLOBS.node,
      python: null,
      node_modules: false,
      setup_command: null,
    },
  },
  {
    name: 'TypeScript with vitest and pnpm, reading test.include and not coverage.include',
    files: {
      'package.json': { type: 'module', scripts: { test: 'vitest run' }, devDependencies: { vitest: '^3', typescript: '^5' } },
      'pnpm-lock.yaml': 'lockfileVersion: 9.0',
      'tsconfig.json': '{ "compilerOptions": { "strict": true, } // comment\n}',
      'vitest.config.ts': VITEST_TS_CONFIG,
      'tests/': '',
      'node_modules/': '',
    },
    expected: {
      languages: ['typescript'],
      package_manager: 'pnpm',
      lockfile: 'pnpm-lock.yaml',
      typescript: true,
      test_runner: 'vitest',
      test_runner_evidence: 'vitest.config.ts',
      test_dirs: ['tests'],
      test_globs: ['tests/**/*.test.ts'],
      node_modules: true,
    },
  },
  {
    name: 'vitest whose include is not a literal: the default include',
    files: {
      'package.json': { devDependencies: { vitest: '^3' } },
      'vitest.config.mts': "const include = ['a/**'];\nexport default { test: { include } };",
    },
    expected: { test_runner: 'vitest', test_runner_evidence: 'vitest.config.mts', test_globs: DEFAULT_TEST_GLOBS.vitest, module_type: 'commonjs' },
  },
  {
    name: 'the packageManager field over a lockfile',
    files: { 'package.json': { packageManager: 'yarn@4.1.0' }, 'yarn.lock': '', 'package-lock.json': '{}' },
    expected: { package_manager: 'yarn', lockfile: 'yarn.lock', test_runner: null },
  },
  {
    name: 'bun from its binary lockfile',
    files: { 'package.json': {}, 'bun.lockb': '' },
    expected: { package_manager: 'bun', lockfile: 'bun.lockb' },
  },
  {
    name: 'CommonJS with mocha and a .mocharc.yml spec',
    files: {
      'package.json': { scripts: { test: 'mocha' }, devDependencies: { mocha: '^10', chai: '^4' }, dependencies: { lodash: '^4' } },
      'package-lock.json': '{}',
      '.mocharc.yml': "spec: 'test/**/*.spec.js'\ntimeout: 5000\n",
      'test/': '',
    },
    expected: {
      module_type: 'commonjs',
      package_manager: 'npm',
      lockfile: 'package-lock.json',
      test_runner: 'mocha',
      test_runner_evidence: '.mocharc.yml',
      test_globs: ['test/**/*.spec.js'],
      test_dirs: ['test'],
    },
  },
  {
    name: "mocha with no spec anywhere: mocha's default ./test/*.{js,cjs,mjs}",
    files: { 'package.json': { scripts: { test: 'mocha --reporter dot' } }, 'test/': '' },
    expected: { test_runner: 'mocha', test_runner_evidence: 'scripts.test: mocha --reporter dot', test_globs: ['./test/*.{js,cjs,mjs}'], test_dirs: ['test'] },
  },
  {
    name: 'mocha specs given in the test script, with flag values skipped',
    files: { 'package.json': { scripts: { test: "nyc mocha --require ts-node/register 'spec/**/*.ts'" } }, 'spec/': '' },
    expected: { test_runner: 'mocha', test_globs: ['spec/**/*.ts'], test_dirs: ['spec'] },
  },
  {
    name: 'jest configured in package.json with testMatch',
    files: { 'package.json': { scripts: { test: 'jest --coverage' }, jest: { testMatch: ['<rootDir>/__tests__/**/*.js'] } }, '__tests__/': '' },
    expected: { test_runner: 'jest', test_runner_evidence: 'package.json "jest"', test_globs: ['<rootDir>/__tests__/**/*.js'], test_dirs: ['__tests__'] },
  },
  {
    name: 'jest.config.ts with a typed config object and roots',
    files: {
      'package.json': { devDependencies: { jest: '^29', 'ts-jest': '^29', typescript: '^5' } },
      'jest.config.ts':
        "import type { Config } from 'jest';\nconst config: Config = { preset: 'ts-jest', roots: ['<rootDir>/src'] };\nexport default config;\n",
      'src/': '',
    },
    expected: {
      test_runner: 'jest',
      test_runner_evidence: 'jest.config.ts',
      typescript: true,
      test_globs: ['src/**/__tests__/**/*.?([mc])[jt]s?(x)', 'src/**/?(*.)+(spec|test).?([mc])[jt]s?(x)'],
      test_dirs: ['src'],
    },
  },
  {
    name: 'jest only as a dependency',
    files: { 'package.json': { devDependencies: { jest: '^29' } } },
    expected: { test_runner: 'jest', test_runner_evidence: 'devDependencies.jest', test_globs: DEFAULT_TEST_GLOBS.jest },
  },
  {
    name: 'the test script over a stale config of another runner',
    files: { 'package.json': { scripts: { test: 'npm run test:unit', 'test:unit': 'vitest run' } }, 'jest.config.js': 'module.exports = {};' },
    expected: { test_runner: 'vitest', test_runner_evidence: 'scripts.test: vitest run' },
  },
  {
    name: 'Python src layout in a virtualenv, pytest configured in pyproject.toml',
    files: {
      'pyproject.toml': '[project]\nname = "todo"\n\n[tool.pytest.ini_options]\ntestpaths = [\n  "tests",\n]\n',
      'src/todo/__init__.py': '',
      'tests/test_todo.py': 'from todo import add\n',
      '.venv/bin/python': '',
    },
    expected: {
      languages: ['python'],
      package_manager: null,
      module_type: null,
      test_runner: 'pytest',
      test_runner_evidence: 'pyproject.toml [tool.pytest.ini_options]',
      test_globs: ['tests/**/test_*.py', 'tests/**/*_test.py'],
      test_dirs: ['tests'],
    },
  },
  {
    name: 'flat Python with unittest tests and no pytest: unittest with the system python3',
    files: {
      'setup.py': '',
      'todo/__init__.py': '',
      'helpers.py': '',
      'tests/test_todo.py': 'import unittest\n\nclass TodoTest(unittest.TestCase):\n    pass\n',
    },
    expected: {
      test_runner: 'unittest',
      test_runner_evidence: 'tests/test_todo.py uses unittest',
      python: { interpreter: 'python3', source: 'system', src_layout: false, packages: ['helpers', 'todo'] },
    },
  },
  {
    name: 'unittest-style tests with pytest in requirements: pytest',
    files: { 'requirements-dev.txt': 'pytest>=8\n', 'tests/test_x.py': 'import unittest\n' },
    expected: { test_runner: 'pytest', test_runner_evidence: 'pytest dependency' },
  },
  {
    name: 'a Python project with a package.json for its front end: pytest first',
    files: { 'pytest.ini': '[pytest]\ntestpaths = tests\n', 'package.json': { devDependencies: { vitest: '^3' } }, 'tests/conftest.py': '' },
    expected: {
      languages: ['python', 'javascript'],
      test_runner: 'pytest',
      test_runner_evidence: 'pytest.ini',
      test_globs: ['tests/**/test_*.py', 'tests/**/*_test.py'],
    },
  },
  {
    name: 'node:test imported by test files when nothing else names a runner',
    files: { 'package.json': { type: 'module' }, 'test/a.test.mjs': "import test from 'node:test';" },
    expected: { test_runner: 'node', test_runner_evidence: 'test/a.test.mjs imports node:test', test_dirs: ['test'] },
  },
  {
    name: 'ava named by the test script among linters: ava, with its default files',
    files: { 'package.json': { type: 'module', scripts: { test: 'xo && ava && tsd' }, devDependencies: { ava: '^6', xo: '^1' } }, 'test/a.js': '' },
    expected: {
      test_runner: 'ava',
      test_runner_evidence: 'scripts.test: xo && ava && tsd',
      undriven_runner: null,
      test_globs: DEFAULT_TEST_GLOBS.ava,
      test_dirs: ['test'],
    },
  },
  {
    name: 'ava by its config file, with the files it sets and its exclusions left out',
    files: { 'package.json': {}, 'ava.config.mjs': "export default { files: ['spec/**/*.js', '!spec/helpers/**'], timeout: '1m' };", 'spec/a.js': '' },
    expected: { test_runner: 'ava', test_runner_evidence: 'ava.config.mjs', undriven_runner: null, test_globs: ['spec/**/*.js'], test_dirs: ['spec'] },
  },
  {
    name: 'ava configured in package.json, where exclusions alone keep its defaults',
    files: { 'package.json': { ava: { files: ['!test/fixtures/**'] }, devDependencies: { ava: '^6' } } },
    expected: { test_runner: 'ava', test_runner_evidence: 'package.json "ava"', test_globs: DEFAULT_TEST_GLOBS.ava },
  },
  {
    name: 'node-tap configured in .taprc',
    files: { 'package.json': { devDependencies: { tap: '^21' } }, '.taprc': 'coverage-map: map.js\n' },
    expected: { test_runner: 'tap', test_runner_evidence: '.taprc', undriven_runner: null, test_globs: DEFAULT_TEST_GLOBS.tap },
  },
  {
    name: "node-tap named by the test script, its files by the script's paths",
    files: { 'package.json': { scripts: { test: 'tap test/*.js' }, devDependencies: { tap: '^18.7.0' } }, 'test/a.test.js': '' },
    expected: { test_runner: 'tap', test_runner_evidence: 'scripts.test: tap test/*.js', test_globs: ['test/*.js'], test_dirs: ['test'] },
  },
  {
    name: "node-tap's include in package.json",
    files: { 'package.json': { tap: { include: ['spec/**/*.ts'] }, devDependencies: { tap: '21.1.0' } } },
    expected: { test_runner: 'tap', test_runner_evidence: 'package.json "tap"', test_globs: ['spec/**/*.ts'] },
  },
  {
    name: 'node-tap 15 only in dependencies, named but not driven',
    files: { 'package.json': { scripts: { test: 'tap' }, dependencies: { tap: '^15.0.0' } } },
    expected: { test_runner: null, undriven_runner: { runner: 'tap', evidence: 'scripts.test: tap; tap 15: Tilth drives 18 and later' } },
  },
  {
    name: 'node-tap at a range with no version in it, driven',
    files: { 'package.json': { scripts: { test: 'tap' }, devDependencies: { tap: 'latest' } } },
    expected: { test_runner: 'tap', undriven_runner: null },
  },
  {
    name: 'vitest beside an old node-tap dependency: vitest, driven',
    files: { 'package.json': { scripts: { test: 'vitest run' }, devDependencies: { vitest: '^3', tap: '^16.0.0' } } },
    expected: { test_runner: 'vitest', undriven_runner: null },
  },
  {
    name: 'node-tap before 18, named but not driven',
    files: { 'package.json': { scripts: { test: 'tap' }, devDependencies: { tap: '~16.3.0' } } },
    expected: {
      test_runner: null,
      undriven_runner: { runner: 'tap', evidence: 'scripts.test: tap; tap 16: Tilth drives 18 and later' },
    },
  },
  {
    name: 'uvu only as a dependency, its default pattern',
    files: { 'package.json': { devDependencies: { uvu: '^0.5' } } },
    expected: { test_runner: 'uvu', test_runner_evidence: 'devDependencies.uvu', undriven_runner: null, test_globs: DEFAULT_TEST_GLOBS.uvu },
  },
  {
    name: 'uvu given a folder by the test script: every script file under it',
    files: { 'package.json': { scripts: { test: 'uvu tests' }, devDependencies: { uvu: '^0.5' } }, 'tests/a.js': '' },
    expected: { test_runner: 'uvu', test_runner_evidence: 'scripts.test: uvu tests', test_globs: ['tests/**/*.{js,mjs,cjs}'], test_dirs: ['tests'] },
  },
  {
    name: 'uvu given a folder and a pattern asking for .test files',
    files: { 'package.json': { scripts: { test: 'uvu test .test.js$' }, devDependencies: { uvu: '^0.5' } } },
    expected: { test_runner: 'uvu', test_globs: ['test/**/*.test.{js,mjs,cjs}'] },
  },
  {
    name: 'a TypeScript project tested with bun test',
    files: { 'package.json': { scripts: { test: 'bun test' } }, 'bun.lock': '', 'tsconfig.json': '{}' },
    expected: { languages: ['typescript'], package_manager: 'bun', test_runner: null, undriven_runner: { runner: 'bun', evidence: 'scripts.test: bun test' } },
  },
  {
    name: 'a Deno project with deno.json and no package.json',
    files: { 'deno.json': '{ "tasks": {} }', 'main_test.ts': '' },
    expected: { languages: [], test_runner: null, undriven_runner: { runner: 'deno', evidence: 'deno.json' } },
  },
  {
    name: 'a Go module',
    files: { 'go.mod': 'module example.com/todo\n\ngo 1.19\n', 'todo.go': '', 'calc/calc_test.go': '' },
    expected: {
      languages: ['go'],
      package_manager: null,
      test_runner: 'go',
      test_runner_evidence: 'go.mod',
      undriven_runner: null,
      test_globs: ['**/*_test.go'],
      test_dirs: ['calc'],
    },
  },
  {
    name: 'a Rust crate with a package.json for its docs site: cargo',
    files: { 'Cargo.toml': '[package]\nname = "todo"\n', 'src/lib.rs': '', 'package.json': { devDependencies: { jest: '^29' } } },
    expected: {
      languages: ['rust', 'javascript'],
      test_runner: 'cargo',
      test_runner_evidence: 'Cargo.toml',
      undriven_runner: null,
      test_globs: ['tests/*.rs'],
      test_dirs: ['tests'],
      rust_crate: 'todo',
    },
  },
  {
    name: 'a crate whose library is named in [lib]',
    files: { 'Cargo.toml': '[package]\nname = "todo-cli"\nauthors = ["a"]\n\n[lib]\nname = "todo_core"\npath = "src/core.rs"\n' },
    expected: { test_runner: 'cargo', rust_crate: 'todo_core' },
  },
  {
    name: 'a binary crate: no library its tests can import',
    files: { 'Cargo.toml': '[package]\nname = "todo-cli"\n', 'src/main.rs': 'fn main() {}\n' },
    expected: { test_runner: 'cargo', rust_crate: null },
  },
  {
    name: 'a Cargo workspace with no crate at its root: driven through its members',
    files: { 'Cargo.toml': '[workspace]\nmembers = ["crates/*"]\n', 'crates/a/Cargo.toml': '[package]\nname = "a"\n' },
    expected: {
      languages: ['rust'],
      test_runner: 'cargo',
      test_runner_evidence: 'Cargo.toml [workspace]: 1 of 1 packages (crates/a: Cargo.toml)',
      undriven_runner: null,
    },
  },
  {
    name: 'a Cargo workspace whose members are not there: not driven yet',
    files: { 'Cargo.toml': '[workspace]\nmembers = ["crates/*"]\n' },
    expected: {
      languages: ['rust'],
      test_runner: null,
      undriven_runner: { runner: 'cargo_workspace', evidence: 'Cargo.toml: a workspace with no crate at its root' },
      workspace: { tool: 'cargo', evidence: 'Cargo.toml [workspace]', packages: [] },
    },
  },
  {
    name: 'a Go service whose front end is tested with vitest: the runner npm test names',
    files: { 'go.mod': 'module x\n', 'package.json': { scripts: { test: 'vitest run' } } },
    expected: { languages: ['javascript', 'go'], test_runner: 'vitest', undriven_runner: null },
  },
  {
    name: 'a committed .tilth/setup',
    files: { 'package.json': {}, '.tilth/setup': 'pnpm install --offline\n' },
    expected: { setup_command: '.tilth/setup' },
  },
  {
    name: 'an empty folder',
    files: {},
    expected: {
      languages: [],
      package_manager: null,
      lockfile: null,
      module_type: null,
      typescript: false,
      test_runner: null,
      test_runner_evidence: null,
      undriven_runner: null,
      test_dirs: [],
      test_globs: [],
      python: null,
      node_modules: false,
      setup_command: null,
    },
  },
];

describe('detectProjectEnv', () => {
  it.each(cases)('detects $name', async ({ files, expected }) => {
    const env = await detectProjectEnv(repo(files));
    expect(env).toMatchObject(expected);
  });

  it("takes the virtualenv's interpreter by its absolute path, and the src layout's packages", async () => {
    const root = repo({ 'pyproject.toml': '', 'src/todo/__init__.py': '', 'src/todo/core.py': '', 'venv/bin/python': '' });
    const env = await detectProjectEnv(root);
    expect(env.python).toEqual({
      interpreter: path.join(root, 'venv', 'bin', 'python'),
      source: 'venv',
      manager: null,
      python_version: null,
      src_layout: true,
      packages: ['todo'],
    });
  });

  it('reads config files without running them', async () => {
    const root = repo({
      'package.json': { devDependencies: { vitest: '^3' } },
      'vitest.config.js': "require('fs').writeFileSync('ran', 'yes');\nmodule.exports = { test: { include: ['t/*.test.js'] } };",
    });
    const env = await detectProjectEnv(root);
    expect(env.test_globs).toEqual(['t/*.test.js']);
    expect(fs.existsSync(path.join(root, 'ran'))).toBe(false);
  });
});

describe('workspaces', () => {
  it('reads a pnpm workspace: each package with its own runner and layout, the root taking the runner most packages use', async () => {
    const root = repo({
      'package.json': { name: 'mono', private: true, scripts: { test: 'pnpm -r test' }, devDependencies: { typescript: '^5' } },
      'pnpm-lock.yaml': '',
      'pnpm-workspace.yaml': "packages:\n  - 'packages/*'\n  - '!packages/skipped'\n  - apps/web # the site\n",
      'packages/core/package.json': { name: '@mono/core', type: 'module', scripts: { test: 'vitest run' }, devDependencies: { vitest: '^3' } },
      'packages/core/tests/a.test.ts': '',
      'packages/core/tsconfig.json': '{}',
      'packages/cli/package.json': { name: '@mono/cli', scripts: { test: 'vitest run' } },
      'packages/cli/test/': '',
      'packages/skipped/package.json': { name: 'skipped', scripts: { test: 'jest' } },
      'packages/notes/README.md': 'no manifest: not a package',
      'apps/web/package.json': { name: 'web', scripts: { test: 'jest' } },
      'node_modules/x/package.json': {},
    });
    const env = await detectProjectEnv(root);
    expect(env.workspace?.tool).toBe('pnpm');
    expect(env.workspace?.evidence).toBe('pnpm-workspace.yaml');
    expect(env.workspace?.packages.map((p) => [p.dir, p.name, p.test_runner])).toEqual([
      ['apps/web', 'web', 'jest'],
      ['packages/cli', '@mono/cli', 'vitest'],
      ['packages/core', '@mono/core', 'vitest'],
    ]);
    const core = env.workspace!.packages[2]!;
    expect(core).toMatchObject({ test_dirs: ['tests'], typescript: true, module_type: 'esm', test_runner_evidence: 'scripts.test: vitest run' });
    expect(env.test_runner).toBe('vitest');
    expect(env.test_runner_evidence).toBe(
      'pnpm-workspace.yaml: 2 of 3 packages (packages/cli: scripts.test: vitest run; packages/core: scripts.test: vitest run)',
    );
    expect(env.package_manager).toBe('pnpm');
  });

  it("reads npm's and yarn's `workspaces` (an array, or yarn's { packages }), `**`, and leaves a root that runs its own tests alone", async () => {
    const npm = await detectProjectEnv(
      repo({
        'package.json': { workspaces: ['libs/**'], scripts: { test: 'mocha' }, devDependencies: { mocha: '^10' } },
        'package-lock.json': '{}',
        'libs/a/package.json': { name: 'a', devDependencies: { jest: '^29' } },
        'libs/group/b/package.json': { name: 'b', devDependencies: { jest: '^29' } },
        'libs/node_modules/c/package.json': { name: 'c' },
      }),
    );
    expect(npm.workspace?.tool).toBe('npm');
    expect(npm.workspace?.packages.map((p) => p.dir)).toEqual(['libs/a', 'libs/group/b']);
    expect(npm.test_runner).toBe('mocha');
    const yarn = await detectProjectEnv(
      repo({ 'package.json': { workspaces: { packages: ['./pkgs/*/'] } }, 'yarn.lock': '', 'pkgs/one/package.json': { devDependencies: { jest: '^29' } } }),
    );
    expect(yarn.workspace).toMatchObject({
      tool: 'yarn',
      evidence: 'package.json workspaces',
      packages: [{ dir: 'pkgs/one', name: 'pkgs/one', test_runner: 'jest' }],
    });
    expect(yarn.test_runner).toBe('jest');
  });

  it('reads a Cargo workspace (members, exclude) and a go.work; a workspace of crates is driven, not left to the custom command', async () => {
    const cargo = await detectProjectEnv(
      repo({
        'Cargo.toml': '[workspace]\nmembers = [\n  "crates/*", # all\n]\nexclude = ["crates/old"]\n',
        'crates/todo/Cargo.toml': '[package]\nname = "todo-core"\n',
        'crates/todo/src/lib.rs': '',
        'crates/old/Cargo.toml': '[package]\nname = "old"\n',
      }),
    );
    expect(cargo.workspace?.packages).toMatchObject([
      { dir: 'crates/todo', name: 'todo-core', test_runner: 'cargo', rust_crate: 'todo_core', test_dirs: ['tests'] },
    ]);
    expect(cargo.test_runner).toBe('cargo');
    expect(cargo.undriven_runner).toBeNull();
    expect(cargo.languages).toContain('rust');
    const go = await detectProjectEnv(
      repo({
        'go.work': 'go 1.19\n\nuse (\n\t./api // the server\n\t"./tools"\n)\nuse ./lib\n',
        'api/go.mod': 'module example.com/api\n',
        'api/store/store_test.go': '',
        'tools/go.mod': 'module example.com/tools\n',
        'lib/README': '',
      }),
    );
    expect(go.workspace?.packages.map((p) => [p.dir, p.name, p.test_runner, p.test_dirs])).toEqual([
      ['api', 'example.com/api', 'go', ['store']],
      ['tools', 'example.com/tools', 'go', []],
    ]);
    expect(go.languages).toEqual(['go']);
  });

  it("gives a root whose runner is only a dependency the packages' runner, counting only packages with one, and names at most three", async () => {
    const root = repo({
      'package.json': { workspaces: ['p/*'], devDependencies: { vitest: '^4' } },
      'package-lock.json': '{}',
      'p/a/package.json': { scripts: { test: 'jest' } },
      'p/b/package.json': { scripts: { test: 'jest' } },
      'p/c/package.json': { scripts: { test: 'jest' } },
      'p/d/package.json': { scripts: { test: 'jest' } },
      'p/e/package.json': { scripts: { test: 'vitest run' } },
      'p/f/package.json': { name: 'docs' },
      'p/f/pyproject.toml': '',
    });
    const env = await detectProjectEnv(root);
    expect(env.test_runner).toBe('jest');
    expect(env.test_runner_evidence).toBe(
      'package.json workspaces: 4 of 6 packages (p/a: scripts.test: jest; p/b: scripts.test: jest; p/c: scripts.test: jest; …)',
    );
    // The languages of the packages that run tests, after the root's own.
    expect(env.languages).toEqual(['javascript']);
    const three = await detectProjectEnv(
      repo({
        'package.json': { workspaces: ['p/*'] },
        'p/a/package.json': { scripts: { test: 'jest' } },
        'p/b/package.json': { scripts: { test: 'jest' } },
        'p/c/package.json': { scripts: { test: 'jest' } },
      }),
    );
    expect(three.test_runner_evidence).toBe(
      'package.json workspaces: 3 of 3 packages (p/a: scripts.test: jest; p/b: scripts.test: jest; p/c: scripts.test: jest)',
    );
    const mixed = await detectProjectEnv(
      repo({ 'package.json': { name: 'site' }, 'go.work': 'use ./api\n', 'api/go.mod': 'module example.com/api\n', 'tools/go.mod': 'module t\n' }),
    );
    expect(mixed.languages).toEqual(['javascript', 'go']);
    expect(mixed.test_runner).toBe('go');
  });

  it('reads Go modules side by side with no go.work, only where nothing else was found', async () => {
    const files = {
      'README.md': '',
      'api/go.mod': 'module example.com/api\n',
      'api/store/store_test.go': '',
      'tools/cli/go.mod': 'module example.com/cli\n',
      'tools/cli/main_test.go': '',
      'docs/index.md': '',
      'a/b/c/go.mod': 'module too/deep\n',
    };
    const env = await detectProjectEnv(repo(files));
    expect(env.workspace).toMatchObject({ tool: 'go', evidence: 'go.mod files in subfolders' });
    expect(env.workspace?.packages.map((p) => [p.dir, p.name, p.test_dirs])).toEqual([
      ['api', 'example.com/api', ['store']],
      ['tools/cli', 'example.com/cli', []],
    ]);
    expect(env.test_runner).toBe('go');
    expect(env.languages).toEqual(['go']);
    // A project with its own runner, a root module, or no module at all: not looked for.
    expect((await detectProjectEnv(repo({ ...files, 'package.json': { scripts: { test: 'jest' } } }))).workspace).toBeUndefined();
    expect((await detectProjectEnv(repo({ ...files, 'go.mod': 'module root\n' }))).workspace).toBeUndefined();
    expect((await detectProjectEnv(repo({ 'README.md': '', 'docs/go.mod.txt': '' }))).workspace).toBeUndefined();
  });

  it('never leaves the root nor follows a pattern out of it', async () => {
    const env = await detectProjectEnv(repo({ 'package.json': { workspaces: ['../*', '/etc', 'a/../../b', '.'] }, 'a/package.json': {} }));
    expect(env.workspace?.packages).toEqual([]);
  });
});

describe('Python environments', () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const key of ['POETRY_VIRTUALENVS_PATH', 'POETRY_CACHE_DIR', 'XDG_CACHE_HOME', 'WORKON_HOME', 'XDG_DATA_HOME', 'HOME']) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
  });

  /** A virtualenv as Poetry leaves it: `pyvenv.cfg` and `bin/python`. */
  function venvAt(dir: string): void {
    fs.mkdirSync(path.join(dir, 'bin'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'pyvenv.cfg'), 'home = /usr/bin\n');
    fs.writeFileSync(path.join(dir, 'bin', 'python'), '');
  }

  it("names the tool each project declares, its lockfile first, and reads .python-version's minor version", async () => {
    const cases: [Record<string, string>, string | null, string | null][] = [
      [{ 'uv.lock': '', 'pyproject.toml': '[tool.poetry]\nname = "x"\n' }, 'uv', 'uv.lock'],
      [{ 'poetry.lock': '' }, 'poetry', 'poetry.lock'],
      [{ Pipfile: '' }, 'pipenv', 'Pipfile'],
      [{ 'Pipfile.lock': '', Pipfile: '' }, 'pipenv', 'Pipfile.lock'],
      [{ 'pyproject.toml': '[tool.poetry]\nname = "x"\n' }, 'poetry', 'pyproject.toml [tool.poetry]'],
      [{ 'pyproject.toml': '[project]\nname = "x"\n\n[tool.uv]\ndev-dependencies = []\n' }, 'uv', 'pyproject.toml [tool.uv]'],
      [{ 'pyproject.toml': '[tool.hatch.envs.default]\n' }, 'hatch', 'pyproject.toml [tool.hatch.envs]'],
      [{ 'pyproject.toml': '', 'hatch.toml': '' }, 'hatch', 'hatch.toml'],
      [{ 'pyproject.toml': '', 'tox.ini': '[tox]\nenvlist = py311\n' }, 'tox', 'tox.ini'],
      [{ 'pyproject.toml': '[tool.tox]\nlegacy_tox_ini = ""\n' }, 'tox', 'pyproject.toml [tool.tox]'],
      [{ 'pyproject.toml': '', 'noxfile.py': '' }, 'nox', 'noxfile.py'],
      [{ 'pyproject.toml': '[project]\nname = "x"\n' }, null, null],
      [{ 'Pipfile.lock': '' }, 'pipenv', 'Pipfile.lock'],
      [{ 'pyproject.toml': '[project]\n# see [tool.hatch.envs] in the docs\n' }, null, null],
    ];
    for (const [files, tool, evidence] of cases) {
      const env = await detectProjectEnv(repo({ ...files, 'app.py': '' }));
      expect(env.python?.manager ?? null, JSON.stringify(files)).toEqual(tool ? { tool, evidence } : null);
    }
    for (const [text, version] of [
      ['3.11.7\n', '3.11'],
      ['# pinned\n\n3.12\n', '3.12'],
      ['cpython-3.10.4-linux-x86_64-gnu\n', '3.10'],
      ['python3.13\n', '3.13'],
      ['pypy3.10\n', null],
      ['  # pinned by pyenv\n   \n3.11  \n', '3.11'],
      ['3.11 3.12\n', null],
      ['system\n', null],
      ['2.7.18\n', null],
      ['', null],
    ] as const)
      expect((await detectProjectEnv(repo({ 'pyproject.toml': '', '.python-version': text }))).python?.python_version, text).toBe(version);
  });

  it("finds Poetry's virtualenv outside the repository by Poetry's own name for it, the version the checkout uses first", async () => {
    const venvs = tempDir('tilth-poetry-venvs-');
    made.push(venvs);
    process.env.POETRY_VIRTUALENVS_PATH = venvs;
    const root = repo({ 'pyproject.toml': '[tool.poetry]\nname = "My App"\nversion = "1"\n', 'poetry.lock': '', 'my_app/__init__.py': '' });
    const hash = createHash('sha256').update(fs.realpathSync(root)).digest('base64url').slice(0, 8);
    // Not installed yet: the PATH's python3.
    expect((await detectProjectEnv(root)).python).toMatchObject({
      interpreter: 'python3',
      source: 'system',
      manager: { tool: 'poetry', evidence: 'poetry.lock' },
    });
    venvAt(path.join(venvs, `my_app-${hash}-py3.10`));
    venvAt(path.join(venvs, `my_app-${hash}-py3.12`));
    fs.mkdirSync(path.join(venvs, `my_app-${hash}-py3.13`));
    venvAt(path.join(venvs, `other-${hash}-py3.11`));
    // The newest with a pyvenv.cfg.
    expect((await detectProjectEnv(root)).python).toMatchObject({ interpreter: path.join(venvs, `my_app-${hash}-py3.12`, 'bin', 'python'), source: 'poetry' });
    // .python-version's, then the one envs.toml says this project uses.
    fs.writeFileSync(path.join(root, '.python-version'), '3.10.4\n');
    expect((await detectProjectEnv(root)).python?.interpreter).toBe(path.join(venvs, `my_app-${hash}-py3.10`, 'bin', 'python'));
    fs.writeFileSync(path.join(venvs, 'envs.toml'), `[other-${hash}]\nminor = "3.11"\n\n[my_app-${hash}]\nminor="3.12"\npatch = "3.12.1"\n`);
    expect((await detectProjectEnv(root)).python?.interpreter).toBe(path.join(venvs, `my_app-${hash}-py3.12`, 'bin', 'python'));
    // Its own .venv (in-project) wins.
    venvAt(path.join(root, '.venv'));
    expect((await detectProjectEnv(root)).python).toMatchObject({ interpreter: path.join(root, '.venv', 'bin', 'python'), source: 'venv' });
    // A project that does not use Poetry is not given a virtualenv of that name; Poetry 2's [project] name counts.
    const plain = repo({ 'pyproject.toml': '[project]\nname = "My App"\n', 'my_app/__init__.py': '' });
    const plainHash = createHash('sha256').update(fs.realpathSync(plain)).digest('base64url').slice(0, 8);
    venvAt(path.join(venvs, `my_app-${plainHash}-py3.12`));
    expect((await detectProjectEnv(plain)).python).toMatchObject({ interpreter: 'python3', source: 'system' });
    fs.writeFileSync(path.join(plain, 'poetry.lock'), '');
    expect((await detectProjectEnv(plain)).python?.interpreter).toBe(path.join(venvs, `my_app-${plainHash}-py3.12`, 'bin', 'python'));
    // A virtualenvs folder that is not there: none.
    process.env.POETRY_VIRTUALENVS_PATH = path.join(venvs, 'missing');
    expect((await detectProjectEnv(plain)).python?.interpreter).toBe('python3');
    // Without POETRY_VIRTUALENVS_PATH: POETRY_CACHE_DIR's virtualenvs, else the user cache's.
    fs.rmSync(path.join(root, '.venv'), { recursive: true });
    delete process.env.POETRY_VIRTUALENVS_PATH;
    process.env.POETRY_CACHE_DIR = path.join(venvs, 'cache');
    venvAt(path.join(venvs, 'cache', 'virtualenvs', `my_app-${hash}-py3.11`));
    expect((await detectProjectEnv(root)).python?.interpreter).toBe(path.join(venvs, 'cache', 'virtualenvs', `my_app-${hash}-py3.11`, 'bin', 'python'));
    delete process.env.POETRY_CACHE_DIR;
    process.env.XDG_CACHE_HOME = path.join(venvs, 'xdg');
    venvAt(path.join(venvs, 'xdg', 'pypoetry', 'virtualenvs', `my_app-${hash}-py3.9`));
    expect((await detectProjectEnv(root)).python?.interpreter).toBe(
      path.join(venvs, 'xdg', 'pypoetry', 'virtualenvs', `my_app-${hash}-py3.9`, 'bin', 'python'),
    );
  });

  it("finds Pipenv's virtualenv outside the repository by the project path it records, under WORKON_HOME or the user's data folder", async () => {
    const homes = tempDir('tilth-pipenv-homes-');
    made.push(homes);
    process.env.WORKON_HOME = path.join(homes, 'workon');
    const root = repo({ Pipfile: '[packages]\n', 'app.py': '' });
    const other = repo({ Pipfile: '[packages]\n', 'app.py': '' });
    // Not made yet: the PATH's python3, with Pipenv named.
    expect((await detectProjectEnv(root)).python).toMatchObject({ interpreter: 'python3', source: 'system', manager: { tool: 'pipenv', evidence: 'Pipfile' } });
    const pipenvAt = (base: string, name: string, project: string) => {
      venvAt(path.join(base, name));
      fs.writeFileSync(path.join(base, name, '.project'), `${project}\n`);
      return path.join(base, name);
    };
    pipenvAt(process.env.WORKON_HOME, 'app-aaaaaaaa', other);
    const noCfg = path.join(process.env.WORKON_HOME, 'app-bbbbbbbb');
    fs.mkdirSync(noCfg);
    fs.writeFileSync(path.join(noCfg, '.project'), root);
    venvAt(path.join(process.env.WORKON_HOME, 'app-bbbbbbbc')); // no .project at all
    // A relative or empty .project would resolve from Tilth's own folder: not read as this checkout.
    pipenvAt(process.env.WORKON_HOME, 'app-bbbbbbbd', path.relative(process.cwd(), root));
    pipenvAt(process.env.WORKON_HOME, 'app-bbbbbbbe', '');
    pipenvAt(process.env.WORKON_HOME, 'app-bbbbbbbf', path.join(homes, 'gone'));
    expect((await detectProjectEnv(root)).python?.source).toBe('system');
    // Its project written through a link to the repository counts: the real paths are compared.
    const link = path.join(homes, 'link');
    fs.symlinkSync(root, link);
    const mine = pipenvAt(process.env.WORKON_HOME, 'app-cccccccc', link);
    expect((await detectProjectEnv(root)).python).toMatchObject({ interpreter: path.join(mine, 'bin', 'python'), source: 'pipenv' });
    expect((await detectProjectEnv(other)).python?.interpreter).toBe(path.join(process.env.WORKON_HOME, 'app-aaaaaaaa', 'bin', 'python'));
    // A project that does not use Pipenv is not given one.
    const plain = repo({ 'pyproject.toml': '[project]\nname = "x"\n', 'app.py': '' });
    pipenvAt(process.env.WORKON_HOME, 'plain-dddddddd', plain);
    expect((await detectProjectEnv(plain)).python?.source).toBe('system');
    // Without WORKON_HOME: XDG_DATA_HOME's virtualenvs (else ~/.local/share's).
    delete process.env.WORKON_HOME;
    process.env.XDG_DATA_HOME = path.join(homes, 'data');
    const data = pipenvAt(path.join(homes, 'data', 'virtualenvs'), 'app-eeeeeeee', root);
    expect((await detectProjectEnv(root)).python?.interpreter).toBe(path.join(data, 'bin', 'python'));
    // Without either: ~/.local/share/virtualenvs.
    delete process.env.XDG_DATA_HOME;
    process.env.HOME = path.join(homes, 'home');
    const home = pipenvAt(path.join(homes, 'home', '.local', 'share', 'virtualenvs'), 'app-ffffffff', root);
    expect((await detectProjectEnv(root)).python?.interpreter).toBe(path.join(home, 'bin', 'python'));
    // Of two recording the checkout, the first by name; and no more than 1,000 are read.
    process.env.WORKON_HOME = path.join(homes, 'many');
    const second = pipenvAt(process.env.WORKON_HOME, 'app-2', root);
    pipenvAt(process.env.WORKON_HOME, 'app-3', root);
    expect((await detectProjectEnv(root)).python?.interpreter).toBe(path.join(second, 'bin', 'python'));
    for (let i = 0; i < 1000; i++) fs.mkdirSync(path.join(process.env.WORKON_HOME, `app-1-${String(i).padStart(4, '0')}`));
    expect((await detectProjectEnv(root)).python?.source).toBe('system');
    // Its own .venv (PIPENV_VENV_IN_PROJECT) wins.
    venvAt(path.join(root, '.venv'));
    expect((await detectProjectEnv(root)).python?.source).toBe('venv');
  });

  it('takes a tox or nox environment of the checkout: the one .python-version names, a test one, else the first', async () => {
    const tox = repo({ 'tox.ini': '[tox]\nenvlist = lint, py311\n', 'pyproject.toml': '', 'app.py': '' });
    venvAt(path.join(tox, '.tox', 'lint'));
    venvAt(path.join(tox, '.tox', 'py311'));
    venvAt(path.join(tox, '.tox', 'py312'));
    fs.mkdirSync(path.join(tox, '.tox', '.tmp'));
    expect((await detectProjectEnv(tox)).python).toMatchObject({ interpreter: path.join(tox, '.tox', 'lint', 'bin', 'python'), source: 'tox' });
    fs.writeFileSync(path.join(tox, '.python-version'), '3.12\n');
    expect((await detectProjectEnv(tox)).python?.interpreter).toBe(path.join(tox, '.tox', 'py312', 'bin', 'python'));
    const nox = repo({ 'noxfile.py': '', 'pyproject.toml': '' });
    venvAt(path.join(nox, '.nox', 'lint'));
    venvAt(path.join(nox, '.nox', 'tests-3-11'));
    fs.mkdirSync(path.join(nox, '.nox', 'alpha'));
    expect((await detectProjectEnv(nox)).python).toMatchObject({ interpreter: path.join(nox, '.nox', 'tests-3-11', 'bin', 'python'), source: 'nox' });
    // A tox environment is not taken for a project that declares another tool.
    const other = repo({ 'poetry.lock': '', 'pyproject.toml': '[tool.poetry]\nname = "zz"\n' });
    venvAt(path.join(other, '.tox', 'py311'));
    expect((await detectProjectEnv(other)).python).toMatchObject({ interpreter: 'python3', source: 'system' });
  });

  it(".python-version's python3.X from the PATH when the project has no environment of its own", async () => {
    const bin = tempDir('tilth-path-');
    made.push(bin);
    fs.writeFileSync(path.join(bin, 'python3.42'), '#!/bin/sh\n', { mode: 0o755 });
    const oldPath = process.env.PATH;
    process.env.PATH = `${bin}:${oldPath}`;
    try {
      expect((await detectProjectEnv(repo({ 'pyproject.toml': '', '.python-version': '3.42.1\n' }))).python).toMatchObject({
        interpreter: 'python3.42',
        source: 'system',
        python_version: '3.42',
      });
      expect((await detectProjectEnv(repo({ 'pyproject.toml': '', '.python-version': '3.41\n' }))).python).toMatchObject({
        interpreter: 'python3',
        python_version: '3.41',
      });
    } finally {
      process.env.PATH = oldPath;
    }
  });
});
