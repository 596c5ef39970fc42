/**
 * The stream client's tries to get its connection back (issue 32), on the RetrySchedule: it
 * counts the failed tries of an outage, says whether the client reads `reconnecting` or
 * `offline`, and runs each try when its wait is over, a probe of the server first when the client
 * has one (the first try after a loss is always a connection). A connection that fails right
 * after a probe found the server up is a refusal, and backs the rest of the outage off.
 */
import { RetrySchedule, type RetryPolicy } from './retry-schedule.ts';

export interface ReconnectorOptions {
  policy: RetryPolicy;
  random: () => number;
  now: () => number;
  /** Whether the server answers at all; without it every try is a connection. */
  probe: (() => Promise<boolean>) | undefined;
  /** Away this long, the state reads `offline`. */
  offlineAfterMs: number;
  /** Opens a connection. */
  connect: () => void;
  /** Whether a try is still wanted when a probe answers: the client runs and has no socket. */
  wanted: () => boolean;
  /** How the client reads while it tries. */
  setState: (state: 'reconnecting' | 'offline') => void;
}

export class Reconnector {
  private readonly schedule: RetrySchedule;
  /** Failed tries in this outage, connections and probes. */
  private failures = 0;
  /** The last probe found the server up: a connection failing now is the server refusing it. */
  private probedUp = false;
  /** Bumped by every try, so the answer of a probe overtaken by another try is ignored. */
  private tryId = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly options: ReconnectorOptions) {
    this.schedule = new RetrySchedule(options.policy, options.random);
  }

  get attempt(): number {
    return this.failures;
  }

  /** A try is starting now (scheduled or not): a waiting one or a probe under way is dropped. */
  trying(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.tryId += 1;
  }

  /** Connected: returns whether this ended an outage; the next loss starts a new one. */
  opened(): boolean {
    const reconnected = this.failures > 0;
    this.failures = 0;
    this.probedUp = false;
    this.schedule.opened();
    return reconnected;
  }

  /** Started or stopped: no try waits, and the next failure starts an outage. */
  reset(): void {
    this.trying();
    this.failures = 0;
    this.probedUp = false;
  }

  /** A connection failed or was lost: schedules the next try and returns its wait. */
  connectionFailed(): number {
    return this.scheduleTry(this.probedUp);
  }

  private scheduleTry(refused: boolean): number {
    this.failures += 1;
    this.probedUp = false;
    const now = this.options.now();
    const delayMs = this.schedule.next(now, refused);
    this.options.setState(this.schedule.downFor(now) >= this.options.offlineAfterMs ? 'offline' : 'reconnecting');
    // The at-once try after a loss is a connection: the server is most likely still there.
    const connectNow = delayMs === 0 || this.options.probe === undefined;
    this.timer = setTimeout(() => (connectNow ? this.options.connect() : this.probeThenConnect()), delayMs);
    return delayMs;
  }

  private probeThenConnect(): void {
    this.trying();
    const id = this.tryId;
    const probe = this.options.probe;
    if (probe === undefined) return;
    void probe()
      .catch(() => false)
      .then((up) => {
        if (!this.options.wanted() || id !== this.tryId) return;
        if (!up) {
          this.scheduleTry(false);
          return;
        }
        this.probedUp = true;
        this.options.connect();
      });
  }
}
