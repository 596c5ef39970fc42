/**
 * The demo answers what the review loop invites (issue 30), through the real API, harness, git and
 * test runs: a test tightened in seed review is met by code that passes it; a task added after the
 * run gets its test and its code; a send-back's revision changes the code the note asks for; and
 * what the scripted model has no code for is said in words, not looped on.
 */
import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SeedViewSchema, type SeedView } from '../../shared/seed.ts';
import type { SessionDetail } from '../../shared/api.ts';
import { auth, makeTestApp, type TestApp } from '../testing/test-app.ts';
import { post, sessionApi } from '../testing/session-api.ts';

let t: TestApp;

beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(async () => {
  await t.close();
});

const { until, answer, events } = sessionApi(() => t, 90_000);
const settled = (d: SessionDetail) => d.run.state === 'idle' && !['running', 'prepared', 'interviewing'].includes(d.session.status);

/** A demo session through its interview, prepared: a due date, with or without the listing task. */
async function preparedDemo(listing: boolean): Promise<string> {
  const id = (await t.app.inject({ method: 'POST', url: '/api/demo', headers: post })).json().session.id as string;
  for (const text of ['A due date', 'Know what is late.', listing ? 'Yes, show it in the listing' : 'No, data only for now']) await answer(id, text);
  await until(id, 'the seed', (d) => d.session.status === 'prepared');
  return id;
}

async function run(id: string): Promise<SessionDetail> {
  const started = await t.app.inject({ method: 'POST', url: `/api/sessions/${id}/run`, headers: post, payload: {} });
  expect(started.statusCode, started.body).toBe(202);
  return until(id, 'the run', settled);
}

const branchLog = (id: string): string => {
  const cp = t.store.session(id).checkpoint.read();
  return execFileSync('git', ['log', '--format=%s', cp.branch], { cwd: cp.worktree, encoding: 'utf8' });
};
const fileAtTip = (id: string, file: string): string => {
  const cp = t.store.session(id).checkpoint.read();
  return execFileSync('git', ['show', `${cp.branch}:${file}`], { cwd: cp.worktree, encoding: 'utf8' });
};

describe('the demo answers the review loop', () => {
  it('a test tightened in seed review: the worker climbs to the version that passes it, and the run finishes', async () => {
    const id = await preparedDemo(false);
    const seed: SeedView = SeedViewSchema.parse((await t.app.inject({ url: `/api/sessions/${id}/seed`, headers: auth })).json());
    const file = 'tests/t001_due.test.js';
    // The user asks for more than the plan did: a day that does not exist is refused too.
    const tightened = seed.test_files[file]!.replace(
      "assert.throws(() => setDue({ title: 'water plants', done: false }, ''));",
      "assert.throws(() => setDue({ title: 'water plants', done: false }, ''));\n  assert.throws(() => setDue({ title: 'water plants', done: false }, '2026-02-30'));",
    );
    expect(tightened).not.toBe(seed.test_files[file]);
    const saved = await t.app.inject({
      method: 'PUT',
      url: `/api/sessions/${id}/seed`,
      headers: post,
      payload: { prd_entries: seed.prd.map(({ status: _s, ...task }) => task), test_files: { ...seed.test_files, [file]: tightened } },
    });
    expect(saved.statusCode, saved.body).toBe(200);

    const done = await run(id);
    expect(done.session.status, done.last_error ?? '').toBe('all_done');
    const all = events(id);
    const iterations = Math.max(...all.flatMap((e) => (e.type === 'model_call' && e.data.role === 'worker' ? [e.data.iter ?? 0] : [])));
    expect(iterations).toBeLessThan(15);
    expect(fileAtTip(id, 'src/todo.js')).toContain('no such day');
  }, 120_000);

  it('Add a task: the demo writes its test, the resumed run writes its code; a task it has no code for is declined in words', async () => {
    const id = await preparedDemo(false);
    expect((await run(id)).session.status).toBe('all_done');

    const declined = await t.app.inject({
      method: 'POST',
      url: `/api/sessions/${id}/tasks`,
      headers: post,
      payload: { title: 'Sync with a calendar', description: 'Push due dates to a calendar.', acceptance_criteria: ['Each due date appears in the calendar'] },
    });
    expect(declined.statusCode, declined.body).toBe(422);
    expect(declined.json().error.code).toBe('add_task_declined');
    expect(declined.json().error.message).toMatch(/^The model did not add T-002: The demo model is scripted, not AI: .*count the open todos/);

    const added = await t.app.inject({
      method: 'POST',
      url: `/api/sessions/${id}/tasks`,
      headers: post,
      payload: {
        title: 'Count the open todos',
        description: 'countOpen(todos) in src/todo.js says how many todos are not done yet.',
        acceptance_criteria: ['countOpen returns the number of todos not done', 'An empty list counts 0'],
      },
    });
    expect(added.statusCode, added.body).toBe(201);
    expect(added.json().task.id).toBe('T-002');
    expect(added.json().test_file).toBe('tests/t002_count.test.js');

    const resumed = await run(id);
    expect(resumed.session.status, resumed.last_error ?? '').toBe('all_done');
    expect(branchLog(id)).toContain('T-002: Count the open todos');
    expect(fileAtTip(id, 'src/todo.js')).toContain('export function countOpen(todos)');
  }, 150_000);

  it('a send-back: revision 2 changes the code the note asks for; a note it has no code for ends the task in words', async () => {
    const id = await preparedDemo(true);
    expect((await run(id)).session.status).toBe('all_done');
    const before = fileAtTip(id, 'src/todo.js');

    const sent = await t.app.inject({
      method: 'POST',
      url: `/api/sessions/${id}/tasks/T-001/reopen`,
      headers: post,
      payload: { note: 'Refuse a day that does not exist, such as 2026-02-30, and trim spaces first.' },
    });
    expect(sent.statusCode, sent.body).toBe(200);
    const revised = await run(id);
    expect(revised.session.status, revised.last_error ?? '').toBe('all_done');
    expect(branchLog(id)).toContain('T-001 (rev 2): Todos carry a due date');
    const after = fileAtTip(id, 'src/todo.js');
    expect(after).not.toBe(before);
    expect(after).toContain('no such day');
    expect(after).toContain('date = String(date).trim();');

    const vague = await t.app.inject({
      method: 'POST',
      url: `/api/sessions/${id}/tasks/T-002/reopen`,
      headers: post,
      payload: { note: 'Make it prettier.' },
    });
    expect(vague.statusCode, vague.body).toBe(200);
    const ended = await run(id);
    expect(ended.session.status).not.toBe('all_done');
    // The model's words as it stopped reach the reviewer with the failure.
    const failed = events(id).flatMap((e) => (e.type === 'task_failed' ? [e.data] : []));
    expect(failed.map((d) => [d.task_id, d.reason])).toEqual([['T-002', 'no_case']]);
    expect(failed[0]!.detail).toContain("its last words: The reviewer's note asks for something the demo model has no code for in the listing");
  }, 180_000);
});
