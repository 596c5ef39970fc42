/**
 * A loopback HTTP server that answers each request with the next canned raw response (status,
 * headers, body exactly as given), for tests of how the model client reads what real providers
 * send when things go wrong: error bodies in every shape, HTML pages, plain text.
 *
 * The scripted fake model (fake-model.ts) speaks well-formed OpenAI; this one says whatever the
 * test hands it. Like the fake model it never improvises: a request with no canned response left
 * gets a 418 and is counted in `unanswered`, which the test checks.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type CannedResponse = {
  status: number;
  /** A string is sent as is; anything else as JSON. */
  body: unknown;
  /** Defaults to application/json for non-strings and text/plain for strings. */
  contentType?: string;
  headers?: Record<string, string>;
};

export type CannedRequest = { method: string; path: string; body: string };

export type CannedServer = {
  baseURL: string;
  requests: CannedRequest[];
  /** Requests that found nothing left to answer with. */
  unanswered: number;
  enqueue(...responses: CannedResponse[]): void;
  close(): Promise<void>;
};

/** A chat completion with one choice, for the turn that finally succeeds. */
export function cannedCompletion(content: string, finishReason = 'stop'): CannedResponse {
  return {
    status: 200,
    body: {
      id: 'chatcmpl-canned',
      object: 'chat.completion',
      created: 0,
      model: 'canned',
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: finishReason }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    },
  };
}

export async function startCannedServer(): Promise<CannedServer> {
  const queue: CannedResponse[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      canned.requests.push({ method: req.method ?? '', path: req.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
      const next = queue.shift();
      if (!next) {
        canned.unanswered += 1;
        res.writeHead(418, { 'content-type': 'text/plain' }).end('no canned response left');
        return;
      }
      const text = typeof next.body === 'string' ? next.body : JSON.stringify(next.body);
      const contentType = next.contentType ?? (typeof next.body === 'string' ? 'text/plain; charset=utf-8' : 'application/json');
      res.writeHead(next.status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text), ...next.headers }).end(text);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const canned: CannedServer = {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests: [],
    unanswered: 0,
    enqueue: (...responses) => void queue.push(...responses),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return canned;
}
