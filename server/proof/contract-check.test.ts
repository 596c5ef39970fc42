/**
 * The contract check against real pytest and `node --test` runs, in throwaway copies of the
 * example repositories. Each suite writes its test files once and runs one check over all of
 * them, so the processes run side by side.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrdEntry } from '../../shared/files.ts';
import type { ContractWarning } from '../../shared/seed.ts';
import { makeExampleRepo, type ExampleRepo } from '../demo/example-repo.ts';
import { checkContract, classifyRun, countAssertions, type ProjectFacts, type RunVerdict } from './contract-check.ts';
import type { ChecksPreset } from '../../shared/seed.ts';
import { NO_SANDBOX, TEST_SANDBOX } from '../testing/sandbox.ts';

function task(id: string, criteria: number, description = 'A feature.'): PrdEntry {
  return { id, title: `Task ${id}`, description, acceptance_criteria: Array.from({ length: criteria }, (_, i) => `criterion ${i + 1}`), status: 'pending' };
}

function write(dir: string, files: Record<string, string>): void {
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), content);
  }
}

/** Whether a process is still running; a zombie (killed, waiting for a reaper that may not come) is not. */
async function running(pid: number): Promise<boolean> {
  for (let i = 0; i < 20; i++) {
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      return false;
    }
    if (/^\d+ \(.*\) Z/.test(stat)) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

/** The example repo needs no pytest plugins; not loading the machine's makes each run ~3× faster. */
const FAST_PYTEST = { PYTEST_DISABLE_PLUGIN_AUTOLOAD: '1' };

const of = (warnings: ContractWarning[], taskId: string) => warnings.filter((w) => w.task_id === taskId);

describe('countAssertions', () => {
  it.each([
    ['vitest', "import { expect, it } from 'vitest';\nit('a', () => {\n  expect(1).toBe(1);\n  expect.soft(2).toBe(2);\n  // expect(3)\n});", 2],
    ['jest', "test('a', async () => {\n  await expect(p).rejects.toThrow();\n  expect(x).toEqual({});\n});", 2],
    [
      'mocha',
      "const { expect } = require('chai');\nit('a', () => {\n  expect(1).to.equal(1);\n  x.should.equal(2);\n  should.exist(y);\n  assert.ok(z);\n});",
      4,
    ],
    [
      'ava',
      "import test from 'ava';\ntest('a', async (t) => {\n  t.is(1, 1);\n  t.deepEqual([], []);\n  await t.throwsAsync(p);\n  t.true(x);\n  t.pass();\n  t.log('x');\n  // t.is(0, 1)\n  t.not(a, b);\n  it.is(1);\n});",
      5,
    ],
    [
      'tap',
      "const t = require('tap');\nt.test('a', async (t) => {\n  t.equal(1, 1);\n  t.same([], []);\n  await t.rejects(p);\n  t.ok(x);\n  t.pass('nothing');\n  t.comment('x');\n  // t.equal(0, 1)\n  t.match(a, /b/);\n  t.plan(1);\n});",
      5,
    ],
    [
      'uvu',
      "import { test } from 'uvu';\nimport * as assert from 'uvu/assert';\ntest('a', () => {\n  assert.is(1, 1);\n  assert.not.ok(x);\n  // assert.is(0, 1)\n  is(2, 2);\n});\ntest.run();",
      2,
    ],
    [
      'uvu',
      "const { test } = require('uvu');\nconst { is, equal, throws } = require('uvu/assert');\ntest('a', () => {\n  is(1, 1);\n  equal([], []);\n  throws(() => f());\n  is.not(1, 2);\n  x.is(3);\n});\ntest.run();",
      4,
    ],
    [
      'custom',
      "import { assertEquals, assertThrows } from '@std/assert';\nDeno.test('a', () => {\n  assertEquals(1, 1);\n  assertThrows(() => f());\n  x.assertEquals(1);\n  assertion(2);\n});",
      2,
    ],
    [
      'unittest',
      'class T(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(1, 1)\n        with self.assertRaises(ValueError):\n            f()\n        # self.assertTrue(0)\n        self.fail("no")\n',
      3,
    ],
  ] as const)('counts %s assertions', (preset, src, n) => {
    expect(countAssertions(preset, src)).toBe(n);
  });

  it('counts assert statements and pytest.raises in Python, not comments', () => {
    const src = [
      'def test_a():',
      '    assert 1 == 1',
      '    # assert 2 == 2',
      '    with pytest.raises(ValueError):',
      '        f()',
      '    assert(3)',
      '    x = "no assert here"',
    ].join('\n');
    expect(countAssertions('pytest', src)).toBe(3);
  });

  it('counts assert(…), assert.x(…), t.assert.x(…) and expect(…) in JavaScript, not the import or comments', () => {
    const src = [
      "import assert from 'node:assert/strict';",
      "test('a', (t) => {",
      '  assert.equal(1, 1);',
      '  assert(true);',
      '  assert.strict.deepEqual([], []);',
      '  t.assert.ok(1);',
      '  expect(2).toBe(2);',
      '  // assert.equal(0, 1);',
      '  /* assert.ok(0) */',
      "  const url = 'http://x'; // assert(1)",
      '});',
    ].join('\n');
    expect(countAssertions('node', src)).toBe(5);
  });
});

const OUTPUTS = path.join(import.meta.dirname, '..', 'testing', 'runner-output');

/** A captured run: its output and the `[exit=… spawnError=…]` line recorded after it. */
function captured(name: string): { output: string; exitCode: number | null; spawnError: string | null; timedOut: boolean } {
  const text = fs.readFileSync(path.join(OUTPUTS, `${name}.txt`), 'utf8');
  const trailer = /\n\[exit=(\S+) spawnError=(.*?) sandboxed=\w+\]\s*$/.exec(text)!;
  return {
    output: text.slice(0, trailer.index),
    exitCode: trailer[1] === 'null' ? null : Number(trailer[1]),
    spawnError: trailer[2] === 'null' ? null : trailer[2]!,
    timedOut: false,
  };
}

/** The captured projects: /tmp/cap/<dir>, with the dependencies their package.json or pyproject.toml declared. */
function facts(preset: ChecksPreset, dir: string, over: Partial<ProjectFacts> = {}): ProjectFacts {
  return {
    preset,
    worktree: `/tmp/cap/${dir}`,
    prd: [task('T-001', 1, 'Slugs and todos.')],
    interpreter: 'python3',
    jsDependencies: new Set(['left-pad', 'lodash', 'vitest', 'jest', 'mocha']),
    installCommand: 'pnpm install',
    pythonDeclares: (name) => name === 'humanize',
    pythonHasModule: (name) => name === 'todo',
    timeoutMs: 60_000,
    ...over,
  };
}

type Expect = [RunVerdict['kind'], RegExp?];
const CLASSIFIED: [string, ChecksPreset, string, string, Expect, Partial<ProjectFacts>?][] = [
  // vitest 4
  ['an assertion that fails', 'vitest', 'vt', 'vt-t001_assert', ['fails_as_expected', /a test failed/]],
  ['a module under src/ the task adds', 'vitest', 'vt', 'vt-t002_missing_module', ['fails_as_expected', /src\/parser does not exist yet/]],
  ['a function the task adds', 'vitest', 'vt', 'vt-t003_missing_export', ['fails_as_expected', /what the task adds is missing/]],
  [
    'a dependency in package.json that is not installed',
    'vitest',
    'vt',
    'vt-t004_missing_dep',
    [
      'environment',
      /'left-pad' is a dependency in package\.json but is not installed in the worktree\. Install the project's dependencies in the repository \(`pnpm install`\)/,
    ],
  ],
  ['a test that does not parse', 'vitest', 'vt', 'vt-t005_syntax', ['environment', /does not parse: SyntaxError: Expected `}` but found `EOF`/]],
  [
    'describe without globals',
    'vitest',
    'vt',
    'vt-t006_globals',
    ['environment', /uses `describe` as a global, and Vitest does not provide it.*import it from 'vitest'/],
  ],
  ['a file its include does not pick up', 'vitest', 'vt', 'vt-not-included', ['environment', /Vitest did not pick up .*include settings/]],
  [
    'no vitest in node_modules',
    'vitest',
    'nonm',
    'vt-runner-missing',
    ['environment', /Vitest is not installed in the worktree: `node_modules\/\.bin\/vitest` could not be started \(spawn node_modules\/\.bin\/vitest ENOENT\)/],
  ],
  // Node 20's node --test
  ['an assertion that fails', 'node', 'nd', 'nd-t001_assert', ['fails_as_expected', /a test failed/]],
  [
    'a .js test importing src/*.ts',
    'node',
    'nd',
    'nd-t002_ts_import',
    ['environment', /node --test cannot load \.ts files as this project is set up \(src\/tslug\.ts\)\. Node 20 runs JavaScript only/],
  ],
  [
    "mocha's describe under node --test",
    'node',
    'nd',
    'nd-t003_mocha_globals',
    ['environment', /uses `describe` as a global, and node --test does not provide it/],
  ],
  ['a module the task adds (ERR_MODULE_NOT_FOUND)', 'node', 'nd', 'nd-t004_missing_module', ['fails_as_expected', /src\/parser\.js does not exist yet/]],
  ['a declared package that is not installed', 'node', 'nd', 'nd-t005_missing_dep', ['environment', /'left-pad' is a dependency/]],
  ['an export the task adds', 'node', 'nd', 'nd-t006_missing_export', ['fails_as_expected', /what the task adds is missing/]],
  [
    'a .test.ts under Node 20',
    'node',
    'nd',
    'nd-t007_typescript',
    ['environment', /cannot load \.ts files as this project is set up \(tests\/t007_typescript\.test\.ts\)/],
  ],
  ['a property that is not a function yet', 'node', 'nd', 'nd-t008_not_a_function', ['fails_as_expected', /what the task adds is missing/]],
  ['a test that does not parse', 'node', 'nd', 'nd-t009_syntax', ['environment', /SyntaxError: Unexpected end of input/]],
  // mocha 11, CommonJS
  ['an assertion that fails', 'mocha', 'mo', 'mo-t001_assert', ['fails_as_expected', /a test failed/]],
  ['a relative require of a module the task adds', 'mocha', 'mo', 'mo-t002_missing_module', ['fails_as_expected', /src\/parser does not exist yet/]],
  ['a declared dependency that is not installed', 'mocha', 'mo', 'mo-t003_missing_dep', ['environment', /'lodash' is a dependency in package\.json/]],
  ['a function the task adds', 'mocha', 'mo', 'mo-t004_not_a_function', ['fails_as_expected', /what the task adds is missing/]],
  ['a test that does not parse', 'mocha', 'mo', 'mo-t005_syntax', ['environment', /SyntaxError: Unexpected end of input/]],
  ['TypeScript without a loader', 'mocha', 'mo', 'mo-t007_typescript', ['environment', /SyntaxError: Missing initializer in const declaration/]],
  [
    'a name a task says it adds',
    'mocha',
    'mo',
    'mo-t008_undefined_name',
    ['fails_as_expected', /kebab is not defined yet/],
    { prd: [task('T-001', 1, 'Add kebab() beside slug().')] },
  ],
  ['a name nothing defines', 'mocha', 'mo', 'mo-t008_undefined_name', ['does_not_load', /never imports or defines \(ReferenceError: kebab is not defined\)/]],
  ['no mocha in node_modules', 'mocha', 'mo', 'mo-runner-missing', ['environment', /Mocha is not installed in the worktree/]],
  // jest 29, CommonJS
  ['an assertion that fails', 'jest', 'je', 'je-t001_assert', ['fails_as_expected', /a test failed/]],
  ['a module the task adds', 'jest', 'je', 'je-t002_missing_module', ['fails_as_expected', /src\/parser does not exist yet/]],
  ['a declared dependency that is not installed', 'jest', 'je', 'je-t003_missing_dep', ['environment', /'lodash' is a dependency/]],
  ['a function the task adds', 'jest', 'je', 'je-t004_not_a_function', ['fails_as_expected', /what the task adds is missing/]],
  ['a test that does not parse', 'jest', 'je', 'je-t005_syntax', ['environment', /Jest could not parse it .*Unexpected token \(2:0\)/]],
  ['TypeScript without ts-jest', 'jest', 'je', 'je-t006_typescript', ['environment', /Missing initializer in const declaration.*TypeScript needs ts-jest/]],
  ['a file its testMatch does not pick up', 'jest', 'je', 'je-t007_esm', ['environment', /Jest did not pick up .*testMatch/]],
  // pytest 9, src layout
  ['an assertion that fails', 'pytest', 'py', 'py-t001_assert', ['fails_as_expected', /a test failed/]],
  ["a name the project's package does not have yet", 'pytest', 'py', 'py-t002_cannot_import', ['fails_as_expected', /what the task adds is missing/]],
  ["a new module of the project's package", 'pytest', 'py', 'py-t003_new_module', ['fails_as_expected', /todo\.parser does not exist yet/]],
  [
    'a declared dependency that is not installed',
    'pytest',
    'py',
    'py-t004_missing_dep',
    ['environment', /'humanize' is a dependency of the project but is not installed for python3/],
  ],
  ['a test that does not parse', 'pytest', 'py', 'py-t005_syntax', ['environment', /SyntaxError in tests\/test_t005_syntax\.py line 1/]],
  [
    'a name a task says it adds',
    'pytest',
    'py',
    'py-t006_name_error',
    ['fails_as_expected', /remove is not defined yet/],
    { prd: [task('T-001', 1, 'Add remove().')] },
  ],
  [
    'an interpreter without pytest',
    'pytest',
    'py',
    'py-no-pytest',
    [
      'environment',
      /pytest is not installed for \/var\/tmp\/nopytest\/bin\/python\. Install it with `\/var\/tmp\/nopytest\/bin\/python -m pip install pytest`/,
    ],
    { interpreter: '/var/tmp/nopytest/bin/python' },
  ],
  // unittest, Python 3.11
  ['an assertion that fails', 'unittest', 'py', 'ut-t007_unittest_assert', ['fails_as_expected', /a test failed/]],
  ["a name the project's package does not have yet", 'unittest', 'py', 'ut-t008_unittest_import', ['fails_as_expected', /what the task adds is missing/]],
  ["a new module of the project's package", 'unittest', 'py', 'ut-t009_unittest_new_module', ['fails_as_expected', /todo\.parser does not exist yet/]],
  ['a test that does not parse', 'unittest', 'py', 'ut-t005_syntax', ['environment', /SyntaxError in tests\/test_t005_syntax\.py line 1/]],
];

describe('classifyRun on real runner output', () => {
  it.each(CLASSIFIED)('%s (%s, %s/%s)', (_name, preset, dir, sample, [kind, text], over) => {
    const file = /-(t\d{3}_[a-z_]+)$/.exec(sample)?.[1];
    const testFile =
      preset === 'pytest' || preset === 'unittest' ? `tests/test_${file}.py` : `${preset === 'mocha' ? 'test' : 'tests'}/${file ?? 't001_x'}.test.js`;
    const command = preset === 'pytest' || preset === 'unittest' ? 'python3 -m pytest' : `node_modules/.bin/${preset} run`;
    const verdict = classifyRun(captured(sample), { ...facts(preset, dir, over), file: testFile, shown: testFile, command });
    expect(verdict.kind).toBe(kind);
    if (text) expect('message' in verdict ? verdict.message : 'reason' in verdict ? verdict.reason : '').toMatch(text);
  });

  it("reads older vitest's 'Failed to load url' as a module the task adds (format from explore-frontend/vscode-vitest-runner#15)", () => {
    const output =
      ' FAIL  tests/t001_x.test.ts [ tests/t001_x.test.ts ]\nError: Failed to load url ../src/parser (resolved id: ../src/parser) in /tmp/cap/vt/tests/t001_x.test.ts. Does the file exist?\n';
    const verdict = classifyRun(
      { output, exitCode: 1, spawnError: null, timedOut: false },
      { ...facts('vitest', 'vt'), file: 'tests/t001_x.test.ts', shown: 'tests/t001_x.test.ts', command: 'x' },
    );
    expect(verdict).toEqual({ kind: 'fails_as_expected', reason: 'src/parser does not exist yet' });
  });

  it('marks a runner that cannot start as one problem for every file', () => {
    const verdict = classifyRun(captured('vt-runner-missing'), {
      ...facts('vitest', 'nonm'),
      file: 'tests/t001_x.test.ts',
      shown: 'tests/t001_x.test.ts',
      command: 'node_modules/.bin/vitest run',
    });
    expect(verdict).toMatchObject({ kind: 'environment', runner: true });
  });

  it('reports a hang as timed out, whatever the output says, naming the file from the root (a workspace package runs it from its folder)', () => {
    expect(
      classifyRun(
        { ...captured('vt-t001_assert'), timedOut: true },
        { ...facts('vitest', 'vt'), file: 'tests/t001_x.test.ts', shown: 'packages/core/tests/t001_x.test.ts', command: 'x' },
      ),
    ).toMatchObject({ kind: 'timed_out', message: expect.stringMatching(/^packages\/core\/tests\/t001_x\.test\.ts did not finish within/) });
  });
});

describe('checkContract with pytest', () => {
  let repo: ExampleRepo;
  let warnings: ContractWarning[];
  const prd = [
    task('T-001', 2, 'Todos carry a due date.'),
    task('T-002', 1),
    task('T-003', 1),
    task('T-004', 3),
    task('T-005', 1),
    task('T-006', 1, 'Add a reminders module at the top level.'),
    task('T-007', 1),
    task('T-008', 1),
    task('T-009', 1),
  ];
  const files: Record<string, string> = {
    // The feature is missing: an ImportError of a project name, the expected failure.
    'tests/test_t001_due.py':
      'from todo import add_todo, set_due\n\n\ndef test_due():\n    todos = set_due(add_todo([], "a"), 0, "2026-01-31")\n    assert todos[0].due == "2026-01-31"\n    assert todos[0].done is False\n',
    'tests/test_t002_syntax.py': 'from todo import add_todo\n\n\ndef test_broken(:\n    assert add_todo([], "a")\n',
    'tests/test_t003_no_assert.py': 'from todo import add_todo\n\n\ndef test_nothing():\n    add_todo([], "a")\n',
    'tests/test_t004_few.py': 'from todo import overdue\n\n\ndef test_overdue():\n    assert overdue([]) == []\n',
    'tests/test_t005_dep.py': 'import nosuchlib_for_tilth_tests\n\n\ndef test_dep():\n    assert nosuchlib_for_tilth_tests.x\n',
    // A new top-level module that the task says it will create: still the feature missing.
    'tests/test_t006_new_module.py': 'from reminders import remind\n\n\ndef test_remind():\n    assert remind([]) == []\n',
    'tests/test_t007_name.py': 'def test_name():\n    assert set_due([], 0, "x")\n',
    'tests/test_t008_framework.py': 'from pytest import no_such_helper\n\n\ndef test_x():\n    assert no_such_helper\n',
    'tests/test_t009_no_tests.py': 'from todo import add_todo\n\n\ndef helper():\n    assert add_todo([], "a")\n',
  };

  beforeAll(async () => {
    repo = await makeExampleRepo('py-todo');
    write(repo.dir, files);
    warnings = await checkContract({
      prd,
      testFiles: files,
      preset: 'pytest',
      scope: { sandbox: TEST_SANDBOX, worktree: repo.dir, git: null, network: false },
      env: FAST_PYTEST,
    });
  }, 90_000); // nine pytest runs, two at a time, in the sandbox
  afterAll(() => repo.cleanup());

  it('says nothing about a test that fails only because the feature is missing', () => {
    expect(of(warnings, 'T-001')).toEqual([]);
  });

  it('reports a syntax error as an environment problem, with the first lines of output', () => {
    const [w] = of(warnings, 'T-002');
    expect(w).toMatchObject({ kind: 'environment', file: 'tests/test_t002_syntax.py' });
    expect(w?.message).toMatch(/SyntaxError in tests\/test_t002_syntax\.py line 4/);
    expect(w?.output).toMatch(/SyntaxError/);
    expect(w?.output?.split('\n').length).toBeLessThanOrEqual(41);
  });

  it('reports a test without assertions as no_assertions (and nothing else)', () => {
    expect(of(warnings, 'T-003')).toEqual([expect.objectContaining({ kind: 'no_assertions', file: 'tests/test_t003_no_assert.py' })]);
  });

  it('reports fewer assertions than criteria', () => {
    expect(of(warnings, 'T-004')).toEqual([
      expect.objectContaining({
        kind: 'criteria_vs_assertions',
        message: expect.stringMatching(/T-004 has 3 acceptance criteria but tests\/test_t004_few\.py has 1 assertion;/),
      }),
    ]);
  });

  it('reports a module that is neither installed, in the repo, nor named by a task', () => {
    expect(of(warnings, 'T-005')).toEqual([
      expect.objectContaining({ kind: 'does_not_load', message: expect.stringMatching(/imports 'nosuchlib_for_tilth_tests', which is not installed/) }),
    ]);
  });

  it('accepts a missing module that a task says it will create', () => {
    expect(of(warnings, 'T-006')).toEqual([]);
  });

  it('reports a NameError: a name the test never imported', () => {
    expect(of(warnings, 'T-007')).toEqual([
      expect.objectContaining({ kind: 'does_not_load', message: expect.stringMatching(/name that 'set_due' is not defined/) }),
    ]);
  });

  it('reports a failed import from pytest itself', () => {
    expect(of(warnings, 'T-008')).toEqual([
      expect.objectContaining({
        kind: 'does_not_load',
        message: expect.stringMatching(/'no_such_helper' does not exist in the test framework module 'pytest'/),
      }),
    ]);
  });

  it('reports a file in which pytest collects no tests', () => {
    expect(of(warnings, 'T-009')).toEqual([expect.objectContaining({ kind: 'does_not_load', message: expect.stringMatching(/collected no tests/) })]);
  });

  it('leaves no pytest cache or bytecode in the worktree', () => {
    const found = (fs.readdirSync(repo.dir, { recursive: true }) as string[]).filter((f) => /__pycache__|\.pytest_cache/.test(f));
    expect(found).toEqual([]);
  });
});

describe('checkContract when the runner is missing', () => {
  let repo: ExampleRepo;
  let bin: string;
  const files = { 'tests/test_t001_due.py': 'def test_due():\n    assert False\n' };
  beforeAll(async () => {
    repo = await makeExampleRepo('py-todo');
    write(repo.dir, files);
    // Not under /tmp: the sandbox gives the tests a private one.
    bin = fs.mkdtempSync(path.join('/var/tmp', 'tilth-fake-bin-'));
  });
  afterAll(async () => {
    await repo.cleanup();
    fs.rmSync(bin, { recursive: true, force: true });
  });

  it('says to install pytest when python3 has no pytest module', async () => {
    fs.writeFileSync(path.join(bin, 'python3'), '#!/bin/sh\necho "/usr/bin/python3: No module named pytest" >&2\nexit 1\n', { mode: 0o755 });
    const warnings = await checkContract({
      prd: [task('T-001', 1)],
      testFiles: files,
      preset: 'pytest',
      scope: { sandbox: TEST_SANDBOX, worktree: repo.dir, git: null, network: false },
      env: { PATH: bin },
    });
    expect(warnings).toEqual([
      expect.objectContaining({
        kind: 'environment',
        task_id: null,
        message: expect.stringMatching(/pytest is not installed for python3\. Install it with `python3 -m pip install pytest`/),
      }),
    ]);
    fs.rmSync(path.join(bin, 'python3'));
  });

  it('says to install Python when python3 cannot be started', async () => {
    const warnings = await checkContract({
      prd: [task('T-001', 1)],
      testFiles: files,
      preset: 'pytest',
      scope: { sandbox: TEST_SANDBOX, worktree: repo.dir, git: null, network: false },
      env: { PATH: bin },
    });
    expect(warnings).toEqual([
      expect.objectContaining({
        kind: 'environment',
        message: expect.stringMatching(/python3 could not be started \(.*ENOENT.*\)\. Install Python 3 and pytest/),
      }),
    ]);
  });
});

describe('checkContract with node --test', () => {
  let repo: ExampleRepo;
  let warnings: ContractWarning[];
  const head = "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\n";
  const prd = [
    task('T-001', 1),
    task('T-002', 1),
    task('T-003', 1),
    task('T-004', 1),
    task('T-005', 1),
    task('T-006', 2),
    task('T-007', 1),
    task('T-008', 1),
    task('T-009', 1),
  ];
  const files: Record<string, string> = {
    // Passes today: it cannot tell whether T-009 was done.
    'tests/t009_passes.test.js': `${head}import { addTodo } from '../src/todo.js';\n\ntest('adds', () => {\n  assert.equal(addTodo([], 'a').length, 1);\n});\n`,
    // The feature is missing: the export does not exist yet (a "SyntaxError" by name, but expected).
    'tests/t001_due.test.js': `${head}import { setDue } from '../src/todo.js';\n\ntest('due', () => {\n  assert.equal(setDue({ title: 'x' }, '2026-01-31').due, '2026-01-31');\n});\n`,
    // The feature is missing: a module the task will create.
    'tests/t002_new_module.test.js': `${head}import { remind } from '../src/reminders.js';\n\ntest('remind', () => {\n  assert.deepEqual(remind([]), []);\n});\n`,
    'tests/t003_syntax.test.js': `${head}\ntest('broken', () => {\n  assert.equal(1, 2;\n});\n`,
    'tests/t004_builtin.test.mjs': "import { test } from 'node:tst';\nimport assert from 'node:assert/strict';\ntest('x', () => { assert.ok(1); });\n",
    'tests/t005_no_assert.test.js': `${head}import { addTodo } from '../src/todo.js';\n\ntest('adds', () => {\n  addTodo([], 'a');\n});\n`,
    'tests/t006_few.test.js': `${head}import * as todo from '../src/todo.js';\n\ntest('overdue', () => {\n  assert.deepEqual(todo.overdue([]), []);\n});\n`,
    'tests/t007_reference.test.js': `${head}\ntest('due', () => {\n  assert.equal(setDue({}, 'x').due, 'x');\n});\n`,
    'tests/t008_package.test.js': `${head}import { parse } from 'date-fns-not-installed';\n\ntest('parse', () => {\n  assert.ok(parse);\n});\n`,
  };

  beforeAll(async () => {
    repo = await makeExampleRepo('js-todo');
    write(repo.dir, files);
    warnings = await checkContract({ prd, testFiles: files, preset: 'node', scope: { sandbox: TEST_SANDBOX, worktree: repo.dir, git: null, network: false } });
  });
  afterAll(() => repo.cleanup());

  it('says nothing about a missing export or a missing project module', () => {
    expect(of(warnings, 'T-001')).toEqual([]);
    expect(of(warnings, 'T-002')).toEqual([]);
  });

  it('reports a syntax error as an environment problem, with the output', () => {
    const [w] = of(warnings, 'T-003');
    expect(w).toMatchObject({ kind: 'environment', message: expect.stringMatching(/SyntaxError: missing \) after argument list/) });
    expect(w?.output).toMatch(/SyntaxError/);
  });

  it('reports an unknown node: module', () => {
    expect(of(warnings, 'T-004')).toEqual([
      expect.objectContaining({ kind: 'does_not_load', message: expect.stringMatching(/node:tst, which is not a Node\.js built-in module/) }),
    ]);
  });

  it('reports a test without assertions as no_assertions', () => {
    expect(of(warnings, 'T-005')).toEqual([expect.objectContaining({ kind: 'no_assertions' })]);
  });

  it('reports fewer assertions than criteria', () => {
    expect(of(warnings, 'T-006')).toEqual([
      expect.objectContaining({
        kind: 'criteria_vs_assertions',
        message: expect.stringMatching(/T-006 has 2 acceptance criteria but tests\/t006_few\.test\.js has 1 assertion/),
      }),
    ]);
  });

  it('reports a ReferenceError: a name the test never imports', () => {
    expect(of(warnings, 'T-007')).toEqual([
      expect.objectContaining({ kind: 'does_not_load', message: expect.stringMatching(/ReferenceError: setDue is not defined/) }),
    ]);
  });

  it('reports a test that already passes before the feature exists', () => {
    expect(of(warnings, 'T-009')).toEqual([expect.objectContaining({ kind: 'already_passes', file: 'tests/t009_passes.test.js' })]);
  });

  it('reports a package that is not installed', () => {
    expect(of(warnings, 'T-008')).toEqual([
      expect.objectContaining({ kind: 'does_not_load', message: expect.stringMatching(/'date-fns-not-installed' cannot be found — it is not a dependency/) }),
    ]);
  });

  it('stops a hanging test at the timeout, with everything it started', async () => {
    const pidFile = path.join(repo.dir, 'child.pid');
    const hang = [
      head,
      "import { spawn } from 'node:child_process';",
      "import { writeFileSync } from 'node:fs';",
      "const child = spawn('sleep', ['30'], { stdio: 'ignore' });",
      `writeFileSync(${JSON.stringify(pidFile)}, String(child.pid));`,
      "test('hangs', () => new Promise(() => { setInterval(() => {}, 1000); assert.ok(true); }));",
      '',
    ].join('\n');
    write(repo.dir, { 'tests/t009_hang.test.js': hang });
    const started = Date.now();
    // Unsandboxed, so the pid the test writes is a host pid (in the sandbox the PID namespace ends everything anyway).
    const result = await checkContract({
      prd: [task('T-009', 1)],
      testFiles: { 'tests/t009_hang.test.js': hang },
      preset: 'node',
      scope: { sandbox: NO_SANDBOX, worktree: repo.dir, git: null, network: false },
      timeoutMs: 1_500,
    });
    expect(Date.now() - started).toBeLessThan(6_000);
    expect(result).toEqual([expect.objectContaining({ kind: 'check_failed', message: expect.stringMatching(/did not finish within 2 s/) })]);
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    expect(await running(pid)).toBe(false);
  });
});

