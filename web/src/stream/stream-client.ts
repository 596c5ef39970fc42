/**
 * One WebSocket per tab to `/api/stream`, carrying every session subscription and the
 * sessions-list channel. Framework-free so it runs under vitest against a real `ws` server.
 *
 * What it guarantees to a subscriber: events arrive in seq order, each once, with no holes.
 * - It remembers the last seq delivered per session and drops anything at or below it (the
 *   server may replay after a resubscribe or a reconnect).
 * - A seq beyond `lastSeq + 1` means something was lost in between: the event is dropped and the
 *   session is resubscribed from `lastSeq`, so the backlog fills the hole in order.
 * - It reconnects forever, at once after a loss, then by short probes of the server while the
 *   outage is young, then backed off (retry-schedule.ts), and on every connection resubscribes
 *   each session from its own last seq. A subscriber keeps its state throughout.
 * - A watchdog closes a connection that has gone quiet (no frame for 2.5× the heartbeat), because
 *   a half-open TCP connection can look open for minutes. The client pings on the heartbeat
 *   period so a healthy server always has something to answer.
 */
import { HEARTBEAT_MS, ServerFrameSchema, type ClientFrame, type ServerFrame } from '../../../shared/stream-protocol.ts';
import type { TilthEvent } from '../../../shared/events.ts';
import { Reconnector } from './reconnector.ts';
import { DEFAULT_RETRY, type RetryPolicy } from './retry-schedule.ts';

export type ConnectionState = 'connecting' | 'open' | 'reconnecting' | 'offline';

/** The part of the WebSocket API the client uses; the browser's and `ws`'s both fit. */
export interface StreamSocket {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'open' | 'message' | 'close' | 'error', listener: (event: { readonly type: string; readonly data?: unknown }) => void): void;
}
export type StreamSocketConstructor = new (url: string) => StreamSocket;

const OPEN = 1; // WebSocket.OPEN, the same in every implementation

export interface SubscriptionHandler {
  onEvent(event: TilthEvent): void;
  /** The backlog has been delivered; what follows is live. Fires after every (re)subscribe. */
  onCaughtUp?(lastSeq: number): void;
  onError?(error: { code: string; message: string }): void;
}

export interface RetryInfo {
  /** Consecutive failed tries so far (connections and probes), starting at 1. */
  attempt: number;
  delayMs: number;
}

export interface StreamClientOptions {
  url: string;
  /** Defaults to the global `WebSocket` (browsers); tests pass `ws`'s. */
  WebSocket?: StreamSocketConstructor;
  retry?: Partial<RetryPolicy>;
  /**
   * Asks whether the server answers at all (the browser: `/api/health`), cheaper and quieter than
   * a socket; a try after the first one probes first and connects once it answers. Without it
   * every try is a connection.
   */
  probe?: () => Promise<boolean>;
  /** Used for jitter; inject a fixed sequence in tests. */
  random?: () => number;
  now?: () => number;
  /** Watchdog base until the server's `hello` says otherwise. */
  heartbeatMs?: number;
  /** Away this long, the state reads `offline` rather than `reconnecting` (it keeps trying). */
  offlineAfterMs?: number;
  /** A dropped frame or a server error without a session; the browser logs it. */
  log?: (message: string, detail?: unknown) => void;
}

/** Without a heartbeat a connection looks dead after this many heartbeat periods. */
export const WATCHDOG_FACTOR = 2.5;

interface Subscription {
  readonly sessionId: string;
  readonly handler: SubscriptionHandler;
  lastSeq: number;
  /** Subscribes sent on this connection whose `caught-up` has not arrived yet. */
  pending: number;
}

type Timer = ReturnType<typeof setTimeout>;

export class StreamClient {
  private readonly url: string;
  private readonly SocketCtor: StreamSocketConstructor;
  private readonly reconnector: Reconnector;
  private readonly log: (message: string, detail?: unknown) => void;

  private state: ConnectionState = 'offline';
  private running = false;
  private socket: StreamSocket | null = null;
  private heartbeatMs: number;
  private pingId = 0;
  private watchdogTimer: Timer | undefined;
  private pingTimer: ReturnType<typeof setInterval> | undefined;

  private readonly subscriptions = new Map<string, Subscription>();
  private readonly stateListeners = new Set<(state: ConnectionState) => void>();
  private readonly sessionsListeners = new Set<() => void>();
  private readonly retryListeners = new Set<(info: RetryInfo) => void>();

