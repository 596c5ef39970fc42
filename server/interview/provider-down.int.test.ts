/**
 * The provider down, as a new user meets it: creating a session checks the interview's model
 * first and leaves nothing behind when it does not answer; a failed interview can be retried
 * (same session, same brief, from its saved conversation) or discarded.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionDetailSchema, type SessionDetail } from '../../shared/api.ts';
import { makeExampleRepo } from '../demo/example-repo.ts';
import { startScriptedModel, type ScriptedModel, type ScriptedReplyInput } from '../scripted-model/model-server.ts';
import { auth, makeTestApp, type TestApp } from '../testing/test-app.ts';
import { PROVIDER_CHECK_TIMEOUT_MS } from './provider-check.ts';

const PREP = 'prep-model';
const post = { ...auth, origin: 'http://localhost' };
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

let t: TestApp | null = null;
let fake: ScriptedModel | null = null;
let repo: { dir: string; cleanup: () => Promise<void> | void };

beforeEach(async () => {
  repo = await makeExampleRepo('js-todo');
});
afterEach(async () => {
  await t?.close();
  await fake?.close();
  t = null;
  fake = null;
  await repo.cleanup();
});

function env(baseUrl: string, key = 'test-key'): NodeJS.ProcessEnv {
  return { TILTH_BASE_URL: baseUrl, TILTH_API_KEY: key, TILTH_WORKER_MODEL: 'worker-model', TILTH_PREP_MODEL: PREP };
}

/** A port where nothing listens: a model server started and closed again. */
async function refusingBaseUrl(): Promise<{ baseUrl: string; port: number }> {
  const gone = await startScriptedModel();
  await gone.close();
  return { baseUrl: gone.baseURL, port: gone.port };
}

function app(): TestApp {
  if (!t) throw new Error('no app');
  return t;
}

const createSession = (brief = 'Add due dates to todos') =>
  app().app.inject({ method: 'POST', url: '/api/sessions', headers: post, payload: { workspace: repo.dir, brief } });
const retry = (id: string, payload: unknown = {}) =>
  app().app.inject({ method: 'POST', url: `/api/sessions/${id}/interview/retry`, headers: post, payload: payload as object });

async function detail(id: string): Promise<SessionDetail> {
  return SessionDetailSchema.parse((await app().app.inject({ url: `/api/sessions/${id}`, headers: auth })).json());
}

async function until(id: string, test: (d: SessionDetail) => boolean, what: string): Promise<SessionDetail> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const d = await detail(id);
    if (test(d) && !d.interview?.running) return d;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(d)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** What the repository holds besides its own branch: it must stay this way when creation is refused. */
function repoExtras(): { branches: string; worktrees: number } {
  return {
    branches: git(repo.dir, 'branch', '--list', '--format=%(refname:short)', 'session/*'),
    worktrees: git(repo.dir, 'worktree', 'list').split('\n').length,
  };
}

const ask = (question: string): ScriptedReplyInput => ({ tool_calls: [{ name: 'ask_user', arguments: { question } }] });
/** A provider out of quota: a 429 asking for an hour's wait, which Tilth will not sit through. */
const outOfQuota: ScriptedReplyInput = {
  fault: 'rate_limit',
  retry_after: 3600,
  error_message: 'You exceeded your current quota; check your plan and billing details.',
};

