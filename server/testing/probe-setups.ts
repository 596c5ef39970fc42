/**
 * One small task per runner whose probe traces each criterion's cases (issue 28: survivors belong
 * to criteria): the adult check with a guard and a boundary, its test with one case per criterion,
 * and the lines each case runs as the runner reports them. Shared by the probe's integration test
 * and bench/probe-coverage.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_TEST_GLOBS, type ProjectEnv } from '../../shared/project-env.ts';
import type { ExampleName } from '../demo/example-repo.ts';
import { planEnvironment } from '../env/provision.ts';
import { commitAll, worktreeRefOf } from '../git/worktree-git.ts';
import type { MutationReport } from '../../shared/files.ts';
import { probeTask } from '../proof/mutation-probe.ts';
import type { SessionStore } from '../store/session-store.ts';
import { addDevPackage, CJS_MOCHA_ENV, installExample, turnIntoJestProject } from './example-installs.ts';
import { makePreparedSession } from './run-fixtures.ts';
import { TEST_SANDBOX } from './sandbox.ts';

export const ADULT_CRITERIA = ['tells adults from children', 'refuses a negative age', 'is a function'];

const NODE_IMPL = ['export function isAdult(age) {', "  if (age < 0) throw new RangeError('age must not be negative');", '  return age >= 18;', '}', ''].join(
  '\n',
);
const NODE_TEST = [
  "import { test } from 'node:test';",
  "import assert from 'node:assert/strict';",
  "import { isAdult } from '../src/adult.js';",
  '',
  "test('tells adults from children', () => {",
  '  assert.equal(isAdult(30), true);',
  '  assert.equal(isAdult(5), false);',
  '});',
  '',
  "test('refuses a negative age', () => {",
  '  assert.throws(() => isAdult(-1), RangeError);',
  '});',
  '',
  "test('is a function', () => {",
  "  assert.equal(typeof isAdult, 'function');",
  '});',
  '',
].join('\n');

/** The same cases in AVA's idiom: one `test` per criterion, checked on `t`. */
const AVA_TEST = [
  "import test from 'ava';",
  "import { isAdult } from '../src/adult.js';",
  '',
  "test('tells adults from children', (t) => {",
  '  t.true(isAdult(30));',
  '  t.false(isAdult(5));',
  '});',
  '',
  "test('refuses a negative age', (t) => {",
  '  t.throws(() => isAdult(-1), { instanceOf: RangeError });',
  '});',
  '',
  "test('is a function', (t) => {",
  "  t.is(typeof isAdult, 'function');",
  '});',
  '',
].join('\n');

/** The same cases in node-tap's idiom: subtests of one group, checked on `t`, CommonJS. */
const TAP_TEST = [
  "const t = require('tap');",
  "const { isAdult } = require('../src/adult.js');",
  '',
  "t.test('isAdult', async (t) => {",
  "  t.test('tells adults from children', async (t) => {",
  '    t.equal(isAdult(30), true);',
  '    t.equal(isAdult(5), false);',
  '  });',
  "  t.test('refuses a negative age', async (t) => {",
  '    t.throws(() => isAdult(-1), RangeError);',
  '  });',
  "  t.test('is a function', async (t) => {",
  "    t.equal(typeof isAdult, 'function');",
  '  });',
  '});',
  '',
].join('\n');

/** The same cases in uvu's idiom: one suite, checked with uvu/assert, ESM. */
const UVU_TEST = [
  "import { suite } from 'uvu';",
  "import * as assert from 'uvu/assert';",
  "import { isAdult } from '../src/adult.js';",
  '',
  "const IsAdult = suite('isAdult');",
  "IsAdult('tells adults from children', () => {",
  '  assert.ok(isAdult(30));',
  '  assert.not.ok(isAdult(5));',
  '});',
  "IsAdult('refuses a negative age', () => {",
  '  assert.throws(() => isAdult(-1), (err) => err instanceof RangeError);',
  '});',
  "IsAdult('is a function', () => {",
  "  assert.type(isAdult, 'function');",
  '});',
  'IsAdult.run();',
  '',
].join('\n');

const PY_FILE = 'tests/test_t001_adult.py';
const PY_CASES = ['test_tells_adults_from_children', 'test_refuses_a_negative_age', 'test_is_a_function'];
const PY_TEST = [
  'import pytest',
  'from todo.adult import is_adult',
  '',
  '',
  'def test_tells_adults_from_children():',
  '    assert is_adult(30) is True',
  '    assert is_adult(5) is False',
  '',
  '',
  'def test_refuses_a_negative_age():',
  '    with pytest.raises(ValueError):',
  '        is_adult(-1)',
  '',
  '',
  'def test_is_a_function():',
  '    assert callable(is_adult)',
  '',
].join('\n');
const PY_IMPL = ['def is_adult(age):', '    if age < 0:', "        raise ValueError('age must not be negative')", '    return age >= 18', ''].join('\n');

