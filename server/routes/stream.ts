/**
 * WebSocket `/api/stream` (SPEC §4). Access checks ran in the onRequest hook before the upgrade.
 *
 * Per subscription the server keeps `sentSeq`, the last seq this socket has been sent. It first
 * pumps the backlog from disk page by page (waiting for each page to flush, so a 100k-event
 * backlog never sits in memory), and in the same tick as it finds no more stored events it
 * switches to live mode and sends `caught-up`. Live events come from the bus, which publishes
 * only what is already on disk — so between the last page read and the switch nothing can slip
 * through, and nothing is sent twice.
 *
 * A client whose socket buffer grows past MAX_BUFFERED_BYTES while live is cut off rather than
 * buffered without bound; it reconnects and resumes from its last seq.
 */
import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import { ClientFrameSchema, HEARTBEAT_MS, type ServerFrame } from '../../shared/stream-protocol.ts';
import type { TilthEvent } from '../../shared/events.ts';
import type { AppDeps } from '../app.ts';
import { AppError, describeZodError } from '../errors.ts';
import type { SessionStore } from '../store/session-store.ts';

const PAGE_SIZE = 500;
export const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;
/** Sessions-list notifications are coalesced to at most one per this many ms. */
const SESSIONS_CHANGED_THROTTLE_MS = 200;
const MAX_FRAME_BYTES = 16 * 1024;

interface Subscription {
  sentSeq: number;
  live: boolean;
  cancelled: boolean;
  unsubscribe: () => void;
}

export interface StreamOptions {
  heartbeatMs?: number;
  maxBufferedBytes?: number;
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

  constructor(
    private readonly socket: WebSocket,
    private readonly store: SessionStore,
    private readonly serverId: string,
    options: StreamOptions,
  ) {
    this.heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
    this.maxBuffered = options.maxBufferedBytes ?? MAX_BUFFERED_BYTES;
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
      this.sendError('bad_frame', `Invalid frame: ${describeZodError(parsed.error)}. Expected {type:"subscribe", sessionId, afterSeq}, {type:"unsubscribe", sessionId}, {type:"subscribe-sessions"} or {type:"ping"}.`);
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

  private subscribe(sessionId: string, afterSeq: number): void {
    this.unsubscribe(sessionId);
    if (!this.store.exists(sessionId)) {
      this.sendError('session_not_found', `No session ${sessionId}.`, sessionId);
      return;
    }
    const stored = this.store.log(sessionId).lastSeq;
    if (afterSeq > stored) {
      // The client has seen more than exists: the log was replaced. Say so rather than ignore
      // every event up to afterSeq; the client should drop its state and start from 0.
      this.sendError('after_seq_ahead', `afterSeq ${afterSeq} is past the end of this session's log (${stored}); subscribe again from 0.`, sessionId);
      return;
    }
    const sub: Subscription = { sentSeq: afterSeq, live: false, cancelled: false, unsubscribe: () => {} };
    sub.unsubscribe = this.store.bus.subscribe(sessionId, (event) => {
      if (!sub.live || sub.cancelled || event.seq <= sub.sentSeq) return;
      // The bus only carries what is on disk, so a gap (events another process appended that
      // were never published here) is filled from the log before going on.
      if (event.seq > sub.sentSeq + 1) {
        for (const missed of this.store.log(sessionId).readAfter(sub.sentSeq, event.seq - sub.sentSeq - 1)) {
          this.sendEvent(sessionId, sub, missed);
        }
      }
      this.sendEvent(sessionId, sub, event);
      if (this.socket.bufferedAmount > this.maxBuffered) this.cutOff();
    });
    this.subs.set(sessionId, sub);
    void this.pump(sessionId, sub).catch((err: unknown) => {
      const message = err instanceof AppError ? err.message : 'Could not read the event log.';
      this.sendError(err instanceof AppError ? err.code : 'internal_error', message, sessionId);
      this.unsubscribe(sessionId);
    });
  }

  private async pump(sessionId: string, sub: Subscription): Promise<void> {
    const log = this.store.log(sessionId);
    for (;;) {
      if (sub.cancelled || this.closed) return;
      const page = log.readAfter(sub.sentSeq, PAGE_SIZE);
      if (page.length === 0) {
        // Same tick as the empty read: no append can land between it and going live.
        sub.live = true;
        this.send({ type: 'caught-up', sessionId, lastSeq: sub.sentSeq });
        return;
      }
      const last = page.length - 1;
      await new Promise<void>((resolve) => {
        page.forEach((event, i) => this.sendEvent(sessionId, sub, event, i === last ? resolve : undefined));
        if (this.closed) resolve();
      });
    }
  }

  /** `onFlushed` runs once the frame has been handed to the kernel (or the socket is gone). */
  private sendEvent(sessionId: string, sub: Subscription, event: TilthEvent, onFlushed?: () => void): void {
    sub.sentSeq = event.seq;
    this.send({ type: 'event', sessionId, event }, onFlushed);
  }

  private unsubscribe(sessionId: string): void {
    const sub = this.subs.get(sessionId);
    if (!sub) return;
    sub.cancelled = true;
    sub.unsubscribe();
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

  private send(frame: ServerFrame, onFlushed?: () => void): void {
    if (this.closed || this.socket.readyState !== this.socket.OPEN) {
      onFlushed?.();
      return;
    }
    this.socket.send(JSON.stringify(frame), onFlushed ? () => onFlushed() : undefined);
  }

  private sendError(code: string, message: string, sessionId?: string): void {
    this.send(sessionId ? { type: 'error', code, message, sessionId } : { type: 'error', code, message });
  }

  private cutOff(): void {
    // terminate() drops the buffer at once; a polite close would queue behind it.
    this.socket.terminate();
    this.cleanup();
  }

  private cleanup(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    clearTimeout(this.sessionsTimer);
    this.stopSessionsChannel?.();
    for (const id of [...this.subs.keys()]) this.unsubscribe(id);
  }
}