  constructor(options: StreamClientOptions) {
    this.url = options.url;
    const ctor = options.WebSocket ?? (globalThis as { WebSocket?: StreamSocketConstructor }).WebSocket;
    if (ctor === undefined) throw new Error('No WebSocket implementation: pass one as options.WebSocket');
    this.SocketCtor = ctor;
    this.reconnector = new Reconnector({
      policy: { ...DEFAULT_RETRY, ...options.retry },
      random: options.random ?? Math.random,
      now: options.now ?? Date.now,
      probe: options.probe,
      offlineAfterMs: options.offlineAfterMs ?? 1_000,
      connect: () => this.connect(),
      wanted: () => this.running && this.socket === null,
      setState: (state) => this.setState(state),
    });
    this.heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
    this.log = options.log ?? (() => {});
  }

  // ---- lifecycle -------------------------------------------------------------------------

  /** Starts connecting; idempotent. A stopped client can be started again. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.reconnector.reset();
    this.setState('connecting');
    this.connect();
  }

  /** Closes the socket and stops reconnecting. Subscriptions are kept for a later `start()`. */
  stop(): void {
    if (!this.running) return;
    this.running = false;
    this.reconnector.reset();
    this.dropSocket(1000, 'client stopped');
    this.setState('offline');
  }

  /** Skips the remaining wait (e.g. when the tab becomes visible or the network returns). */
  reconnectNow(): void {
    if (!this.running || this.socket !== null) return;
    this.connect();
  }

  getState(): ConnectionState {
    return this.state;
  }

