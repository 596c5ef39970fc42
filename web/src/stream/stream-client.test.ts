import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import type { TilthEvent } from '../../../shared/events.ts';
import type { ClientFrame, ServerFrame } from '../../../shared/stream-protocol.ts';
import { StreamClient, type ConnectionState, type RetryInfo, type StreamClientOptions } from './stream-client.ts';

const SESSION = '20260525-103149-3800ea';

function event(seq: number): TilthEvent {
  return {
    seq,
    ts: new Date(Date.UTC(2026, 4, 25, 10, 0, seq)).toISOString(),
    type: 'status_changed',
    data: { from: null, to: 'running' },
  };
}

/** One server-side connection: what the client sent, and a way to answer. */
class Conn {
  readonly received: ClientFrame[] = [];
  private readonly waiters: Array<() => void> = [];

  constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      this.received.push(JSON.parse(String(data)) as ClientFrame);
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  send(frame: ServerFrame | string | Buffer): void {
    this.socket.send(typeof frame === 'string' || Buffer.isBuffer(frame) ? frame : JSON.stringify(frame));
  }

  sendEvents(...seqs: number[]): void {
    for (const seq of seqs) this.send({ type: 'event', sessionId: SESSION, event: event(seq) });
  }

  subscribes(): Array<Extract<ClientFrame, { type: 'subscribe' }>> {
    return this.received.filter((f): f is Extract<ClientFrame, { type: 'subscribe' }> => f.type === 'subscribe');
  }

  /** Resolves with the n-th (1-based) subscribe frame once it has arrived. */
  async nthSubscribe(n: number): Promise<Extract<ClientFrame, { type: 'subscribe' }>> {
    await waitFor(() => this.subscribes().length >= n);
    const frame = this.subscribes()[n - 1];
    if (frame === undefined) throw new Error('unreachable');
    return frame;
  }
}

class FakeStreamServer {
  readonly connections: Conn[] = [];
  private constructor(
    private readonly wss: WebSocketServer,
    readonly url: string,
  ) {}

  static async start(onConnection?: (conn: Conn) => void, onPort = 0): Promise<FakeStreamServer> {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: onPort });
    await once(wss, 'listening');
    const { port } = wss.address() as AddressInfo;
    const server = new FakeStreamServer(wss, `ws://127.0.0.1:${port}/api/stream`);
    wss.on('connection', (socket) => {
      const conn = new Conn(socket);
      server.connections.push(conn);
      onConnection?.(conn);
    });
    return server;
  }

  async connection(n: number): Promise<Conn> {
    await waitFor(() => this.connections.length >= n);
    const conn = this.connections[n - 1];
    if (conn === undefined) throw new Error('unreachable');
    return conn;
  }

  async close(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }
}

/** Answers every subscribe from `log` like the real server: backlog after afterSeq, then caught-up. */
function serveLog(conn: Conn, log: () => number[]): void {
  conn.socket.on('message', (data) => {
    const frame = JSON.parse(String(data)) as ClientFrame;
    if (frame.type !== 'subscribe') return;
    const seqs = log().filter((seq) => seq > frame.afterSeq);
    conn.sendEvents(...seqs);
    conn.send({ type: 'caught-up', sessionId: SESSION, lastSeq: log().at(-1) ?? 0 });
  });
}