describe('checkContract with a custom command', () => {
  let repo: ExampleRepo;
  const files = { 'tests/t001_due.py': 'def test_due(:\n    assert 1\n' };
  beforeAll(async () => {
    repo = await makeExampleRepo('py-todo');
    write(repo.dir, files);
  });
  afterAll(() => repo.cleanup());

  it("runs the user's command on the file and reports a syntax error", async () => {
    const warnings = await checkContract({
      prd: [task('T-001', 1)],
      testFiles: files,
      preset: 'custom',
      customChecks: { test: 'python3 -m pytest -q -p no:cacheprovider {files}' },
      scope: { sandbox: TEST_SANDBOX, worktree: repo.dir, git: null, network: false },
      env: { ...FAST_PYTEST, PYTHONDONTWRITEBYTECODE: '1' },
    });
    expect(warnings).toEqual([expect.objectContaining({ kind: 'environment', file: 'tests/t001_due.py', message: expect.stringMatching(/SyntaxError/) })]);
  });

  it('reports a command that cannot run as an environment problem', async () => {
    const warnings = await checkContract({
      prd: [task('T-001', 1)],
      testFiles: files,
      preset: 'custom',
      customChecks: { test: 'no-such-test-runner-for-tilth {files}' },
      scope: { sandbox: TEST_SANDBOX, worktree: repo.dir, git: null, network: false },
    });
    expect(warnings).toEqual([
      expect.objectContaining({ kind: 'environment', task_id: null, message: expect.stringMatching(/could not run \(exit code 127/) }),
    ]);
  });

  it('reports a missing custom command without running anything', async () => {
    const warnings = await checkContract({
      prd: [task('T-001', 1)],
      testFiles: files,
      preset: 'custom',
      scope: { sandbox: TEST_SANDBOX, worktree: repo.dir, git: null, network: false },
    });
    expect(warnings).toEqual([expect.objectContaining({ kind: 'check_failed', message: expect.stringMatching(/The test files were not run: .*\{files\}/) })]);
  });
});
