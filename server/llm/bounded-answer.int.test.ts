/**
 * The one reader of providers' bodies against a real loopback server: what passes, what is cut,
 * and that cutting closes the connection (the server stops writing), for plain reads and for the
 * OpenAI SDK's streamed replies.
 */
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { ENDLESS_COMPLETION_STREAM, fetchIgnoringAbortOfBody, SOCKET_SLACK_BYTES, startEndlessServer, type EndlessServer } from '../testing/endless-http.ts';
import { AnswerTooLargeError, METADATA_MAX_BYTES, boundAnswers, readBounded, requestLabel } from './bounded-answer.ts';

const servers: EndlessServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function server(routes: Parameters<typeof startEndlessServer>[0]): Promise<EndlessServer> {
  const started = await startEndlessServer(routes);
  servers.push(started);
  return started;
}

describe('readBounded', () => {
  it('reads an answer within its bound whole', async () => {
    const s = await server({ 'GET /v1/props': { json: { n_ctx: 4096 } } });
    const url = `${s.base}/props`;
    expect(await readBounded(await fetch(url), { limit: 1024, request: requestLabel('GET', url) })).toBe('{"n_ctx":4096}');
  });

  it('refuses an answer whose Content-Length is past the bound without reading it', async () => {
    const s = await server({ 'GET /v1/props': { json: 'x'.repeat(2048), headers: { 'content-length': '2050' } } });
    const url = `${s.base}/props`;
    const response = await fetch(url);
    expect(response.headers.get('content-length')).toBe('2050');
    await expect(readBounded(response, { limit: 1024, request: requestLabel('GET', url) })).rejects.toThrow(new AnswerTooLargeError(`GET ${url}`, 1024, 200));
  });

  it('stops a body that never ends at the bound and closes the connection', async () => {
    const s = await server({ 'GET /v1/props': { endless: true, head: '{"x":"', unit: 'x' } });
    const url = `${s.base}/props`;
    const error = await readBounded(await fetch(url), { limit: METADATA_MAX_BYTES, request: requestLabel('GET', url) }).catch((err: unknown) => err);
    expect(error).toEqual(new AnswerTooLargeError(`GET ${url}`, METADATA_MAX_BYTES, 200));
    expect((error as Error).message).toBe(`The provider's answer to GET ${url} passed 1 MiB; Tilth stopped reading it.`);
    const [served] = await s.closed();
    expect(served!.written).toBeLessThan(METADATA_MAX_BYTES + SOCKET_SLACK_BYTES);
  });

  it("stops when the request's signal aborts, with its reason, while the body is still arriving", async () => {
    const s = await server({ 'GET /v1/props': { endless: true, everyMs: 10, head: '{', unit: ' ', maxMs: 10_000 } });
    const url = `${s.base}/props`;
    const signal = AbortSignal.timeout(200);
    const started = Date.now();
    const response = await fetchIgnoringAbortOfBody(url, { signal, redirect: 'error' });
    await expect(readBounded(response, { limit: METADATA_MAX_BYTES, request: requestLabel('GET', url), signal })).rejects.toThrow(/timeout/i);
    expect(Date.now() - started).toBeLessThan(2_000);
    await s.closed();
  });
});

describe('boundAnswers, the OpenAI SDK’s fetch', () => {
  it('stops a streamed completion that never ends at its bound', async () => {
    const s = await server({ 'POST /v1/chat/completions': { endless: true, contentType: 'text/event-stream', ...ENDLESS_COMPLETION_STREAM } });
    const sdk = new OpenAI({ baseURL: s.base, apiKey: 'none', maxRetries: 0, fetch: boundAnswers(METADATA_MAX_BYTES) });
    const stream = await sdk.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true });
    let chunks = 0;
    const error = await (async () => {
      for await (const _ of stream) chunks += 1;
    })().catch((err: unknown) => err);
    expect(error).toBeInstanceOf(AnswerTooLargeError);
    expect((error as Error).message).toBe(`The provider's answer to POST ${s.base}/chat/completions passed 1 MiB; Tilth stopped reading it.`);
    expect(chunks).toBeGreaterThan(1_000);
    const [served] = await s.closed();
    expect(served!.written).toBeLessThan(METADATA_MAX_BYTES + SOCKET_SLACK_BYTES);
  });
});