  onStateChange(listener: (state: ConnectionState) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  /**
   * Called on every `sessions-changed` frame, and after every reconnect (frames sent while we
   * were away are lost, so the list must be assumed changed).
   */
  onSessionsChanged(listener: () => void): () => void {
    this.sessionsListeners.add(listener);
    return () => this.sessionsListeners.delete(listener);
  }

  /**
   * Called each time a reconnect is scheduled, i.e. after every failed or lost connection. The
   * state only says "still failing"; this says "failed again", which is when to re-check auth.
   */
  onRetry(listener: (info: RetryInfo) => void): () => void {
    this.retryListeners.add(listener);
    return () => this.retryListeners.delete(listener);
  }

  // ---- subscriptions ---------------------------------------------------------------------

  /**
   * Delivers the session's events after `afterSeq`, then live ones. One subscription per
   * session: the caller that owns a session's state owns its subscription.
   */
  subscribe(sessionId: string, afterSeq: number, handler: SubscriptionHandler): () => void {
    if (this.subscriptions.has(sessionId)) throw new Error(`already subscribed to session ${sessionId}`);
    const sub: Subscription = { sessionId, handler, lastSeq: afterSeq, pending: 0 };
    this.subscriptions.set(sessionId, sub);
    if (this.isOpen()) this.sendSubscribe(sub);
    return () => {
      if (this.subscriptions.get(sessionId) !== sub) return;
      this.subscriptions.delete(sessionId);
      if (this.isOpen()) this.send({ type: 'unsubscribe', sessionId });
    };
  }

  lastSeq(sessionId: string): number | undefined {
    return this.subscriptions.get(sessionId)?.lastSeq;
  }

  // ---- connection ------------------------------------------------------------------------

  private connect(): void {
    this.reconnector.trying();
    let socket: StreamSocket;
    try {
      socket = new this.SocketCtor(this.url);
    } catch (error) {
      this.log('could not open the stream socket', error);
      this.scheduleReconnect();
      return;
    }
    this.socket = socket;
    this.armWatchdog();
    // Listeners stay attached for the socket's life; each checks it is still the current one,
    // so a socket we gave up on cannot disturb its successor.
    socket.addEventListener('open', () => {
      if (this.socket === socket) this.handleOpen();
    });
    socket.addEventListener('message', (event) => {
      if (this.socket === socket) this.handleMessage(event.data);
    });
    socket.addEventListener('close', () => {
      if (this.socket === socket) this.handleLost();
    });
    // `error` is always followed by `close`; nothing to do until then.
    socket.addEventListener('error', () => {});
  }

  private handleOpen(): void {
    const reconnected = this.reconnector.opened();
    this.setState('open');
    this.armWatchdog();
    this.startPinging();
    this.send({ type: 'subscribe-sessions' });
    for (const sub of this.subscriptions.values()) {
      sub.pending = 0;
      this.sendSubscribe(sub);
    }
    if (reconnected) this.notifySessionsChanged();
  }

  /** The socket closed, went quiet or never opened: forget it and try again. */
  private handleLost(): void {
    this.dropSocket(4000, 'connection lost');
    if (this.running) this.scheduleReconnect();
  }

  /** After a failed or lost connection; the listeners hear of it (the app re-checks its sign-in). */
  private scheduleReconnect(): void {
    const delayMs = this.reconnector.connectionFailed();
    for (const listener of this.retryListeners) listener({ attempt: this.reconnector.attempt, delayMs });
  }

  private dropSocket(code: number, reason: string): void {
    clearTimeout(this.watchdogTimer);
    clearInterval(this.pingTimer);
    this.watchdogTimer = undefined;
    this.pingTimer = undefined;
    const socket = this.socket;
    this.socket = null;
    if (socket === null) return;
    try {
      socket.close(code, reason);
    } catch {
      // Closing a socket that never opened can throw in some implementations; it is gone either way.
    }
  }

  private armWatchdog(): void {
    clearTimeout(this.watchdogTimer);
    this.watchdogTimer = setTimeout(() => {
      this.log(`no frame from the server for ${WATCHDOG_FACTOR * this.heartbeatMs} ms; reconnecting`);
      this.handleLost();
    }, WATCHDOG_FACTOR * this.heartbeatMs);
  }

  private startPinging(): void {
    clearInterval(this.pingTimer);
    this.pingTimer = setInterval(() => {
      this.pingId += 1;
      this.send({ type: 'ping', id: this.pingId });
    }, this.heartbeatMs);
  }

  // ---- frames ----------------------------------------------------------------------------

  private handleMessage(data: unknown): void {
    // Anything heard proves the connection alive, even a frame we then reject.
    this.armWatchdog();
    if (typeof data !== 'string') {
      this.log('dropped a binary frame');
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      this.log('dropped a frame that is not JSON', data.slice(0, 200));
      return;
    }
    const parsed = ServerFrameSchema.safeParse(json);
    if (!parsed.success) {
      this.log('dropped a frame that does not match the protocol', parsed.error.issues.slice(0, 3));
      return;
    }
    this.handleFrame(parsed.data);
  }

  private handleFrame(frame: ServerFrame): void {
    switch (frame.type) {
      case 'hello':
        if (frame.heartbeatMs !== this.heartbeatMs) {
          this.heartbeatMs = frame.heartbeatMs;
          this.armWatchdog();
          this.startPinging();
        }
        return;
      case 'pong':
        return;
      case 'sessions-changed':
        this.notifySessionsChanged();
        return;
      case 'event':
        this.handleEvent(frame.sessionId, frame.event);
        return;
      case 'caught-up':
        this.handleCaughtUp(frame.sessionId, frame.lastSeq);
        return;
      case 'error': {
        const sub = frame.sessionId === undefined ? undefined : this.subscriptions.get(frame.sessionId);
        if (sub === undefined) {
          this.log(`stream error ${frame.code}: ${frame.message}`);
          return;
        }
        // An error answers a subscribe instead of `caught-up`.
        sub.pending = Math.max(0, sub.pending - 1);
        sub.handler.onError?.({ code: frame.code, message: frame.message });
        return;
      }
    }
  }

  private handleEvent(sessionId: string, event: TilthEvent): void {
    const sub = this.subscriptions.get(sessionId);
    if (sub === undefined) return; // a late frame for a session we left
    if (event.seq <= sub.lastSeq) return;
    if (event.seq > sub.lastSeq + 1) {
      // A hole. Ask once; further out-of-order events are dropped until that answer's
      // caught-up, because its backlog will carry them in order.
      if (sub.pending === 0) this.sendSubscribe(sub);
      return;
    }
    sub.lastSeq = event.seq;
    sub.handler.onEvent(event);
  }

  private handleCaughtUp(sessionId: string, serverLastSeq: number): void {
    const sub = this.subscriptions.get(sessionId);
    if (sub === undefined) return;
    sub.pending = Math.max(0, sub.pending - 1);
    if (sub.pending > 0) return; // a newer subscribe is still being answered
    if (serverLastSeq > sub.lastSeq) {
      // The server has events we never received: fetch them before declaring ourselves live.
      this.sendSubscribe(sub);
      return;
    }
    sub.handler.onCaughtUp?.(sub.lastSeq);
  }

  // ---- helpers ---------------------------------------------------------------------------

  private sendSubscribe(sub: Subscription): void {
    sub.pending += 1;
    this.send({ type: 'subscribe', sessionId: sub.sessionId, afterSeq: sub.lastSeq });
  }

  private send(frame: ClientFrame): void {
    if (this.socket === null || this.socket.readyState !== OPEN) return;
    this.socket.send(JSON.stringify(frame));
  }

  private isOpen(): boolean {
    return this.socket !== null && this.socket.readyState === OPEN;
  }

  private notifySessionsChanged(): void {
    for (const listener of this.sessionsListeners) listener();
  }

  private setState(state: ConnectionState): void {
    if (state === this.state) return;
    this.state = state;
    for (const listener of this.stateListeners) listener(state);
  }
}
