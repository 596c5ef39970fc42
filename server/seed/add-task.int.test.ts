/**
 * Adding a task after the run, through the API with the scripted model, real git and real test
 * processes: the model's test goes through the sink (a wrong name is answered, not written), its
 * cases are proven red on the current tip, the task joins the plan with a `seed: added` commit,
 * and Resume builds it to all done.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AddedTaskSchema } from '../../shared/review.ts';
import type { ScriptedReplyInput } from '../scripted-model/model-server.ts';
import { caseTurn, makePreparedSession, noLearning, nodeTest, verdictTurn } from '../testing/run-fixtures.ts';
import { EVAL, git, implTurn as impl, post, PREP, TWO_TASKS, useRunHarness, WORKER } from '../testing/run-harness.ts';
import { auth } from '../testing/test-app.ts';
import { addTask } from './add-task.ts';

const h = useRunHarness({ TILTH_PREP_MODEL: PREP });

const writeTest = (file: string, content: string, criteriaTests: string[][]): ScriptedReplyInput => ({
  tool_calls: [{ name: 'write_task_test', arguments: { test_file: file, content, criteria_tests: criteriaTests } }],
});

const TRIPLE = { title: 'Triple', description: 'Add triple(n) in src/triple.js.', acceptance_criteria: ['triple(2) returns 6'] };

describe('adding a task after the run', () => {
  it('has the model write its test through the sink, proves it red, commits it, and Resume builds it', async () => {
    const id = await makePreparedSession(h.t.store, h.repo.dir, 'node', [
      { id: 'T-001', title: 'Double', tests: { 'tests/t001_double.test.js': nodeTest('double', 'double', '2', '4') } },
    ]);
    h.fake.load({ models: { [WORKER]: [impl('double', 'n * 2'), caseTurn(), noLearning], [EVAL]: [verdictTurn('accept')] } });
    expect((await h.runToEnd(id)).session.status).toBe('all_done');

    h.fake.enqueue(
      PREP,
      { tool_calls: [{ name: 'read_file', arguments: { path: 'src/double.js' } }] },
      // A name outside the rule, then a case the matrix names but the file lacks: both answered, neither written.
      writeTest('tests/triple.test.js', nodeTest('triple', 'triple', '2', '6'), [['triple works']]),
      writeTest('tests/t002_triple.test.js', nodeTest('triple', 'triple', '2', '6'), [['triples']]),
      writeTest('tests/t002_triple.test.js', nodeTest('triple', 'triple', '2', '6'), [['triple works']]),
    );
    const res = await h.t.app.inject({ method: 'POST', url: `/api/sessions/${id}/tasks`, headers: post, payload: TRIPLE });
    expect(res.statusCode, res.body).toBe(201);
    const added = AddedTaskSchema.parse(res.json());
    expect(added.task).toMatchObject({ id: 'T-002', title: 'Triple', status: 'pending', criteria_tests: [['triple works']] });
    expect(added.test_file).toBe('tests/t002_triple.test.js');
    expect(added.red).toEqual([{ test: 'triple works', result: 'failed', detail: expect.any(String), runs: ['failed', 'failed'] }]);
    const prompts = h.fake.requests.filter((r) => r.model === PREP).map((r) => JSON.stringify(r.messages));
    expect(prompts[0]).toContain('## The new task: T-002 — Triple');
    expect(prompts[0]).toContain('tests/t001_double.test.js');
    expect(prompts.at(-1)).toContain('the test was refused');
    expect(prompts.at(-1)).toContain('triples');

    const cp = h.t.store.session(id).checkpoint.read();
    expect(git(h.repo.dir, 'log', '-1', '--format=%s', cp.branch)).toBe('seed: added T-002');
    expect(fs.existsSync(path.join(cp.worktree, 'tests', 'triple.test.js'))).toBe(false);
    expect((await h.detail(id)).session).toMatchObject({ status: 'stopped', last_stop: 'task_added' });
    // Kept for the page: a reload finds how it ended.
    expect((await h.detail(id)).add_task).toMatchObject({ state: 'added', title: 'Triple', task_id: 'T-002', test_file: 'tests/t002_triple.test.js', red: 1 });
    // The done task's red proof stands; the new one's is added beside it.
    const proof = h.t.store.session(id).seedProof.read()!;
    expect(Object.keys(proof.tasks).sort()).toEqual(['T-001', 'T-002']);
    expect(proof.tasks['T-001']![0]!.result).toBe('failed');

    h.fake.load({
      models: {
        [WORKER]: [impl('triple', 'n * 3'), caseTurn('Triples.', 'triple(2) returns 6', 'src/triple.js:triple()'), noLearning],
        [EVAL]: [verdictTurn('accept')],
      },
    });
    expect((await h.runToEnd(id)).session.status).toBe('all_done');
    expect(git(h.repo.dir, 'log', '-1', '--format=%s', cp.branch)).toBe('T-002: Triple');
    const review = (await h.t.app.inject({ url: `/api/sessions/${id}/diff`, headers: auth })).json();
    expect(review.criteria_problems).toEqual([]);

    // A rewind to after T-001 keeps the added task: its test's commit goes back on top, the task pending.
    const plan = (await h.t.app.inject({ url: `/api/sessions/${id}/rewind-plan?after=T-001`, headers: auth })).json();
    expect(plan.replayed.map((c: { subject: string }) => c.subject)).toEqual(['seed: added T-002']);
    expect(plan.tasks).toEqual(['T-002']);
    const rewound = await h.t.app.inject({ method: 'POST', url: `/api/sessions/${id}/rewind`, headers: post, payload: { after: 'T-001' } });
    expect(rewound.statusCode, rewound.body).toBe(200);
    expect(git(h.repo.dir, 'log', '--format=%s', '-2', cp.branch).split('\n')).toEqual(['seed: added T-002', 'T-001: Double']);
    expect(fs.existsSync(path.join(cp.worktree, 'tests', 't002_triple.test.js'))).toBe(true);
    expect(fs.existsSync(path.join(cp.worktree, 'src', 'triple.js'))).toBe(false);
    h.fake.load({
      models: {
        [WORKER]: [impl('triple', 'n * 3'), caseTurn('Triples.', 'triple(2) returns 6', 'src/triple.js:triple()'), noLearning],
        [EVAL]: [verdictTurn('accept')],
      },
    });
    expect((await h.runToEnd(id)).session.status).toBe('all_done');
  }, 180_000);

  it('writes the plan as it is when the test is accepted, never the copy read before the model started', async () => {
    const id = await makePreparedSession(h.t.store, h.repo.dir, 'node', TWO_TASKS);
    h.t.store.session(id).checkpoint.setStatus('stopped');
    const session = h.t.store.session(id);
    h.fake.enqueue(PREP, { ...writeTest('tests/t003_quad.test.js', nodeTest('quad', 'quad', '2', '8'), [['quad works']]), delay_ms: 1_000 });
    const adding = addTask(session, h.t.deps.llm, { title: 'Quad', description: 'Add quad(n).', acceptance_criteria: ['quad(2) returns 8'] });
    for (let i = 0; i < 400 && !h.fake.requests.some((r) => r.model === PREP); i++) await new Promise((r) => setTimeout(r, 10));
    // A change made while the model works (the add-task's lock keeps every route out; this is the file itself).
    session.prd.write(session.prd.tasks().map((t) => (t.id === 'T-001' ? { ...t, status: 'done' as const } : t)));
    const added = await adding;
    expect(added.task.id).toBe('T-003');
    expect(session.prd.tasks().map((t) => [t.id, t.status])).toEqual([
      ['T-001', 'done'],
      ['T-002', 'pending'],
      ['T-003', 'pending'],
    ]);
  }, 60_000);

  it('refuses a session that has not run, a bad body, and says so when the model never writes an acceptable test', async () => {
    const id = await makePreparedSession(h.t.store, h.repo.dir, 'node', [
      { id: 'T-001', title: 'Double', tests: { 'tests/t001_double.test.js': nodeTest('double', 'double', '2', '4') } },
    ]);
    const early = await h.t.app.inject({ method: 'POST', url: `/api/sessions/${id}/tasks`, headers: post, payload: TRIPLE });
    expect(early.statusCode).toBe(409);
    expect(early.json().error.message).toContain('seed review');
    const bad = await h.t.app.inject({ method: 'POST', url: `/api/sessions/${id}/tasks`, headers: post, payload: { ...TRIPLE, acceptance_criteria: [] } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.message).toContain('at least one acceptance criterion');

    h.t.store.session(id).checkpoint.setStatus('stopped');
    h.fake.enqueue(PREP, ...Array.from({ length: 10 }, () => writeTest('tests/nope.js', 'x', [['x']])));
    const never = await h.t.app.inject({ method: 'POST', url: `/api/sessions/${id}/tasks`, headers: post, payload: TRIPLE });
    expect(never.statusCode).toBe(400);
    expect(never.json().error.message).toMatch(/did not write an acceptable test for T-002 in 10 turns; nothing was added/);
    expect(
      h.t.store
        .session(id)
        .prd.tasks()
        .map((task) => task.id),
    ).toEqual(['T-001']);
    // The failure is kept for the page, with its words, and logged as an event.
    expect((await h.detail(id)).add_task).toMatchObject({ state: 'failed', title: 'Triple', code: 'invalid_request', message: never.json().error.message });
    const failed = h.t.store
      .session(id)
      .log()
      .readAfter(0, 1000)
      .flatMap((e) => (e.type === 'add_task_failed' ? [e.data] : []));
    expect(failed).toEqual([
      { title: 'Triple', code: 'session_not_reopenable', message: early.json().error.message },
      { title: 'Triple', code: 'invalid_request', message: never.json().error.message },
    ]);

    // The model may decline in its own words: a 422, nothing added.
    h.fake.enqueue(PREP, { tool_calls: [{ name: 'decline_task', arguments: { reason: 'No function is named, so nothing can be tested.' } }] });
    const declined = await h.t.app.inject({ method: 'POST', url: `/api/sessions/${id}/tasks`, headers: post, payload: TRIPLE });
    expect(declined.statusCode).toBe(422);
    expect(declined.json().error).toEqual({
      code: 'add_task_declined',
      message: 'The model did not add T-002: No function is named, so nothing can be tested.',
    });
    expect((await h.detail(id)).add_task).toMatchObject({ state: 'failed', code: 'add_task_declined' });

    // One marked running that nothing holds (the server died meanwhile) is reported as cut short.
    h.t.store.session(id).addTask.write({ state: 'running', title: 'Quadruple', started_at: '2026-12-07T10:00:00.000Z' });
    expect((await h.detail(id)).add_task).toEqual({ state: 'interrupted', title: 'Quadruple', started_at: '2026-12-07T10:00:00.000Z' });
  }, 60_000);
});
