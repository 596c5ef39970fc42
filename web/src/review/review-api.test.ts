import { describe, expect, it } from 'vitest';
import { ApiError, createApiClient } from '../api/client.ts';
import { reviewCalls } from './review-api.ts';

const ID = '20260525-103149-3800ea';

function recorder(body: unknown, status = 200) {
  const calls: { url: string; method: string | undefined; body: unknown }[] = [];
  const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: String(input), method: init?.method, body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined });
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  }) as typeof globalThis.fetch;
  return { calls, review: reviewCalls(createApiClient({ fetch })) };
}

const merged = { into: 'main', sha: 'a'.repeat(40), backup_ref: `refs/tilth/backups/${ID}`, undo: 'git …', tests: [], passed: true };

describe('review calls', () => {
  it('merges without the override unless it was ticked', async () => {
    const { calls, review } = recorder(merged);
    await review.merge({ sessionId: ID, strategy: 'squash', override: false });
    await review.merge({ sessionId: ID, strategy: 'merge', override: true });
    expect(calls.map((c) => [c.url, c.method, c.body])).toEqual([
      [`/api/sessions/${ID}/merge`, 'POST', { strategy: 'squash' }],
      [`/api/sessions/${ID}/merge`, 'POST', { strategy: 'merge', override_failed_tests: true }],
    ]);
  });

  it('asks for a pull request with the remote only when one is chosen', async () => {
    const { calls, review } = recorder({ url: 'https://github.com/o/r/compare/main...b?expand=1', via: 'compare_url' });
    await review.openPr({ sessionId: ID, remote: null });
    await review.openPr({ sessionId: ID, remote: 'upstream' });
    expect(calls.map((c) => c.body)).toEqual([{}, { remote: 'upstream' }]);
  });

  it('previews, pushes and cleanses at their own paths', async () => {
    const preview = recorder({
      strategy: 'ff',
      into: 'main',
      base_sha: 'a',
      head_sha: 'b',
      tests: [],
      passed: true,
      criteria_problems: [],
      survivors: [],
      mutation_gate: false,
    });
    expect((await preview.review.previewMerge({ sessionId: ID, strategy: 'ff' })).passed).toBe(true);
    expect(preview.calls[0]).toEqual({ url: `/api/sessions/${ID}/merge/preview`, method: 'POST', body: { strategy: 'ff' } });
    const push = recorder({ remote: 'origin', branch: `session/${ID}` });
    await push.review.push({ sessionId: ID, remote: 'origin' });
    expect(push.calls[0]?.body).toEqual({ remote: 'origin' });
    const cleanse = recorder({ removed_worktree: true, removed_branch: true });
    await cleanse.review.cleanse(ID);
    expect(cleanse.calls[0]).toEqual({ url: `/api/sessions/${ID}/cleanse`, method: 'POST', body: {} });
  });

  it('passes a refusal on with the server code and words', async () => {
    const { review } = recorder({ error: { code: 'merge_conflict', message: 'Merging conflicts in src/a.js.' } }, 409);
    const err = await review.previewMerge({ sessionId: ID, strategy: 'merge' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 409, code: 'merge_conflict', message: 'Merging conflicts in src/a.js.' });
  });

  it('adds, edits and deletes a comment at the session’s comment paths', async () => {
    const c = { id: 'c-abcdef', ts: '2026-11-27T10:00:00.000Z', task_id: null, file: 'a.js', line: 1, side: 'new', text: 't', sent: null };
    const { calls, review } = recorder(c);
    await review.addComment({ sessionId: ID, comment: { task_id: null, file: 'a.js', line: 1, side: 'new', text: 't' } });
    await review.editComment({ sessionId: ID, commentId: 'c-abcdef', text: 'u' });
    const ok = recorder({ ok: true });
    await ok.review.deleteComment({ sessionId: ID, commentId: 'c-abcdef' });
    expect([...calls, ...ok.calls].map((x) => [x.method, x.url, x.body])).toEqual([
      ['POST', `/api/sessions/${ID}/comments`, { task_id: null, file: 'a.js', line: 1, side: 'new', text: 't' }],
      ['PUT', `/api/sessions/${ID}/comments/c-abcdef`, { text: 'u' }],
      ['DELETE', `/api/sessions/${ID}/comments/c-abcdef`, undefined],
    ]);
  });
});
