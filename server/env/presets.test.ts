import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UVU_REPORT_ARG, UVU_RUNNER } from './uvu-runner.ts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { EXAMPLES_DIR } from '../demo/example-repo.ts';
import { DEFAULT_TEST_GLOBS, type ProjectEnv } from '../../shared/project-env.ts';
import { projectEnv } from '../testing/project-env.ts';
import {
  UNREAD_JUNIT,
  UNREAD_JUNIT_SETUP,
  describePresetForPrompt,
  detectPreset,
  expectedTestPrefix,
  presetFor,
  shellQuote,
  taskIdOfTestFile,
  inOneProcess,
  testCaseCommand,
  testCasesCommand,
  testCommand,
  testFilePattern,
  type TestCommand,
} from './presets.ts';

/** An environment as detection reports it; each case overrides what matters to it. */
function env(over: Partial<ProjectEnv>): ProjectEnv {
  return projectEnv({ ...over });
}

const TS_VITEST = env({
  languages: ['typescript'],
  typescript: true,
  package_manager: 'pnpm',
  test_runner: 'vitest',
  test_dirs: ['tests'],
  test_globs: ['tests/**/*.test.ts'],
});
const CJS_MOCHA = env({ module_type: 'commonjs', test_runner: 'mocha', test_dirs: ['tests'], test_globs: DEFAULT_TEST_GLOBS.mocha });
const PY_SRC_VENV = env({
  languages: ['python'],
  package_manager: null,
  module_type: null,
  test_runner: 'pytest',
  test_dirs: ['tests'],
  test_globs: ['tests/**/test_*.py'],
  python: { interpreter: '/repo/.venv/bin/python', source: 'venv', src_layout: true, packages: ['todo'] },
  node_modules: false,
});

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tilth-presets-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function files(...names: string[]): string {
  for (const name of names) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), '');
  }
  return dir;
}

describe('detectPreset', () => {
  it('detects the example repositories', async () => {
    expect(await detectPreset(path.join(EXAMPLES_DIR, 'js-todo'))).toBe('node');
    expect(await detectPreset(path.join(EXAMPLES_DIR, 'py-todo'))).toBe('pytest');
  });

  it.each([['pyproject.toml'], ['setup.py'], ['setup.cfg'], ['requirements.txt'], ['requirements-dev.txt']])('takes %s as Python', async (name) => {
    expect(await detectPreset(files(name))).toBe('pytest');
  });

  it('prefers Python over a package.json when a manifest says Python', async () => {
    expect(await detectPreset(files('package.json', 'pyproject.toml'))).toBe('pytest');
  });

  it('prefers Python over a package.json when tests/ holds pytest files', async () => {
    expect(await detectPreset(files('package.json', 'tests/test_api.py'))).toBe('pytest');
  });

  it('keeps a JS repo with one helper script as node', async () => {
    expect(await detectPreset(files('package.json', 'build_docs.py'))).toBe('node');
  });

  it('takes loose .py files without any manifest as Python', async () => {
    expect(await detectPreset(files('tool.py'))).toBe('pytest');
    fs.rmSync(path.join(dir, 'tool.py'));
    expect(await detectPreset(files('tests/check.py'))).toBe('pytest');
  });

  it('falls back to custom for anything else, or a missing folder', async () => {
    expect(await detectPreset(files('CMakeLists.txt', 'src/main.c'))).toBe('custom');
    expect(await detectPreset(path.join(dir, 'missing'))).toBe('custom');
  });
});

describe('naming', () => {
  it('gives the prefix each preset expects for a task', () => {
    expect(expectedTestPrefix('pytest', 'T-001')).toBe('tests/test_t001_');
    expect(expectedTestPrefix('node', 'T-001')).toBe('tests/t001_');
    expect(expectedTestPrefix('custom', 'T-1234')).toBe('tests/t1234_');
    expect(() => expectedTestPrefix('node', 'T-1')).toThrow(/not a task id/);
  });

  it('finds the task of a test file by the digits as written', () => {
    expect(taskIdOfTestFile('pytest', 'tests/test_t001_due.py')).toBe('T-001');
    expect(taskIdOfTestFile('node', 'tests/t012_due.test.mjs')).toBe('T-012');
    expect(taskIdOfTestFile('node', 'tests/t012_due.spec.js')).toBeNull();
    expect(taskIdOfTestFile('pytest', 'tests/t001_due.test.js')).toBeNull();
  });

  it('exposes the shared pattern of each preset', () => {
    expect(testFilePattern('pytest').regex.test('tests/test_t001_add_parser.py')).toBe(true);
    expect(testFilePattern('node').example).toBe('tests/t001_add_parser.test.js');
  });
});

