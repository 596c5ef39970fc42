/**
 * Retry policy and backoff for model calls. The SDK's own retries are off (`maxRetries: 0`) so
 * one place decides what is transient, how long to wait, and when to give up.
 */
export type RetryPolicy = {
  /** Attempts in total, the first included. */
  maxAttempts: number;
  /** First backoff; doubles per attempt, with jitter. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Total time spent sleeping between attempts before giving up. */
  maxTotalWaitMs: number;
  /** A provider's `retry-after` is honoured up to this. */
  retryAfterCapMs: number;
  /** Empty replies are returned to the caller by default; set to retry them like errors. */
  retryEmpty: boolean;
};

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 6,
  baseDelayMs: 1_000,
  maxDelayMs: 30_000,
  maxTotalWaitMs: 120_000,
  retryAfterCapMs: 60_000,
  retryEmpty: false,
});

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Statuses worth another try: timeout, conflict, rate limit, and every server error. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * Exponential backoff with "equal jitter": half the step is fixed, half random, so concurrent
 * runs hitting the same rate limit spread out without ever retrying immediately.
 * `failures` is the number of failed attempts so far (1 after the first).
 */
export function backoffDelay(failures: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, failures - 1));
  return Math.round(step / 2 + random() * (step / 2));
}

/** Reads `retry-after-ms` (milliseconds) or `retry-after` (seconds or an HTTP date). */
export function retryAfterMs(headers: Headers | null | undefined, now: number = Date.now()): number | null {
  if (!headers) return null;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '') {
    const n = Number(ms);
    if (Number.isFinite(n) && n >= 0) return n;
  }
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : null;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export const abortableSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
