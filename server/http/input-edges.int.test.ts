/**
 * Bad input at every layer — Node's HTTP parser, Fastify's router, the body parser, the
 * validators, the filesystem — is a 4xx with the `{error: {code, message}}` body, never a 500
 * or another shape, and never before the Host and token checks where those can run.
 */
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorBodySchema } from '../../shared/api.ts';
import { auth, makeTestApp, TEST_TOKEN, type TestApp } from '../testing/test-app.ts';

let t: TestApp;
let port: number;
beforeEach(async () => {
  t = await makeTestApp({ env: { TILTH_BASE_URL: 'http://127.0.0.1:9/v1', TILTH_API_KEY: 'sk-test', TILTH_WORKER_MODEL: 'm' } });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.server.address() as AddressInfo).port;
  t.setPort(port);
});
afterEach(async () => {
  await t.close();
});

const host = () => ({ host: `127.0.0.1:${port}` });
const makeSession = () => t.store.create({ source: '/repo', brief: 'b', baseBranch: 'main', baseSha: 'abc', status: 'prepared' }).session_id;

/** Status and parsed error body; fails the test unless the body has our shape. */
function errorOf(res: { statusCode: number; body: string }): { status: number; code: string; message: string } {
  const { error } = ErrorBodySchema.parse(JSON.parse(res.body));
  return { status: res.statusCode, ...error };
}

/** Sends bytes on a fresh TCP connection and returns the status and body the server wrote. */
function rawRequest(text: string): Promise<{ statusCode: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    const chunks: Buffer[] = [];
    socket.on('data', (d) => chunks.push(d));
    // The server may reset the connection after answering a request it could not parse.
    socket.on('error', () => {});
    socket.on('close', () => {
      const response = Buffer.concat(chunks).toString('utf8');
      const match = /^HTTP\/1\.1 (\d{3}) /.exec(response);
      if (!match) return reject(new Error(`no HTTP response: ${JSON.stringify(response.slice(0, 200))}`));
      resolve({ statusCode: Number(match[1]), body: response.slice(response.indexOf('\r\n\r\n') + 4) });
    });
  });
}

const headerLines = (headers: Record<string, string>) =>
  Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
const get = (target: string, headers: Record<string, string> = { ...host(), ...auth }) =>
  rawRequest(`GET ${target} HTTP/1.1\r\n${headerLines(headers)}Connection: close\r\n\r\n`);

describe('filesystem paths', () => {
  it('refuses a NUL byte, an overlong path and an overlong name in the workspace check with a 400 saying what to fix', async () => {
    const check = (p: string) => t.app.inject({ url: `/api/workspaces/check?path=${encodeURIComponent(p)}`, headers: { ...host(), ...auth } });
    expect(errorOf(await check('/tmp/a\0b'))).toMatchObject({ status: 400, code: 'invalid_request', message: expect.stringMatching(/NUL byte/) });
    expect(errorOf(await check(`/${'a'.repeat(6000)}`))).toMatchObject({
      status: 400,
      code: 'invalid_request',
      message: expect.stringMatching(/4,096 characters at most/),
    });
    expect(errorOf(await check(`/tmp/${'a'.repeat(300)}`))).toMatchObject({ status: 400, code: 'invalid_path', message: expect.stringMatching(/255 bytes/) });
    // A file where a folder should be is simply "nothing there", not an error.
    const underFile = await check(path.join(import.meta.filename, 'x'));
    expect(underFile.statusCode).toBe(200);
    expect(underFile.json()).toMatchObject({ ok: false, kind: 'missing' });
  });

  it('refuses the same workspaces when creating a session, and creates nothing', async () => {
    const create = (workspace: string) =>
      t.app.inject({ method: 'POST', url: '/api/sessions', headers: { ...host(), ...auth }, payload: { workspace, brief: 'Add a thing' } });
    expect(errorOf(await create('/tmp/a\0b'))).toMatchObject({
      status: 400,
      code: 'invalid_request',
      message: expect.stringMatching(/workspace: must not contain a NUL byte/),
    });
    expect(errorOf(await create(`/${'a'.repeat(6000)}`))).toMatchObject({
      status: 400,
      code: 'invalid_request',
      message: expect.stringMatching(/workspace: is 4,096/),
    });
    expect(errorOf(await create(`/tmp/${'a'.repeat(300)}`))).toMatchObject({ status: 400, code: 'invalid_path' });
    expect(t.store.list()).toEqual([]);
  });
});

