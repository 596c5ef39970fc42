/**
 * Line comments through the API: a real session (worktree and seed on a throwaway repo) whose
 * status is set by hand, since a comment needs only a reviewable session, not a run's work.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorBodySchema, OkSchema } from '../../shared/api.ts';
import type { SessionStatus } from '../../shared/events.ts';
import { COMMENTS_PAGE_MAX, CommentListSchema, ReviewCommentSchema, SESSION_COMMENTS_MAX } from '../../shared/review.ts';
import { createApiClient } from '../../web/src/api/client.ts';
import { reviewCalls } from '../../web/src/review/review-api.ts';
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

const setStatus = (status: SessionStatus) => t.store.session(id).checkpoint.setStatus(status);
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

  it('answers the list a page at a time: 100 unless asked, at most 200, after the comment named, and says when more follow', async () => {
    setStatus('all_done');
    const session = t.store.session(id);
    const ids = Array.from({ length: 250 }, (_, i) => session.comments.add({ task_id: null, file: 'src/a.js', line: i + 1, side: 'new', text: `c${i}` }).id);
    const page = async (query: string) => {
      const res = await t.app.inject({ url: url(query), headers: auth });
      return res.statusCode === 200 ? CommentListSchema.parse(res.json()) : errorOf(res);
    };

    expect(await page('')).toEqual({ comments: expect.any(Array), next_after: ids[99], has_more: true });
    expect(((await page('')) as { comments: { id: string }[] }).comments.map((c) => c.id)).toEqual(ids.slice(0, 100));
    const second = await page(`?after=${ids[99]}&limit=${COMMENTS_PAGE_MAX}`);
    expect(second).toMatchObject({ next_after: ids[249], has_more: false });
    expect((second as { comments: { id: string }[] }).comments.map((c) => c.id)).toEqual(ids.slice(100));
    expect(await page(`?after=${ids[249]}`)).toEqual({ comments: [], next_after: ids[249], has_more: false });

    for (const bad of ['?limit=0', `?limit=${COMMENTS_PAGE_MAX + 1}`, '?limit=ten', '?after=', '?after=C-1', '?page=2']) {
      expect(await page(bad), bad).toMatchObject({ status: 400, code: 'invalid_request' });
    }
    // The cursor comment deleted between two pages: nothing to count from, and the answer says to start again.
    expect((await remove(ids[99]!)).statusCode).toBe(200);
    expect(await page(`?after=${ids[99]}`)).toMatchObject({ status: 404, code: 'comment_not_found', message: expect.stringMatching(/from the start/) });
  });

  it("lets the review page's client read every comment of a real server, oldest first, a page at a time", async () => {
    setStatus('all_done');
    const session = t.store.session(id);
    const ids = Array.from(
      { length: 2 * COMMENTS_PAGE_MAX + 7 },
      (_, i) => session.comments.add({ task_id: null, file: 'src/a.js', line: i + 1, side: 'old', text: `c${i}` }).id,
    );
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const address = t.app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    t.setPort(address.port);
    const requested: string[] = [];
    let beforeRequest = (_n: number) => {};
    const client = createApiClient({
      baseUrl: `http://127.0.0.1:${address.port}`,
      fetch: (input, init) => {
        requested.push(String(input));
        beforeRequest(requested.length);
        return fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...auth } });
      },
    });
    expect((await reviewCalls(client).listComments(id)).map((c) => c.id)).toEqual(ids);
    expect(requested).toHaveLength(3);

    // Another tab deletes the comment the second page counts from: the read starts over and still gets every comment.
    requested.length = 0;
    const cursor = ids[COMMENTS_PAGE_MAX - 1]!;
    beforeRequest = (n) => {
      if (n === 2) session.comments.remove(cursor);
    };
    expect((await reviewCalls(client).listComments(id)).map((c) => c.id)).toEqual(ids.filter((c) => c !== cursor));
    expect(requested.map((u) => new URL(u).searchParams.get('after'))).toEqual([null, cursor, null, ids[COMMENTS_PAGE_MAX], ids[2 * COMMENTS_PAGE_MAX]]);
  });

  it(`refuses comment ${SESSION_COMMENTS_MAX + 1} with 409 too_many_comments that says what to do`, async () => {
    setStatus('stopped');
    const session = t.store.session(id);
    for (let line = 1; line <= SESSION_COMMENTS_MAX; line++) session.comments.add({ task_id: null, file: 'src/a.js', line, side: 'new', text: 'x' });
    expect(errorOf(await add(onTask))).toEqual({
      status: 409,
      code: 'too_many_comments',
      message:
        "This session already has 1,000 comments (1,000 open), the most it keeps; delete open comments you no longer need, or say the rest in a send-back's note.",
    });
  });
});