async function waitFor(predicate: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function makeClient(url: string, options: Partial<StreamClientOptions> = {}) {
  const logs: string[] = [];
  const states: ConnectionState[] = [];
  const client = new StreamClient({
    url,
    WebSocket,
    retry: { probeMs: 5, probeForMs: 50, flapMs: 0, backoff: { baseMs: 10, capMs: 50 } },
    log: (message) => logs.push(message),
    ...options,
  });
  client.onStateChange((state) => states.push(state));
  cleanups.push(() => client.stop());
  return { client, logs, states };
}

function collect(client: StreamClient, afterSeq = 0) {
  const seqs: number[] = [];
  const caughtUp: number[] = [];
  const errors: string[] = [];
  const unsubscribe = client.subscribe(SESSION, afterSeq, {
    onEvent: (e) => seqs.push(e.seq),
    onCaughtUp: (lastSeq) => caughtUp.push(lastSeq),
    onError: (e) => errors.push(e.code),
  });
  return { seqs, caughtUp, errors, unsubscribe };
}

async function startServer(onConnection?: (conn: Conn) => void, port?: number): Promise<FakeStreamServer> {
  const server = await FakeStreamServer.start(onConnection, port);
  cleanups.push(() => server.close());
  return server;
}

describe('StreamClient', () => {
  it('subscribes, delivers the backlog in order, reports caught-up, then delivers live events', async () => {
    const log = [1, 2, 3];
    const server = await startServer((conn) => serveLog(conn, () => log));
    const { client, states } = makeClient(server.url);
    const sub = collect(client);
    client.start();

    await waitFor(() => sub.caughtUp.length === 1);
    expect(sub.seqs).toEqual([1, 2, 3]);
    expect(sub.caughtUp).toEqual([3]);
    const conn = await server.connection(1);
    expect(conn.received.slice(0, 2)).toEqual([{ type: 'subscribe-sessions' }, { type: 'subscribe', sessionId: SESSION, afterSeq: 0 }]);

    log.push(4);
    conn.sendEvents(4);
    await waitFor(() => sub.seqs.length === 4);
    expect(sub.seqs).toEqual([1, 2, 3, 4]);
    expect(client.lastSeq(SESSION)).toBe(4);
    expect(states).toEqual(['connecting', 'open']);
  });

  it('ignores events at or below the last seq it delivered', async () => {
    const server = await startServer((conn) => {
      conn.sendEvents(1, 2, 2, 1, 3, 3);
      conn.send({ type: 'caught-up', sessionId: SESSION, lastSeq: 3 });
    });
    const { client } = makeClient(server.url);
    const sub = collect(client);
    client.start();

    await waitFor(() => sub.caughtUp.length === 1);
    expect(sub.seqs).toEqual([1, 2, 3]);
  });

  it('starts from the given seq and never delivers events before it', async () => {
    const server = await startServer((conn) => serveLog(conn, () => [1, 2, 3, 4]));
    const { client } = makeClient(server.url);
    const sub = collect(client, 2);
    client.start();

    await waitFor(() => sub.caughtUp.length === 1);
    expect(sub.seqs).toEqual([3, 4]);
    expect((await (await server.connection(1)).nthSubscribe(1)).afterSeq).toBe(2);
  });

  it('reconnects after the server drops the connection and resubscribes from the last seq', async () => {
    const log = [1, 2, 3];
    const server = await startServer((conn) => serveLog(conn, () => log));
    const { client, states } = makeClient(server.url);
    let sessionsChanged = 0;
    client.onSessionsChanged(() => sessionsChanged++);
    const sub = collect(client);
    client.start();
    await waitFor(() => sub.caughtUp.length === 1);

    // Two events are appended while the client is away.
    (await server.connection(1)).socket.terminate();
    log.push(4, 5);

    const second = await server.connection(2);
    const resubscribe = await second.nthSubscribe(1);
    expect(resubscribe.afterSeq).toBe(3);
    expect(second.received[0]).toEqual({ type: 'subscribe-sessions' });
    await waitFor(() => sub.caughtUp.length === 2);
    expect(sub.seqs).toEqual([1, 2, 3, 4, 5]);
    expect(states).toEqual(['connecting', 'open', 'reconnecting', 'open']);
    // The sessions-changed frames sent while it was away are lost, so it reports a change itself.
    expect(sessionsChanged).toBe(1);
  });

  it('resubscribes from the last seq after a gap, once, and fills the hole in order', async () => {
    const server = await startServer((conn) => {
      conn.sendEvents(1, 2);
      conn.send({ type: 'caught-up', sessionId: SESSION, lastSeq: 2 });
      conn.sendEvents(5, 6); // 3 and 4 never arrive
    });
    const { client } = makeClient(server.url);
    const sub = collect(client);
    client.start();

    const conn = await server.connection(1);
    const resubscribe = await conn.nthSubscribe(2);
    expect(resubscribe.afterSeq).toBe(2);
    await sleep(30);
    expect(conn.subscribes()).toHaveLength(2); // event 6 did not trigger another request
    expect(sub.seqs).toEqual([1, 2]);

    conn.sendEvents(3, 4, 5, 6);
    conn.send({ type: 'caught-up', sessionId: SESSION, lastSeq: 6 });
    await waitFor(() => sub.caughtUp.length === 2);
    expect(sub.seqs).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('asks again when caught-up reports more than it received', async () => {
    const log = [1, 2, 3];
    let first = true;
    const server = await startServer((conn) => {
      conn.socket.on('message', (data) => {
        const frame = JSON.parse(String(data)) as ClientFrame;
        if (frame.type !== 'subscribe') return;
        if (first) {
          first = false;
          conn.sendEvents(1); // the server "loses" 2 and 3
          conn.send({ type: 'caught-up', sessionId: SESSION, lastSeq: 3 });
          return;
        }
        conn.sendEvents(...log.filter((s) => s > frame.afterSeq));
        conn.send({ type: 'caught-up', sessionId: SESSION, lastSeq: 3 });
      });
    });
    const { client } = makeClient(server.url);
    const sub = collect(client);
    client.start();

    await waitFor(() => sub.caughtUp.length === 1);
    expect(sub.seqs).toEqual([1, 2, 3]);
    expect((await server.connection(1)).subscribes().map((f) => f.afterSeq)).toEqual([0, 1]);
  });

  it('drops frames that are not JSON or do not match the protocol, and keeps the connection', async () => {
    const server = await startServer((conn) => {
      conn.send('not json');
      conn.send(JSON.stringify({ type: 'no-such-frame' }));
      conn.send(JSON.stringify({ type: 'event', sessionId: SESSION, event: { seq: 'one', type: 'stop' } }));
      conn.send(JSON.stringify({ type: 'event', sessionId: 'not-a-session-id', event: event(1) }));
      conn.send(Buffer.from([1, 2, 3]));
      conn.sendEvents(1);
    });
    const { client, logs } = makeClient(server.url);
    const sub = collect(client);
    client.start();

    await waitFor(() => sub.seqs.length === 1);
    expect(sub.seqs).toEqual([1]);
    expect(logs.filter((m) => m.startsWith('dropped'))).toHaveLength(5);
    await sleep(30);
    expect(server.connections).toHaveLength(1);
    expect(client.getState()).toBe('open');
  });

  it('reports a server error for a subscription to its handler', async () => {
    const server = await startServer((conn) => {
      conn.socket.on('message', (data) => {
        if ((JSON.parse(String(data)) as ClientFrame).type !== 'subscribe') return;
        conn.send({ type: 'error', code: 'session_not_found', message: 'no such session', sessionId: SESSION });
      });
    });
    const { client } = makeClient(server.url);
    const sub = collect(client);
    client.start();
    await waitFor(() => sub.errors.length > 0);
    expect(sub.errors).toEqual(['session_not_found']);
  });

  it('fires sessions-changed listeners on each sessions-changed frame', async () => {
    const server = await startServer((conn) => {
      conn.send({ type: 'sessions-changed' });
      conn.send({ type: 'sessions-changed' });
    });
    const { client } = makeClient(server.url);
    let changes = 0;
    client.onSessionsChanged(() => changes++);
    client.start();
    await waitFor(() => changes === 2);
  });

  it('unsubscribing tells the server and stops delivery', async () => {
    const server = await startServer((conn) => serveLog(conn, () => [1]));
    const { client } = makeClient(server.url);
    const sub = collect(client);
    client.start();
    await waitFor(() => sub.caughtUp.length === 1);

    sub.unsubscribe();
    const conn = await server.connection(1);
    await waitFor(() => conn.received.some((f) => f.type === 'unsubscribe'));
    conn.sendEvents(2);
    await sleep(30);
    expect(sub.seqs).toEqual([1]);
    // The session can be subscribed again, from where the caller's state left off.
    const again = collect(client, 1);
    expect((await conn.nthSubscribe(2)).afterSeq).toBe(1);
    again.unsubscribe();
  });

  it('stop() closes the connection, reads offline and does not reconnect', async () => {
    const server = await startServer();
    const { client, states } = makeClient(server.url);
    client.start();
    const conn = await server.connection(1);
    await waitFor(() => client.getState() === 'open');

    client.stop();
    await once(conn.socket, 'close');
    await sleep(60);
    expect(server.connections).toHaveLength(1);
    expect(states.at(-1)).toBe('offline');
  });

  it('closes a silent connection after 2.5 heartbeats and reconnects', async () => {
    const server = await startServer((conn) => conn.send({ type: 'hello', serverId: 's1', heartbeatMs: 40 }));
    const { client, logs } = makeClient(server.url);
    client.start();

    const first = await server.connection(1);
    const started = Date.now();
    await server.connection(2);
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(90); // 2.5 × 40 ms, less scheduling slack
    expect(elapsed).toBeLessThan(1000);
    expect(first.received.some((f) => f.type === 'ping')).toBe(true);
    expect(logs.some((m) => m.includes('no frame from the server'))).toBe(true);
  });

  it('keeps a connection whose server answers pings', async () => {
    const server = await startServer((conn) => {
      // Wider than the silent-server test: here a slow CI machine must not cause a false alarm.
      conn.send({ type: 'hello', serverId: 's1', heartbeatMs: 100 });
      conn.socket.on('message', (data) => {
        const frame = JSON.parse(String(data)) as ClientFrame;
        if (frame.type === 'ping') conn.send({ type: 'pong', ...(frame.id === undefined ? {} : { id: frame.id }) });
      });
    });
    const { client } = makeClient(server.url);
    client.start();
    await server.connection(1);
    await sleep(700); // seven heartbeats, nearly three watchdog periods
    expect(server.connections).toHaveLength(1);
    expect(client.getState()).toBe('open');
  });
});

describe('reconnect schedule', () => {
  it('retries a refused connection forever: at once, then short tries, then jittered backoff; offline once away long enough', async () => {
    const closedPort = await unusedPort();
    // Binary fractions, so the expected delays are exact; a clock that moves 10 ms per reading.
    const draws = [0.75, 0.5, 0.875, 0.125];
    let i = 0;
    let clock = 0;
    const retries: RetryInfo[] = [];
    const { client, states } = makeClient(`ws://127.0.0.1:${closedPort}/api/stream`, {
      retry: { probeMs: 5, probeForMs: 30, flapMs: 1000, backoff: { baseMs: 10, capMs: 40 } },
      offlineAfterMs: 25,
      random: () => draws[i++ % draws.length] ?? 0,
      now: () => (clock += 10),
    });
    client.onRetry((info) => retries.push(info));
    client.start();
    await waitFor(() => retries.length >= 7);
    client.stop();

    expect(retries.slice(0, 7)).toEqual([
      { attempt: 1, delayMs: 0 }, // at once
      { attempt: 2, delayMs: 5 }, // away 10 ms of the 30 ms of short tries
      { attempt: 3, delayMs: 5 },
      { attempt: 4, delayMs: 7 }, // away 30 ms: backed off, 0.75 × 10
      { attempt: 5, delayMs: 10 }, // 0.5 × 20
      { attempt: 6, delayMs: 35 }, // 0.875 × 40
      { attempt: 7, delayMs: 5 }, // 0.125 × min(80, cap 40)
    ]);
    expect(states.slice(0, 3)).toEqual(['connecting', 'reconnecting', 'offline']);
  });

  it('while the server is away, probes it instead of opening sockets, and connects once it answers', async () => {
    const log = [1, 2];
    let server = await startServer((conn) => serveLog(conn, () => log));
    const port = Number(new URL(server.url).port);
    let probes = 0;
    // Any HTTP answer counts: the WebSocket server answers a plain request with 426.
    const probe = () => {
      probes += 1;
      return fetch(`http://127.0.0.1:${port}/api/health`).then(
        () => true,
        () => false,
      );
    };
    const { client, states } = makeClient(server.url, { probe, retry: { probeMs: 20, probeForMs: 10_000, flapMs: 0 }, offlineAfterMs: 50 });
    const sub = collect(client);
    client.start();
    await waitFor(() => sub.caughtUp.length === 1);

    await server.close();
    await waitFor(() => probes >= 5);
    expect(client.getState()).toBe('offline');
    log.push(3);
    server = await startServer((conn) => serveLog(conn, () => log), port);
    await waitFor(() => sub.caughtUp.length === 2);
    // One socket after the restart: the one the answered probe opened.
    expect(server.connections).toHaveLength(1);
    expect(sub.seqs).toEqual([1, 2, 3]);
    expect(states.at(-1)).toBe('open');
  });

  it('backs off when the server answers the probe but refuses the socket', async () => {
    let probes = 0;
    const retries: RetryInfo[] = [];
    const closedPort = await unusedPort();
    const { client } = makeClient(`ws://127.0.0.1:${closedPort}/api/stream`, {
      probe: async () => {
        probes += 1;
        return true;
      },
      retry: { probeMs: 1, probeForMs: 10_000, flapMs: 0, backoff: { baseMs: 40, capMs: 40 } },
      random: () => 0.5,
    });
    client.onRetry((info) => retries.push(info));
    client.start();
    await waitFor(() => retries.length >= 4);
    client.stop();
    // At once, then a probe (up) and a refused socket, then backed off: 0.5 × 40 each time.
    expect(retries.slice(0, 4).map((r) => r.delayMs)).toEqual([0, 1, 20, 20]);
    expect(probes).toBeGreaterThanOrEqual(2);
  });

  it('starts over after a successful connection', async () => {
    // Accepts, then hangs up at once: every connection succeeds, so no failure streak builds up.
    const server = await startServer((conn) => conn.socket.close(1011, 'bye'));
    const retries: RetryInfo[] = [];
    const { client } = makeClient(server.url);
    client.onRetry((info) => retries.push(info));
    client.start();
    await waitFor(() => retries.length >= 4);
    client.stop();
    expect(retries.map((r) => r.attempt)).toEqual(retries.map(() => 1));
    expect(retries.map((r) => r.delayMs)).toEqual(retries.map(() => 0));
  });
});

async function unusedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
