/**
 * Holds one session's folded stream between the StreamClient and React. Events are queued as
 * they arrive and folded once per animation frame, so a backlog of thousands of events or a
 * burst of live ones costs one render per frame, not one per event.
 *
 * The store outlives the components that read it: leaving a session page and coming back
 * resubscribes from the store's last seq instead of replaying the whole log.
 */
import type { TilthEvent } from '../../../shared/events.ts';
import type { StreamClient } from './stream-client.ts';
import { foldSessionEvents, initialSessionEvents, type SessionEventsAction, type SessionEventsState } from './events-reducer.ts';

/** `requestAnimationFrame` in the browser; tests pass a manual one. */
export type FrameScheduler = (flush: () => void) => void;

type Subscriber = Pick<StreamClient, 'subscribe'>;

/** Fetches the newest page of a session's log (REST `?tail=1`). */
export type TailLoader = (sessionId: string) => Promise<readonly TilthEvent[]>;

export class SessionEventsStore {
  private state: SessionEventsState = initialSessionEvents;
  private queue: SessionEventsAction[] = [];
  private flushScheduled = false;
  private readonly listeners = new Set<() => void>();
  private unsubscribeStream: (() => void) | null = null;
  private tailRequested = false;
  private tailPending = false;

  constructor(
    private readonly client: Subscriber,
    readonly sessionId: string,
    private readonly schedule: FrameScheduler,
    private readonly loadTail?: TailLoader,
  ) {}

  readonly getSnapshot = (): SessionEventsState => this.state;

  /**
   * The first listener opens the stream subscription; the last one to leave closes it. A store
   * that has nothing yet first loads the newest page by REST and subscribes from there, so a
   * 100k-event session opens with one page instead of replaying its whole log.
   */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    if (this.unsubscribeStream === null && !this.loadingTail()) this.openStream();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0 && this.unsubscribeStream !== null) {
        this.unsubscribeStream();
        this.unsubscribeStream = null;
      }
    };
  };

  /** Starts the tail load if this store has never had events; true while it is in flight. */
  private loadingTail(): boolean {
    if (this.tailPending) return true;
    if (this.loadTail === undefined || this.tailRequested || this.resumeFrom() > 0) return false;
    this.tailRequested = true;
    this.tailPending = true;
    this.loadTail(this.sessionId)
      .then((events) => {
        for (const event of events) this.enqueue({ type: 'event', event });
      })
      .catch(() => {
        // No page: the stream replays from the start instead.
      })
      .finally(() => {
        this.tailPending = false;
        if (this.listeners.size > 0 && this.unsubscribeStream === null) this.openStream();
      });
    return true;
  }

  private openStream(): void {
    this.unsubscribeStream = this.client.subscribe(this.sessionId, this.resumeFrom(), {
      onEvent: (event) => this.enqueue({ type: 'event', event }),
      onCaughtUp: (lastSeq) => this.enqueue({ type: 'caught-up', lastSeq }),
      onError: (error) => this.enqueue({ type: 'error', ...error }),
    });
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  /** Queued events count too: they were delivered and must not be asked for again. */
  private resumeFrom(): number {
    let seq = this.state.view.lastSeq;
    for (const action of this.queue) if (action.type === 'event') seq = Math.max(seq, action.event.seq);
    return seq;
  }

  private enqueue(action: SessionEventsAction): void {
    this.queue.push(action);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    this.schedule(() => this.flush());
  }

  private flush(): void {
    this.flushScheduled = false;
    const actions = this.queue;
    this.queue = [];
    const next = foldSessionEvents(this.state, actions);
    if (next === this.state) return;
    this.state = next;
    for (const listener of this.listeners) listener();
  }
}

/**
 * One store per session per client, so two components showing the same session share one
 * subscription and one state. Idle stores beyond a few are dropped to bound memory.
 */
export class SessionEventsRegistry {
  private readonly stores = new Map<string, SessionEventsStore>();

  constructor(
    private readonly client: Subscriber,
    private readonly schedule: FrameScheduler,
    private readonly loadTail?: TailLoader,
    private readonly maxIdle = 4,
  ) {}

  get(sessionId: string): SessionEventsStore {
    let store = this.stores.get(sessionId);
    if (store === undefined) {
      this.evictIdle();
      store = new SessionEventsStore(this.client, sessionId, this.schedule, this.loadTail);
    } else {
      this.stores.delete(sessionId); // re-insert below: Map order doubles as recency
    }
    this.stores.set(sessionId, store);
    return store;
  }

  private evictIdle(): void {
    const idle = [...this.stores.values()].filter((s) => s.listenerCount === 0);
    for (const store of idle.slice(0, Math.max(0, idle.length - this.maxIdle + 1))) {
      this.stores.delete(store.sessionId);
    }
  }
}
