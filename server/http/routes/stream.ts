/**
 * WebSocket `/api/stream` (SPEC §4). Access checks ran in the onRequest hook before the upgrade.
 *
 * Per subscription the server keeps `sentSeq`, the last seq this socket has been sent. It first
 * pumps the backlog from disk page by page, and in the same tick as it finds no more stored
 * events it switches to live mode and sends `caught-up`. Live events come from the bus, which
 * publishes only what is already on disk — so between the last page read and the switch nothing
 * can slip through, and nothing is sent twice.
 *
 * Memory per connection is bounded on every path, because a client that stops reading would
 * otherwise make the server hold everything it is sent:
 * - The backlog pump reads nothing more from disk while the socket holds more than a quarter of
 *   MAX_BUFFERED_BYTES unsent; it waits until what it sent has been handed to the kernel. A
 *   client that does not take it within the drain timeout is stalled and is cut off.
 * - Every send (live events, gap fills, pongs, errors) checks the socket's buffer; past
 *   MAX_BUFFERED_BYTES the client is cut off. Either way it reconnects and resumes from its
 *   last seq.
 * - At most MAX_SUBSCRIPTIONS subscriptions per connection, and a frame budget, so a flood of
 *   subscribes cannot start thousands of backlog reads (see shared/stream-protocol.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import { CLOSE_TOO_MANY_FRAMES, ClientFrameSchema, FRAME_BUDGET, HEARTBEAT_MS, MAX_SUBSCRIPTIONS, type ServerFrame } from '../../../shared/stream-protocol.ts';
import type { ErrorCode } from '../../../shared/errors.ts';
import type { TilthEvent } from '../../../shared/events.ts';
import type { AppDeps, StreamOptions } from '../base/app-deps.ts';
import { AppError, describeZodError } from '../../errors/app-error.ts';
import type { SessionStore } from '../../store/session-store.ts';

const PAGE_SIZE = 500;
export const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;
/** A backlog chunk the client has not taken in this long means it is not reading. */
export const DRAIN_TIMEOUT_MS = 10_000;
/** Sessions-list notifications are coalesced to at most one per this many ms. */
const SESSIONS_CHANGED_THROTTLE_MS = 200;
const MAX_FRAME_BYTES = 16 * 1024;
/** After a refusing close, how long the client gets to answer it before the socket is dropped. */
const CLOSE_GRACE_MS = 1000;

interface Subscription {
  sentSeq: number;
  live: boolean;
  cancelled: boolean;
  unsubscribe: () => void;
  /** Ends the pump's wait for the socket to drain, when the subscription is cancelled. */
  wake: (() => void) | undefined;
}

interface FlushWaiter {
  /** Resolved once this many frames have been flushed. */
  target: number;
  done: () => void;
}

export function streamRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.get('/api/stream', { websocket: true }, (socket) => {
    const connection = new StreamConnection(socket, deps.store, deps.serverId, deps.stream ?? {});
    connection.start();
  });
}

class StreamConnection {
  private readonly subs = new Map<string, Subscription>();
  private closed = false;
  private alive = true;
  private heartbeat: NodeJS.Timeout | undefined;
  private stopSessionsChannel: (() => void) | undefined;
  private sessionsTimer: NodeJS.Timeout | undefined;
  private readonly heartbeatMs: number;
  private readonly maxBuffered: number;
  private readonly drainTimeoutMs: number;
  /** Frames handed to `ws`, and how many of them it has flushed to the kernel (in order). */
  private sentFrames = 0;
  private flushedFrames = 0;
  private readonly flushWaiters = new Set<FlushWaiter>();
  private frameTokens: number = FRAME_BUDGET.burst;
  private tokensAt = Date.now();

  constructor(
    private readonly socket: WebSocket,
    private readonly store: SessionStore,
    private readonly serverId: string,
    options: StreamOptions,
  ) {
    this.heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
    this.maxBuffered = options.maxBufferedBytes ?? MAX_BUFFERED_BYTES;
    this.drainTimeoutMs = options.drainTimeoutMs ?? DRAIN_TIMEOUT_MS;
  }

  start(): void {
    this.socket.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    this.socket.on('close', () => this.cleanup());
    this.socket.on('error', () => this.cleanup());
    this.socket.on('pong', () => {
      this.alive = true;
    });
    // Protocol pings find dead peers; the app-level hello tells the client our heartbeat period.
    this.heartbeat = setInterval(() => {
      if (!this.alive) {
        this.socket.terminate();
        return;
      }
      this.alive = false;
      this.socket.ping();
      this.send({ type: 'pong' });
    }, this.heartbeatMs);
    this.send({ type: 'hello', serverId: this.serverId, heartbeatMs: this.heartbeatMs });
  }

