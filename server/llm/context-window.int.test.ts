/**
 * Context-window discovery against real local HTTP servers answering in each provider's shape:
 * the fields are the ones each provider documents (see context-window.ts), the rest of each
 * body trimmed to what makes it recognisable.
 */
import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ENDLESS_MODEL_LIST,
  fetchIgnoringAbortOfBody,
  SOCKET_SLACK_BYTES,
  startEndlessServer,
  type EndlessRoute,
  type EndlessServer,
} from '../testing/endless-http.ts';
import { METADATA_MAX_BYTES, MODEL_LIST_MAX_BYTES } from './bounded-answer.ts';
import { DISCOVERY_TIMEOUT_MS, discoverContextWindow, OLLAMA_DEFAULT_CONTEXT, resolveContextWindow } from './context-window.ts';

const KEY = 'sk-window-0123456789abcdef';

type Seen = { method: string; path: string; authorization: string | undefined; body: string };
type Answer = { status?: number; json?: unknown; text?: string; headers?: Record<string, string> };
type Route = (seen: Seen) => Answer | Promise<Answer>;

interface Provider {
  base: string;
  origin: string;
  seen: Seen[];
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A provider on 127.0.0.1 answering `routes` ("GET /v1/models"; a query is part of the key when present), 404 otherwise. */
async function provider(routes: Record<string, Route>): Promise<Provider> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const entry: Seen = { method: req.method ?? '', path: url.pathname + url.search, authorization: req.headers.authorization, body };
      seen.push(entry);
      const route = routes[`${entry.method} ${entry.path}`] ?? routes[`${entry.method} ${url.pathname}`];
      void Promise.resolve(route ? route(entry) : { status: 404, json: { error: { message: `no route ${entry.method} ${entry.path}` } } }).then((answer) => {
        res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
        res.end(answer.text ?? JSON.stringify(answer.json ?? {}));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { base: `http://127.0.0.1:${port}/v1`, origin: `http://127.0.0.1:${port}`, seen };
}

const json =
  (body: unknown): Route =>
  () => ({ json: body });
const endpoint = (base: string, model: string, apiKey = KEY) => ({ baseUrl: base, apiKey, model });

describe('discoverContextWindow', () => {
  it("reads vLLM's max_model_len from GET /v1/models, sending the key", async () => {
    const vllm = await provider({
      'GET /v1/models': json({
        object: 'list',
        data: [
          {
            id: 'Qwen/Qwen3-Coder-30B-A3B-Instruct',
            object: 'model',
            created: 1,
            owned_by: 'vllm',
            root: 'Qwen/Qwen3-Coder-30B-A3B-Instruct',
            parent: null,
            max_model_len: 65_536,
            permission: [],
          },
        ],
      }),
    });
    expect(await discoverContextWindow(endpoint(vllm.base, 'Qwen/Qwen3-Coder-30B-A3B-Instruct'))).toEqual({ tokens: 65_536, source: 'vllm' });
    expect(vllm.seen).toEqual([{ method: 'GET', path: '/v1/models', authorization: `Bearer ${KEY}`, body: '' }]);
  });

  it("reads OpenRouter's context_length for the model from its list", async () => {
    const list = {
      data: [
        {
          id: 'qwen/qwen3-coder',
          name: 'Qwen: Qwen3 Coder',
          context_length: 262_144,
          pricing: { prompt: '0.0000002', completion: '0.0000008' },
          top_provider: { context_length: 262_144 },
        },
        { id: 'deepseek/deepseek-chat-v3-0324:free', context_length: 163_840 },
        { id: 'openai/gpt-4.1', context_length: 1_047_576 },
      ],
    };
    const upstream = await provider({ 'GET /api/v1/models': json(list) });
    // OpenRouter is recognised by its host; this fetch carries its requests to the local server.
    const toLocal: typeof fetch = (input, init) => fetch(String(input).replace('https://openrouter.ai', upstream.origin), init);
    const at = (model: string) => discoverContextWindow(endpoint('https://openrouter.ai/api/v1', model), { fetch: toLocal });
    expect(await at('qwen/qwen3-coder')).toEqual({ tokens: 262_144, source: 'openrouter' });
    expect(await at('deepseek/deepseek-chat-v3-0324:free')).toEqual({ tokens: 163_840, source: 'openrouter' });
    // A routing suffix (:nitro, :floor) is the same model.
    expect(await at('openai/gpt-4.1:nitro')).toEqual({ tokens: 1_047_576, source: 'openrouter' });
    expect(await at('nobody/no-model')).toEqual({ tokens: null, source: 'unknown', note: `"nobody/no-model" is not in OpenRouter's model list.` });
    expect(upstream.seen.every((s) => s.path === '/api/v1/models' && s.authorization === `Bearer ${KEY}`)).toBe(true);
  });

  it("reads llama.cpp's n_ctx from /props at the server root, the context each request gets", async () => {
    const llama = await provider({
      'GET /v1/models': json({
        object: 'list',
        data: [{ id: 'qwen3-8b-q4_k_m.gguf', object: 'model', owned_by: 'llamacpp', meta: { n_ctx: 65_536, n_ctx_train: 131_072, n_vocab: 151_936 } }],
      }),
      'GET /props': json({
        default_generation_settings: { n_ctx: 16_384, params: {} },
        total_slots: 4,
        model_path: '/models/qwen3-8b-q4_k_m.gguf',
        chat_template: '…',
      }),
    });
    // One model loaded: llama-server answers to any model name.
    expect(await discoverContextWindow(endpoint(llama.base, 'whatever'))).toEqual({ tokens: 16_384, source: 'llamacpp' });
  });

  it("asks llama.cpp's router for the model's own /props when the bare one is a placeholder", async () => {
    const router = await provider({
      'GET /v1/models': json({
        object: 'list',
        data: [
          { id: 'ggml-org/gemma-3-4b-it-GGUF:Q4_K_M', object: 'model' },
          { id: 'other', object: 'model' },
        ],
      }),
      'GET /props': json({ default_generation_settings: { n_ctx: 0 } }),
      'GET /props?model=ggml-org%2Fgemma-3-4b-it-GGUF%3AQ4_K_M&autoload=false': json({ default_generation_settings: { n_ctx: 8_192 } }),
    });
    expect(await discoverContextWindow(endpoint(router.base, 'ggml-org/gemma-3-4b-it-GGUF:Q4_K_M'))).toEqual({ tokens: 8_192, source: 'llamacpp' });
  });

  it("falls back to llama.cpp's /v1/models meta: n_ctx, then n_ctx_train with a note", async () => {
    const allocated = await provider({ 'GET /v1/models': json({ data: [{ id: 'm', meta: { n_ctx: 32_768, n_ctx_train: 131_072 } }] }) });
    expect(await discoverContextWindow(endpoint(allocated.base, 'm'))).toEqual({ tokens: 32_768, source: 'llamacpp' });
    const trained = await provider({ 'GET /v1/models': json({ data: [{ id: 'm', meta: { n_ctx_train: 131_072 } }] }) });
    expect(await discoverContextWindow(endpoint(trained.base, 'm'))).toMatchObject({
      tokens: 131_072,
      source: 'llamacpp',
      note: expect.stringContaining('training context'),
    });
  });

  it("reads LM Studio's loaded_context_length from /api/v0/models, or its maximum with a note when the model is not loaded", async () => {
    const lmstudio = await provider({
      'GET /v1/models': json({
        object: 'list',
        data: [
          { id: 'qwen/qwen3-coder-30b', object: 'model', owned_by: 'organization_owner' },
          { id: 'google/gemma-3-12b', object: 'model', owned_by: 'organization_owner' },
        ],
      }),
      'GET /api/v0/models': json({
        object: 'list',
        data: [
          {
            id: 'qwen/qwen3-coder-30b',
            object: 'model',
            type: 'llm',
            arch: 'qwen3moe',
            state: 'loaded',
            max_context_length: 262_144,
            loaded_context_length: 32_768,
          },
          { id: 'google/gemma-3-12b', object: 'model', type: 'vlm', arch: 'gemma3', state: 'not-loaded', max_context_length: 131_072 },
        ],
      }),
    });
    expect(await discoverContextWindow(endpoint(lmstudio.base, 'qwen/qwen3-coder-30b', 'none'))).toEqual({ tokens: 32_768, source: 'lmstudio' });
    const unloaded = await discoverContextWindow(endpoint(lmstudio.base, 'google/gemma-3-12b', 'none'));
    expect(unloaded).toMatchObject({ tokens: 131_072, source: 'lmstudio', note: expect.stringContaining('is not loaded') });
  });

  describe('on Ollama', () => {
    const models = json({ object: 'list', data: [{ id: 'qwen3:8b', object: 'model', created: 1, owned_by: 'library' }] });
    const modelInfo = { 'general.architecture': 'qwen3', 'qwen3.context_length': 40_960, 'qwen3.embedding_length': 4_096 };

    it("takes num_ctx from the Modelfile's parameters, POSTing /api/show with the model", async () => {
      const ollama = await provider({
        'GET /v1/models': models,
        'POST /api/show': json({
          modelfile: 'FROM qwen3:8b\nPARAMETER num_ctx 32768',
          parameters: 'num_ctx                        32768\nstop                           "<|im_end|>"',
          model_info: modelInfo,
          capabilities: ['completion', 'tools'],
        }),
      });
      const window = await discoverContextWindow(endpoint(ollama.base, 'qwen3:8b', 'none'));
      expect(window).toEqual({ tokens: 32_768, source: 'ollama', note: "From the model's Modelfile (num_ctx). The model supports up to 40960." });
      expect(JSON.parse(ollama.seen.find((s) => s.path === '/api/show')!.body)).toEqual({ model: 'qwen3:8b' });
    });

    it('takes the context of the loaded model from /api/ps when the Modelfile sets none', async () => {
      const ollama = await provider({
        'GET /v1/models': models,
        'POST /api/show': json({ modelfile: 'FROM qwen3', parameters: 'stop "<|im_end|>"', model_info: modelInfo }),
        'GET /api/ps': json({ models: [{ name: 'qwen3:8b', model: 'qwen3:8b', size: 6_000_000_000, size_vram: 6_000_000_000, context_length: 8_192 }] }),
      });
      expect(await discoverContextWindow(endpoint(ollama.base, 'qwen3:8b', 'none'))).toMatchObject({
        tokens: 8_192,
        source: 'ollama',
        note: expect.stringContaining('OLLAMA_CONTEXT_LENGTH'),
      });
    });

    it('matches a model named without a tag to its :latest', async () => {
      const ollama = await provider({
        'GET /v1/models': json({ data: [{ id: 'llama3.1:latest' }] }),
        'POST /api/show': json({ modelfile: 'FROM llama3.1', model_info: {} }),
        'GET /api/ps': json({ models: [{ name: 'llama3.1:latest', model: 'llama3.1:latest', context_length: 16_384 }] }),
      });
      expect(await discoverContextWindow(endpoint(ollama.base, 'llama3.1', 'none'))).toMatchObject({ tokens: 16_384, source: 'ollama' });
    });

    it("assumes Ollama's default of 4096 when nothing says otherwise, and says how to raise it", async () => {
      const ollama = await provider({
        'GET /v1/models': models,
        'POST /api/show': json({ modelfile: 'FROM qwen3', model_info: modelInfo }),
        'GET /api/ps': json({ models: [] }),
      });
      const window = await discoverContextWindow(endpoint(ollama.base, 'qwen3:8b', 'none'));
      expect(window.tokens).toBe(OLLAMA_DEFAULT_CONTEXT);
      expect(window.source).toBe('ollama');
      expect(window.note).toContain('The model supports up to 40960.');
      expect(window.note).toContain('OLLAMA_CONTEXT_LENGTH=32768');
      expect(window.note).toContain('PARAMETER num_ctx 32768');
    });
  });

  it('says unknown for a server that tells nothing, having asked only its own host', async () => {
    const plain = await provider({ 'GET /v1/models': json({ object: 'list', data: [{ id: 'm', object: 'model', owned_by: 'someone' }] }) });
    const window = await discoverContextWindow(endpoint(plain.base, 'm'));
    expect(window).toEqual({ tokens: null, source: 'unknown', note: 'The provider does not tell its context window; set it in Settings.' });
    expect(plain.seen.map((s) => `${s.method} ${s.path.split('?')[0]}`).sort()).toEqual([
      'GET /api/v0/models',
      'GET /props',
      'GET /v1/models',
      'POST /api/show',
    ]);
    expect(plain.seen.every((s) => s.authorization === `Bearer ${KEY}`)).toBe(true);
  });

  it("asks a hosted provider that publishes nothing only for its /models, not for local servers' APIs", async () => {
    const hosted = await provider({ 'GET /v1/models': json({ data: [{ id: 'deepseek-chat', object: 'model', owned_by: 'deepseek' }] }) });
    const toLocal: typeof fetch = (input, init) => fetch(String(input).replace('https://api.deepseek.com', hosted.origin + '/v1'), init);
    const window = await discoverContextWindow(endpoint('https://api.deepseek.com', 'deepseek-chat'), { fetch: toLocal });
    expect(window).toEqual({ tokens: null, source: 'unknown', note: 'DeepSeek does not publish context windows through its API; set it in Settings.' });
    expect(hosted.seen.map((s) => s.path)).toEqual(['/v1/models']);
  });

  it('sends no Authorization header when the key is empty', async () => {
    const vllm = await provider({ 'GET /v1/models': json({ data: [{ id: 'm', max_model_len: 4_096 }] }) });
    await discoverContextWindow(endpoint(vllm.base, 'm', ''));
    expect(vllm.seen[0]!.authorization).toBeUndefined();
  });

  it('refuses to follow a redirect, so the key never reaches another host', async () => {
    const elsewhere = await provider({ 'GET /v1/models': json({ data: [{ id: 'm', max_model_len: 999_999 }] }) });
    const redirecting = await provider({
      'GET /v1/models': () => ({ status: 302, headers: { location: `${elsewhere.base}/models` } }),
      'GET /props': () => ({ status: 307, headers: { location: `${elsewhere.origin}/props` } }),
    });
    const window = await discoverContextWindow(endpoint(redirecting.base, 'm'));
    expect(window.source).toBe('unknown');
    expect(elsewhere.seen).toEqual([]);
  });

  it('keeps the query of a base URL on /models but not on the root APIs', async () => {
    const server = await provider({ 'GET /v1/models': json({ data: [] }) });
    await discoverContextWindow(endpoint(`${server.base}?api-version=1`, 'm'));
    expect(server.seen.find((s) => s.path.startsWith('/v1/models'))!.path).toBe('/v1/models?api-version=1');
    expect(server.seen.find((s) => s.path.startsWith('/props'))!.path).toBe('/props');
  });

  it('says unknown, never throwing, on a refused connection, a bad body, a bad URL, a timeout and a cancel', async () => {
    const gone = await provider({});
    const goneBase = gone.base;
    await closers.pop()!();
    expect(await discoverContextWindow(endpoint(goneBase, 'm'))).toMatchObject({ tokens: null, source: 'unknown' });

    const garbage = await provider({ 'GET /v1/models': () => ({ text: '{"data": [' }), 'GET /props': () => ({ text: 'not json' }) });
    expect(await discoverContextWindow(endpoint(garbage.base, 'm'))).toMatchObject({ tokens: null, source: 'unknown' });

    const odd = await provider({
      'GET /v1/models': json({ data: [{ id: 'm', max_model_len: -5 }, 'junk'] }),
      'GET /props': json({ default_generation_settings: { n_ctx: 'big' } }),
    });
    expect(await discoverContextWindow(endpoint(odd.base, 'm'))).toMatchObject({ tokens: null, source: 'unknown' });

    expect(await discoverContextWindow(endpoint('not a url', 'm'))).toEqual({
      tokens: null,
      source: 'unknown',
      note: 'The base URL "not a url" is not a URL.',
    });

    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          for (const s of sockets) s.destroy();
          silent.close(() => resolve());
        }),
    );
    const silentBase = `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}/v1`;
    const started = Date.now();
    expect(await discoverContextWindow(endpoint(silentBase, 'm'), { timeoutMs: 300 })).toEqual({
      tokens: null,
      source: 'unknown',
      note: 'The provider did not tell its context window within 300 ms.',
    });
    expect(Date.now() - started).toBeLessThan(3_000);

    const controller = new AbortController();
    const pending = discoverContextWindow(endpoint(silentBase, 'm'), { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    expect(await pending).toEqual({ tokens: null, source: 'unknown', note: 'The discovery was cancelled.' });
  });
});

describe('discovery against a provider whose answers do not end', () => {
  async function endless(routes: Record<string, EndlessRoute>): Promise<EndlessServer> {
    const server = await startEndlessServer(routes);
    closers.push(server.close);
    return server;
  }

  it('stops reading a model list that never ends at its bound and says so, long before its time limit', async () => {
    const server = await endless({ 'GET /v1/models': { endless: true, ...ENDLESS_MODEL_LIST } });
    const started = Date.now();
    const window = await discoverContextWindow(endpoint(server.base, 'm'));
    expect(window).toEqual({
      tokens: null,
      source: 'unknown',
      note: `The provider's answer to GET ${server.base}/models passed 8 MiB; Tilth stopped reading it.`,
    });
    expect(Date.now() - started).toBeLessThan(DISCOVERY_TIMEOUT_MS / 2);
    // What the provider managed to send before Tilth closed the connection: the bound, and what
    // the sockets held on the way.
    const [served] = await server.closed();
    expect(served!.written).toBeLessThan(MODEL_LIST_MAX_BYTES + SOCKET_SLACK_BYTES);
  });

  it('stops reading a huge answer sent without a Content-Length at 1 MiB, and ends the requests beside it', async () => {
    const server = await endless({
      'GET /v1/models': { json: { object: 'list', data: [{ id: 'm', object: 'model' }] } },
      'GET /props': {
        endless: true,
        head: '{"default_generation_settings":{"n_ctx":4096},"chat_template":"',
        unit: 'x'.repeat(1024),
        maxBytes: 48 * 1024 * 1024,
      },
      'GET /api/v0/models': { endless: true, everyMs: 50, head: '{"data":[', unit: ' ' },
    });
    const started = Date.now();
    const window = await discoverContextWindow(endpoint(server.base, 'm'));
    expect(window).toEqual({
      tokens: null,
      source: 'unknown',
      note: `The provider's answer to GET ${server.origin}/props passed 1 MiB; Tilth stopped reading it.`,
    });
    expect(Date.now() - started).toBeLessThan(DISCOVERY_TIMEOUT_MS / 2);
    const served = await server.closed(2);
    expect(served.find((s) => s.route === 'GET /props')!.written).toBeLessThan(METADATA_MAX_BYTES + SOCKET_SLACK_BYTES);
    // The trickling LM Studio request was ended with the discovery, not left to its own timer.
    expect(served.map((s) => s.route).sort()).toEqual(['GET /api/v0/models', 'GET /props']);
  });

  it('keeps its time limit while a body is still arriving, a byte at a time', async () => {
    const server = await endless({ 'GET /v1/models': { endless: true, everyMs: 20, head: '{"data":[', unit: ' ', maxMs: 10_000 } });
    const started = Date.now();
    const window = await discoverContextWindow(endpoint(server.base, 'm'), { timeoutMs: 300, fetch: fetchIgnoringAbortOfBody });
    expect(window).toEqual({ tokens: null, source: 'unknown', note: 'The provider did not tell its context window within 300 ms.' });
    expect(Date.now() - started).toBeLessThan(3_000);
    await server.closed();
  });
});

describe('resolveContextWindow', () => {
  it('prefers the configured window and asks nobody', async () => {
    const vllm = await provider({ 'GET /v1/models': json({ data: [{ id: 'm', max_model_len: 4_096 }] }) });
    expect(await resolveContextWindow(200_000, endpoint(vllm.base, 'm'))).toEqual({ tokens: 200_000, source: 'config' });
    expect(vllm.seen).toEqual([]);
    expect(await resolveContextWindow(null, endpoint(vllm.base, 'm'))).toEqual({ tokens: 4_096, source: 'vllm' });
  });

  it('says unknown for a role without a provider', async () => {
    expect(await resolveContextWindow(null, undefined)).toEqual({ tokens: null, source: 'unknown', note: 'This role has no provider configured.' });
  });
});
