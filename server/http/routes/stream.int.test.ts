import net, { type AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { CLOSE_TOO_MANY_FRAMES, FRAME_BUDGET, MAX_SUBSCRIPTIONS, type ServerFrame } from '../../../shared/stream-protocol.ts';
import { StreamClient, type StreamSocketConstructor } from '../../../web/src/stream/stream-client.ts';
import { SessionStore } from '../../store/session-store.ts';
import type { StreamOptions } from '../base/app-deps.ts';
import { makeTestApp, TEST_TOKEN, type TestApp } from '../../testing/test-app.ts';
import { StreamTestClient } from '../../testing/ws-test-client.ts';

let t: TestApp;
let port: number;

async function setup(stream?: StreamOptions) {
  t = await makeTestApp(stream ? { stream } : {});
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.server.address() as AddressInfo).port;
  t.setPort(port);
}

beforeEach(async () => {
  await setup();
});
afterEach(async () => {
  await t.close();
});

/** Opens a real `ws` client on the test server's port. */
const Client = {
  open: (headers?: Record<string, string>) => StreamTestClient.open(port, headers),
};

function rejectedStatus(headers: Record<string, string>, path = '/api/stream'): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${path}`, { headers });
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.on('open', () => reject(new Error('upgrade should have been refused')));
    ws.on('error', () => {});
  });
}

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Samples the largest send buffer of any server-side socket until stopped. */
function watchServerBuffers(): { readonly max: number; stop(): void } {
  let max = 0;
  const timer = setInterval(() => {
    for (const ws of t.app.websocketServer.clients) max = Math.max(max, ws.bufferedAmount);
  }, 2);
  return {
    get max() {
      return max;
    },
    stop: () => clearInterval(timer),
  };
}

const makeSession = () => t.store.create({ source: '/repo', brief: 'b', baseBranch: 'main', baseSha: 'abc', status: 'prepared' }).session_id;
const answer = (i: number) => ({ type: 'question_answered' as const, data: { question_id: `q${i}`, answer: 'a' } });

describe('/api/stream', () => {
  it('refuses the upgrade without a token, or from a foreign origin, or with a bad host', async () => {
    expect(await rejectedStatus({})).toBe(401);
    expect(await rejectedStatus({ authorization: 'Bearer wrong' })).toBe(401);
    expect(await rejectedStatus({ cookie: `tilth_token_${port}=${TEST_TOKEN}`, origin: 'http://evil.example' })).toBe(403);
    expect(await rejectedStatus({ cookie: `tilth_token_${port}=${TEST_TOKEN}` })).toBe(403);
    expect(await rejectedStatus({ authorization: `Bearer ${TEST_TOKEN}`, host: `evil.example:${port}` })).toBe(403);
  });

  it('refuses the upgrade on another spelling of the path, and absolute-form targets', async () => {
    expect(await rejectedStatus({ origin: 'http://evil.example' }, '/%61pi/stream')).toBe(401);
    expect(await rejectedStatus({}, '/ap%69/stream')).toBe(401);
    const raw = await new Promise<string>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.write(`GET http://127.0.0.1:${port}/api/sessions HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
      });
      let data = '';
      socket.on('data', (d) => (data += d.toString()));
      socket.on('end', () => resolve(data));
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400/);
  });

  it('accepts the cookie with our own origin, and says hello', async () => {
    const c = await Client.open({ cookie: `tilth_token_${port}=${TEST_TOKEN}`, origin: `http://127.0.0.1:${port}` });
    expect((await c.next((f) => f.type === 'hello')).type).toBe('hello');
    c.close();
  });

  it('sends the backlog after afterSeq, then caught-up, then live events with no duplicates or gaps', async () => {
    const id = makeSession();
    for (let i = 0; i < 1200; i++) t.store.session(id).emit(answer(i));
    const stored = t.store.session(id).log().lastSeq;
    const c = await Client.open();
    c.send({ type: 'subscribe', sessionId: id, afterSeq: 100 });
    const caught = await c.next((f) => f.type === 'caught-up');
    expect(caught).toEqual({ type: 'caught-up', sessionId: id, lastSeq: stored });
    for (let i = 0; i < 50; i++) t.store.session(id).emit(answer(2000 + i));
    await c.next((f) => f.type === 'event' && f.event.seq === stored + 50);
    const seqs = c.events(id).map((e) => e.seq);
    expect(seqs).toEqual(Array.from({ length: stored + 50 - 100 }, (_, i) => 101 + i));
    const caughtIndex = c.frames.indexOf(caught);
    const lastBacklog = c.frames.slice(0, caughtIndex).filter((f) => f.type === 'event');
    expect(lastBacklog.at(-1)).toMatchObject({ event: { seq: stored } });
    c.close();
  });

  it('keeps events appended while the backlog is being sent, exactly once', async () => {
    const id = makeSession();
    for (let i = 0; i < 3000; i++) t.store.session(id).emit(answer(i));
    const c = await Client.open();
    // Append from inside the backlog: each time a backlog frame arrives, before caught-up.
    let appendedDuringBacklog = 0;
    c.ws.on('message', (data) => {
      const frame = JSON.parse(String(data)) as ServerFrame;
      if (frame.type === 'event' && frame.event.seq % 100 === 0 && !c.frames.some((f) => f.type === 'caught-up')) {
        t.store.session(id).emit(answer(10_000 + frame.event.seq));
        appendedDuringBacklog++;
      }
    });
    c.send({ type: 'subscribe', sessionId: id, afterSeq: 0 });
    await c.next((f) => f.type === 'caught-up');
    expect(appendedDuringBacklog).toBeGreaterThan(5);
    const last = t.store.session(id).log().lastSeq;
    await c.next((f) => f.type === 'event' && f.event.seq === last);
    const seqs = c.events(id).map((e) => e.seq);
    expect(seqs).toEqual(Array.from({ length: last }, (_, i) => i + 1));
    c.close();
  });

  it('resubscribing from a later seq resumes from there without repeats', async () => {
    const id = makeSession();
    for (let i = 0; i < 10; i++) t.store.session(id).emit(answer(i));
    const c = await Client.open();
    c.send({ type: 'subscribe', sessionId: id, afterSeq: 0 });
    await c.next((f) => f.type === 'caught-up');
    c.frames.length = 0;
    const from = t.store.session(id).log().lastSeq - 3;
    c.send({ type: 'subscribe', sessionId: id, afterSeq: from });
    const caught = await c.next((f) => f.type === 'caught-up');
    expect(caught).toMatchObject({ lastSeq: from + 3 });
    expect(c.events(id).map((e) => e.seq)).toEqual([from + 1, from + 2, from + 3]);
    t.store.session(id).emit(answer(100));
    await c.next((f) => f.type === 'event' && f.event.seq === from + 4);
    expect(c.events(id).map((e) => e.seq)).toEqual([from + 1, from + 2, from + 3, from + 4]);
    c.close();
  });

  it('streams events another process appended, in order and without gaps', async () => {
    const elsewhere = new SessionStore(t.store.root);
    const id = elsewhere.create({ source: '/repo', brief: 'b', baseBranch: 'main', baseSha: 'abc', status: 'running' }).session_id;
    const c = await Client.open();
    c.send({ type: 'subscribe', sessionId: id, afterSeq: 0 });
    const { lastSeq } = (await c.next((f) => f.type === 'caught-up')) as { lastSeq: number };
    elsewhere.session(id).emit(answer(1));
    elsewhere.session(id).emit(answer(2));
    t.store.session(id).publishAppendedElsewhere(); // the watcher coalesced both changes into one call
    await c.next((f) => f.type === 'event' && f.event.seq === lastSeq + 2);
    elsewhere.session(id).emit(answer(3)); // never announced here...
    elsewhere.close();
    t.store.session(id).emit(answer(4)); // ...so this one arrives with a gap before it, filled from disk
    await c.next((f) => f.type === 'event' && f.event.seq === lastSeq + 4);
    expect(c.events(id).map((e) => e.seq)).toEqual(Array.from({ length: lastSeq + 4 }, (_, i) => i + 1));
    c.close();
  });

  it('answers bad frames with an error frame and keeps the socket open', async () => {
    const id = makeSession();
    const c = await Client.open();
    c.send('not json');
    expect(await c.next((f) => f.type === 'error')).toMatchObject({ code: 'bad_frame' });
    c.frames.length = 0;
    c.send({ type: 'subscribe', sessionId: '../../etc', afterSeq: 0 });
    expect(await c.next((f) => f.type === 'error')).toMatchObject({ code: 'bad_frame', message: expect.stringMatching(/sessionId/) });
    c.frames.length = 0;
    c.send({ type: 'subscribe', sessionId: id, afterSeq: -5 });
    expect(await c.next((f) => f.type === 'error')).toMatchObject({ code: 'bad_frame' });
    c.frames.length = 0;
    c.send({ type: 'subscribe', sessionId: '20200101-000000-000000', afterSeq: 0 });
    expect(await c.next((f) => f.type === 'error')).toMatchObject({ code: 'session_not_found' });
    c.frames.length = 0;
    c.send({ type: 'subscribe', sessionId: id, afterSeq: 10_000 });
    expect(await c.next((f) => f.type === 'error')).toMatchObject({ code: 'after_seq_ahead', sessionId: id });
    c.send({ type: 'ping', id: 7 });
    expect(await c.next((f) => f.type === 'pong' && f.id === 7)).toBeTruthy();
    expect(c.ws.readyState).toBe(WebSocket.OPEN);
    c.close();
  });

  it('tells sessions-list subscribers when sessions change', async () => {
    const c = await Client.open();
    c.send({ type: 'subscribe-sessions' });
    await new Promise((r) => setTimeout(r, 50));
    makeSession();
    expect(await c.next((f) => f.type === 'sessions-changed')).toEqual({ type: 'sessions-changed' });
    c.close();
  });
});