describe('request bodies', () => {
  it('refuses null, arrays and bare values on every route that takes a body, before the handler runs', async () => {
    const id = makeSession();
    const withBody = t.app.routeTable.filter((r) => ['POST', 'PUT', 'PATCH'].includes(r.method));
    // The table is the app's own: a route added later is covered without touching this test.
    expect(withBody.map((r) => `${r.method} ${r.url}`)).toEqual(
      expect.arrayContaining(['POST /api/demo', 'POST /api/sessions', 'PUT /api/config', 'POST /api/auth']),
    );
    for (const route of withBody) {
      const url = route.url.replace(':id', id).replace(':taskId', 'T-001');
      for (const payload of ['null', '[]', '[{}]', '"text"', '7', 'true']) {
        const res = await t.app.inject({
          method: route.method as 'POST',
          url,
          headers: { ...host(), ...auth, origin: `http://127.0.0.1:${port}`, 'content-type': 'application/json' },
          payload,
        });
        expect(errorOf(res), `${route.method} ${route.url} ${payload}`).toMatchObject({
          status: 400,
          code: 'invalid_request',
          message: expect.stringMatching(/must be a JSON object/),
        });
      }
    }
    expect(t.store.list().map((s) => s.id)).toEqual([id]); // no demo (or any) session was created
  });
});

describe('requests the router or the HTTP parser refuse', () => {
  it('answers 414 for an overlong request target and 431 for overlong headers, in our body shape', async () => {
    expect(errorOf(await get(`/api/sessions?x=${'a'.repeat(20_000)}`))).toMatchObject({ status: 414, code: 'uri_too_long' });
    expect(errorOf(await get('/api/health', { ...host(), ...auth, 'x-padding': 'a'.repeat(20_000) }))).toMatchObject({
      status: 431,
      code: 'headers_too_large',
    });
    expect(errorOf(await rawRequest('NOT HTTP AT ALL\r\n\r\n'))).toMatchObject({ status: 400, code: 'bad_request' });
  });

  it('answers an overlong path segment with 414 uri_too_long, after the Host and token checks', async () => {
    const target = `/api/sessions/${'a'.repeat(500)}`;
    expect(errorOf(await get(target))).toMatchObject({ status: 414, code: 'uri_too_long' });
    expect(errorOf(await get(target, host()))).toMatchObject({ status: 401, code: 'unauthorized' });
    expect(errorOf(await get(target, { host: 'evil.example', ...auth }))).toMatchObject({ status: 403, code: 'bad_host' });
  });

  it('answers bad percent-encoding with 400 invalid_request, after the Host and token checks', async () => {
    for (const target of ['/api/sessions/%zz', '/%zz', '/api/sessions/%E0%A4%A']) {
      expect(errorOf(await get(target)), target).toMatchObject({ status: 400, code: 'invalid_request', message: expect.stringMatching(/percent-encoding/) });
      expect(errorOf(await get(target, host())), target).toMatchObject({ status: 401, code: 'unauthorized' });
      expect(errorOf(await get(target, { host: 'evil.example', ...auth })), target).toMatchObject({ status: 403, code: 'bad_host' });
    }
  });

  it('answers NUL bytes in path parameters with 400', async () => {
    const id = makeSession();
    expect(errorOf(await get('/api/sessions/abc%00def'))).toMatchObject({ status: 400, code: 'invalid_request' });
    expect(errorOf(await get(`/api/sessions/${id}/tasks/T-0%0001`))).toMatchObject({ status: 400, code: 'invalid_request' });
  });
});

describe('Host headers', () => {
  it('refuses a request with two Host headers, ours first, with 400 duplicate_host', async () => {
    const ours = `127.0.0.1:${port}`;
    const twice = (second: string) =>
      rawRequest(`GET /api/health HTTP/1.1\r\nHost: ${ours}\r\nHost: ${second}\r\nAuthorization: Bearer ${TEST_TOKEN}\r\nConnection: close\r\n\r\n`);
    expect(errorOf(await twice('evil.example'))).toMatchObject({ status: 400, code: 'duplicate_host' });
    expect(errorOf(await twice(ours))).toMatchObject({ status: 400, code: 'duplicate_host' });
    // The upgrade goes through the same check.
    const upgrade = await rawRequest(
      `GET /api/stream HTTP/1.1\r\nHost: ${ours}\r\nhost: evil.example\r\nAuthorization: Bearer ${TEST_TOKEN}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${Buffer.alloc(16).toString('base64')}\r\n\r\n`,
    );
    expect(errorOf(upgrade)).toMatchObject({ status: 400, code: 'duplicate_host' });
    // One Host header of ours is fine.
    expect((await get('/api/health')).statusCode).toBe(200);
  });
});
