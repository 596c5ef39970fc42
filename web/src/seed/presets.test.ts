import { describe, expect, it } from 'vitest';
import { DEFAULT_TEST_GLOBS, type ProjectEnv } from '../../../shared/project-env.ts';
import { envNote, presetLabel, presetOrigin, summarizeEnv, undrivenNote } from './presets.ts';

const BASE: ProjectEnv = {
  languages: ['typescript'],
  package_manager: 'pnpm',
  lockfile: 'pnpm-lock.yaml',
  module_type: 'esm',
  typescript: true,
  test_runner: 'vitest',
  test_runner_evidence: 'vitest.config.ts',
  test_dirs: ['tests'],
  test_globs: DEFAULT_TEST_GLOBS.vitest,
  python: null,
  node_modules: true,
  setup_command: null,
};

/** A Python project with no runner evidence or test folders, its interpreter as given. */
const pythonProject = (runner: 'pytest' | 'unittest', python: Omit<NonNullable<ProjectEnv['python']>, 'src_layout' | 'packages'>): ProjectEnv => ({
  ...BASE,
  languages: ['python'],
  package_manager: null,
  test_runner: runner,
  test_runner_evidence: null,
  test_dirs: [],
  python: { ...python, src_layout: false, packages: [] },
});

describe('presetOrigin', () => {
  it('says detected only of a runner the repository names, and a fallback as a fallback', () => {
    expect(presetOrigin('vitest', BASE)).toBe('Detected from the repository: Vitest.');
    const none = { ...BASE, languages: ['javascript' as const], typescript: false, test_runner: null, test_runner_evidence: null };
    expect(presetOrigin('node', none)).toBe(
      'The repository names no test runner, so the checks start from node --test; choose the one the project uses if it has one.',
    );
    expect(presetOrigin('custom', { ...none, undriven_runner: { runner: 'uvu', evidence: 'x' } })).toBe('Detected from the repository: Custom.');
    expect(presetOrigin('custom', none)).toBe('The repository names no test runner Tilth drives: set your own test command.');
    expect(presetOrigin('pytest', null)).toMatch(/^The repository names no test runner, so the checks start from pytest/);
  });
});

describe('summarizeEnv', () => {
  it.each([
    ['TypeScript with vitest and pnpm', BASE, 'TypeScript · pnpm · vitest (vitest.config.ts) · tests in tests/'],
    [
      'CommonJS with mocha and npm',
      {
        ...BASE,
        languages: ['javascript'],
        typescript: false,
        module_type: 'commonjs',
        package_manager: 'npm',
        test_runner: 'mocha',
        test_runner_evidence: '.mocharc.yml',
        test_dirs: ['test'],
      },
      'JavaScript (CommonJS) · npm · mocha (.mocharc.yml) · tests in test/',
    ],
    [
      'Python in a virtualenv, src layout',
      {
        ...BASE,
        languages: ['python'],
        package_manager: null,
        typescript: false,
        test_runner: 'pytest',
        test_runner_evidence: 'pyproject.toml [tool.pytest.ini_options]',
        python: { interpreter: '/home/me/todo/.venv/bin/python', source: 'venv', src_layout: true, packages: ['todo'] },
      },
      'Python · .venv/bin/python · pytest (pyproject.toml [tool.pytest.ini_options]) · tests in tests/ · src layout',
    ],
    [
      'a Go module',
      {
        ...BASE,
        languages: ['go'],
        package_manager: null,
        typescript: false,
        test_runner: 'go',
        test_runner_evidence: 'go.mod',
        undriven_runner: null,
        test_dirs: ['calc'],
      },
      'Go · go test (go.mod) · tests in calc/',
    ],
    [
      'Rust',
      {
        ...BASE,
        languages: ['rust'],
        package_manager: null,
        test_runner: 'cargo',
        test_runner_evidence: 'Cargo.toml',
        test_dirs: ['tests'],
      },
      'Rust · cargo test (Cargo.toml) · tests in tests/',
    ],
    [
      'AVA, by its name',
      { ...BASE, test_runner: 'ava', test_runner_evidence: 'scripts.test: ava', test_dirs: ['test'] },
      'TypeScript · pnpm · AVA (scripts.test: ava) · tests in test/',
    ],
    [
      "Poetry's virtualenv outside the repository",
      pythonProject('unittest', {
        interpreter: '/home/me/.cache/pypoetry/virtualenvs/todo-Vi2u4BIR-py3.11/bin/python',
        source: 'poetry',
        manager: { tool: 'poetry', evidence: 'poetry.lock' },
      }),
      "Python · Poetry · Poetry's virtualenv todo-Vi2u4BIR-py3.11 · unittest",
    ],
    [
      "Pipenv's virtualenv outside the repository",
      pythonProject('pytest', {
        interpreter: '/home/me/.local/share/virtualenvs/todo-tP9Ve7c0/bin/python',
        source: 'pipenv',
        manager: { tool: 'pipenv', evidence: 'Pipfile.lock' },
      }),
      "Python · Pipenv · Pipenv's virtualenv todo-tP9Ve7c0 · pytest",
    ],
    [
      'a tox environment, and the PATH interpreter .python-version names',
      pythonProject('pytest', { interpreter: '/r/.tox/py311/bin/python', source: 'tox', manager: { tool: 'tox', evidence: 'tox.ini' } }),
      'Python · tox · .tox/py311 · pytest',
    ],
    [
      'the PATH interpreter .python-version names',
      pythonProject('pytest', { interpreter: 'python3.12', source: 'system', python_version: '3.12' }),
      'Python · system python3.12 · pytest',
    ],
    [
      'a workspace, by its packages and their runners',
      {
        ...BASE,
        test_runner: 'node',
        workspace: {
          tool: 'pnpm',
          evidence: 'pnpm-workspace.yaml',
          packages: ['a', 'b', 'c', 'd', 'e'].map((name, i) => ({
            dir: `packages/${name}`,
            name,
            test_runner: i === 1 ? 'cargo' : i === 2 ? null : 'vitest',
            test_runner_evidence: null,
            undriven_runner: i === 2 ? { runner: 'tap', evidence: '.taprc' } : null,
            test_dirs: [],
            test_globs: [],
            typescript: false,
            module_type: 'esm',
            node_modules: true,
          })),
        },
      },
      'TypeScript · pnpm workspace of 5 packages: packages/a (vitest), packages/b (cargo test), packages/c (node-tap, not driven yet), packages/d (vitest), 1 more',
    ],
    [
      'a repository with nothing detected',
      { ...BASE, languages: [], package_manager: null, test_runner: null, test_runner_evidence: null, test_dirs: [] },
      'no test runner found',
    ],
  ] as const)('reads %s in one line', (_name, env, line) => {
    expect(summarizeEnv(env as ProjectEnv)).toBe(line);
  });
});

