/**
 * The mutation probe on a real commit of the JavaScript example: node --test in the sandbox,
 * a scratch worktree at the task's commit. A test that misses a boundary leaves named survivors;
 * one that pins the boundary kills them.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeExampleRepo, type ExampleName, type ExampleRepo } from '../demo/example-repo.ts';
import { commitAll, worktreeRefOf } from '../git/worktree-git.ts';
import type { ProjectEnv } from '../../shared/project-env.ts';
import { planEnvironment } from '../env/provision.ts';
import { addDevPackage, CJS_MOCHA_ENV, installExample, turnIntoJestProject } from '../testing/example-installs.ts';
import { makePreparedSession } from '../testing/run-fixtures.ts';
import { useTempStore } from '../testing/test-app.ts';
import { probeTask } from './mutation-probe.ts';

const env = useTempStore();
let repo: ExampleRepo;
beforeEach(async () => {
  repo = await makeExampleRepo('js-todo');
});
afterEach(async () => {
  await repo.cleanup();
});

const TEST_FILE = 'tests/t001_adult.test.js';
const IMPL = 'export function isAdult(age) {\n  return age >= 18;\n}\n';
const testOf = (cases: [number, boolean][]) =>
  [
    "import { test } from 'node:test';",
    "import assert from 'node:assert/strict';",
    "import { isAdult } from '../src/adult.js';",
    '',
    "test('tells adults from children', () => {",
    ...cases.map(([age, adult]) => `  assert.equal(isAdult(${age}), ${adult});`),
    '});',
    '',
  ].join('\n');

async function probeWith(test: string, budgetMs = 60_000, extra: (worktree: string) => void = () => {}) {
  const id = await makePreparedSession(env.store, repo.dir, 'node', [{ id: 'T-001', title: 'Adult', tests: { [TEST_FILE]: test } }]);
  const cp = env.store.readCheckpoint(id);
  fs.writeFileSync(path.join(cp.worktree, 'src', 'adult.js'), IMPL);
  extra(cp.worktree);
  const sha = await commitAll(await worktreeRefOf(cp), 'T-001: Adult');
  const scratch = env.store.session(id).probeScratch('T-001');
  const report = await probeTask({ checkpoint: cp, taskId: 'T-001', sha: sha!, scratch, preset: 'node', project: null, lockedTests: [TEST_FILE], budgetMs });
  return { report, scratch };
}

describe('the mutation probe', () => {
  it('names the mutants a test that misses the boundary does not notice, and cleans up its worktree', async () => {
    const { report, scratch } = await probeWith(
      testOf([
        [30, true],
        [5, false],
      ]),
    );
    expect(report).toMatchObject({ status: 'done', note: null });
    expect(report.survivors).toEqual([
      { file: 'src/adult.js', line: 2, description: 'turns >= into >' },
      { file: 'src/adult.js', line: 2, description: 'turns 18 into 19' },
    ]);
    expect(report.survived).toBe(2);
    expect(report.killed).toBeGreaterThanOrEqual(1); // returning undefined is noticed
    expect(fs.existsSync(scratch)).toBe(false);
    expect(execGit(repo.dir, 'worktree', 'list')).not.toContain('probe-scratch');
  });

  it('kills every mutant when the test pins the boundary', async () => {
    const { report } = await probeWith(
      testOf([
        [30, true],
        [5, false],
        [18, true],
        [17, false],
      ]),
    );
    expect(report).toMatchObject({ status: 'done', survived: 0, survivors: [], note: null });
    expect(report.killed).toBe(3);
  });

  it('mutates no file the commit made a link, leaving its target alone, and names it', async () => {
    const outside = fs.realpathSync(fs.mkdtempSync(path.join(repo.dir, '..', 'outside-')));
    const victim = path.join(outside, 'same.js');
    fs.writeFileSync(victim, 'export const same = (a, b) => a === b;\n');
    const before = fs.statSync(victim).mtimeMs;
    const { report } = await probeWith(
      testOf([
        [30, true],
        [5, false],
        [18, true],
        [17, false],
      ]),
      60_000,
      (worktree) => fs.symlinkSync(victim, path.join(worktree, 'src', 'zz.js')),
    );
    expect(report.note).toBe('not mutated, being a symbolic link or reached through one: src/zz.js');
    expect(report.killed).toBe(3); // src/adult.js was probed as before
    expect(fs.readFileSync(victim, 'utf8')).toBe('export const same = (a, b) => a === b;\n');
    expect(fs.statSync(victim).mtimeMs).toBe(before);
    fs.rmSync(outside, { recursive: true, force: true });
  });

  it('stops at its budget and says how many it left untried', async () => {
    const { report } = await probeWith(
      testOf([
        [30, true],
        [5, false],
      ]),
      1,
    );
    expect(report.killed + report.survived).toBe(0);
    expect(report.note).toMatch(/the acceptance tests do not pass at the commit|mutants were not tried within the budget/);
  });
});

/**
 * Survivors belong to criteria (issue 28): each criterion's cases run alone with line coverage, so
 * a survivor is told with the criteria whose cases run its line — and only those.
 */
