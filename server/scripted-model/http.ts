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

/** The start of a model list, and one entry of it again and again. */
export const ENDLESS_MODEL_LIST = { head: '{"object":"list","data":[', unit: '{"id":"endless","object":"model","created":0,"owned_by":"nobody"},' };
/** The start of a chat completion whose content never closes. */
export const ENDLESS_COMPLETION = {
  head: '{"id":"chatcmpl-endless","object":"chat.completion","created":0,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"',
  unit: 'endless ',
};
/** A streamed chat completion: one content chunk after another, never `[DONE]`. */
export const ENDLESS_COMPLETION_STREAM = {
  head: '',
  unit: 'data: {"id":"chatcmpl-endless","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"content":"endless "},"finish_reason":null}]}\n\n',
};

/** Where an endless body stops anyway, so a client that never stops reading cannot take the machine. */
export const ENDLESS_SAFETY_BYTES = 1024 * 1024 * 1024;

export type EndlessOptions = {
  /** Written once, first (the start of a JSON document, say). */
  head: string;
  /** Written over and over after it. */
  unit: string;
  /** One unit per interval instead of as fast as the client reads: a body that trickles. */
  everyMs?: number;
  /** The safety stop: the body ends after this many bytes (default ENDLESS_SAFETY_BYTES)… */
  maxBytes?: number;
  /** …or after this long. */
  maxMs?: number;
};

/**
 * A 200 whose body does not end: `head`, then `unit` again and again, as fast as the client takes
 * it (the socket's backpressure paces it), until the client goes away or a safety stop. Resolves
 * with the bytes of body written — what a client that stops reading early has cost.
 */
export function sendEndless(res: http.ServerResponse, contentType: string, options: EndlessOptions, status = 200): Promise<number> {
  const maxBytes = options.maxBytes ?? ENDLESS_SAFETY_BYTES;
  const deadline = options.maxMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + options.maxMs;
  const block = options.everyMs === undefined ? options.unit.repeat(Math.max(1, Math.ceil(65_536 / Math.max(1, options.unit.length)))) : options.unit;
  let written = 0;
  return new Promise((resolve) => {
    const done = () => resolve(written);
    if (res.destroyed || res.writableEnded) return done();
    res.once('close', done);
    res.writeHead(status, { 'content-type': contentType });
    const write = (text: string): boolean => {
      written += Buffer.byteLength(text);
      return res.write(text);
    };
    const stopped = () => res.destroyed || res.writableEnded;
    const finished = () => written >= maxBytes || Date.now() >= deadline;
    write(options.head);
    if (options.everyMs !== undefined) {
      const timer = setInterval(() => {
        if (stopped()) return clearInterval(timer);
        if (finished()) {
          clearInterval(timer);
          return void res.end();
        }
        write(block);
      }, options.everyMs);
      res.once('close', () => clearInterval(timer));
      return;
    }
    const pump = () => {
      while (!stopped()) {
        if (finished()) return void res.end();
        if (!write(block)) return void res.once('drain', pump);
      }
    };
    pump();
  });
}
