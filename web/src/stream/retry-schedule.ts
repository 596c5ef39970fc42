/**
 * When the stream client tries again after losing the server (issue 32). A server that was
 * killed and started again answers within a second or two, and the user should see the stream
 * live again the moment it does, not after a backoff that kept sleeping meanwhile:
 *
 * 1. The first try after a loss is at once (a dropped connection to a live server).
 * 2. Then short tries (by default a health request every 100 ms) while the outage is young.
 * 3. Past that, or once the server answered a try but refused the socket anyway, exponential
 *    backoff with full jitter, capped, as for any server that stays away.
 *
 * A connection that flaps (lost again within `flapMs` of an at-once try) skips step 1, so a
 * server that accepts and hangs up at once is not hammered. Time is passed in: the schedule is pure.
 */

export interface BackoffOptions {
  baseMs: number;
  capMs: number;
}

export interface RetryPolicy {
  /** The wait between tries while the outage is young. */
  probeMs: number;
  /** How long after the loss the short tries go on before backing off. */
  probeForMs: number;
  /** A loss within this long of the last at-once try is not tried again at once. */
  flapMs: number;
  backoff: BackoffOptions;
}

export const DEFAULT_RETRY: RetryPolicy = { probeMs: 100, probeForMs: 15_000, flapMs: 1_000, backoff: { baseMs: 500, capMs: 10_000 } };

/**
 * "Full jitter": a uniformly random delay up to the exponential ceiling. Clients that lost the
 * same server at the same moment then spread their retries instead of arriving in waves.
 * `attempt` counts from 1.
 */
export function backoffDelay(attempt: number, options: BackoffOptions, random: () => number): number {
  const ceiling = Math.min(options.capMs, options.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}

export class RetrySchedule {
  private lostAt: number | null = null;
  private lastAtOnce = Number.NEGATIVE_INFINITY;
  /** Tries backed off in this outage; once one is, the rest are. */
  private slow = 0;

  constructor(
    private readonly policy: RetryPolicy,
    private readonly random: () => number,
  ) {}

  /** Connected: the next loss starts a new outage. */
  opened(): void {
    this.lostAt = null;
    this.slow = 0;
  }

  /** How long the server has been away; 0 while connected. */
  downFor(now: number): number {
    return this.lostAt === null ? 0 : now - this.lostAt;
  }

  /**
   * The wait before the next try, after the connection was lost or a try failed. `refused` says
   * the server answered the last probe yet the socket failed: it is up but will not stream.
   */
  next(now: number, refused = false): number {
    if (this.lostAt === null) {
      this.lostAt = now;
      if (now - this.lastAtOnce >= this.policy.flapMs) {
        this.lastAtOnce = now;
        return 0;
      }
    }
    if (!refused && this.slow === 0 && now - this.lostAt < this.policy.probeForMs) return this.policy.probeMs;
    this.slow += 1;
    return backoffDelay(this.slow, this.policy.backoff, this.random);
  }
}
