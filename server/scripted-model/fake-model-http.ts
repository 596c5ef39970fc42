/** Small HTTP helpers of the fake model server: JSON and SSE replies, bounded body reading. */
import type http from 'node:http';

const MAX_BODY_BYTES = 32 * 1024 * 1024;
const HIDDEN_HEADERS = new Set(['authorization', 'api-key', 'x-api-key', 'cookie', 'proxy-authorization']);

export function visibleHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HIDDEN_HEADERS.has(name)) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

export function errorBody(code: string, message: string, type = 'invalid_request_error') {
  return { error: { message, type, code } };
}

export function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed || res.writableEnded) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function sendError(res: http.ServerResponse, status: number, code: string, message: string): void {
  sendJson(res, status, errorBody(code, message));
}

export function sendSse(res: http.ServerResponse, events: unknown[]): void {
  if (res.destroyed || res.writableEnded) return;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  for (const event of events) res.write(`data: ${JSON.stringify(event)}\n\n`);
  res.end('data: [DONE]\n\n');
}

export class BodyTooLargeError extends Error {}

type JsonBody = { ok: true; value: unknown } | { ok: false; message: string };

export async function readJson(req: http.IncomingMessage, opts: { allowEmpty?: boolean } = {}): Promise<JsonBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLargeError(`request body is larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return opts.allowEmpty ? { ok: true, value: undefined } : { ok: false, message: 'the request body is empty; send JSON' };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, message: `the request body is not valid JSON: ${(err as Error).message}` };
  }
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