  private onMessage(data: unknown, isBinary: boolean): void {
    // `ws` still emits frames it had already read when we closed; they are not served.
    if (this.closed) return;
    if (!this.takeFrameToken()) {
      this.refuse(
        'too_many_frames',
        `More than ${FRAME_BUDGET.burst} frames in a burst (the budget refills at ${FRAME_BUDGET.perSecond} per second); closing.`,
      );
      return;
    }
    const text = isBinary ? null : Buffer.isBuffer(data) ? data.toString('utf8') : Array.isArray(data) ? Buffer.concat(data).toString('utf8') : null;
    if (text === null || text.length > MAX_FRAME_BYTES) {
      this.sendError('bad_frame', `Frames must be JSON text under ${MAX_FRAME_BYTES} bytes.`);
      return;
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      this.sendError('bad_frame', 'Frame is not valid JSON.');
      return;
    }
    const parsed = ClientFrameSchema.safeParse(raw);
    if (!parsed.success) {
      this.sendError(
        'bad_frame',
        `Invalid frame: ${describeZodError(parsed.error)}. Expected {type:"subscribe", sessionId, afterSeq}, {type:"unsubscribe", sessionId}, {type:"subscribe-sessions"} or {type:"ping"}.`,
      );
      return;
    }
    const frame = parsed.data;
    switch (frame.type) {
      case 'subscribe':
        this.subscribe(frame.sessionId, frame.afterSeq);
        break;
      case 'unsubscribe':
        this.unsubscribe(frame.sessionId);
        break;
      case 'subscribe-sessions':
        this.subscribeSessions();
        break;
      case 'ping':
        this.send(frame.id === undefined ? { type: 'pong' } : { type: 'pong', id: frame.id });
        break;
    }
  }

  /** A token bucket: FRAME_BUDGET.burst at once, refilled at FRAME_BUDGET.perSecond. */
  private takeFrameToken(): boolean {
    const now = Date.now();
    this.frameTokens = Math.min(FRAME_BUDGET.burst, this.frameTokens + ((now - this.tokensAt) / 1000) * FRAME_BUDGET.perSecond);
    this.tokensAt = now;
    if (this.frameTokens < 1) return false;
    this.frameTokens -= 1;
    return true;
  }

  private subscribe(sessionId: string, afterSeq: number): void {
    this.unsubscribe(sessionId);
    if (this.subs.size >= MAX_SUBSCRIPTIONS) {
      this.sendError('too_many_subscriptions', `This connection already follows ${MAX_SUBSCRIPTIONS} sessions; unsubscribe from one first.`, sessionId);
      return;
    }
    if (!this.store.session(sessionId).exists()) {
      this.sendError('session_not_found', `No session ${sessionId}.`, sessionId);
      return;
    }
    const sub: Subscription = { sentSeq: afterSeq, live: false, cancelled: false, unsubscribe: () => {}, wake: undefined };
    sub.unsubscribe = this.store.bus.subscribe(sessionId, (event) => {
      if (!sub.live || sub.cancelled || event.seq <= sub.sentSeq) return;
      // The bus only carries what is on disk, so a gap (events another process appended that
      // were never published here) is filled from the log before going on.
      if (event.seq > sub.sentSeq + 1) {
        for (const missed of this.store
          .session(sessionId)
          .log()
          .readAfter(sub.sentSeq, event.seq - sub.sentSeq - 1)) {
          this.sendEvent(sessionId, sub, missed);
        }
      }
      this.sendEvent(sessionId, sub, event);
    });
    this.subs.set(sessionId, sub);
    void this.pump(sessionId, sub).catch((err: unknown) => {
      const message = err instanceof AppError ? err.message : 'Could not read the event log.';
      this.sendError(err instanceof AppError ? err.code : 'internal_error', message, sessionId);
      this.unsubscribe(sessionId);
    });
  }

