/**
 * Survivors belong to criteria (issue 28), end to end through `tilth`'s routes: a real run of the
 * JavaScript example with the scripted model, the mutation probe on (with each named case traced),
 * then the reviews and the merge. A criterion whose tests never run the task's code, or a task
 * whose tests notice none of its mutants, is unproven, and merging needs the override — with the
 * mutation gate off.
 */
import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionDetailSchema } from '../../shared/api.ts';
import { EvidenceSchema } from '../../shared/evidence.ts';
import { MergePreviewSchema, SessionReviewSchema, TaskReviewSchema } from '../../shared/review.ts';
import { makeExampleRepo, type ExampleRepo } from '../demo/example-repo.ts';
import { startScriptedModel, type ScriptedModel } from '../scripted-model/model-server.ts';
import { caseTurn, makePreparedSession, noLearning, verdictTurn, writeTurn } from '../testing/run-fixtures.ts';
import { auth, makeTestApp, type TestApp } from '../testing/test-app.ts';

const WORKER = 'worker-model';
const EVAL = 'eval-model';
const post = { ...auth, origin: 'http://localhost' };

let fake: ScriptedModel;
let t: TestApp;
let repo: ExampleRepo;

beforeEach(async () => {
  fake = await startScriptedModel();
  repo = await makeExampleRepo('js-todo');
  t = await makeTestApp({
    env: { TILTH_BASE_URL: fake.baseURL, TILTH_API_KEY: 'k', TILTH_WORKER_MODEL: WORKER, TILTH_EVALUATOR_MODEL: EVAL, TILTH_MUTATION_SECONDS: '120' },
  });
});
afterEach(async () => {
  await t.close();
  await fake.close();
  await repo.cleanup();
});

const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();
const get = async (url: string) => t.app.inject({ url, headers: auth });
const act = async (url: string, payload: unknown = {}) => t.app.inject({ method: 'POST', url, headers: post, payload: payload as Record<string, unknown> });

const testFile = (body: string[]) =>
  [
    "import { test } from 'node:test';",
    "import assert from 'node:assert/strict';",
    "import { triple } from '../src/triple.js';",
    '',
    "test('triple works', () => {",
    ...body.map((line) => `  ${line}`),
    '});',
    '',
  ].join('\n');

/** A run of one task, src/triple.js returning `n * 3`, accepted; resolves once the run and its probe ended. */
async function acceptedRun(test: string): Promise<string> {
  const id = await makePreparedSession(t.store, repo.dir, 'node', [{ id: 'T-001', title: 'Triple', tests: { 'tests/t001_triple.test.js': test } }]);
  fake.load({
    models: {
      [WORKER]: [
        writeTurn('src/triple.js', 'export function triple(n) {\n  return n * 3;\n}\n'),
        caseTurn('Triples.', 'Triple works', 'src/triple.js:triple()'),
        noLearning,
      ],
      [EVAL]: [verdictTurn('accept')],
    },
  });
  const res = await act(`/api/sessions/${id}/run`);
  expect(res.statusCode, res.body).toBe(202);
  for (const deadline = Date.now() + 150_000; ; ) {
    const d = SessionDetailSchema.parse((await get(`/api/sessions/${id}`)).json());
    if (d.session.status === 'all_done' && d.run.state === 'idle') break;
    if (Date.now() > deadline || d.session.status === 'stopped') throw new Error(`run ended ${d.session.status}: ${d.last_error}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return id;
}

/** The merge is refused without the override (nothing moves), then merged with it. */
async function refusedThenOverridden(id: string, expected: string): Promise<void> {
  const before = git(repo.dir, 'rev-parse', 'main');
  const refused = await act(`/api/sessions/${id}/merge`, { strategy: 'merge' });
  expect(refused.statusCode).toBe(409);
  expect(refused.json().error.code).toBe('merge_criteria_unproven');
  expect(refused.json().error.message).toContain(expected);
  expect(git(repo.dir, 'rev-parse', 'main')).toBe(before);
  const merged = await act(`/api/sessions/${id}/merge`, { strategy: 'merge', override_failed_tests: true });
  expect(merged.statusCode, merged.body).toBe(200);
  expect(git(repo.dir, 'rev-parse', 'main')).not.toBe(before);
}

describe('survivors belong to criteria', () => {
  it("calls a criterion whose test never runs the task's code unproven, and merging needs the override without the mutation gate", async () => {
    // Red before (the module is missing), green after — and yet it never calls triple().
    const id = await acceptedRun(testFile(["assert.equal(typeof triple, 'function');"]));
    const review = TaskReviewSchema.parse((await get(`/api/sessions/${id}/tasks/T-001`)).json());
    expect(review.criteria[0]).toMatchObject({ red: 'failed', green: 'passed', runs_changed_code: false });
    expect(review.mutation).toMatchObject({ status: 'done', killed: 0, survived: 2, coverage: { method: 'v8', criteria: [{ 'src/triple.js': [1] }] } });

    const preview = MergePreviewSchema.parse((await act(`/api/sessions/${id}/merge/preview`, { strategy: 'merge' })).json());
    expect(preview.passed).toBe(true);
    expect(preview.mutation_gate).toBe(false);
    const problem = {
      task_id: 'T-001',
      criterion: 'Triple works',
      problem: 'changed_code_not_run',
      detail: "its tests never run the task's changed code, so they cannot be what proves it",
    };
    expect(preview.criteria_problems).toEqual([problem]);
    expect(SessionReviewSchema.parse((await get(`/api/sessions/${id}/diff`)).json()).criteria_problems).toEqual([problem]);
    // The receipt, refreshed when the probe reported, names it as a gap too.
    const receipt = EvidenceSchema.parse((await get(`/api/sessions/${id}/tasks/T-001/evidence`)).json());
    expect(receipt.mutation.changed_code_not_run).toEqual([1]);
    expect(receipt.status).toBe('with_gaps');
    expect(receipt.gaps).toContain('Criterion 1’s tests never run the lines of the task’s code that the probe changed.');
    await refusedThenOverridden(id, 'T-001 "Triple works": its tests never run the task\'s changed code');
  }, 200_000);

  it('shows each survivor on the row of the criterion whose test runs its line, and calls a task whose every mutant survives unproven', async () => {
    const id = await acceptedRun(testFile(['assert.notEqual(triple(2), 7);']));
    const review = TaskReviewSchema.parse((await get(`/api/sessions/${id}/tasks/T-001`)).json());
    expect(review.criteria[0]).toMatchObject({ red: 'failed', green: 'passed', runs_changed_code: true });
    expect(review.criteria[0]!.survivors).toEqual([
      { file: 'src/triple.js', line: 2, description: 'turns 3 into 4' },
      { file: 'src/triple.js', line: 2, description: 'returns undefined instead of n * 3' },
    ]);
    const session = SessionReviewSchema.parse((await get(`/api/sessions/${id}/diff`)).json());
    expect(session.survivors.map((s) => s.run_by)).toEqual([['Triple works'], ['Triple works']]);
    expect(session.criteria_problems).toEqual([
      {
        task_id: 'T-001',
        criterion: 'Triple works',
        problem: 'mutants_unnoticed',
        detail: "the task's tests noticed none of the 2 mistakes the mutation probe made in its code (such as src/triple.js:2, which turns 3 into 4)",
      },
    ]);
    await refusedThenOverridden(id, "the task's tests noticed none of the 2 mistakes");
  }, 200_000);
});