describe('presetFor', () => {
  it.each([
    ['the detected runner', env({ test_runner: 'jest' }), 'jest'],
    ['pytest for Python without a runner', env({ languages: ['python'], python: PY_SRC_VENV.python }), 'pytest'],
    ["Node's own runner for JavaScript without one", env({}), 'node'],
    ['custom for TypeScript without a runner (Node 20 cannot load .ts)', env({ languages: ['typescript'], typescript: true }), 'custom'],
    ['custom for anything else', env({ languages: [] }), 'custom'],
    [
      'custom, not Node’s runner, for JavaScript whose runner Tilth does not drive',
      env({ undriven_runner: { runner: 'ava', evidence: 'scripts.test: xo && ava && tsd' } }),
      'custom',
    ],
    [
      'custom, not pytest, for a Cargo workspace beside Python scripts',
      env({
        languages: ['rust', 'python'],
        python: PY_SRC_VENV.python,
        undriven_runner: { runner: 'cargo_workspace', evidence: 'Cargo.toml: a workspace with no crate at its root' },
      }),
      'custom',
    ],
  ] as const)('gives %s', (_name, e, preset) => {
    expect(presetFor(e)).toBe(preset);
  });
});

describe('naming per runner', () => {
  it.each([
    [
      'vitest in TypeScript, by its include',
      'vitest',
      TS_VITEST,
      'tests/t001_add_parser.test.ts',
      [],
      ['tests/t001_x.test.js', 'tests/t002_x.test.tsx', 'test/t001_x.test.ts'],
    ],
    [
      'vitest in JavaScript, by the default include',
      'vitest',
      env({ test_runner: 'vitest', test_globs: DEFAULT_TEST_GLOBS.vitest }),
      'tests/t001_add_parser.test.js',
      ['tests/t002_x.test.mjs'],
      ['tests/t001_x.js'],
    ],
    [
      'jest with roots in src/',
      'jest',
      env({ typescript: true, test_runner: 'jest', test_dirs: ['src'], test_globs: ['src/**/?(*.)+(spec|test).?([mc])[jt]s?(x)'] }),
      'src/t001_add_parser.test.ts',
      ['src/t002_x.test.js'],
      ['tests/t001_x.test.ts'],
    ],
    [
      'jest in JavaScript: no .mjs, which jest does not load by default',
      'jest',
      env({ test_runner: 'jest', test_globs: DEFAULT_TEST_GLOBS.jest }),
      'tests/t001_add_parser.test.js',
      ['tests/t002_x.test.jsx'],
      ['tests/t002_x.test.mjs'],
    ],
    [
      "mocha's default spec ./test/*.{js,cjs,mjs}, even beside a tests/ folder",
      'mocha',
      CJS_MOCHA,
      'test/t001_add_parser.test.js',
      ['test/t002_x.test.cjs'],
      ['tests/t001_x.test.js', 'test/t001_x.test.ts'],
    ],
    [
      'mocha with a .spec.ts spec',
      'mocha',
      env({ typescript: true, test_runner: 'mocha', test_globs: ['test/**/*.spec.ts'] }),
      'test/t001_add_parser.spec.ts',
      [],
      ['test/t001_x.test.ts'],
    ],
    [
      "AVA's default files: tests/ with .test.js, .mjs or .cjs, never TypeScript",
      'ava',
      env({ typescript: true, test_runner: 'ava', test_dirs: ['test'], test_globs: DEFAULT_TEST_GLOBS.ava }),
      'test/t001_add_parser.test.js',
      ['test/t002_x.test.mjs', 'test/t002_x.test.cjs'],
      ['test/t001_x.test.ts', 'tests/t001_x.test.js', 'test/t001_x.js'],
    ],
    [
      'AVA files set to spec/',
      'ava',
      env({ test_runner: 'ava', test_dirs: ['spec'], test_globs: ['spec/**/*.spec.js'] }),
      'spec/t001_add_parser.spec.js',
      [],
      ['spec/t001_x.test.js'],
    ],
    [
      "node-tap's default include in TypeScript: test/ with .test.ts first, JavaScript beside it",
      'tap',
      env({ typescript: true, test_runner: 'tap', test_dirs: ['test'], test_globs: DEFAULT_TEST_GLOBS.tap }),
      'test/t001_add_parser.test.ts',
      ['test/t002_x.test.mts', 'test/t002_x.test.js'],
      ['test/t001_x.spec.ts', 'tests/t001_x.test.js'],
    ],
    [
      'node with TypeScript still .js',
      'node',
      env({ typescript: true, test_runner: 'node', test_globs: DEFAULT_TEST_GLOBS.node }),
      'tests/t001_add_parser.test.js',
      ['tests/t002_x.test.cjs'],
      ['tests/t001_x.test.ts'],
    ],
    [
      'pytest in a test/ folder it was told about',
      'pytest',
      env({ test_runner: 'pytest', test_dirs: ['test'], test_globs: ['test/**/test_*.py'] }),
      'test/test_t001_add_parser.py',
      [],
      ['tests/test_t001_x.py'],
    ],
    [
      'unittest',
      'unittest',
      env({ test_runner: 'unittest', test_dirs: ['tests'], test_globs: DEFAULT_TEST_GLOBS.unittest }),
      'tests/test_t001_add_parser.py',
      ['tests/test_t002_x.py'],
      ['tests/t001_x.py'],
    ],
    [
      "go beside the package the test is for (the first with tests), never in go's ignored folders",
      'go',
      env({ languages: ['go'], test_runner: 'go', test_dirs: ['internal/calc', 'todo'], test_globs: DEFAULT_TEST_GLOBS.go }),
      'internal/calc/t001_add_parser_test.go',
      ['t002_root_test.go', 'todo/t003_x_test.go', 'cmd/todo-cli/t004_y_test.go', 'a/b.c/t005_z_test.go'],
      [
        'todo/t001_x.go',
        'todo/t001_x_test.js',
        'vendor/t001_x_test.go',
        'todo/testdata/t001_x_test.go',
        '.hidden/t001_x_test.go',
        '_skip/t001_x_test.go',
        'todo/t001_X_test.go',
        'todo/x_t001_y_test.go',
      ],
    ],
    [
      'go at the module root when no package has tests yet',
      'go',
      env({ languages: ['go'], test_runner: 'go', test_dirs: [] }),
      't001_add_parser_test.go',
      [],
      [],
    ],
    [
      'cargo integration tests directly under tests/, each its own test target',
      'cargo',
      env({ languages: ['rust'], test_runner: 'cargo', test_dirs: ['tests'], test_globs: DEFAULT_TEST_GLOBS.cargo }),
      'tests/t001_add_parser.rs',
      ['tests/t12345_x.rs', 'tests/t002_a_b_3.rs'],
      ['tests/sub/t001_x.rs', 'src/t001_x.rs', 'tests/t001_x-y.rs', 'tests/t001_X.rs', 'tests/t001_x.rs.bak', 'tests/t01_x.rs', 't001_x.rs'],
    ],
  ] as const)('names %s', (_name, preset, e, example, more, refused) => {
    const rule = testFilePattern(preset, e);
    expect(rule.example).toBe(example);
    expect(taskIdOfTestFile(preset, example, e)).toBe('T-001');
    for (const file of more) expect(rule.regex.test(file), file).toBe(true);
    for (const file of refused) expect(rule.regex.test(file), file).toBe(false);
  });

  it('keeps the original names for sessions without an environment', () => {
    expect(testFilePattern('node').describe).toBe('tests/t<NNN>_<slug>.test.js (or .test.mjs, .test.cjs)');
    expect(testFilePattern('pytest').describe).toBe('tests/test_t<NNN>_<slug>.py');
    expect(testFilePattern('custom').describe).toBe('tests/t<NNN>_<slug>.<ext>');
  });

  it('puts the prefix in the folder the rule chose', () => {
    expect(expectedTestPrefix('mocha', 'T-003', CJS_MOCHA)).toBe('test/t003_');
  });
});

