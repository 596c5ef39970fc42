/**
 * Rewind through the API: a real repository, real checks, the scripted model for the runs that
 * make the work and then make it again.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RewindPlanSchema, RewindResultSchema, TaskReviewSchema } from '../../shared/review.ts';
import { caseTurn, makePreparedSession, noLearning, verdictTurn } from '../testing/run-fixtures.ts';
import { EVAL, git, implTurn as impl, post, TWO_TASKS as TASKS, useRunHarness, WORKER } from '../testing/run-harness.ts';
import { auth } from '../testing/test-app.ts';

const h = useRunHarness();

const get = async (url: string) => h.t.app.inject({ url, headers: auth });
const act = async (url: string, payload: unknown = {}) => h.t.app.inject({ method: 'POST', url, headers: post, payload: payload as Record<string, unknown> });
const detail = (id: string) => h.detail(id);

async function runUntil(id: string, status: 'all_done'): Promise<void> {
  const res = await act(`/api/sessions/${id}/run`);
  expect(res.statusCode, res.body).toBe(202);
  for (const deadline = Date.now() + 90_000; ; ) {
    const d = await detail(id);
    if (d.session.status === status && d.run.state === 'idle') return;
    if (Date.now() > deadline || (d.session.status === 'stopped' && d.run.state === 'idle')) throw new Error(`run ended ${d.session.status}: ${d.last_error}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Both tasks accepted at once; T-002's evaluator says `concern`. */
async function finishedSession(concern = 'Triple is right.'): Promise<string> {
  const id = await makePreparedSession(h.t.store, h.repo.dir, 'node', TASKS);
  h.fake.load({
    models: {
      [WORKER]: [impl('double', 'n * 2'), caseTurn(), noLearning, impl('triple', 'n * 3'), caseTurn(), noLearning],
      [EVAL]: [verdictTurn('accept'), verdictTurn('accept', { concern })],
    },
  });
  await runUntil(id, 'all_done');
  return id;
}

const branchTip = (id: string) => git(h.repo.dir, 'rev-parse', `refs/heads/session/${id}`);
const subjectOf = (sha: string) => git(h.repo.dir, 'log', '-1', '--format=%s', sha);
const events = (id: string) => h.t.store.session(id).log().readAfter(0, 10_000);