  private async pump(sessionId: string, sub: Subscription): Promise<void> {
    // A cold log is indexed in the background first; other sessions and requests go on meanwhile.
    const log = await this.store.session(sessionId).openLog();
    if (sub.cancelled || this.closed) return;
    const stored = log.lastSeq;
    if (sub.sentSeq > stored) {
      // The client has seen more than exists: the log was replaced. Say so rather than ignore
      // every event up to afterSeq; the client should drop its state and start from 0.
      this.sendError('after_seq_ahead', `afterSeq ${sub.sentSeq} is past the end of this session's log (${stored}); subscribe again from 0.`, sessionId);
      if (this.subs.get(sessionId) === sub) this.unsubscribe(sessionId);
      return;
    }
    const highWater = this.maxBuffered / 4;
    const stopped = () => sub.cancelled || this.closed;
    for (;;) {
      // Each page is read in its own turn of the event loop, never inside the frame handler:
      // a burst of subscribes replaces one another before any of them reads, and a long
      // backlog does not hold up other requests (flush callbacks can come back as microtasks).
      await new Promise((resolve) => setImmediate(resolve));
      // Nothing more is read from disk while the client has not taken what it was sent.
      if (!stopped() && this.socket.bufferedAmount > highWater) await this.drained(sub);
      if (stopped()) return;
      const page = log.readAfter(sub.sentSeq, PAGE_SIZE);
      if (page.length === 0) {
        // Same tick as the empty read: no append can land between it and going live.
        sub.live = true;
        this.send({ type: 'caught-up', sessionId, lastSeq: sub.sentSeq });
        return;
      }
      for (const event of page) {
        this.sendEvent(sessionId, sub, event);
        if (this.socket.bufferedAmount > highWater) await this.drained(sub);
        if (stopped()) return;
      }
      await this.drained(sub);
    }
  }

  /**
   * Resolves once every frame sent so far has been flushed, or the subscription is cancelled,
   * or the socket is gone. A client that has not taken them within the drain timeout is not
   * reading: it is cut off (and the wait ends, as the socket is gone).
   */
  private drained(sub: Subscription): Promise<void> {
    if (this.closed || sub.cancelled || this.flushedFrames >= this.sentFrames) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.cutOff(), this.drainTimeoutMs);
      const waiter: FlushWaiter = {
        target: this.sentFrames,
        done: () => {
          clearTimeout(timer);
          this.flushWaiters.delete(waiter);
          sub.wake = undefined;
          resolve();
        },
      };
      this.flushWaiters.add(waiter);
      sub.wake = waiter.done;
    });
  }

  private sendEvent(sessionId: string, sub: Subscription, event: TilthEvent): void {
    sub.sentSeq = event.seq;
    this.send({ type: 'event', sessionId, event });
  }

  private unsubscribe(sessionId: string): void {
    const sub = this.subs.get(sessionId);
    if (!sub) return;
    sub.cancelled = true;
    sub.unsubscribe();
    sub.wake?.();
    this.subs.delete(sessionId);
  }

  private subscribeSessions(): void {
    if (this.stopSessionsChannel) return;
    this.stopSessionsChannel = this.store.bus.onSessionsChanged(() => {
      if (this.sessionsTimer) return;
      this.sessionsTimer = setTimeout(() => {
        this.sessionsTimer = undefined;
        this.send({ type: 'sessions-changed' });
      }, SESSIONS_CHANGED_THROTTLE_MS);
    });
  }

  /** Every frame goes out here, so the buffer limit holds on every path. */
  private send(frame: ServerFrame): void {
    if (this.closed || this.socket.readyState !== this.socket.OPEN) return;
    const n = ++this.sentFrames;
    this.socket.send(JSON.stringify(frame), () => this.flushed(n));
    if (this.socket.bufferedAmount > this.maxBuffered) this.cutOff();
  }

  /** `ws` calls back in send order, so frame n flushed means every frame up to n has. */
  private flushed(n: number): void {
    this.flushedFrames = n;
    for (const waiter of this.flushWaiters) if (waiter.target <= n) waiter.done();
  }

  private sendError(code: ErrorCode, message: string, sessionId?: string): void {
    this.send(sessionId ? { type: 'error', code, message, sessionId } : { type: 'error', code, message });
  }

  /** A slow client: dropped at once, since a polite close frame would queue behind its buffer. */
  private cutOff(): void {
    this.socket.terminate();
    this.cleanup();
  }

  /**
   * A misbehaving client: told why, then closed. If it is not reading, the close handshake
   * cannot finish, so the socket is dropped after a short grace.
   */
  private refuse(code: ErrorCode, message: string): void {
    this.sendError(code, message);
    this.socket.close(CLOSE_TOO_MANY_FRAMES, code);
    setTimeout(() => this.socket.terminate(), CLOSE_GRACE_MS).unref();
    this.cleanup();
  }

  private cleanup(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    clearTimeout(this.sessionsTimer);
    this.stopSessionsChannel?.();
    for (const id of [...this.subs.keys()]) this.unsubscribe(id);
    for (const waiter of [...this.flushWaiters]) waiter.done();
  }
}
