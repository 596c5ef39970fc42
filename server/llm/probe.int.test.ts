import { afterEach, describe, expect, it } from 'vitest';
import { cannedCompletion, startCannedServer, type CannedServer } from '../testing/canned-http.ts';
import { ENDLESS_COMPLETION, ENDLESS_MODEL_LIST, SOCKET_SLACK_BYTES, startEndlessServer, type EndlessServer } from '../testing/endless-http.ts';
import { startScriptedModel, type ScriptedModel } from '../scripted-model/model-server.ts';
import { METADATA_MAX_BYTES, MODEL_LIST_MAX_BYTES } from './bounded-answer.ts';
import { ModelClient } from './client.ts';
import { PROBE_TIMEOUT_MS } from './probe.ts';
import type { RoleEndpoint } from './types.ts';

const KEY = 'sk-probe-0123456789abcdef';
const servers: (ScriptedModel | CannedServer | Pick<EndlessServer, 'close'>)[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((f) => f.close()));
});

async function canned(): Promise<CannedServer> {
  const server = await startCannedServer();
  servers.push(server);
  return server;
}

async function fake(options: Parameters<typeof startScriptedModel>[0] = {}): Promise<ScriptedModel> {
  const server = await startScriptedModel(options);
  servers.push(server);
  return server;
}

function clientFor(worker: RoleEndpoint): ModelClient {
  return new ModelClient({ endpoints: { worker }, retry: { maxAttempts: 1 } });
}