const ADULT_CRITERIA = ['tells adults from children', 'refuses a negative age', 'is a function'];

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

const CJS_ENV = CJS_MOCHA_ENV;
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

interface CoveredSetup {
  preset: 'node' | 'pytest' | 'mocha' | 'jest' | 'vitest';
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

const COVERED: CoveredSetup[] = [
  {
    preset: 'node',
    example: 'js-todo',
    env: null,
    testFile: TEST_FILE,
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
    env: CJS_ENV,
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
    preset: 'jest',
    example: 'cjs-mocha',
    install: (dir) => turnIntoJestProject(dir),
    env: { ...CJS_ENV, test_runner: 'jest', test_runner_evidence: 'devDependencies.jest', lockfile: 'package-lock.json' },
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
      ...CJS_ENV,
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

describe.each(COVERED)('the mutation probe with line coverage on $preset', (setup) => {
  let project: ExampleRepo;
  beforeEach(async () => {
    project = await makeExampleRepo(setup.example);
    await setup.install?.(project.dir);
  }, 300_000);
  afterEach(async () => {
    await project.cleanup();
  });

  it('attributes each survivor to the criteria whose cases run its line, from the lines the runner saw run', async () => {
    const criteriaTests = (setup.cases ?? ADULT_CRITERIA).map((c) => [c]);
    const id = await makePreparedSession(
      env.store,
      project.dir,
      setup.preset,
      [{ id: 'T-001', title: 'Adult', criteria: ADULT_CRITERIA, criteriaTests, tests: { [setup.testFile]: setup.test } }],
      setup.env ? { env: setup.env } : {},
    );
    const worktree = env.store.readCheckpoint(id).worktree;
    const projectEnv = setup.env;
    if (projectEnv) {
      env.store.updateCheckpoint(id, () => ({
        environment: { plan: planEnvironment({ source: project.dir, worktree, env: projectEnv }), ready_at: new Date().toISOString() },
      }));
    }
    const cp = env.store.readCheckpoint(id);
    fs.writeFileSync(path.join(worktree, setup.implFile), setup.impl);
    const sha = await commitAll(await worktreeRefOf(cp), 'T-001: Adult');
    const scratch = env.store.session(id).probeScratch('T-001');
    const report = await probeTask({
      checkpoint: cp,
      taskId: 'T-001',
      sha: sha!,
      scratch,
      preset: setup.preset,
      project: setup.env,
      lockedTests: [setup.testFile],
      criteriaTests,
      budgetMs: 300_000,
    });
    expect(report.note).toBeNull();
    const { guard, boundary } = setup;
    expect(report.coverage).toMatchObject({ method: setup.method, note: null });
    expect(report.coverage!.mutated[setup.implFile]).toEqual(setup.mutated);
    // The file is new, so every line of it is changed.
    expect(report.coverage!.criteria).toEqual(setup.ran.map((lines) => ({ [setup.implFile]: lines })));
    const byMistake = Object.fromEntries(report.survivors.map((s) => [`${s.line}: ${s.description}`, s.criteria]));
    // A mutant run that outlasts its time limit counts as killed, which a loaded machine can cause
    // for any one of them: the attribution of each survivor is what is checked.
    const expected: Record<string, number[]> = {
      [`${guard}: turns < into <=`]: [0, 1],
      [`${guard}: turns 0 into 1`]: [0, 1],
      [`${boundary}: turns >= into >`]: [0],
      [`${boundary}: turns 18 into 19`]: [0],
    };
    expect(Object.keys(byMistake).length).toBeGreaterThanOrEqual(3);
    for (const [mistake, criteria] of Object.entries(byMistake)) expect(criteria, mistake).toEqual(expected[mistake]);
    // Nothing of the tracing is left: no scratch worktree, no coverage folder, no bytecode.
    expect(fs.existsSync(scratch)).toBe(false);
    expect(execGit(project.dir, 'status', '--porcelain')).not.toMatch(/tilth-coverage|__pycache__|\.pyc/);
  }, 400_000);
});

function execGit(dir: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, encoding: 'utf8' });
}
