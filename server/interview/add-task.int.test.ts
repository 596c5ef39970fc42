/**
 * Adding a task after the run, through the API with the scripted model, real git and real test
 * processes: the model's test goes through the sink (a wrong name is answered, not written), its
 * cases are proven red on the current tip, the task joins the plan with a `seed: added` commit,
 * and Resume builds it to all done.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionDetailSchema, type SessionDetail } from '../../shared/api.ts';
import { AddedTaskSchema } from '../../shared/review.ts';
import { makeExampleRepo, type ExampleRepo } from '../demo/example-repo.ts';
import { startFakeModel, type FakeModel, type ScriptedReplyInput } from '../scripted-model/fake-model.ts';
import { caseTurn, makePreparedSession, noLearning, nodeTest, verdictTurn, writeTurn } from '../testing/run-fixtures.ts';
import { auth, makeTestApp, type TestApp } from '../testing/test-app.ts';

const WORKER = 'worker-model';
const EVAL = 'eval-model';
const PREP = 'prep-model';
const post = { ...auth, origin: 'http://localhost' };

let fake: FakeModel;
let t: TestApp;
let repo: ExampleRepo;

beforeEach(async () => {
  fake = await startFakeModel();
  repo = await makeExampleRepo('js-todo');
  t = await makeTestApp({
    env: { TILTH_BASE_URL: fake.baseURL, TILTH_API_KEY: 'test-key', TILTH_WORKER_MODEL: WORKER, TILTH_EVALUATOR_MODEL: EVAL, TILTH_PREP_MODEL: PREP },
  });
});
afterEach(async () => {
  await t.close();
  await fake.close();
  await repo.cleanup();
});

const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();
const impl = (name: string, body: string) => writeTurn(`src/${name}.js`, `export function ${name}(n) {\n  return ${body};\n}\n`);

async function detail(id: string): Promise<SessionDetail> {
  return SessionDetailSchema.parse((await t.app.inject({ url: `/api/sessions/${id}`, headers: auth })).json());
}

async function runToEnd(id: string): Promise<SessionDetail> {
  const res = await t.app.inject({ method: 'POST', url: `/api/sessions/${id}/run`, headers: post });
  expect(res.statusCode, res.body).toBe(202);
  for (const deadline = Date.now() + 40_000; ; ) {
    const d = await detail(id);
    if (d.run.state === 'idle' && d.session.status !== 'running') return d;
    if (Date.now() > deadline) throw new Error(`run did not settle: ${JSON.stringify(d.session)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const writeTest = (file: string, content: string, criteriaTests: string[][]): ScriptedReplyInput => ({
  tool_calls: [{ name: 'write_task_test', arguments: { test_file: file, content, criteria_tests: criteriaTests } }],
});

const TRIPLE = { title: 'Triple', description: 'Add triple(n) in src/triple.js.', acceptance_criteria: ['triple(2) returns 6'] };

describe('adding a task after the run', () => {
  it('has the model write its test through the sink, proves it red, commits it, and Resume builds it', async () => {
    const id = await makePreparedSession(t.store, repo.dir, 'node', [
      { id: 'T-001', title: 'Double', tests: { 'tests/t001_double.test.js': nodeTest('double', 'double', '2', '4') } },
    ]);
    fake.load({ models: { [WORKER]: [impl('double', 'n * 2'), caseTurn(), noLearning], [EVAL]: [verdictTurn('accept')] } });
    expect((await runToEnd(id)).session.status).toBe('all_done');

    fake.enqueue(
      PREP,
      { tool_calls: [{ name: 'read_file', arguments: { path: 'src/double.js' } }] },
      // A name outside the rule, then a case the matrix names but the file lacks: both answered, neither written.
      writeTest('tests/triple.test.js', nodeTest('triple', 'triple', '2', '6'), [['triple works']]),
      writeTest('tests/t002_triple.test.js', nodeTest('triple', 'triple', '2', '6'), [['triples']]),
      writeTest('tests/t002_triple.test.js', nodeTest('triple', 'triple', '2', '6'), [['triple works']]),
    );
    const res = await t.app.inject({ method: 'POST', url: `/api/sessions/${id}/tasks`, headers: post, payload: TRIPLE });
    expect(res.statusCode, res.body).toBe(201);
    const added = AddedTaskSchema.parse(res.json());
    expect(added.task).toMatchObject({ id: 'T-002', title: 'Triple', status: 'pending', criteria_tests: [['triple works']] });
    expect(added.test_file).toBe('tests/t002_triple.test.js');
    expect(added.red).toEqual([{ test: 'triple works', result: 'failed', detail: expect.any(String) }]);
    const prompts = fake.requests.filter((r) => r.model === PREP).map((r) => JSON.stringify(r.messages));
    expect(prompts[0]).toContain('## The new task: T-002 — Triple');
    expect(prompts[0]).toContain('tests/t001_double.test.js');
    expect(prompts.at(-1)).toContain('the test was refused');
    expect(prompts.at(-1)).toContain('triples');

    const cp = t.store.readCheckpoint(id);
    expect(git(repo.dir, 'log', '-1', '--format=%s', cp.branch)).toBe('seed: added T-002');
    expect(fs.existsSync(path.join(cp.worktree, 'tests', 'triple.test.js'))).toBe(false);
    expect((await detail(id)).session).toMatchObject({ status: 'stopped', last_stop: 'task_added' });
    // The done task's red proof stands; the new one's is added beside it.
    const proof = t.store.session(id).seedProof.read()!;
    expect(Object.keys(proof.tasks).sort()).toEqual(['T-001', 'T-002']);
    expect(proof.tasks['T-001']![0]!.result).toBe('failed');

    fake.load({
      models: {
        [WORKER]: [impl('triple', 'n * 3'), caseTurn('Triples.', 'triple(2) returns 6', 'src/triple.js:triple()'), noLearning],
        [EVAL]: [verdictTurn('accept')],
      },
    });
    expect((await runToEnd(id)).session.status).toBe('all_done');
    expect(git(repo.dir, 'log', '-1', '--format=%s', cp.branch)).toBe('T-002: Triple');
    const review = (await t.app.inject({ url: `/api/sessions/${id}/diff`, headers: auth })).json();
    expect(review.criteria_problems).toEqual([]);

    // A rewind to after T-001 keeps the added task: its test's commit goes back on top, the task pending.
    const plan = (await t.app.inject({ url: `/api/sessions/${id}/rewind-plan?after=T-001`, headers: auth })).json();
    expect(plan.replayed.map((c: { subject: string }) => c.subject)).toEqual(['seed: added T-002']);
    expect(plan.tasks).toEqual(['T-002']);
    const rewound = await t.app.inject({ method: 'POST', url: `/api/sessions/${id}/rewind`, headers: post, payload: { after: 'T-001' } });
    expect(rewound.statusCode, rewound.body).toBe(200);
    expect(git(repo.dir, 'log', '--format=%s', '-2', cp.branch).split('\n')).toEqual(['seed: added T-002', 'T-001: Double']);
    expect(fs.existsSync(path.join(cp.worktree, 'tests', 't002_triple.test.js'))).toBe(true);
    expect(fs.existsSync(path.join(cp.worktree, 'src', 'triple.js'))).toBe(false);
    fake.load({
      models: {
        [WORKER]: [impl('triple', 'n * 3'), caseTurn('Triples.', 'triple(2) returns 6', 'src/triple.js:triple()'), noLearning],
        [EVAL]: [verdictTurn('accept')],
      },
    });
    expect((await runToEnd(id)).session.status).toBe('all_done');
  }, 180_000);

  it('refuses a session that has not run, a bad body, and says so when the model never writes an acceptable test', async () => {
    const id = await makePreparedSession(t.store, repo.dir, 'node', [
      { id: 'T-001', title: 'Double', tests: { 'tests/t001_double.test.js': nodeTest('double', 'double', '2', '4') } },
    ]);
    const early = await t.app.inject({ method: 'POST', url: `/api/sessions/${id}/tasks`, headers: post, payload: TRIPLE });
    expect(early.statusCode).toBe(409);
    expect(early.json().error.message).toContain('seed review');
    const bad = await t.app.inject({ method: 'POST', url: `/api/sessions/${id}/tasks`, headers: post, payload: { ...TRIPLE, acceptance_criteria: [] } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.message).toContain('at least one acceptance criterion');

    t.store.setStatus(id, 'stopped');
    fake.enqueue(PREP, ...Array.from({ length: 10 }, () => writeTest('tests/nope.js', 'x', [['x']])));
    const never = await t.app.inject({ method: 'POST', url: `/api/sessions/${id}/tasks`, headers: post, payload: TRIPLE });
    expect(never.statusCode).toBe(400);
    expect(never.json().error.message).toMatch(/did not write an acceptable test for T-002 in 10 turns; nothing was added/);
    expect(
      t.store
        .session(id)
        .prd.tasks()
        .map((task) => task.id),
    ).toEqual(['T-001']);
  }, 60_000);
});