describe('probe (Test connection)', () => {
  it('succeeds on GET /models and says whether the model is listed, without calling the model', async () => {
    const server = await fake({ apiKey: KEY });
    server.enqueue('listed-model', { content: 'never asked for' });
    const listed = await clientFor({ baseUrl: server.baseURL, apiKey: KEY, model: 'listed-model' }).probe('worker');
    expect(listed).toEqual({ ok: true, detail: `${server.baseURL} answered GET /models with 1 model(s); "listed-model" is among them.` });
    const unlisted = await clientFor({ baseUrl: server.baseURL, apiKey: KEY, model: 'typo-model' }).probe('worker');
    expect(unlisted.ok).toBe(true);
    expect(unlisted.detail).toContain('"typo-model" is not among them');
    expect(server.requests).toHaveLength(0);
  });

  it("returns the provider's own error text for a wrong key, with the key scrubbed out", async () => {
    const server = await fake({ apiKey: 'sk-the-right-one-0123456789' });
    const result = await clientFor({ baseUrl: server.baseURL, apiKey: KEY, model: 'm' }).probe('worker');
    expect(result.ok).toBe(false);
    expect(result.detail).toContain(`GET ${server.baseURL}/models failed: HTTP 401: Incorrect API key provided: [redacted]`);
    expect(result.detail).not.toContain(KEY);
  });

  it('says it cannot reach the URL when nothing listens, with the root cause and what to do', async () => {
    const gone = await startScriptedModel();
    await gone.close();
    const result = await clientFor({ baseUrl: gone.baseURL, apiKey: KEY, model: 'm' }).probe('worker');
    expect(result).toEqual({
      ok: false,
      detail: `GET ${gone.baseURL}/models failed: cannot reach ${gone.baseURL} (connect ECONNREFUSED 127.0.0.1:${gone.port}). Start the model server, or correct the base URL.`,
      status: null,
    });
  });

  it('shows a top-level error body in the provider\'s words, not the SDK\'s "no body"', async () => {
    const server = await canned();
    // Mistral answers a bad key with FastAPI's {detail}: https://github.com/agent0ai/agent-zero/issues/539
    server.enqueue({ status: 401, body: { detail: 'Unauthorized' } });
    const result = await clientFor({ baseUrl: server.baseURL, apiKey: KEY, model: 'm' }).probe('worker');
    expect(result.ok).toBe(false);
    expect(result.detail).toMatch(new RegExp(`^GET ${server.baseURL}/models failed: HTTP 401: Unauthorized\\. Check the API key`));
    expect(result.detail).not.toContain('no body');
  });

  it('shows the fix when the one-token chat completion hits a configuration error', async () => {
    const server = await canned();
    // llama.cpp's server: GET /models 404 here, then the --jinja error on the chat completion.
    server.enqueue(
      { status: 404, body: { error: { code: 404, message: 'File Not Found', type: 'not_found_error' } } },
      { status: 500, body: { error: { code: 500, message: 'tools param requires --jinja flag', type: 'server_error' } } },
    );
    const result = await clientFor({ baseUrl: server.baseURL, apiKey: KEY, model: 'm' }).probe('worker');
    expect(result.detail).toBe(
      `${server.baseURL} has no GET /models (HTTP 404), and a one-token chat completion failed: HTTP 500: tools param requires --jinja flag. Restart llama-server with --jinja: it only accepts tools with its Jinja chat templates.`,
    );
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/models', 'POST /v1/chat/completions']);
  });

  it("reads OpenRouter's upstream words from a 200 reply that carries an error", async () => {
    const server = await canned();
    server.enqueue(
      { status: 405, body: 'Method Not Allowed' },
      { status: 200, body: { error: { message: 'Provider returned error', code: 502, metadata: { raw: 'model is loading', provider_name: 'Chutes' } } } },
    );
    const result = await clientFor({ baseUrl: server.baseURL, apiKey: KEY, model: 'm' }).probe('worker');
    expect(result).toEqual({
      ok: false,
      detail: `${server.baseURL} answered a one-token chat completion with an error: Provider returned error (Chutes: model is loading)`,
      status: 200,
    });
    server.enqueue({ status: 404, body: '404 page not found' }, cannedCompletion('ok'));
    expect((await clientFor({ baseUrl: server.baseURL, apiKey: KEY, model: 'm' }).probe('worker')).ok).toBe(true);
  });

  it('gives up after the timeout on a server that never answers', async () => {
    const net = await import('node:net');
    const sockets = new Set<import('node:net').Socket>();
    const silent = net.createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as { port: number }).port;
      const started = Date.now();
      const result = await clientFor({ baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: KEY, model: 'm' }).probe('worker', { timeoutMs: 300 });
      expect(result).toEqual({ ok: false, detail: `GET http://127.0.0.1:${port}/v1/models failed: no answer within 300 ms`, status: null });
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('falls back to a one-token chat completion where there is no GET /models', async () => {
    const server = await fake({ listModels: false });
    server.enqueue('chat-only', { content: 'ok' });
    const result = await clientFor({ baseUrl: server.baseURL, apiKey: KEY, model: 'chat-only' }).probe('worker');
    expect(result).toEqual({ ok: true, detail: `${server.baseURL} has no GET /models (HTTP 404); a one-token chat completion with "chat-only" answered.` });
    expect((server.requests[0]?.body as { max_tokens?: number } | undefined)?.max_tokens).toBe(1);
    server.assertDone();

    server.enqueue('chat-only', { fault: 'server_error', status: 500, error_message: 'model is loading' });
    const failing = await clientFor({ baseUrl: server.baseURL, apiKey: KEY, model: 'chat-only' }).probe('worker');
    expect(failing.ok).toBe(false);
    expect(failing.detail).toContain('a one-token chat completion failed: HTTP 500: model is loading');
  });

  it('says which variables to set for a role with no endpoint', async () => {
    const result = await new ModelClient({ endpoints: {} }).probe('evaluator');
    expect(result.ok).toBe(false);
    expect(result.detail).toContain('TILTH_EVALUATOR_BASE_URL');
  });
});

describe('probe against a provider whose answers do not end', () => {
  const NO_PROVIDER_SENDS_THAT = 'No provider answers with that much: check the provider, or a proxy in front of it.';

  async function endless(routes: Parameters<typeof startEndlessServer>[0]): Promise<EndlessServer> {
    const server = await startEndlessServer(routes);
    servers.push(server);
    return server;
  }

  it('stops reading a model list that never ends at its bound and fails with one sentence, well within its time limit', async () => {
    const server = await endless({ 'GET /v1/models': { endless: true, ...ENDLESS_MODEL_LIST } });
    const started = Date.now();
    const result = await clientFor({ baseUrl: server.base, apiKey: KEY, model: 'm' }).probe('worker');
    expect(result).toEqual({
      ok: false,
      detail: `The provider's answer to GET ${server.base}/models passed 8 MiB; Tilth stopped reading it. ${NO_PROVIDER_SENDS_THAT}`,
      status: 200,
      oversized: true,
    });
    expect(Date.now() - started).toBeLessThan(PROBE_TIMEOUT_MS / 2);
    const [served] = await server.closed();
    expect(served!.written).toBeLessThan(MODEL_LIST_MAX_BYTES + SOCKET_SLACK_BYTES);
  });

  it('reads the one-token completion of a server without a model list as a small document: a huge one stops at 1 MiB', async () => {
    const server = await endless({
      'GET /v1/models': { status: 404, json: { error: { message: 'Not Found' } } },
      'POST /v1/chat/completions': { endless: true, ...ENDLESS_COMPLETION, maxBytes: 48 * 1024 * 1024 },
    });
    const result = await clientFor({ baseUrl: server.base, apiKey: KEY, model: 'm' }).probe('worker');
    expect(result).toEqual({
      ok: false,
      detail: `${server.base} has no GET /models (HTTP 404), and a one-token chat completion failed: The provider's answer to POST ${server.base}/chat/completions passed 1 MiB; Tilth stopped reading it. ${NO_PROVIDER_SENDS_THAT}`,
      status: 200,
      oversized: true,
    });
    const [served] = await server.closed();
    expect(served!.written).toBeLessThan(METADATA_MAX_BYTES + SOCKET_SLACK_BYTES);
  });

  it('keeps an error body that never ends to 1 MiB and still reports the status it came with', async () => {
    const server = await endless({ 'GET /v1/models': { endless: true, status: 401, contentType: 'text/html', head: '<html><body>', unit: '<p>denied</p>' } });
    const result = await clientFor({ baseUrl: server.base, apiKey: KEY, model: 'm' }).probe('worker');
    expect(result.ok).toBe(false);
    expect(result.status).toBe(401);
    expect(result.detail).toBe(
      `GET ${server.base}/models failed: HTTP 401: The provider's answer to GET ${server.base}/models passed 1 MiB; Tilth stopped reading it. Check the API key set for this role and what it may use: ${server.base} refused it.`,
    );
    const [served] = await server.closed();
    expect(served!.written).toBeLessThan(METADATA_MAX_BYTES + SOCKET_SLACK_BYTES);
  });
});
