/**
 * A loopback provider whose answers do not end, for tests of the size and time bounds on what
 * Tilth reads: a body that streams as fast as the client reads, a large one sent without a
 * Content-Length, one that trickles a byte at a time. Each route is either such a body or a plain
 * JSON answer; anything else is a 404. Every answer records how many bytes of body it wrote before
 * the client closed: what reading it cost the client, whatever the timing.
 *
 * The bodies stop anyway at a safety limit (`sendEndless`), so a client without a bound fails its
 * test on what it read instead of taking the machine's memory.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendEndless, type EndlessOptions } from '../scripted-model/http.ts';

export { ENDLESS_COMPLETION, ENDLESS_COMPLETION_STREAM, ENDLESS_MODEL_LIST } from '../scripted-model/http.ts';

export type EndlessRoute =
  | ({ endless: true; status?: number; contentType?: string } & EndlessOptions)
  | { json: unknown; status?: number; headers?: Record<string, string> };

export type Served = { route: string; written: number };

export type EndlessServer = {
  /** `http://127.0.0.1:<port>/v1` */
  base: string;
  origin: string;
  /** One entry per endless answer once its connection closed: the bytes of body it wrote. */
  served: Served[];
  /** Every request, as "GET /v1/models". */
  requests: string[];
  /** Resolves once `count` endless answers have closed. */
  closed(count?: number): Promise<Served[]>;
  close(): Promise<void>;
};

/**
 * What the sockets between the two ends may hold when the client stops reading: a client that
 * read at most N bytes leaves the server having written at most about N plus this.
 */
export const SOCKET_SLACK_BYTES = 16 * 1024 * 1024;

/** Safety limit for these tests: far past any bound under test, far below harm. */
export const TEST_SAFETY_BYTES = 160 * 1024 * 1024;

/** `routes` by "METHOD /path" (no query). */
export async function startEndlessServer(routes: Record<string, EndlessRoute>): Promise<EndlessServer> {
  const served: Served[] = [];
  const requests: string[] = [];
  const waiters: { count: number; resolve: (s: Served[]) => void }[] = [];
  const settle = () => {
    for (const waiter of [...waiters]) {
      if (served.length < waiter.count) continue;
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve([...served]);
    }
  };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const route = `${req.method} ${new URL(req.url ?? '/', 'http://x').pathname}`;
      requests.push(route);
      const answer = routes[route];
      if (answer === undefined) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no route ${route}` } }));
        return;
      }
      if ('json' in answer) {
        res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers }).end(JSON.stringify(answer.json));
        return;
      }
      const { endless: _, status, contentType, ...options } = answer;
      void sendEndless(res, contentType ?? 'application/json', { maxBytes: TEST_SAFETY_BYTES, ...options }, status).then((written) => {
        served.push({ route, written });
        settle();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}/v1`,
    origin: `http://127.0.0.1:${port}`,
    served,
    requests,
    closed: (count = 1) =>
      new Promise((resolve) => {
        waiters.push({ count, resolve });
        settle();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A fetch that does not end a body when the request's signal aborts: what Node's own fetch does
 * once a garbage collection has run, for a request made with `redirect: 'error'` (seen in Node 20,
 * depending on when the collector runs). It still stops at the headers, as Node's fetch does.
 */
export const fetchIgnoringAbortOfBody: typeof fetch = async (input, init) => {
  const { signal, ...rest } = init ?? {};
  const aborted = new Promise<never>((_, reject) => {
    signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
  aborted.catch(() => undefined);
  return Promise.race([fetch(input, rest), aborted]);
};
