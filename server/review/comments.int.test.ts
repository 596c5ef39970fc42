/**
 * Line comments through the API: a real session (worktree and seed on a throwaway repo) whose
 * status is set by hand, since a comment needs only a reviewable session, not a run's work.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorBodySchema, OkSchema } from '../../shared/api.ts';
import type { SessionStatus } from '../../shared/events.ts';
import { CommentListSchema, ReviewCommentSchema } from '../../shared/review.ts';
import { makeExampleRepo, type ExampleRepo } from '../demo/example-repo.ts';
import { makePreparedSession, nodeTest } from '../testing/run-fixtures.ts';
import { auth, makeTestApp, type TestApp } from '../testing/test-app.ts';

const write = { ...auth, origin: 'http://localhost' };

let t: TestApp;
let repo: ExampleRepo;
let id: string;

beforeEach(async () => {
  repo = await makeExampleRepo('js-todo');
  t = await makeTestApp();
  id = await makePreparedSession(t.store, repo.dir, 'node', [
    { id: 'T-001', title: 'Double', tests: { 'tests/t001_double.test.js': nodeTest('double', 'double', '2', '4') } },
  ]);
});
afterEach(async () => {
  await t.close();
  await repo.cleanup();
});

const setStatus = (status: SessionStatus) => t.store.setStatus(id, status);
const url = (rest = '') => `/api/sessions/${id}/comments${rest}`;
const list = async () => CommentListSchema.parse((await t.app.inject({ url: url(), headers: auth })).json()).comments;
const add = (payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: url(), headers: write, payload });
const edit = (commentId: string, payload: Record<string, unknown>) => t.app.inject({ method: 'PUT', url: url(`/${commentId}`), headers: write, payload });
const remove = (commentId: string) => t.app.inject({ method: 'DELETE', url: url(`/${commentId}`), headers: write });
const errorOf = (res: { statusCode: number; json: () => unknown }) => ({ status: res.statusCode, ...ErrorBodySchema.parse(res.json()).error });

const onTask = { task_id: 'T-001', file: 'src/double.js', line: 2, side: 'new', text: 'Name the constant.' };

describe('line comments', () => {
  it('adds, lists, edits and deletes comments on a task diff and the session diff', async () => {
    setStatus('all_done');
    expect(await list()).toEqual([]);

    const created = await add(onTask);
    expect(created.statusCode).toBe(201);
    const a = ReviewCommentSchema.parse(created.json());
    expect(a).toMatchObject({ ...onTask, sent: null });
    const b = ReviewCommentSchema.parse((await add({ file: 'tests/t001_double.test.js', line: 1, side: 'old', text: 'Why?' })).json());
    expect(b.task_id).toBeNull();
    expect((await list()).map((c) => c.id)).toEqual([a.id, b.id]);

    const edited = await edit(a.id, { text: '  Name the constant TWO.  ' });
    expect(edited.statusCode).toBe(200);
    expect(ReviewCommentSchema.parse(edited.json())).toEqual({ ...a, text: 'Name the constant TWO.' });

    const deleted = await remove(b.id);
    expect(deleted.statusCode).toBe(200);
    expect(OkSchema.parse(deleted.json())).toEqual({ ok: true });
    expect(await list()).toEqual([{ ...a, text: 'Name the constant TWO.' }]);
  });

  it('refuses bad bodies and bad ids with a 400 that names the problem', async () => {
    setStatus('stopped');
    expect(errorOf(await add({ ...onTask, text: '   ' }))).toMatchObject({ status: 400, code: 'invalid_request', message: expect.stringMatching(/some text/) });
    expect(errorOf(await add({ ...onTask, file: '../outside.js' }))).toMatchObject({
      status: 400,
      code: 'invalid_path',
      message: expect.stringMatching(/\.\./),
    });
    expect(errorOf(await add({ ...onTask, file: 'src/../../etc/passwd' }))).toMatchObject({ status: 400, code: 'invalid_path' });
    expect(errorOf(await add({ ...onTask, file: '/etc/passwd' }))).toMatchObject({ status: 400, code: 'invalid_path' });
    expect(errorOf(await add({ ...onTask, line: 0 }))).toMatchObject({ status: 400, code: 'invalid_request' });
    expect(errorOf(await add({ ...onTask, side: 'left' }))).toMatchObject({ status: 400, code: 'invalid_request' });
    expect(errorOf(await add({ ...onTask, extra: 1 }))).toMatchObject({ status: 400, code: 'invalid_request' });
    expect(errorOf(await add({ ...onTask, task_id: 'nope' }))).toMatchObject({ status: 400, code: 'invalid_request' });
    expect(errorOf(await edit('C-UPPER', { text: 'x' }))).toMatchObject({ status: 400, code: 'invalid_request', message: expect.stringMatching(/c-1a2b3c/) });
    expect(errorOf(await remove('bad'))).toMatchObject({ status: 400, code: 'invalid_request' });
    const a = ReviewCommentSchema.parse((await add(onTask)).json());
    expect(errorOf(await edit(a.id, { text: '' }))).toMatchObject({ status: 400, code: 'invalid_request' });
    expect(await list()).toEqual([a]);
  });

  it('answers 404 for an unknown session, task or comment', async () => {
    setStatus('all_done');
    expect(errorOf(await add({ ...onTask, task_id: 'T-009' }))).toMatchObject({ status: 404, code: 'task_not_found' });
    expect(errorOf(await edit('c-000000', { text: 'x' }))).toMatchObject({ status: 404, code: 'comment_not_found' });
    expect(errorOf(await remove('c-000000'))).toMatchObject({ status: 404, code: 'comment_not_found' });
    const other = '20260101-000000-abcdef';
    const res = await t.app.inject({ url: `/api/sessions/${other}/comments`, headers: auth });
    expect(errorOf(res)).toMatchObject({ status: 404, code: 'session_not_found' });
  });

  it('refuses comments while the session is not reviewable, and keeps a sent comment fixed', async () => {
    for (const status of ['prepared', 'running'] as const) {
      setStatus(status);
      expect(errorOf(await add(onTask))).toMatchObject({ status: 409, code: 'session_not_reviewable', message: expect.stringContaining(status) });
    }
    setStatus('merged');
    const a = ReviewCommentSchema.parse((await add(onTask)).json());
    const b = ReviewCommentSchema.parse((await add({ ...onTask, line: 3 })).json());
    setStatus('running');
    expect(errorOf(await edit(a.id, { text: 'x' }))).toMatchObject({ status: 409, code: 'session_not_reviewable' });
    expect(errorOf(await remove(a.id))).toMatchObject({ status: 409, code: 'session_not_reviewable' });
    expect((await list()).length).toBe(2);

    setStatus('stopped');
    t.store.session(id).comments.markSent([a.id], 'T-001', 2);
    expect(errorOf(await edit(a.id, { text: 'x' }))).toMatchObject({ status: 409, code: 'comment_sent', message: expect.stringMatching(/rev 2/) });
    expect(errorOf(await remove(a.id))).toMatchObject({ status: 409, code: 'comment_sent' });
    expect((await remove(b.id)).statusCode).toBe(200);
    expect(await list()).toEqual([{ ...a, sent: { task_id: 'T-001', revision: 2, ts: expect.any(String) } }]);
  });
});
