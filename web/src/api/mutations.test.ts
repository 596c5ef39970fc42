import { describe, expect, it } from 'vitest';
import { createApiClient } from './client.ts';
import { ApiError } from './client.ts';
import { configCalls, runCalls, seedingCalls } from './mutations.ts';

function recorder(body: unknown, status = 200) {
  const calls: { url: string; method: string | undefined; body: unknown }[] = [];
  const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: String(input), method: init?.method, body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined });
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  }) as typeof globalThis.fetch;
  const api = createApiClient({ fetch });
  return { calls, seeding: seedingCalls(api), runs: runCalls(api), settings: configCalls(api) };
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

const ID = '20260525-103149-3800ea';
const session = {
  id: ID,
  status: 'prepared',
  source: '/repo',
  title: 'Due dates',
  brief: 'Add due dates',
  tasks: { total: 1, done: 0 },
  cost_usd: 0,
  last_stop: null,
  last_error: null,
  created_at: '2026-05-25T10:31:49.000Z',
  updated_at: '2026-05-25T10:31:49.000Z',
  problem: null,
  needs_you: false,
};

describe('retrying an interview', () => {
  it('posts an empty body to the retry route and returns the session', async () => {
    const { calls, seeding } = recorder({ session: { ...session, status: 'interviewing' } });
    expect((await seeding.retryInterview(ID)).status).toBe('interviewing');
    expect(calls).toEqual([{ url: `/api/sessions/${ID}/interview/retry`, method: 'POST', body: {} }]);
  });

  it('hands back the provider check refusal with its code', async () => {
    const message = 'The interview model "m" at http://127.0.0.1:9/v1 did not answer, so the interview was not restarted.';
    const { seeding } = recorder({ error: { code: 'provider_unreachable', message } }, 502);
    expect(await seeding.retryInterview(ID).catch((e: unknown) => e)).toMatchObject({ status: 502, code: 'provider_unreachable', message });
  });
});

describe('run calls', () => {
  it('starts a run with an empty body and returns the run state', async () => {
    const { calls, runs } = recorder({ session, run: { state: 'queued', queue_position: 2 } });
    expect(await runs.startRun(ID)).toEqual({ session, run: { state: 'queued', queue_position: 2 } });
    expect(calls).toEqual([{ url: `/api/sessions/${ID}/run`, method: 'POST', body: {} }]);
  });

  it('stops with an empty body', async () => {
    const { calls, runs } = recorder({ session: { ...session, status: 'stopped' }, was: 'running' });
    expect((await runs.stopRun(ID)).was).toBe('running');
    expect(calls).toEqual([{ url: `/api/sessions/${ID}/stop`, method: 'POST', body: {} }]);
  });

  it('sends guidance as {text} and returns the stored note', async () => {
    const note = { note_id: 'n1', ts: '2026-05-25T10:40:00.000Z', text: 'Keep it small', consumed_at: null };
    const { calls, runs } = recorder({ note });
    expect(await runs.addNote({ sessionId: ID, text: 'Keep it small' })).toMatchObject({ note_id: 'n1', text: 'Keep it small' });
    expect(calls[0]).toEqual({ url: `/api/sessions/${ID}/notes`, method: 'POST', body: { text: 'Keep it small' } });
  });

  it("surfaces the server's refusal as an ApiError with its code and message", async () => {
    const { runs } = recorder({ error: { code: 'session_not_runnable', message: 'Only a prepared or stopped session can run; this one is all_done.' } }, 409);
    const error = await runs.startRun(ID).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 409, code: 'session_not_runnable', message: expect.stringContaining('all_done') });
  });
});

describe('settings calls', () => {
  it('tests a role with a POST naming it, and hands back a failure as a result rather than throwing', async () => {
    const { calls, settings } = recorder({ role: 'evaluator', ok: false, detail: 'HTTP 401: Incorrect API key provided' });
    expect(await settings.testConnection('evaluator')).toEqual({ role: 'evaluator', ok: false, detail: 'HTTP 401: Incorrect API key provided' });
    expect(calls).toEqual([{ url: '/api/config/test', method: 'POST', body: { role: 'evaluator' } }]);
  });

  it("saves with a PUT of only the changes, and surfaces the server's message on a 400", async () => {
    const { calls, settings } = recorder({ error: { code: 'invalid_config', message: 'Not saved: TILTH_MAX_TOKENS must be a whole number, got "x"' } }, 400);
    const error = await settings.saveConfig({ TILTH_MAX_TOKENS: 'x', TILTH_API_KEY: { clear: true } }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).message).toBe('Not saved: TILTH_MAX_TOKENS must be a whole number, got "x"');
    expect(calls).toEqual([{ url: '/api/config', method: 'PUT', body: { TILTH_MAX_TOKENS: 'x', TILTH_API_KEY: { clear: true } } }]);
  });
});