describe('creating a session with the provider down', () => {
  it("refuses quickly, in the provider's words, before any branch, worktree or session folder exists", async () => {
    const { baseUrl, port } = await refusingBaseUrl();
    t = await makeTestApp({ env: env(baseUrl) });
    const started = Date.now();
    const res = await createSession();
    expect(Date.now() - started).toBeLessThan(PROVIDER_CHECK_TIMEOUT_MS);
    expect(res.statusCode).toBe(502);
    const { error } = res.json() as { error: { code: string; message: string } };
    expect(error.code).toBe('provider_unreachable');
    expect(error.message).toContain(`The interview model "${PREP}" at ${baseUrl} did not answer, so no session was created.`);
    expect(error.message).toMatch(new RegExp(`ECONNREFUSED 127\\.0\\.0\\.1:${port}`));
    expect(error.message).toMatch(/Check that the provider is running and that its base URL is right \(Settings\), then create the session again\.$/);

    expect(repoExtras()).toEqual({ branches: '', worktrees: 1 });
    expect(app().store.list()).toEqual([]);
    expect(fs.readdirSync(app().store.root).filter((name) => !name.startsWith('.'))).toEqual([]);
  });

  it('refuses a wrong key as provider_refused, saying which setting to fix and never echoing the key', async () => {
    fake = await startScriptedModel({ apiKey: 'sk-the-right-key-0123456789' });
    t = await makeTestApp({ env: env(fake.baseURL, 'sk-a-wrong-key-9876543210') });
    const res = await createSession();
    expect(res.statusCode).toBe(502);
    const { error } = res.json() as { error: { code: string; message: string } };
    expect(error.code).toBe('provider_refused');
    expect(error.message).toContain('HTTP 401');
    expect(error.message).toContain('Check the API key for the interview on the settings page');
    expect(error.message).not.toContain('sk-a-wrong-key-9876543210');
    expect(repoExtras()).toEqual({ branches: '', worktrees: 1 });
    expect(fake.requests).toHaveLength(0);
  });

  it('refuses a provider whose model list never ends in seconds, saying Tilth stopped reading it', async () => {
    fake = await startScriptedModel({ listModels: 'endless' });
    t = await makeTestApp({ env: env(fake.baseURL) });
    const started = Date.now();
    const res = await createSession();
    expect(Date.now() - started).toBeLessThan(PROVIDER_CHECK_TIMEOUT_MS);
    expect(res.statusCode).toBe(502);
    const { error } = res.json() as { error: { code: string; message: string } };
    expect(error).toEqual({
      code: 'provider_unreachable',
      message: `The interview model "${PREP}" at ${fake.baseURL} answered with more than Tilth reads, so no session was created. The provider's answer to GET ${fake.baseURL}/models passed 8 MiB; Tilth stopped reading it. No provider answers with that much: check the provider, or a proxy in front of it. Once it answers normally, create the session again.`,
    });
    expect(repoExtras()).toEqual({ branches: '', worktrees: 1 });
    expect(app().store.list()).toEqual([]);
  });

  it('creates the session when the provider answers, asking the model nothing but its list', async () => {
    fake = await startScriptedModel();
    t = await makeTestApp({ env: env(fake.baseURL) });
    fake.enqueue(PREP, ask('Which date format?'));
    const res = await createSession();
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().session.id as string;
    await until(id, (d) => d.interview?.pending !== null, 'the question');
    expect(fake.requests).toHaveLength(1); // the interview's own first call; the check was GET /models
    expect(repoExtras().branches).toBe(`session/${id}`);
  });
});