/** The adult cases for runners with `describe`/`it` globals (mocha, jest), and the guarded CommonJS module. */
const CJS_TEST = [
  "'use strict';",
  "const assert = require('node:assert/strict');",
  "const { isAdult } = require('../src/adult.js');",
  '',
  "describe('isAdult', () => {",
  "  it('tells adults from children', () => {",
  '    assert.equal(isAdult(30), true);',
  '    assert.equal(isAdult(5), false);',
  '  });',
  "  it('refuses a negative age', () => {",
  '    assert.throws(() => isAdult(-1), RangeError);',
  '  });',
  "  it('is a function', () => {",
  "    assert.equal(typeof isAdult, 'function');",
  '  });',
  '});',
  '',
].join('\n');
const CJS_IMPL = [
  "'use strict';",
  'function isAdult(age) {',
  "  if (age < 0) throw new RangeError('age must not be negative');",
  '  return age >= 18;',
  '}',
  'module.exports = { isAdult };',
  '',
].join('\n');

export interface CoveredSetup {
  preset: 'node' | 'pytest' | 'mocha' | 'jest' | 'vitest' | 'ava' | 'tap' | 'uvu';
  example: ExampleName;
  /** The project's dependencies, installed as its users install them. */
  install?: (dir: string) => Promise<void>;
  /** The environment the session was set up with; null: none detected (no dependencies). */
  env: ProjectEnv | null;
  /** The case names, one per criterion (the adult criteria's titles by default). */
  cases?: string[];
  testFile: string;
  test: string;
  implFile: string;
  impl: string;
  method: 'settrace' | 'v8' | 'istanbul';
  /** The lines the mutants are made of; the guard and the boundary are two of them. */
  mutated: number[];
  guard: number;
  boundary: number;
  /** Per criterion, the lines its case ran of the implementation. */
  ran: number[][];
}

