import { describe, expect, it } from 'vitest';
import { createApiClient } from './client.ts';
import { seedingCalls } from './mutations.ts';

function recorder(body: unknown) {
  const calls: { url: string; method: string | undefined; body: unknown }[] = [];
  const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: String(input), method: init?.method, body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined });
    return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
  }) as typeof globalThis.fetch;
  return { calls, seeding: seedingCalls(createApiClient({ fetch })) };
}

describe('seeding calls', () => {
  it('discards with the id repeated as confirm', async () => {
    const { calls, seeding } = recorder({ ok: true });
    await seeding.discardSession('20260525-103149-3800ea');
    expect(calls).toEqual([{ url: '/api/sessions/20260525-103149-3800ea?confirm=20260525-103149-3800ea', method: 'DELETE', body: undefined }]);
  });

  it('answers with the question id and the answer verbatim', async () => {
    const { calls, seeding } = recorder({ ok: true });
    await seeding.answerQuestion({ sessionId: '20260525-103149-3800ea', questionId: 'q1-abc', answer: 'ISO 8601 strings' });
    expect(calls[0]).toEqual({
      url: '/api/sessions/20260525-103149-3800ea/answer',
      method: 'POST',
      body: { questionId: 'q1-abc', answer: 'ISO 8601 strings' },
    });
  });
});