describe('presetLabel and envNote', () => {
  it('names each preset with where its tests go in this repository', () => {
    expect(presetLabel('vitest', BASE)).toBe('Vitest — tests/t<NNN>_<slug>.test.ts (or .test.tsx, .test.mts)');
    expect(presetLabel('pytest', null)).toBe('pytest — tests/test_t<NNN>_<slug>.py');
    expect(presetLabel('custom', BASE)).toBe('Custom — your own test command');
  });

  it('names a runner Tilth does not drive yet, with the command to set under Custom when it takes files, over any other note', () => {
    const ava: ProjectEnv = {
      ...BASE,
      languages: ['javascript'],
      test_runner: null,
      undriven_runner: { runner: 'ava', evidence: 'scripts.test: ava' },
      node_modules: false,
    };
    const note =
      'This project runs its tests with AVA, which Tilth does not drive yet. The checks use your own test command instead: set it in seed review under Custom (for example node_modules/.bin/ava {files}).';
    expect(envNote(ava)).toBe(note);
    expect(undrivenNote(ava)).toBe(note);
    expect(undrivenNote({ ...ava, undriven_runner: { runner: 'cargo_workspace', evidence: 'Cargo.toml' } })).toBe(
      'This project runs its tests with cargo test in a Cargo workspace, which Tilth does not drive yet. The checks use your own test command instead: set it in seed review under Custom.',
    );
    expect(undrivenNote(BASE)).toBeNull();
  });

  it('warns when a node_modules runner is not installed in the checkout', () => {
    expect(envNote({ ...BASE, node_modules: false })).toMatch(/node_modules is not installed/);
    expect(envNote(BASE)).toBeNull();
    // A tool that makes the environment, and a checkout without it yet: how to make it.
    const python = (tool: 'uv' | 'poetry' | 'tox', source: 'system' | 'venv') =>
      envNote({
        ...BASE,
        languages: ['python'],
        python: {
          interpreter: source === 'venv' ? '/r/.venv/bin/python' : 'python3',
          source,
          manager: { tool, evidence: `${tool}.lock` },
          src_layout: false,
          packages: [],
        },
      });
    expect(python('uv', 'system')).toBe(
      "This project's Python environment is made with uv (uv.lock), and this checkout has none yet: run `uv sync` in it, then check again. Until then the tests run with python3 from the PATH.",
    );
    expect(python('poetry', 'system')).toMatch(/made with Poetry \(poetry\.lock\), .* run `poetry install` in it/);
    expect(python('uv', 'venv')).toBeNull();
    expect(python('tox', 'system')).toBeNull();
  });
});