/** An argv command's arguments (a shell command has none). */
const argsOf = (command: TestCommand | null) => (command?.kind === 'argv' ? command.args : null);

describe('testCommand', () => {
  it.each([
    ['vitest', TS_VITEST, { command: 'node_modules/.bin/vitest', args: ['run', 'tests/t001_a.test.ts'], env: {} }],
    ['jest', env({}), { command: 'node_modules/.bin/jest', args: ['--ci', '--runTestsByPath', 'tests/t001_a.test.ts'], env: {} }],
    ['mocha', CJS_MOCHA, { command: 'node_modules/.bin/mocha', args: ['tests/t001_a.test.ts'], env: {} }],
    ['ava', env({}), { command: 'node_modules/.bin/ava', args: ['--no-worker-threads', 'tests/t001_a.test.ts'], env: {} }],
    ['tap', env({}), { command: 'node_modules/.bin/tap', args: ['--disable-coverage', 'tests/t001_a.test.ts'], env: {} }],
    [
      'pytest',
      PY_SRC_VENV,
      {
        command: '/repo/.venv/bin/python',
        args: ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'tests/t001_a.test.ts'],
        env: { PYTHONDONTWRITEBYTECODE: '1', PYTHONPATH: 'src' },
      },
    ],
    [
      'unittest',
      PY_SRC_VENV,
      { command: '/repo/.venv/bin/python', args: ['-m', 'unittest', '-v', 'tests/t001_a.test.ts'], env: { PYTHONDONTWRITEBYTECODE: '1', PYTHONPATH: 'src' } },
    ],
  ] as const)("runs %s from the project's own install", (preset, e, expected) => {
    expect(testCommand(preset, ['tests/t001_a.test.ts'], undefined, e)).toEqual({ kind: 'argv', ...expected });
  });

  it("runs a Go file's own top-level tests by name, in its package (the module root as .)", () => {
    const sources: Record<string, string> = {
      'todo/t001_a_test.go':
        'package todo\n\nfunc TestA(t *testing.T) {}\nfunc TestB(t *testing.T) {}\nfunc helper(t *testing.T) {}\nfunc Testlower(t *testing.T) {}\n',
      't002_b_test.go': 'package main\n\nfunc Test(t *testing.T) {}\nfunc FuzzParse(f *testing.F) {}\nfunc TestA(t *testing.T) {}\n',
      'todo/t003_empty_test.go': 'package todo\n',
    };
    const read = (f: string) => sources[f] ?? null;
    expect(testCommand('go', ['todo/t001_a_test.go', 't002_b_test.go'], undefined, null, read)).toEqual({
      kind: 'argv',
      command: 'go',
      args: ['test', '-count=1', '-run', '^(TestA|TestB|Test|FuzzParse)$', './todo', '.'],
      env: {},
    });
    // A file that declares no test runs none (so the check says nothing ran), not the whole package.
    expect(argsOf(testCommand('go', ['todo/t003_empty_test.go'], undefined, null, read))).toEqual(['test', '-count=1', '-run', '^$', './todo']);
    expect(argsOf(testCommand('go', ['todo/t009_gone_test.go'], undefined, null, read))).toEqual(['test', '-count=1', '-run', '^$', './todo']);
    // Without the files' text, the packages' tests.
    expect(argsOf(testCommand('go', ['todo/t001_a_test.go']))).toEqual(['test', '-count=1', './todo']);
  });

  it('runs one Go case by its levels, each anchored and escaped, spaces as go writes them', () => {
    expect(testCaseCommand('go', 'todo/t001_a_test.go', 'TestSet/returns a copy (v2)')).toEqual({
      kind: 'argv',
      command: 'go',
      args: ['test', '-count=1', '-run', '^TestSet$/^returns_a_copy_\\(v2\\)$', './todo'],
      env: {},
    });
    expect(argsOf(testCaseCommand('go', 't001_a_test.go', 'TestA'))).toEqual(['test', '-count=1', '-run', '^TestA$', '.']);
  });

  it("runs cargo on the files' own test targets only, never stopping at the first that fails, and one case by its exact full name", () => {
    expect(testCommand('cargo', ['tests/t001_a.rs', 'tests/t002_b.rs', 'tests/t001_a.rs'])).toEqual({
      kind: 'argv',
      command: 'cargo',
      args: ['test', '--no-fail-fast', '--test', 't001_a', '--test', 't002_b'],
      env: {},
    });
    expect(testCaseCommand('cargo', 'tests/t001_a.rs', 'refuses::an_unknown_level')).toEqual({
      kind: 'argv',
      command: 'cargo',
      args: ['test', '--no-fail-fast', '--test', 't001_a', '--', '--exact', 'refuses::an_unknown_level'],
      env: {},
    });
  });

  it('runs one JavaScript case by its full name anchored whole, a bare title at the end, and node by its own title', () => {
    const args = (preset: 'vitest' | 'jest' | 'mocha' | 'node', name: string) => argsOf(testCaseCommand(preset, 't/a.test.js', name));
    expect(args('vitest', 'calc › sum (all) › adds')).toEqual(['run', 't/a.test.js', '-t', '^calc sum \\(all\\) adds$']);
    expect(args('vitest', 'adds 1+1')).toEqual(['run', 't/a.test.js', '-t', 'adds 1\\+1$']);
    expect(args('jest', 'calc › adds')).toEqual(['--ci', '--runTestsByPath', 't/a.test.js', '-t', '^calc adds$']);
    expect(args('mocha', 'calc › adds')).toEqual(['t/a.test.js', '--grep', '^calc adds$']);
    expect(args('node', 'calc › adds.')).toEqual(['--test', '--test-name-pattern=^adds\\.$', 't/a.test.js']);
    expect(args('node', 'adds')).toEqual(['--test', '--test-name-pattern=^adds$', 't/a.test.js']);
  });

  it('runs one AVA case by its title as given (AVA matches it whole), in child processes', () => {
    expect(testCaseCommand('ava', 'tests/t001_a.test.js', 'adds *two* numbers')).toEqual({
      kind: 'argv',
      command: 'node_modules/.bin/ava',
      args: ['--no-worker-threads', 'tests/t001_a.test.js', '--match', 'adds *two* numbers'],
      env: {},
    });
  });

  it('runs one node-tap case by a --grep per level of its full name, each title whole and escaped, and a bare title by its whole file', () => {
    expect(testCaseCommand('tap', 'test/t001_a.test.js', 'parse (dates) › reads 1+1')).toEqual({
      kind: 'argv',
      command: 'node_modules/.bin/tap',
      args: ['--disable-coverage', '--grep=^parse \\(dates\\)$', '--grep=^reads 1\\+1$', 'test/t001_a.test.js'],
      env: {},
    });
    // A bare title may be any subtest's: the whole file runs and the report picks it.
    expect(argsOf(testCaseCommand('tap', 'test/t001_a.test.js', 'alone'))).toEqual(['--disable-coverage', 'test/t001_a.test.js']);
  });

  it("runs uvu's files and one case through Tilth's own uvu runner, with no report unless one is asked for", () => {
    const files = testCommand('uvu', ['tests/t001_a.test.js', 'tests/t002_b.test.js']);
    expect(files).toMatchObject({ kind: 'argv', command: 'node', env: {} });
    expect(argsOf(files)).toEqual(['--input-type=module', '-e', UVU_RUNNER, '', 'tests/t001_a.test.js', 'tests/t002_b.test.js']);
    expect(argsOf(testCaseCommand('uvu', 'tests/t001_a.test.js', 'parse › reads'))).toEqual([
      '--input-type=module',
      '-e',
      UVU_RUNNER,
      '',
      '--case',
      'parse › reads',
      'tests/t001_a.test.js',
    ]);
    expect(argsOf(files)?.[UVU_REPORT_ARG]).toBe('');
  });

  it('runs pytest without leaving caches in the worktree', () => {
    expect(testCommand('pytest', ['tests/test_t001_a.py'])).toEqual({
      kind: 'argv',
      command: 'python3',
      args: ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'tests/test_t001_a.py'],
      env: { PYTHONDONTWRITEBYTECODE: '1' },
    });
  });

  it('runs node --test with the files', () => {
    expect(testCommand('node', ['tests/t001_a.test.js', 'tests/t002_b.test.mjs'])).toEqual({
      kind: 'argv',
      command: 'node',
      args: ['--test', 'tests/t001_a.test.js', 'tests/t002_b.test.mjs'],
      env: {},
    });
  });

  it("fills the custom template's {files} with shell-quoted paths", () => {
    const cmd = testCommand('custom', ['tests/t001_a.ts', "tests/it's here.ts"], { test: 'npx vitest run {files} --reporter dot' });
    expect(cmd).toEqual({ kind: 'shell', script: `npx vitest run tests/t001_a.ts 'tests/it'\\''s here.ts' --reporter dot` });
  });

  it("points a custom command's {junit} at a report no one reads, in a private folder the script makes and removes, never the worktree", async () => {
    const cmd = testCommand('custom', ['t/a.test.js'], { test: 'bun test {files} --reporter=junit --reporter-outfile={junit}' });
    expect(cmd).toEqual({ kind: 'shell', script: `${UNREAD_JUNIT_SETUP}bun test t/a.test.js --reporter=junit --reporter-outfile=${UNREAD_JUNIT}` });
    // Run for real: the report lands in a fresh 0700 folder, gone after the run, and the command's exit code stays the run's.
    const probe = testCommand('custom', ['a'], { test: 'echo {files} > {junit} && stat -c %a "$(dirname {junit})" && echo {junit} && exit 3' });
    if (probe.kind !== 'shell') throw new Error('a custom command is a shell script');
    const run = await execa('sh', ['-c', probe.script], { reject: false });
    expect(run.exitCode).toBe(3);
    const [mode, report] = run.stdout.split('\n');
    expect(mode).toBe('700');
    expect(report).toMatch(/\/junit\.xml$/);
    expect(fs.existsSync(path.dirname(report!))).toBe(false);
    // A command without {junit} is left as it is.
    expect(testCommand('custom', ['a'], { test: 'npm test -- {files}' })).toEqual({ kind: 'shell', script: 'npm test -- a' });
  });

  it("runs one case of a custom command with {junit} by its one-case command, placeholders filled once and quoted, or else runs the case's whole file", () => {
    const custom = {
      test: 'bun test {files} --reporter=junit --reporter-outfile={junit}',
      case: 'bun test {file} -t {case_pattern} --name {case} --reporter-outfile={junit}',
    };
    expect(testCaseCommand('custom', "t/it's.test.js", 'adds {junit} (a.b)', null, custom)).toEqual({
      kind: 'shell',
      script: `${UNREAD_JUNIT_SETUP}bun test 't/it'\\''s.test.js' -t '^adds \\{junit\\} \\(a\\.b\\)$' --name 'adds {junit} (a.b)' --reporter-outfile=${UNREAD_JUNIT}`,
    });
    expect(testCaseCommand('custom', 't/a.test.js', 'adds', null, { test: custom.test })).toEqual(
      testCommand('custom', ['t/a.test.js'], { test: custom.test }),
    );
    // Without a report no run can say how one case ended.
    expect(testCaseCommand('custom', 't/a.test.js', 'adds', null, { test: 'bun test {files}', case: custom.case })).toBeNull();
    expect(testCaseCommand('custom', 't/a.test.js', 'adds', null)).toBeNull();
  });

  it("runs several named cases of a file in one process, by each runner's own way to select several", () => {
    const two = ['parse › reads (1+1)', 'writes'];
    expect(testCasesCommand('node', 't/a.test.js', ['only'])).toEqual(testCaseCommand('node', 't/a.test.js', 'only'));
    expect(argsOf(testCasesCommand('node', 't/a.test.js', two))).toEqual([
      '--test',
      '--test-name-pattern=^reads \\(1\\+1\\)$',
      '--test-name-pattern=^writes$',
      't/a.test.js',
    ]);
    // jest, vitest and mocha: one regular expression, the names' patterns as alternatives.
    const alternatives = '(?:^parse reads \\(1\\+1\\)$)|(?:writes$)';
    expect(argsOf(testCasesCommand('vitest', 't/a.test.js', two))).toEqual(['run', 't/a.test.js', '-t', alternatives]);
    expect(argsOf(testCasesCommand('jest', 't/a.test.js', two))).toEqual(['--ci', '--runTestsByPath', 't/a.test.js', '-t', alternatives]);
    expect(argsOf(testCasesCommand('mocha', 't/a.test.js', two))).toEqual(['t/a.test.js', '--grep', alternatives]);
    const selects = (title: string) => new RegExp(alternatives).test(title);
    expect([selects('parse reads (1+1)'), selects('io writes'), selects('parse reads (1+1) twice'), selects('writes it')]).toEqual([true, true, false, false]);
    expect(argsOf(testCasesCommand('ava', 't/a.test.js', two))).toEqual(['--no-worker-threads', 't/a.test.js', '--match', two[0], '--match', 'writes']);
    expect(argsOf(testCasesCommand('uvu', 't/a.test.js', two))!.slice(3)).toEqual(['', '--case', two[0], '--case', 'writes', 't/a.test.js']);
    // tap filters one level per --grep: two paths are its whole file, the report picking the cases.
    expect(argsOf(testCasesCommand('tap', 't/a.test.js', two))).toEqual(['--disable-coverage', 't/a.test.js']);
    expect(argsOf(testCasesCommand('pytest', 'tests/test_a.py', ['test_x', 'TestY::test_z']))).toEqual([
      '-m',
      'pytest',
      '-q',
      '-p',
      'no:cacheprovider',
      'tests/test_a.py::test_x',
      'tests/test_a.py::TestY::test_z',
    ]);
    expect(argsOf(testCasesCommand('unittest', 'tests/test_a.py', ['T.test_x', 'T::test_y']))).toEqual([
      '-m',
      'unittest',
      '-v',
      'tests.test_a.T.test_x',
      'tests.test_a.T.test_y',
    ]);
    expect(argsOf(testCasesCommand('cargo', 'tests/t001_a.rs', ['a::b', 'c']))).toEqual([
      'test',
      '--no-fail-fast',
      '--test',
      't001_a',
      '--',
      '--exact',
      'a::b',
      'c',
    ]);
    // Go: top-level names as alternatives; with a subtest, its whole top-level tests (go's -run splits levels at each /).
    expect(argsOf(testCasesCommand('go', 'calc/t001_a_test.go', ['TestA', 'TestB.x']))).toEqual(['test', '-count=1', '-run', '^TestA$|^TestB\\.x$', './calc']);
    expect(argsOf(testCasesCommand('go', 't001_a_test.go', ['TestA/one two', 'TestA/three', 'TestC']))).toEqual([
      'test',
      '-count=1',
      '-run',
      '^(?:TestA|TestC)$',
      '.',
    ]);
    // One name is the one-case command, whatever the runner.
    for (const preset of ['vitest', 'tap', 'go', 'pytest'] as const)
      expect(testCasesCommand(preset, 'tests/t001_a.test.js', ['x › y'])).toEqual(testCaseCommand(preset, 'tests/t001_a.test.js', 'x › y'));
    // Each runner's own program.
    const programs = (['node', 'vitest', 'jest', 'mocha', 'ava', 'tap', 'uvu', 'cargo', 'go'] as const).map((preset) => {
      const command = testCasesCommand(preset, 't/a.test.js', two);
      return command?.kind === 'argv' ? path.basename(command.command) : null;
    });
    expect(programs).toEqual(['node', 'vitest', 'jest', 'mocha', 'ava', 'tap', 'node', 'cargo', 'go']);
    // A custom command's one-case template takes one case: several run the whole file, whose report has them.
    const custom = { test: 'bun test {files} --reporter-outfile={junit}', case: 'bun test {file} -t {case_pattern} --reporter-outfile={junit}' };
    expect(testCasesCommand('custom', 't/a.test.js', two, null, custom)).toEqual(testCommand('custom', ['t/a.test.js'], custom));
    expect(testCasesCommand('custom', 't/a.test.js', two, null, { test: 'bun test {files}' })).toBeNull();
  });

  it('runs one node test file in the process that loads it, and leaves any other command as it is', () => {
    expect(inOneProcess(testCommand('node', ['tests/t001_a.test.js']))).toEqual({ kind: 'argv', command: 'node', args: ['tests/t001_a.test.js'], env: {} });
    expect(inOneProcess(testCaseCommand('node', 't/a.test.js', 'x')!)).toEqual({
      kind: 'argv',
      command: 'node',
      args: ['--test-name-pattern=^x$', 't/a.test.js'],
      env: {},
    });
    for (const command of [
      testCommand('node', ['a.test.js', 'b.test.js']),
      { kind: 'argv' as const, command: 'deno', args: ['--test', 'a.test.js'], env: {} },
      { kind: 'argv' as const, command: 'node', args: ['--inspect', 'a.test.js'], env: {} },
      testCommand('vitest', ['a.test.js']),
      testCommand('uvu', ['a.test.js']),
      testCommand('custom', ['a.test.js'], { test: 'node --test {files}' }),
    ])
      expect(inOneProcess(command)).toEqual(command);
  });

  it('refuses the custom preset without a command', () => {
    expect(() => testCommand('custom', ['tests/t001_a.sh'])).toThrow(/needs a test command with a \{files\} placeholder/);
  });

  it('quotes anything a shell would interpret', () => {
    expect(shellQuote('tests/t001_a.test.js')).toBe('tests/t001_a.test.js');
    expect(shellQuote('$(rm -rf ~)')).toBe(`'$(rm -rf ~)'`);
  });
});