describe('a failed interview', () => {
  async function failedSession(): Promise<{ id: string; port: number }> {
    fake = await startScriptedModel();
    t = await makeTestApp({ env: env(fake.baseURL) });
    // One whole turn is saved before the provider gives out, so the retry has a conversation to continue.
    fake.enqueue(PREP, { tool_calls: [{ name: 'read_file', arguments: { path: 'src/todo.js' } }] }, outOfQuota);
    const res = await createSession('Add due dates to todos, in ISO format');
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().session.id as string;
    await until(id, (d) => d.session.status === 'failed', 'the interview to fail');
    return { id, port: fake.port };
  }

  it("records the provider failure with the provider's own words, in the detail and the list", async () => {
    const { id } = await failedSession();
    const d = await detail(id);
    expect(d.session.last_stop).toBe('provider_failure');
    expect(d.last_error).toContain('You exceeded your current quota');
    expect(d.session.last_error).toBe(d.last_error);
    const listed = (await app().app.inject({ url: '/api/sessions', headers: auth })).json().sessions[0];
    expect(listed).toMatchObject({ id, status: 'failed', last_stop: 'provider_failure' });
    expect(listed.last_error).toContain('You exceeded your current quota');
  });

  it('retries: refused while the provider is down, then the same session and brief continue from the saved conversation', async () => {
    const { id, port } = await failedSession();
    const branchBefore = repoExtras();
    await fake!.close();

    const down = await retry(id);
    expect(down.statusCode).toBe(502);
    expect(down.json().error.code).toBe('provider_unreachable');
    expect(down.json().error.message).toContain('so the interview was not restarted');
    expect(down.json().error.message).toMatch(/then press Retry\.$/);
    expect((await detail(id)).session.status).toBe('failed');
    expect(app().deps.jobs.forSession(id)).toBeUndefined();

    fake = await startScriptedModel({ port });
    fake.enqueue(PREP, ask('Should due dates carry a time zone?'));
    const up = await retry(id);
    expect(up.statusCode, up.body).toBe(200);
    expect(up.json().session).toMatchObject({ id, status: 'interviewing', last_stop: null, last_error: null });
    const d = await until(id, (x) => x.interview?.pending !== null, 'the question after the retry');
    expect(d.interview?.pending?.text).toBe('Should due dates carry a time zone?');
    expect(d.session.brief).toBe('Add due dates to todos, in ISO format');
    expect(repoExtras()).toEqual(branchBefore);

    // The retried call carries the whole saved conversation: the brief, the file it read.
    const [request] = fake.requests;
    const messages = request!.messages as { role: string; content?: string }[];
    expect(messages[1]?.content).toContain('Add due dates to todos, in ISO format');
    expect(messages.some((m) => m.role === 'tool' && (m.content ?? '').includes('export'))).toBe(true);
    expect(messages.filter((m) => m.role === 'assistant')).toHaveLength(1);

    // Nothing to retry now.
    const again = await retry(id);
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toMatchObject({ code: 'interview_not_retryable' });
    expect(again.json().error.message).toContain('is interviewing');

    const events = app().store.session(id).log().readAfter(0, 1000);
    const changes = events.filter((e) => e.type === 'status_changed').map((e) => (e.data as { from: string | null; to: string }).to);
    expect(changes.slice(-2)).toEqual(['failed', 'interviewing']);
  });

  it('validates the retry request', async () => {
    const { id } = await failedSession();
    const extra = await retry(id, { force: true });
    expect(extra.statusCode).toBe(400);
    expect(extra.json().error.code).toBe('invalid_request');
    const unknown = await retry('20990101-000000-abcdef');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('session_not_found');
    const bad = await retry('not-an-id');
    expect(bad.statusCode).toBe(400);
    expect((await detail(id)).session.status).toBe('failed');
  });

  it('discards: worktree, branch and folder gone, the source repository untouched', async () => {
    const { id } = await failedSession();
    const worktree = app().store.session(id).checkpoint.read().worktree;
    expect(fs.existsSync(worktree)).toBe(true);
    const res = await app().app.inject({ method: 'DELETE', url: `/api/sessions/${id}?confirm=${id}`, headers: post });
    expect(res.statusCode, res.body).toBe(200);
    expect(repoExtras()).toEqual({ branches: '', worktrees: 1 });
    expect(fs.existsSync(worktree)).toBe(false);
    expect(app().store.session(id).exists()).toBe(false);
    expect(git(repo.dir, 'status', '--porcelain')).toBe('');
    expect((await retry(id)).statusCode).toBe(404);
  });
});

describe('a demo session', () => {
  it('retries against its own scripted model, with no provider configured', async () => {
    t = await makeTestApp({ env: {} });
    const res = await app().app.inject({ method: 'POST', url: '/api/demo', headers: post, payload: {} });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().session.id as string;
    await until(id, (d) => d.interview?.pending !== null, 'the demo question');
    // As if its model had given out: the check must go to the demo's model, not the (absent) provider.
    app().store.session(id).checkpoint.setStatus('failed', { reason: 'provider_failure', phase: 'interview', error: 'the interviewer model failed' });
    const again = await retry(id);
    expect(again.statusCode, again.body).toBe(200);
    const d = await until(id, (x) => x.session.status === 'interviewing' && x.interview?.pending !== null, 'the same question again');
    expect(d.demo).toBe(true);
  });

  it('and a real session whose provider was removed is told to set one up', async () => {
    fake = await startScriptedModel();
    t = await makeTestApp({ env: env(fake.baseURL) });
    fake.enqueue(PREP, outOfQuota);
    const res = await createSession();
    const id = res.json().session.id as string;
    await until(id, (d) => d.session.status === 'failed', 'the interview to fail');
    app().deps.llm.reconfigure({});
    const refused = await retry(id);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.code).toBe('provider_not_configured');
    expect((await detail(id)).session.status).toBe('failed');
  });
});