describe('rewind', () => {
  it('after T-001: shows its plan, then does exactly that; the run does T-002 again and the first attempt stays readable', async () => {
    const id = await finishedSession('First triple.');
    const oldTip = branchTip(id);
    const t001 = git(h.repo.dir, 'rev-parse', `${oldTip}^`);
    expect(subjectOf(t001)).toBe('T-001: Double');
    const worktree = h.t.store.session(id).checkpoint.read().worktree;
    fs.writeFileSync(path.join(worktree, 'scratch.txt'), 'left behind\n');

    const planRes = await get(`/api/sessions/${id}/rewind-plan?after=T-001`);
    expect(planRes.statusCode, planRes.body).toBe(200);
    const plan = RewindPlanSchema.parse(planRes.json());
    expect(plan).toMatchObject({
      after: 'T-001',
      rewind: 1,
      target: { sha: t001, subject: 'T-001: Double' },
      tip: { sha: oldTip, subject: 'T-002: Triple' },
      tasks: ['T-002'],
      archived: ['ledger/T-002.jsonl', 'checks/T-002.jsonl', 'mutations/T-002.json', 'evidence/T-002.json'],
      uncommitted: ['scratch.txt'],
      backup_ref: `refs/tilth/backups/${id}-rewind-1`,
      nothing_to_do: false,
    });
    expect(plan.leaving.map((c) => [c.sha, c.subject])).toEqual([[oldTip, 'T-002: Triple']]);

    const res = await act(`/api/sessions/${id}/rewind`, { after: 'T-001' });
    expect(res.statusCode, res.body).toBe(200);
    const result = RewindResultSchema.parse(res.json());
    expect(result).toMatchObject({ after: 'T-001', rewind: 1, from_sha: oldTip, to_sha: t001, backup_ref: plan.backup_ref, tasks: plan.tasks });

    // The branch and the worktree are at T-001; the old tip is kept; the stray file is gone.
    expect(branchTip(id)).toBe(t001);
    expect(git(worktree, 'rev-parse', 'HEAD')).toBe(t001);
    expect(git(worktree, 'status', '--porcelain')).toBe('');
    expect(fs.existsSync(path.join(worktree, 'src/triple.js'))).toBe(false);
    expect(git(h.repo.dir, 'rev-parse', plan.backup_ref)).toBe(oldTip);
    // The worktree's linked dependencies are ignored files: a rewind leaves them.
    expect(fs.existsSync(path.join(worktree, 'node_modules'))).toBe(fs.existsSync(path.join(h.repo.dir, 'node_modules')));

    const d = await detail(id);
    expect(d.session.status).toBe('stopped');
    expect(d.tasks.map((x) => [x.id, x.status])).toEqual([
      ['T-001', 'done'],
      ['T-002', 'pending'],
    ]);
    const dir = h.t.store.session(id).dir;
    expect(fs.existsSync(path.join(dir, 'ledger', 'T-002.jsonl'))).toBe(false);
    for (const f of plan.archived) expect(fs.existsSync(path.join(dir, 'archive', 'rewind-1', f)), f).toBe(true);
    expect(fs.existsSync(path.join(dir, 'rewind.json'))).toBe(false);
    const rewound = events(id).filter((e) => e.type === 'rewound');
    expect(rewound.map((e) => e.data)).toEqual([{ after: 'T-001', rewind: 1, from_sha: oldTip, to_sha: t001, backup_ref: plan.backup_ref, tasks: ['T-002'] }]);

    const before = TaskReviewSchema.parse((await get(`/api/sessions/${id}/tasks/T-002`)).json());
    expect(before.ledger).toEqual([]);
    expect(before.commits).toEqual([]);
    expect(before.stats?.status).toBe('pending');
    expect(before.earlier_attempts.map((a) => [a.rewind, a.ledger.map((e) => e.verdict.concern), a.checks.map((c) => c.passed)])).toEqual([
      [1, ['First triple.'], [true]],
    ]);

    // Run again: T-002 is worked on afresh and the session ends all done.
    h.fake.load({ models: { [WORKER]: [impl('triple', '3 * n'), caseTurn(), noLearning], [EVAL]: [verdictTurn('accept', { concern: 'Second triple.' })] } });
    await runUntil(id, 'all_done');
    const again = TaskReviewSchema.parse((await get(`/api/sessions/${id}/tasks/T-002`)).json());
    expect(again.task.status).toBe('done');
    expect(again.ledger.map((e) => e.verdict.concern)).toEqual(['Second triple.']);
    expect(again.commits.map((c) => c.subject)).toEqual(['T-002: Triple']);
    expect(again.earlier_attempts.map((a) => a.ledger.map((e) => e.verdict.concern))).toEqual([['First triple.']]);
    expect(git(h.repo.dir, 'show', `refs/heads/session/${id}:src/triple.js`)).toContain('3 * n');
  }, 150_000);

  it('after the seed: every task pending, the branch at the seed commit, each rewind its own backup and archive', async () => {
    const id = await finishedSession();
    const oldTip = branchTip(id);
    expect(RewindResultSchema.parse((await act(`/api/sessions/${id}/rewind`, { after: 'T-001' })).json()).rewind).toBe(1);
    const t001 = branchTip(id);

    const plan = RewindPlanSchema.parse((await get(`/api/sessions/${id}/rewind-plan?after=seed`)).json());
    const seed = git(h.repo.dir, 'rev-parse', `${t001}^`);
    expect(plan).toMatchObject({ after: 'seed', rewind: 2, target: { sha: seed, subject: 'seed: 2 task(s)' }, tasks: ['T-001'], nothing_to_do: false });
    expect(plan.leaving.map((c) => c.subject)).toEqual(['T-001: Double']);

    const res = await act(`/api/sessions/${id}/rewind`, { after: 'seed' });
    expect(res.statusCode, res.body).toBe(200);
    expect(branchTip(id)).toBe(seed);
    expect(git(h.repo.dir, 'rev-parse', `refs/tilth/backups/${id}-rewind-1`)).toBe(oldTip);
    expect(git(h.repo.dir, 'rev-parse', `refs/tilth/backups/${id}-rewind-2`)).toBe(t001);
    expect((await detail(id)).tasks.map((x) => x.status)).toEqual(['pending', 'pending']);
    // The seed's test files stay: they are the seed commit's.
    const worktree = h.t.store.session(id).checkpoint.read().worktree;
    expect(fs.existsSync(path.join(worktree, 'tests/t002_triple.test.js'))).toBe(true);
    const t1 = TaskReviewSchema.parse((await get(`/api/sessions/${id}/tasks/T-001`)).json());
    expect(t1.earlier_attempts.map((a) => a.rewind)).toEqual([2]);
    const t2 = TaskReviewSchema.parse((await get(`/api/sessions/${id}/tasks/T-002`)).json());
    expect(t2.earlier_attempts.map((a) => a.rewind)).toEqual([1]);

    // Nothing left to undo: the plan says so, and the rewind is refused.
    const again = RewindPlanSchema.parse((await get(`/api/sessions/${id}/rewind-plan?after=seed`)).json());
    expect(again).toMatchObject({ nothing_to_do: true, leaving: [], tasks: [], uncommitted: [] });
    const refused = await act(`/api/sessions/${id}/rewind`, { after: 'seed' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.code).toBe('nothing_to_rewind');
  }, 150_000);

  it('finishes a rewind cut short before resuming', async () => {
    const id = await finishedSession();
    const session = h.t.store.session(id);
    const plan = RewindPlanSchema.parse((await get(`/api/sessions/${id}/rewind-plan?after=T-001`)).json());
    // What a crash right after the intent was written leaves: the intent, nothing else done yet.
    session.rewindIntent.write({
      after: 'T-001',
      rewind: plan.rewind,
      from_sha: plan.tip.sha,
      to_sha: plan.target.sha,
      backup_ref: plan.backup_ref,
      tasks: plan.tasks,
      started_at: new Date().toISOString(),
    });
    session.checkpoint.setStatus('stopped', { reason: 'crash', phase: 'run' });
    h.fake.load({ models: { [WORKER]: [impl('triple', 'n + n + n'), caseTurn(), noLearning], [EVAL]: [verdictTurn('accept')] } });
    await runUntil(id, 'all_done');
    expect(session.rewindIntent.read()).toBeNull();
    expect(events(id).filter((e) => e.type === 'rewound')).toHaveLength(1);
    expect(git(h.repo.dir, 'rev-parse', plan.backup_ref)).toBe(plan.tip.sha);
    expect(git(h.repo.dir, 'show', `refs/heads/session/${id}:src/triple.js`)).toContain('n + n + n');
  }, 150_000);

  it('refuses a bad body, an unknown task, a task not done, a running session and a merged one, each saying why', async () => {
    const id = await finishedSession();
    const bad = await act(`/api/sessions/${id}/rewind`, { after: 'x' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.message).toMatch(/seed.*task id/);
    expect((await act(`/api/sessions/${id}/rewind`, {})).statusCode).toBe(400);
    expect((await get(`/api/sessions/${id}/rewind-plan?after=nope`)).statusCode).toBe(400);

    const unknown = await act(`/api/sessions/${id}/rewind`, { after: 'T-009' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('task_not_found');

    // After the last task: no commit leaves, no task is reset.
    expect(RewindPlanSchema.parse((await get(`/api/sessions/${id}/rewind-plan?after=T-002`)).json()).nothing_to_do).toBe(true);
    expect((await act(`/api/sessions/${id}/rewind`, { after: 'T-002' })).json().error.code).toBe('nothing_to_rewind');

    expect((await act(`/api/sessions/${id}/rewind`, { after: 'T-001' })).statusCode).toBe(200);
    const notDone = await act(`/api/sessions/${id}/rewind`, { after: 'T-002' });
    expect(notDone.statusCode).toBe(409);
    expect(notDone.json().error).toMatchObject({ code: 'task_not_done', message: expect.stringContaining('T-002 is pending') });

    const merged = await finishedSession();
    const res = await act(`/api/sessions/${merged}/merge`, { strategy: 'merge' });
    expect(res.statusCode, res.body).toBe(200);
    const refused = await act(`/api/sessions/${merged}/rewind`, { after: 'seed' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error).toMatchObject({ code: 'session_not_rewindable', message: expect.stringContaining('merged into main') });
    expect((await act(`/api/sessions/20200101-000000-000000/rewind`, { after: 'seed' })).statusCode).toBe(404);

    // A run in flight: the worker's call hangs until the run is stopped.
    h.fake.load({ models: { [WORKER]: [{ fault: 'hang' }] } });
    const asked = h.fake.requests.length;
    expect((await act(`/api/sessions/${id}/run`)).statusCode).toBe(202);
    for (let i = 0; i < 400 && h.fake.requests.length === asked; i++) await new Promise((r) => setTimeout(r, 25));
    const running = await act(`/api/sessions/${id}/rewind`, { after: 'seed' });
    expect(running.statusCode).toBe(409);
    expect(running.json().error.code).toBe('session_running');
    expect((await get(`/api/sessions/${id}/rewind-plan?after=seed`)).statusCode).toBe(409);
    expect((await act(`/api/sessions/${id}/stop`)).statusCode).toBe(200);
    for (let i = 0; i < 400 && (await detail(id)).run.state !== 'idle'; i++) await new Promise((r) => setTimeout(r, 25));
  }, 240_000);
});
