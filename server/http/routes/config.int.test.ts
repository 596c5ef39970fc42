/**
 * Settings through the API: saving to config.json, keys that go in and never come out, the
 * environment winning over the file, the running server following a save, Test connection.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ConfigResponseSchema,
  ConnectionTestResultSchema,
  ErrorBodySchema,
  SessionDetailSchema,
  type ConfigResponse,
  type ConfigUpdate,
} from '../../../shared/api.ts';
import type { TilthEvent } from '../../../shared/events.ts';
import { makeExampleRepo, type ExampleRepo } from '../../demo/example-repo.ts';
import { startScriptedModel, type ScriptedModel } from '../../scripted-model/model-server.ts';
import { caseTurn, makePreparedSession, noLearning, nodeTest, verdictTurn, writeTurn, type SeedTask } from '../../testing/run-fixtures.ts';
import { auth, makeTestApp, TEST_TOKEN, type TestApp } from '../../testing/test-app.ts';

const KEY = 'sk-settings-secret-0123456789abcdef';
const post = { ...auth, origin: 'http://localhost' };

let t: TestApp;
const fakes: ScriptedModel[] = [];
let repo: ExampleRepo | undefined;

async function fake(options: Parameters<typeof startScriptedModel>[0] = {}): Promise<ScriptedModel> {
  const f = await startScriptedModel(options);
  fakes.push(f);
  return f;
}

beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(async () => {
  await t.close();
  await Promise.all(fakes.splice(0).map((f) => f.close()));
  await repo?.cleanup();
  repo = undefined;
});

const configFile = () => path.join(t.home, 'config.json');
const readFile = () => JSON.parse(fs.readFileSync(configFile(), 'utf8')) as Record<string, string>;

async function put(body: unknown, headers: Record<string, string> = post) {
  return t.app.inject({ method: 'PUT', url: '/api/config', headers, payload: body as Record<string, unknown> });
}

async function save(update: ConfigUpdate): Promise<ConfigResponse> {
  const res = await put(update);
  expect(res.statusCode, res.body).toBe(200);
  expect(res.body).not.toContain(KEY);
  return ConfigResponseSchema.parse(res.json());
}

async function getConfig(): Promise<{ body: string; view: ConfigResponse }> {
  const res = await t.app.inject({ url: '/api/config', headers: auth });
  expect(res.statusCode).toBe(200);
  return { body: res.body, view: ConfigResponseSchema.parse(res.json()) };
}

const entry = (view: ConfigResponse, key: string) => view.entries.find((e) => e.key === key)!;

async function testConnection(role: string) {
  const res = await t.app.inject({ method: 'POST', url: '/api/config/test', headers: post, payload: { role } });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.body).not.toContain(KEY);
  return ConnectionTestResultSchema.parse(res.json());
}

function provider(baseUrl: string, extra: ConfigUpdate = {}): ConfigUpdate {
  return { TILTH_BASE_URL: baseUrl, TILTH_API_KEY: { set: KEY }, TILTH_WORKER_MODEL: 'worker-model', ...extra };
}

describe('PUT /api/config', () => {
  it('saves to config.json with mode 0600 (re-chmodding an existing file), keeps what it does not edit, and answers the new view', async () => {
    fs.writeFileSync(configFile(), JSON.stringify({ TILTH_CONTEXT_FILES: 'AGENTS.md' }), { mode: 0o644 });
    fs.chmodSync(configFile(), 0o644);
    const view = await save(provider('http://127.0.0.1:9/v1/', { TILTH_MAX_DOLLARS: 2.5, TILTH_MAX_TOKENS: '1_000', TILTH_PREP_MODEL: 'interviewer' }));

    expect(fs.statSync(configFile()).mode & 0o777).toBe(0o600);
    expect(readFile()).toEqual({
      TILTH_BASE_URL: 'http://127.0.0.1:9/v1/',
      TILTH_API_KEY: KEY,
      TILTH_WORKER_MODEL: 'worker-model',
      TILTH_PREP_MODEL: 'interviewer',
      TILTH_CONTEXT_FILES: 'AGENTS.md',
      TILTH_MAX_TOKENS: '1_000',
      TILTH_MAX_DOLLARS: '2.5',
    });
    expect(fs.readdirSync(t.home).filter((f) => f.includes('.tmp'))).toEqual([]);

    expect(entry(view, 'TILTH_BASE_URL')).toMatchObject({
      value: 'http://127.0.0.1:9/v1',
      source: 'file',
      file_value: 'http://127.0.0.1:9/v1',
      overridden: false,
    });
    expect(entry(view, 'TILTH_API_KEY')).toMatchObject({ value: 'set', source: 'file', file_value: 'set' });
    expect(entry(view, 'TILTH_MAX_TOKENS')).toMatchObject({ value: '1000', source: 'file' });
    expect(view.provider_configured).toBe(true);
    expect(view.roles.prep).toEqual({
      configured: true,
      base_url: 'http://127.0.0.1:9/v1',
      model: 'interviewer',
      key_set: true,
      context_window: null,
      price: null,
    });

    // The live config follows: GET says the same, and so do the next run's caps.
    expect((await getConfig()).view).toEqual(view);
    expect(t.deps.config.current.caps).toMatchObject({ max_dollars: 2.5, max_tokens: 1000 });
  });

  it('changes only the keys sent: null or blank removes a value, {"clear": true} removes a key, a left-out key stays', async () => {
    await save(provider('http://127.0.0.1:9/v1', { TILTH_EVALUATOR_API_KEY: { set: 'sk-evaluator-0123456789' }, TILTH_MAX_DOLLARS: '4' }));
    const view = await save({ TILTH_MAX_DOLLARS: null, TILTH_EVALUATOR_API_KEY: { clear: true }, TILTH_WORKER_MODEL: 'other-model', TILTH_MAX_TOKENS: '  ' });
    expect(readFile()).toEqual({ TILTH_BASE_URL: 'http://127.0.0.1:9/v1', TILTH_API_KEY: KEY, TILTH_WORKER_MODEL: 'other-model' });
    expect(entry(view, 'TILTH_MAX_DOLLARS')).toMatchObject({ value: '10', source: 'default', file_value: null });
    expect(entry(view, 'TILTH_EVALUATOR_API_KEY')).toMatchObject({ value: null, file_value: null });
    expect(view.roles.evaluator).toMatchObject({ configured: true, model: 'other-model', key_set: true });
  });

  it.each([
    [{ TILTH_MAX_TOKENS: 'lots' }, /TILTH_MAX_TOKENS must be a whole number, got "lots"/],
    [{ TILTH_MAX_CONCURRENT_RUNS: 0 }, /TILTH_MAX_CONCURRENT_RUNS must be between 1 and 64, got 0/],
    [{ TILTH_MAX_DOLLARS: '-1' }, /TILTH_MAX_DOLLARS must be at least 0/],
    [{ TILTH_BASE_URL: 'ftp://example.com' }, /TILTH_BASE_URL must be an http\(s\) URL/],
    [{ TILTH_BASE_URL: 'http://127.0.0.1:9/v1' }, /the worker endpoint is only partly set: also set TILTH_API_KEY, TILTH_WORKER_MODEL/],
    [{ TILTH_EVALUATOR_MODEL: 'judge' }, /the evaluator endpoint is only partly set/],
    [{ TILTH_PORT: '9999' }, /Unrecognized key: "TILTH_PORT"/],
    [{ TILTH_API_KEY: KEY }, /TILTH_API_KEY: must be \{"set": "<the key>"\} or \{"clear": true\}/],
    [{ TILTH_API_KEY: { set: '   ' } }, /TILTH_API_KEY.*is empty; to remove the key send \{"clear": true\}/],
    [{ TILTH_API_KEY: { set: KEY, clear: true } }, /TILTH_API_KEY/],
    [{ TILTH_WORKER_MODEL: ['a'] }, /TILTH_WORKER_MODEL: must be a string, a number, or null/],
    [[], /must be a JSON object .*not an array/],
  ])('refuses %j with a 400 naming what to fix, and writes nothing', async (body, message) => {
    const res = await put(body);
    expect(res.statusCode, res.body).toBe(400);
    const { error } = ErrorBodySchema.parse(res.json());
    expect(['invalid_request', 'invalid_config']).toContain(error.code);
    expect(error.message).toMatch(message);
    expect(res.body).not.toContain(KEY);
    expect(fs.existsSync(configFile())).toBe(false);
    expect(t.deps.config.current.roles).toEqual({});
  });

  it('lists every bad value at once', async () => {
    const res = await put({ TILTH_MAX_TOKENS: 'x', TILTH_MAX_DOLLARS: 'y' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toMatch(/TILTH_MAX_TOKENS must be a whole number.*TILTH_MAX_DOLLARS must be a number/);
  });

  it('says per field what is wrong, without the key name, so the settings page can show it beside the field', async () => {
    const bad = await put({ TILTH_MAX_TOKENS: 'x', TILTH_MAX_DOLLARS: '-1' });
    expect(bad.statusCode).toBe(400);
    expect(ErrorBodySchema.parse(bad.json()).error.fields).toEqual({
      TILTH_MAX_TOKENS: 'must be a whole number, got "x"',
      TILTH_MAX_DOLLARS: 'must be at least 0, got -1',
    });

    const partial = await put({ TILTH_BASE_URL: 'http://127.0.0.1:9/v1' });
    expect(partial.statusCode).toBe(400);
    const { fields } = ErrorBodySchema.parse(partial.json()).error;
    expect(Object.keys(fields ?? {}).sort()).toEqual(['TILTH_API_KEY', 'TILTH_WORKER_MODEL']);
    expect(fields?.TILTH_API_KEY).toMatch(/^is needed too: the worker's base URL, API key and model go together/);

    const halfPrice = await put({ TILTH_WORKER_PRICE_IN: '1' });
    expect(ErrorBodySchema.parse(halfPrice.json()).error.fields).toEqual({ TILTH_WORKER_PRICE_OUT: expect.stringMatching(/^is needed too: a price has/) });
    expect(fs.existsSync(configFile())).toBe(false);
  });

  it('refuses to write over a config.json that no longer parses, saying which file', async () => {
    fs.writeFileSync(configFile(), '{ broken');
    const res = await put({ TILTH_MAX_DOLLARS: '3' });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({ code: 'config_file_invalid', message: expect.stringContaining(`${configFile()}: not valid JSON`) });
    expect(fs.readFileSync(configFile(), 'utf8')).toBe('{ broken');
  });

  it('needs the token and, from a browser, our own Origin: it changes state', async () => {
    const noToken = await put(provider('http://127.0.0.1:9/v1'), { origin: 'http://localhost' });
    expect(noToken.statusCode).toBe(401);
    const cookie = `tilth_token_80=${TEST_TOKEN}`;
    const foreign = await put(provider('http://127.0.0.1:9/v1'), { cookie, origin: 'http://evil.example' });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json().error.code).toBe('bad_origin');
    const noOrigin = await put(provider('http://127.0.0.1:9/v1'), { cookie });
    expect(noOrigin.statusCode).toBe(403);
    const probe = await t.app.inject({
      method: 'POST',
      url: '/api/config/test',
      headers: { cookie, origin: 'http://evil.example' },
      payload: { role: 'worker' },
    });
    expect(probe.statusCode).toBe(403);
    expect(fs.existsSync(configFile())).toBe(false);

    const own = await put(provider('http://127.0.0.1:9/v1'), { cookie, origin: 'http://localhost' });
    expect(own.statusCode).toBe(200);
  });
});

describe('the environment wins over the file', () => {
  it('keeps using the environment value, saves the file value, and says which values are overridden', async () => {
    await t.close();
    t = await makeTestApp({ env: { TILTH_BASE_URL: 'http://127.0.0.1:9/v1', TILTH_API_KEY: 'sk-env-0123456789', TILTH_WORKER_MODEL: 'env-model' } });
    const view = await save({ TILTH_WORKER_MODEL: 'file-model', TILTH_MAX_DOLLARS: '3' });
    expect(readFile()).toEqual({ TILTH_WORKER_MODEL: 'file-model', TILTH_MAX_DOLLARS: '3' });
    expect(entry(view, 'TILTH_WORKER_MODEL')).toMatchObject({ value: 'env-model', source: 'env', file_value: 'file-model', overridden: true });
    expect(entry(view, 'TILTH_API_KEY')).toMatchObject({ value: 'set', source: 'env', overridden: true });
    expect(entry(view, 'TILTH_MAX_DOLLARS')).toMatchObject({ value: '3', source: 'file', overridden: false });
    expect(view.roles.worker.model).toBe('env-model');
    expect(t.deps.llm.describeEndpoint('worker')?.model).toBe('env-model');
  });
});

describe('after a save the running server uses the new values', () => {
  it('sends the next model call to the new base URL', async () => {
    const first = await fake();
    const second = await fake();
    await save(provider(first.baseURL));
    first.enqueue('worker-model', { content: 'from the first provider' });
    expect((await t.deps.llm.chat('worker', { messages: [{ role: 'user', content: 'hi' }] })).message.content).toBe('from the first provider');

    await save({ TILTH_BASE_URL: second.baseURL });
    second.enqueue('worker-model', { content: 'from the second provider' });
    expect((await t.deps.llm.chat('worker', { messages: [{ role: 'user', content: 'hi' }] })).message.content).toBe('from the second provider');
    expect(first.requests).toHaveLength(1);
    expect(second.requests).toHaveLength(1);
    first.assertDone();
    second.assertDone();
  });

  it('starts an interview on the provider just saved, and no key lands in any response, file or event', async () => {
    repo = await makeExampleRepo('js-todo');
    const before = await t.app.inject({ method: 'POST', url: '/api/sessions', headers: post, payload: { workspace: repo.dir, brief: 'Add due dates' } });
    expect(before.statusCode).toBe(409);
    expect(before.json().error).toMatchObject({ code: 'provider_not_configured', message: expect.stringContaining('settings page') });
    expect(fs.readdirSync(t.store.root).filter((name) => /^\d{8}-/.test(name))).toEqual([]);

    // A provider that checks the key: the interview only gets through with the saved one.
    const model = await fake({ apiKey: KEY });
    model.enqueue('interviewer', { tool_calls: [{ name: 'ask_user', arguments: { question: 'Which date format?' } }] });
    await save(provider(model.baseURL, { TILTH_PREP_MODEL: 'interviewer' }));
    const created = await t.app.inject({ method: 'POST', url: '/api/sessions', headers: post, payload: { workspace: repo.dir, brief: 'Add due dates' } });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().session.id as string;
    const deadline = Date.now() + 10_000;
    for (;;) {
      const d = SessionDetailSchema.parse((await t.app.inject({ url: `/api/sessions/${id}`, headers: auth })).json());
      if (d.interview?.pending) break;
      if (Date.now() > deadline) throw new Error(`no question: ${JSON.stringify(d)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    model.assertDone();
    expect(model.requests[0]?.model).toBe('interviewer');

    const bodies = await Promise.all(
      ['/api/config', '/api/sessions', `/api/sessions/${id}`, `/api/sessions/${id}/events`, '/api/sessions/nope'].map(
        async (url) => (await t.app.inject({ url, headers: auth })).body,
      ),
    );
    const failures = [
      (await put({ TILTH_API_KEY: KEY })).body,
      (await put({ TILTH_API_KEY: { set: KEY }, TILTH_MAX_TOKENS: 'x' })).body,
      (await t.app.inject({ method: 'POST', url: '/api/sessions', headers: post, payload: { workspace: '/nowhere', brief: 'b' } })).body,
    ];
    for (const body of [...bodies, ...failures]) expect(body).not.toContain(KEY);
    const sessionFiles = fs.readdirSync(t.store.session(id).dir, { recursive: true, withFileTypes: true }).filter((f) => f.isFile());
    expect(sessionFiles.length).toBeGreaterThan(2);
    for (const f of sessionFiles) expect(fs.readFileSync(path.join(f.parentPath, f.name), 'utf8'), f.name).not.toContain(KEY);
  });

  it('gives a run under way the caps and endpoint it started with, and the next run the new ones; a larger run limit starts a queued run', async () => {
    repo = await makeExampleRepo('js-todo');
    const first = await fake();
    const second = await fake();
    await save(provider(first.baseURL, { TILTH_EVALUATOR_MODEL: 'eval-model', TILTH_MAX_ITERATIONS_PER_TASK: '20', TILTH_MAX_CONCURRENT_RUNS: '1' }));
    const tasks: SeedTask[] = [
      { id: 'T-001', title: 'Double', tests: { 'tests/t001_double.test.js': nodeTest('double', 'double', '2', '4') } },
      { id: 'T-002', title: 'Triple', tests: { 'tests/t002_triple.test.js': nodeTest('triple', 'triple', '2', '6') } },
    ];
    const impl = (name: string, body: string) => writeTurn(`src/${name}.js`, `export function ${name}(n) {\n  return ${body};\n}\n`);
    const a = await makePreparedSession(t.store, repo.dir, 'node', tasks.slice(0, 1));
    const b = await makePreparedSession(t.store, repo.dir, 'node', tasks.slice(1, 2));
    first.load({ models: { 'worker-model': [{ ...impl('double', 'n * 2'), delay_ms: 400 }, caseTurn(), noLearning], 'eval-model': [verdictTurn('accept')] } });
    second.load({ models: { 'worker-model': [impl('triple', 'n * 3'), caseTurn(), noLearning], 'eval-model': [verdictTurn('accept')] } });

    const run = async (id: string) => (await t.app.inject({ method: 'POST', url: `/api/sessions/${id}/run`, headers: post })).json().run.state as string;
    expect(await run(a)).toBe('running');
    expect(await run(b)).toBe('queued');
    while (first.requests.length === 0) await new Promise((r) => setTimeout(r, 10));

    // Mid-call of run A: a new provider, new caps and room for a second run.
    await save({ TILTH_BASE_URL: second.baseURL, TILTH_MAX_ITERATIONS_PER_TASK: '7', TILTH_MAX_CONCURRENT_RUNS: '2' });
    expect(t.deps.runs.state(b).state).toBe('running');
    expect(t.deps.runs.state(a).state).toBe('running');

    const settled = async (id: string) => {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const status = t.store.session(id).checkpoint.read().status;
        if (status !== 'running' && status !== 'prepared' && t.deps.runs.state(id).state === 'idle') return status;
        if (Date.now() > deadline) throw new Error(`run ${id} did not settle (${status})`);
        await new Promise((r) => setTimeout(r, 25));
      }
    };
    expect(await settled(a)).toBe('all_done');
    expect(await settled(b)).toBe('all_done');
    first.assertDone();
    second.assertDone();

    const runStart = (id: string) =>
      t.store
        .session(id)
        .log()
        .readAfter(0, 10_000)
        .find((e): e is Extract<TilthEvent, { type: 'session_start' }> => e.type === 'session_start' && e.data.phase === 'run')!;
    expect(runStart(a).data.caps?.max_iterations_per_task).toBe(20);
    expect(runStart(b).data.caps?.max_iterations_per_task).toBe(7);
  });
});

describe('POST /api/config/test', () => {
  it('succeeds against a provider that answers GET /models', async () => {
    const model = await fake({ apiKey: KEY });
    model.enqueue('worker-model', { content: 'unused' });
    await save(provider(model.baseURL));
    const result = await testConnection('worker');
    expect(result).toEqual({ role: 'worker', ok: true, detail: `${model.baseURL} answered GET /models with 1 model(s); "worker-model" is among them.` });
    expect(model.requests).toHaveLength(0);
  });

  it("shows the provider's own error text for a wrong key, without the key it quoted", async () => {
    const model = await fake({ apiKey: 'sk-the-provider-wants-another' });
    await save(provider(model.baseURL));
    const result = await testConnection('worker');
    expect(result.ok).toBe(false);
    expect(result.detail).toContain('HTTP 401: Incorrect API key provided: [redacted]');
  });

  it('tests each role on its own endpoint', async () => {
    const worker = await fake();
    const gone = await startScriptedModel();
    await gone.close();
    await save(provider(worker.baseURL, { TILTH_EVALUATOR_BASE_URL: gone.baseURL, TILTH_EVALUATOR_API_KEY: { set: 'sk-evaluator-0123456789' } }));
    expect((await testConnection('worker')).ok).toBe(true);
    expect((await testConnection('prep')).ok).toBe(true);
    expect((await getConfig()).view.warnings).toEqual([]);
    await save({ TILTH_EVALUATOR_API_KEY: { clear: true } });
    expect((await getConfig()).view.warnings).toEqual([
      expect.stringMatching(/TILTH_EVALUATOR_BASE_URL points the evaluator at another endpoint but it borrows the worker's key/),
    ]);
    const evaluator = await testConnection('evaluator');
    expect(evaluator.ok).toBe(false);
    expect(evaluator.detail).toMatch(new RegExp(`GET ${gone.baseURL}/models failed: cannot reach ${gone.baseURL} \\(connect ECONNREFUSED`));
  });

  it('says what to set for a role with no endpoint, and refuses an unknown role', async () => {
    const result = await testConnection('prep');
    expect(result).toMatchObject({ role: 'prep', ok: false });
    expect(result.detail).toContain('TILTH_PREP_BASE_URL');
    const bad = await t.app.inject({ method: 'POST', url: '/api/config/test', headers: post, payload: { role: 'judge' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.message).toMatch(/role/);
  });
});