describe('describePresetForPrompt', () => {
  it('tells the interviewer the pattern and the test style of each preset', () => {
    const pytest = describePresetForPrompt('pytest');
    expect(pytest).toContain('tests/test_t<NNN>_<slug>.py');
    expect(pytest).toContain('tests/test_t001_add_parser.py');
    expect(pytest).toMatch(/bare `assert`/);
    const node = describePresetForPrompt('node');
    expect(node).toContain('tests/t<NNN>_<slug>.test.js');
    expect(node).toContain("import { test } from 'node:test'");
    expect(node).toContain('node:assert/strict');
    expect(describePresetForPrompt('custom', { test: 'cargo test {files}' })).toContain('`cargo test {files}`');
    expect(describePresetForPrompt('custom')).toMatch(/not set yet/);
    expect(describePresetForPrompt('custom')).toContain("in the repository's language and in the style of its existing tests");
    const ava = describePresetForPrompt('custom', undefined, env({ undriven_runner: { runner: 'ava', evidence: 'scripts.test: xo && ava' } }));
    expect(ava).toContain("The project's own test runner is AVA (scripts.test: xo && ava): write the tests for it");
  });

  it("tells each runner's idiom, and where the tests go in this project", () => {
    const vitest = describePresetForPrompt('vitest', undefined, TS_VITEST);
    expect(vitest).toContain('tests/t001_add_parser.test.ts');
    expect(vitest).toContain("from 'vitest'");
    expect(vitest).toMatch(/Write TypeScript/);
    expect(vitest).toMatch(/vitest configuration picks up/);
    const mocha = describePresetForPrompt('mocha', undefined, CJS_MOCHA);
    expect(mocha).toContain('test/t001_add_parser.test.js');
    expect(mocha).toMatch(/`describe` and `it` are Mocha's globals/);
    expect(mocha).toMatch(/CommonJS: load modules with `require\(\)`/);
    expect(describePresetForPrompt('jest', undefined, env({ test_runner: 'jest' }))).toMatch(/Jest's globals/);
    const ava = describePresetForPrompt(
      'ava',
      undefined,
      env({ module_type: 'commonjs', test_runner: 'ava', test_dirs: ['test'], test_globs: DEFAULT_TEST_GLOBS.ava }),
    );
    expect(ava).toContain('`node_modules/.bin/ava test/t001_add_parser.test.js`');
    expect(ava).toMatch(/AVA has no `describe`, and each title must be unique in its file/);
    expect(ava).toMatch(/CommonJS: load modules with `require\(\)`/);
    const tap = describePresetForPrompt('tap', undefined, env({ test_runner: 'tap', test_dirs: ['test'], test_globs: DEFAULT_TEST_GLOBS.tap }));
    expect(tap).toContain('`node_modules/.bin/tap test/t001_add_parser.test.js`');
    expect(tap).toMatch(/`t\.test\('title', async \(t\) => \{ … \}\)` subtests/);
    expect(tap).toMatch(/joined by ` › ` \(`parse › reads a date`\)/);
    const uvu = describePresetForPrompt('uvu', undefined, env({ test_runner: 'uvu', test_dirs: ['tests'], test_globs: ['tests/**/*.{js,mjs,cjs}'] }));
    expect(uvu).toMatch(/end each suite with `Name\.run\(\)`/);
    expect(uvu).toMatch(/its suite's name and its title joined by ` › `/);
    const unittest = describePresetForPrompt('unittest', undefined, PY_SRC_VENV);
    expect(unittest).toContain('/repo/.venv/bin/python -m unittest');
    expect(unittest).toMatch(/unittest\.TestCase/);
    expect(unittest).toMatch(/\(`todo`\); `src\/` is on the path/);
    expect(describePresetForPrompt('pytest', undefined, PY_SRC_VENV)).toContain('`/repo/.venv/bin/python -m pytest -q <file>`');
    expect(describePresetForPrompt('node', undefined, env({ module_type: 'commonjs' }))).toContain("require('node:test')");
    const cargo = describePresetForPrompt(
      'cargo',
      undefined,
      env({ languages: ['rust'], test_runner: 'cargo', test_dirs: ['tests'], rust_crate: 'todo_list' }),
    );
    expect(cargo).toContain('tests/t001_add_parser.rs');
    expect(cargo).toContain('`use todo_list::…;`');
    expect(cargo).toContain('`module::name` inside a `mod`');
    expect(cargo).toContain('tests run offline');
    expect(describePresetForPrompt('cargo', undefined, env({ languages: ['rust'], test_runner: 'cargo', rust_crate: null }))).toContain(
      'This package has no library (src/lib.rs) yet, so the first task creates one',
    );
  });
});