export const COVERED: CoveredSetup[] = [
  {
    preset: 'node',
    example: 'js-todo',
    env: null,
    testFile: 'tests/t001_adult.test.js',
    test: NODE_TEST,
    implFile: 'src/adult.js',
    impl: NODE_IMPL,
    method: 'v8',
    mutated: [2, 3],
    guard: 2,
    boundary: 3,
    // The boundary case runs both lines; the negative case stops at the guard; the third runs no logic.
    ran: [[1, 2, 3, 4], [1, 2, 4], [1]],
  },
  {
    // A settrace tracer passed with `python -c`: no new dependency.
    preset: 'pytest',
    example: 'py-todo',
    env: null,
    testFile: PY_FILE,
    test: PY_TEST,
    cases: PY_CASES,
    implFile: 'todo/adult.py',
    impl: PY_IMPL,
    method: 'settrace',
    mutated: [2, 3, 4],
    guard: 2,
    boundary: 4,
    ran: [[1, 2, 4], [1, 2, 3], [1]],
  },
  {
    preset: 'mocha',
    example: 'cjs-mocha',
    install: (dir) => installExample(dir, 'cjs-mocha'),
    env: CJS_MOCHA_ENV,
    testFile: 'test/t001_adult.test.js',
    test: CJS_TEST,
    implFile: 'src/adult.js',
    impl: CJS_IMPL,
    method: 'v8',
    mutated: [3, 4, 6],
    guard: 3,
    boundary: 4,
    // V8 counts the module's own lines (the directive, the export) as run by every case.
    ran: [
      [1, 2, 3, 4, 5, 6],
      [1, 2, 3, 5, 6],
      [1, 6],
    ],
  },
  {
    // AVA's cases run in child processes, each writing its own V8 coverage.
    preset: 'ava',
    example: 'ava-todo',
    install: (dir) => installExample(dir, 'ava-todo'),
    env: {
      ...CJS_MOCHA_ENV,
      module_type: 'esm',
      test_runner: 'ava',
      test_runner_evidence: 'scripts.test: ava',
      test_globs: DEFAULT_TEST_GLOBS.ava,
    },
    testFile: 'test/t001_adult.test.js',
    test: AVA_TEST,
    implFile: 'src/adult.js',
    impl: NODE_IMPL,
    method: 'v8',
    mutated: [2, 3],
    guard: 2,
    boundary: 3,
    ran: [[1, 2, 3, 4], [1, 2, 4], [1]],
  },
  {
    // tap runs each file in a child process; each case is run alone by its --grep chain.
    preset: 'tap',
    example: 'tap-todo',
    install: (dir) => installExample(dir, 'tap-todo'),
    env: {
      ...CJS_MOCHA_ENV,
      test_runner: 'tap',
      test_runner_evidence: 'package.json "tap"',
      test_globs: DEFAULT_TEST_GLOBS.tap,
    },
    cases: ADULT_CRITERIA.map((c) => `isAdult › ${c}`),
    testFile: 'test/t001_adult.test.js',
    test: TAP_TEST,
    implFile: 'src/adult.js',
    impl: CJS_IMPL,
    method: 'v8',
    mutated: [3, 4, 6],
    guard: 3,
    boundary: 4,
    ran: [
      [1, 2, 3, 4, 5, 6],
      [1, 2, 3, 5, 6],
      [1, 6],
    ],
  },
  {
    // Tilth's own uvu runner: one node process, its V8 coverage per case run alone.
    preset: 'uvu',
    example: 'uvu-todo',
    install: (dir) => installExample(dir, 'uvu-todo'),
    env: {
      ...CJS_MOCHA_ENV,
      module_type: 'esm',
      test_runner: 'uvu',
      test_runner_evidence: 'scripts.test: uvu tests',
      test_dirs: ['tests'],
      test_globs: ['tests/**/*.{js,mjs,cjs}'],
    },
    cases: ADULT_CRITERIA.map((c) => `isAdult › ${c}`),
    testFile: 'tests/t001_adult.test.js',
    test: UVU_TEST,
    implFile: 'src/adult.js',
    impl: NODE_IMPL,
    method: 'v8',
    mutated: [2, 3],
    guard: 2,
    boundary: 3,
    ran: [[1, 2, 3, 4], [1, 2, 4], [1]],
  },
  {
    preset: 'jest',
    example: 'cjs-mocha',
    install: (dir) => turnIntoJestProject(dir),
    env: { ...CJS_MOCHA_ENV, test_runner: 'jest', test_runner_evidence: 'devDependencies.jest', lockfile: 'package-lock.json' },
    testFile: 'test/t001_adult.test.js',
    test: CJS_TEST,
    implFile: 'src/adult.js',
    impl: CJS_IMPL,
    method: 'istanbul',
    mutated: [3, 4, 6],
    guard: 3,
    boundary: 4,
    // istanbul counts statements and called functions: a directive is neither.
    ran: [[2, 3, 4, 6], [2, 3, 6], [6]],
  },
  {
    preset: 'vitest',
    example: 'ts-vitest',
    install: async (dir) => {
      await installExample(dir, 'ts-vitest');
      await addDevPackage(dir, '@vitest/coverage-v8@4.1.12');
    },
    env: {
      ...CJS_MOCHA_ENV,
      languages: ['typescript'],
      module_type: 'esm',
      typescript: true,
      test_runner: 'vitest',
      test_runner_evidence: 'devDependencies.vitest',
      test_dirs: ['tests'],
      test_globs: ['tests/**/*.test.ts'],
    },
    testFile: 'tests/t001_adult.test.ts',
    test: CJS_TEST.replace("'use strict';", "import { describe, it } from 'vitest';")
      .replace("const assert = require('node:assert/strict');", "import assert from 'node:assert/strict';")
      .replace("const { isAdult } = require('../src/adult.js');", "import { isAdult } from '../src/adult';"),
    implFile: 'src/adult.ts',
    impl: [
      'export function isAdult(age: number): boolean {',
      "  if (age < 0) throw new RangeError('age must not be negative');",
      '  return age >= 18;',
      '}',
      '',
    ].join('\n'),
    method: 'istanbul',
    mutated: [2, 3],
    guard: 2,
    boundary: 3,
    // The declaration line runs when the function is called: a case that only looks at it runs none.
    ran: [[1, 2, 3], [1, 2], []],
  },
];

/**
 * A prepared session on `projectDir` (the setup's example, installed) whose T-001 commit adds the
 * setup's implementation, probed; with `traced`, each criterion's cases run alone with coverage.
 */
export async function probeCovered(
  store: SessionStore,
  projectDir: string,
  setup: CoveredSetup,
  traced: boolean,
): Promise<{ report: MutationReport; scratch: string }> {
  const criteriaTests = (setup.cases ?? ADULT_CRITERIA).map((c) => [c]);
  const id = await makePreparedSession(
    store,
    projectDir,
    setup.preset,
    [{ id: 'T-001', title: 'Adult', criteria: ADULT_CRITERIA, criteriaTests, tests: { [setup.testFile]: setup.test } }],
    setup.env ? { env: setup.env } : {},
  );
  const worktree = store.session(id).checkpoint.read().worktree;
  const projectEnv = setup.env;
  if (projectEnv) {
    store.session(id).checkpoint.update(() => ({
      environment: { plan: planEnvironment({ source: projectDir, worktree, env: projectEnv }), ready_at: new Date().toISOString() },
    }));
  }
  const cp = store.session(id).checkpoint.read();
  fs.writeFileSync(path.join(worktree, setup.implFile), setup.impl);
  const sha = await commitAll(await worktreeRefOf(cp), 'T-001: Adult');
  const scratch = store.session(id).probeScratch('T-001');
  const report = await probeTask({
    sandbox: TEST_SANDBOX,
    checkpoint: cp,
    taskId: 'T-001',
    sha: sha!,
    scratch,
    preset: setup.preset,
    project: setup.env,
    lockedTests: [setup.testFile],
    ...(traced ? { criteriaTests } : {}),
    budgetMs: 300_000,
  });
  return { report, scratch };
}
