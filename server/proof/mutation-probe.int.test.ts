/**
 * The mutation probe on a real commit of the JavaScript example: node --test in the sandbox,
 * a scratch worktree at the task's commit. A test that misses a boundary leaves named survivors;
 * one that pins the boundary kills them.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeExampleRepo, type ExampleRepo } from '../demo/example-repo.ts';
import { commitAll, worktreeRefOf } from '../git/worktree-git.ts';
import { COVERED, probeCovered } from '../testing/probe-setups.ts';
import { makePreparedSession } from '../testing/run-fixtures.ts';
import { useTempStore } from '../testing/test-app.ts';
import { probeTask } from './mutation-probe.ts';
import { detectProjectEnv } from '../env/detect.ts';
import { TEST_SANDBOX } from '../testing/sandbox.ts';

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
  const cp = env.store.session(id).checkpoint.read();
  fs.writeFileSync(path.join(cp.worktree, 'src', 'adult.js'), IMPL);
  extra(cp.worktree);
  const sha = await commitAll(await worktreeRefOf(cp), 'T-001: Adult');
  const scratch = env.store.session(id).probeScratch('T-001');
  const planned: number[] = [];
  const report = await probeTask({
    sandbox: TEST_SANDBOX,
    checkpoint: cp,
    taskId: 'T-001',
    sha: sha!,
    scratch,
    preset: 'node',
    project: null,
    lockedTests: [TEST_FILE],
    budgetMs,
    onPlanned: (n) => planned.push(n),
  });
  return { report, scratch, planned };
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
    const { report, planned } = await probeWith(
      testOf([
        [30, true],
        [5, false],
        [18, true],
        [17, false],
      ]),
    );
    expect(report).toMatchObject({ status: 'done', survived: 0, survivors: [], note: null });
    expect(report.killed).toBe(3);
    // The count was told once, before the first mutant ran: every one tried.
    expect(planned).toEqual([3]);
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
describe('the mutation probe on Go', () => {
  it("mutates the Go source the task changed, names what a test missing the boundary does not notice, and traces its criterion with go's cover profile", async () => {
    const go = await makeExampleRepo('go-todo');
    try {
      const test = [
        'package todo',
        '',
        'import "testing"',
        '',
        'func TestIsAdult(t *testing.T) {',
        '\tif !IsAdult(30) || IsAdult(5) {',
        '\t\tt.Error("30 is an adult, 5 is not")',
        '\t}',
        '}',
        '',
      ].join('\n');
      const file = 'todo/t001_adult_test.go';
      const id = await makePreparedSession(env.store, go.dir, 'go', [{ id: 'T-001', title: 'Adult', tests: { [file]: test } }]);
      const cp = env.store.session(id).checkpoint.read();
      fs.writeFileSync(
        path.join(cp.worktree, 'todo', 'adult.go'),
        'package todo\n\n// IsAdult says whether age is 18 or more.\nfunc IsAdult(age int) bool {\n\treturn age >= 18\n}\n',
      );
      const sha = await commitAll(await worktreeRefOf(cp), 'T-001: Adult');
      const scratch = env.store.session(id).probeScratch('T-001');
      const report = await probeTask({
        sandbox: TEST_SANDBOX,
        checkpoint: cp,
        taskId: 'T-001',
        sha: sha!,
        scratch,
        preset: 'go',
        project: null,
        lockedTests: [file],
        criteriaTests: [['TestIsAdult']],
        budgetMs: 120_000,
      });
      expect(report).toMatchObject({ status: 'done', note: null, killed: 0, survived: 2 });
      // The criterion's case, run alone with go's cover profile, ran the changed lines: each survivor is its.
      expect(report.survivors).toEqual([
        { file: 'todo/adult.go', line: 5, description: 'turns >= into >', criteria: [0] },
        { file: 'todo/adult.go', line: 5, description: 'turns 18 into 19', criteria: [0] },
      ]);
      expect(report.coverage).toMatchObject({ method: 'goprofile', criteria: [{ 'todo/adult.go': [4, 5, 6] }], note: null });
    } finally {
      await go.cleanup();
    }
  }, 180_000);

  it("in a go.work module: the task's test run from the module's folder, its cover profile named from the root", async () => {
    const go = await makeExampleRepo('go-todo');
    try {
      const run = (...args: string[]) => execFileSync('git', args, { cwd: go.dir, stdio: 'ignore' });
      fs.mkdirSync(path.join(go.dir, 'svc'));
      run('mv', 'go.mod', 'todo', 'svc/');
      fs.writeFileSync(path.join(go.dir, 'go.work'), 'go 1.19\n\nuse ./svc\n');
      run('add', '-A');
      run('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'A go.work');
      const project = await detectProjectEnv(go.dir);
      expect(project.workspace?.packages.map((p) => p.dir)).toEqual(['svc']);
      const test = 'package todo\n\nimport "testing"\n\nfunc TestIsAdult(t *testing.T) {\n\tif !IsAdult(30) || IsAdult(5) {\n\t\tt.Error("30 and 5")\n\t}\n}\n';
      const file = 'svc/todo/t001_adult_test.go';
      const id = await makePreparedSession(env.store, go.dir, 'go', [{ id: 'T-001', title: 'Adult', tests: { [file]: test } }]);
      const cp = env.store.session(id).checkpoint.read();
      fs.writeFileSync(
        path.join(cp.worktree, 'svc/todo/adult.go'),
        'package todo\n\n// IsAdult says whether age is 18 or more.\nfunc IsAdult(age int) bool {\n\treturn age >= 18\n}\n',
      );
      const sha = await commitAll(await worktreeRefOf(cp), 'T-001: Adult');
      const report = await probeTask({
        sandbox: TEST_SANDBOX,
        checkpoint: cp,
        taskId: 'T-001',
        sha: sha!,
        scratch: env.store.session(id).probeScratch('T-001'),
        preset: 'go',
        project,
        lockedTests: [file],
        criteriaTests: [['TestIsAdult']],
        budgetMs: 120_000,
      });
      expect(report).toMatchObject({ status: 'done', note: null, killed: 0, survived: 2 });
      expect(report.survivors.map((s) => [s.file, s.line, s.criteria])).toEqual([
        ['svc/todo/adult.go', 5, [0]],
        ['svc/todo/adult.go', 5, [0]],
      ]);
      expect(report.coverage).toMatchObject({ method: 'goprofile', criteria: [{ 'svc/todo/adult.go': [4, 5, 6] }], note: null });
    } finally {
      await go.cleanup();
    }
  }, 180_000);
});

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
    const { report, scratch } = await probeCovered(env.store, project.dir, setup, true);
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