describe('/api/stream under pressure', () => {
  it('cuts off a client that stops reading instead of buffering without bound', async () => {
    await t.close();
    await setup({ maxBufferedBytes: 256 * 1024 });
    const id = makeSession();
    const c = await Client.open();
    c.send({ type: 'subscribe', sessionId: id, afterSeq: 0 });
    await c.next((f) => f.type === 'caught-up');
    // Stop reading: the kernel buffers fill, then the server's send buffer grows.
    c.pauseReading();
    const big = 'x'.repeat(15_000);
    for (let i = 0; i < 2000; i++) {
      t.store.session(id).emit({ type: 'question_asked', data: { question_id: `q${i}`, text: big } });
      await new Promise((r) => setImmediate(r));
    }
    c.resumeReading();
    expect(await c.closed).toBe(1006); // dropped without a close frame: the client just resumes
    expect(c.events(id).length).toBeLessThan(2000);
  });

  it('cuts off a client that stops reading during the backlog, never buffering past the limit, and it resumes from its last seq exactly once', async () => {
    await t.close();
    const maxBufferedBytes = 256 * 1024;
    await setup({ maxBufferedBytes, drainTimeoutMs: 300 });
    const id = makeSession();
    const big = 'x'.repeat(15_000);
    for (let i = 0; i < 1000; i++) t.store.session(id).emit({ type: 'question_asked', data: { question_id: `q${i}`, text: big } });
    const stored = t.store.session(id).log().lastSeq;
    const buffered = watchServerBuffers();
    const c = await Client.open();
    c.send({ type: 'subscribe', sessionId: id, afterSeq: 0 });
    await c.next((f) => f.type === 'event');
    c.pauseReading(); // mid-backlog: ~15 MB are still to come
    await waitUntil(() => t.app.websocketServer.clients.size === 0, 5000);
    buffered.stop();
    c.resumeReading();
    expect(await c.closed).toBe(1006); // the same cut-off as on the live path
    expect(c.frames.some((f) => f.type === 'caught-up')).toBe(false);
    expect(buffered.max).toBeLessThanOrEqual(maxBufferedBytes);
    const got = c.events(id).map((e) => e.seq);
    expect(got.length).toBeLessThan(stored);
    expect(got).toEqual(Array.from({ length: got.length }, (_, i) => i + 1));

    const again = await Client.open();
    again.send({ type: 'subscribe', sessionId: id, afterSeq: got.length });
    expect(await again.next((f) => f.type === 'caught-up', 10_000)).toMatchObject({ lastSeq: stored });
    expect([...got, ...again.events(id).map((e) => e.seq)]).toEqual(Array.from({ length: stored }, (_, i) => i + 1));
    again.close();
  });

  it('gives the web client every event exactly once across a large backlog, a cut-off and the resubscribe after it', async () => {
    await t.close();
    await setup({ maxBufferedBytes: 256 * 1024, drainTimeoutMs: 300 });
    const id = makeSession();
    // More than the kernel's socket buffers hold, so a client that stops reading is noticed.
    const big = 'x'.repeat(15_000);
    for (let i = 0; i < 1000; i++) t.store.session(id).emit({ type: 'question_asked', data: { question_id: `q${i}`, text: big } });
    // The browser's WebSocket cannot set headers; `ws` can, so the token goes in a header here.
    const sockets: WebSocket[] = [];
    class AuthedSocket extends WebSocket {
      constructor(url: string) {
        super(url, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
        sockets.push(this);
      }
    }
    const client = new StreamClient({
      url: `ws://127.0.0.1:${port}/api/stream`,
      WebSocket: AuthedSocket as unknown as StreamSocketConstructor,
      retry: { probeMs: 10, backoff: { baseMs: 10, capMs: 50 } },
    });
    const seqs: number[] = [];
    let caughtUp = 0;
    client.start();
    client.subscribe(id, 0, {
      onEvent: (event) => {
        seqs.push(event.seq);
        // Mid-backlog on the first connection, stop reading: the server must cut it off.
        if (event.seq === 200 && sockets.length === 1) (sockets[0] as unknown as { _socket: { pause(): void } })._socket.pause();
      },
      onCaughtUp: () => void caughtUp++,
    });
    await waitUntil(() => seqs.length >= 200, 5000);
    await waitUntil(() => t.app.websocketServer.clients.size === 0, 5000);
    expect(caughtUp).toBe(0);
    (sockets[0] as unknown as { _socket: { resume(): void } | null })._socket?.resume();
    await waitUntil(() => caughtUp > 0, 10_000);
    expect(sockets.length).toBe(2);
    // Live events after the resubscribe arrive once each too.
    for (let i = 0; i < 20; i++) t.store.session(id).emit(answer(i));
    const last = t.store.session(id).log().lastSeq;
    await waitUntil(() => seqs.at(-1) === last, 5000);
    expect(seqs).toEqual(Array.from({ length: last }, (_, i) => i + 1));
    client.stop();
  });

  it('refuses a subscription past the cap with too_many_subscriptions and keeps serving the others', async () => {
    const ids = Array.from({ length: MAX_SUBSCRIPTIONS + 1 }, () => makeSession());
    const c = await Client.open();
    for (const id of ids.slice(0, MAX_SUBSCRIPTIONS)) c.send({ type: 'subscribe', sessionId: id, afterSeq: 0 });
    // Subscribing again to one already followed replaces it; it does not count twice.
    c.send({ type: 'subscribe', sessionId: ids[0], afterSeq: 0 });
    const extra = ids[MAX_SUBSCRIPTIONS]!;
    c.send({ type: 'subscribe', sessionId: extra, afterSeq: 0 });
    expect(await c.next((f) => f.type === 'error')).toMatchObject({ code: 'too_many_subscriptions', sessionId: extra });
    await waitUntil(() => new Set(c.frames.flatMap((f) => (f.type === 'caught-up' ? [f.sessionId] : []))).size === MAX_SUBSCRIPTIONS, 5000);
    t.store.session(extra).emit(answer(1));
    t.store.session(ids[0]!).emit(answer(1));
    await c.next((f) => f.type === 'event' && f.sessionId === ids[0] && f.event.type === 'question_answered');
    expect(c.events(extra)).toEqual([]);
    // Leaving one makes room.
    c.send({ type: 'unsubscribe', sessionId: ids[1] });
    c.send({ type: 'subscribe', sessionId: extra, afterSeq: 0 });
    expect(await c.next((f) => f.type === 'caught-up' && f.sessionId === extra)).toBeTruthy();
    c.close();
  });

  it('closes a connection that overdraws its frame budget, after an error frame saying so', async () => {
    const c = await Client.open();
    for (let i = 0; i < FRAME_BUDGET.burst + 50; i++) c.send({ type: 'ping', id: i });
    expect(await c.next((f) => f.type === 'error')).toMatchObject({ code: 'too_many_frames' });
    expect(await c.closed).toBe(CLOSE_TOO_MANY_FRAMES);
    const pongs = c.frames.filter((f) => f.type === 'pong' && f.id !== undefined);
    expect(pongs.length).toBeLessThanOrEqual(FRAME_BUDGET.burst);
  });

  it('terminates a peer that stops answering heartbeats', async () => {
    await t.close();
    await setup({ heartbeatMs: 50 });
    const c = await Client.open();
    // Swallow pings so no pong goes back: the server must give up on us.
    (c.ws as unknown as { pong: () => void }).pong = () => {};
    const internal = c.ws as unknown as { _receiver: { removeAllListeners(e: string): void; on(e: string, f: () => void): void } };
    internal._receiver.removeAllListeners('ping');
    internal._receiver.on('ping', () => {});
    const closed = await new Promise<boolean>((resolve) => {
      c.ws.once('close', () => resolve(true));
      setTimeout(() => resolve(false), 2000);
    });
    expect(closed).toBe(true);
  });
});
