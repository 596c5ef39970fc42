/** GET /api/config/context-windows: each role's window, configured or asked of its provider. */
import http from 'node:http';
import type net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ContextWindowsResponseSchema, ErrorBodySchema } from '../../../shared/api.ts';
import { auth, makeTestApp, type TestApp } from '../../testing/test-app.ts';

const KEY = 'sk-windows-secret-0123456789abcdef';

let t: TestApp | undefined;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await t?.close();
  t = undefined;
  await Promise.all(closers.splice(0).map((c) => c()));
});

/** A vLLM-shaped server listing `models` with their max_model_len; counts GET /v1/models. */
async function vllm(models: Record<string, number>): Promise<{ base: string; listed: () => number; keys: string[] }> {
  let listed = 0;
  const keys: string[] = [];
  const server = http.createServer((req, res) => {
    keys.push(req.headers.authorization ?? '');
    if (req.method === 'GET' && req.url === '/v1/models') {
      listed++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ object: 'list', data: Object.entries(models).map(([id, max]) => ({ id, object: 'model', owned_by: 'vllm', max_model_len: max })) }),
      );
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"error":"not found"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { base: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/v1`, listed: () => listed, keys };
}

async function windows(query = '') {
  const res = await t!.app.inject({ url: `/api/config/context-windows${query}`, headers: auth });
  return res;
}

describe('GET /api/config/context-windows', () => {
  it("discovers each role's window from its provider, asking once for roles on the same endpoint and model, and never echoes the key", async () => {
    const server = await vllm({ coder: 65_536, judge: 32_768 });
    t = await makeTestApp({ env: { TILTH_BASE_URL: server.base, TILTH_API_KEY: KEY, TILTH_WORKER_MODEL: 'coder', TILTH_EVALUATOR_MODEL: 'judge' } });
    const res = await windows();
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body).not.toContain(KEY);
    expect(ContextWindowsResponseSchema.parse(res.json())).toEqual({
      roles: {
        worker: { configured: null, discovered: { tokens: 65_536, source: 'vllm', note: null } },
        evaluator: { configured: null, discovered: { tokens: 32_768, source: 'vllm', note: null } },
        prep: { configured: null, discovered: { tokens: 65_536, source: 'vllm', note: null } },
      },
    });
    expect(server.listed()).toBe(2); // worker and prep share one question
    expect(server.keys.every((k) => k === `Bearer ${KEY}`)).toBe(true);
  });

  it('answers the configured window beside what the provider says, and one role when asked for one', async () => {
    const server = await vllm({ coder: 65_536 });
    t = await makeTestApp({ env: { TILTH_BASE_URL: server.base, TILTH_API_KEY: KEY, TILTH_WORKER_MODEL: 'coder', TILTH_WORKER_CONTEXT_WINDOW: '131072' } });
    const res = await windows('?role=evaluator');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ roles: { evaluator: { configured: 131_072, discovered: { tokens: 65_536, source: 'vllm', note: null } } } });
    expect(server.listed()).toBe(1);
  });

  it('says unknown for the roles of a server without a provider', async () => {
    t = await makeTestApp();
    const res = await windows();
    expect(res.statusCode).toBe(200);
    const body = ContextWindowsResponseSchema.parse(res.json());
    expect(body.roles.worker).toEqual({ configured: null, discovered: { tokens: null, source: 'unknown', note: 'This role has no provider configured.' } });
  });

  it('refuses an unknown role or parameter with a 400 that says what is wrong', async () => {
    t = await makeTestApp();
    const bad = await windows('?role=judge');
    expect(bad.statusCode).toBe(400);
    expect(ErrorBodySchema.parse(bad.json()).error.message).toMatch(/role/);
    const extra = await windows('?colour=blue');
    expect(extra.statusCode).toBe(400);
  });

  it('needs the access token', async () => {
    t = await makeTestApp();
    const res = await t.app.inject({ url: '/api/config/context-windows' });
    expect(res.statusCode).toBe(401);
  });
});
