import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY, abortableSleep, backoffDelay, isRetryableStatus, retryAfterMs } from './retry.ts';

describe('retryAfterMs', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it('reads seconds, milliseconds and HTTP dates', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': '3' }))).toBe(3_000);
    expect(retryAfterMs(new Headers({ 'retry-after': '0.5' }))).toBe(500);
    expect(retryAfterMs(new Headers({ 'retry-after': '3', 'retry-after-ms': '120' }))).toBe(120);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:10 GMT' }), now)).toBe(10_000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Wed, 31 Dec 2025 00:00:00 GMT' }), now)).toBe(0);
  });

  it('ignores absent or unreadable values', () => {
    expect(retryAfterMs(undefined)).toBeNull();
    expect(retryAfterMs(new Headers())).toBeNull();
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }))).toBeNull();
    expect(retryAfterMs(new Headers({ 'retry-after': '-4' }))).toBeNull();
    expect(retryAfterMs(new Headers({ 'retry-after-ms': 'x', 'retry-after': '2' }))).toBe(2_000);
  });
});

describe('backoffDelay', () => {
  const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 1_000, maxDelayMs: 8_000 };
  it('doubles per failure with jitter between half and all of the step, up to the cap', () => {
    expect([1, 2, 3, 4, 5].map((n) => backoffDelay(n, policy, () => 0))).toEqual([500, 1_000, 2_000, 4_000, 4_000]);
    expect([1, 2, 3, 4, 5].map((n) => backoffDelay(n, policy, () => 1))).toEqual([1_000, 2_000, 4_000, 8_000, 8_000]);
  });
});

describe('isRetryableStatus', () => {
  it('retries timeouts, conflicts, rate limits and server errors only', () => {
    expect([408, 409, 429, 500, 502, 503, 504].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 413, 422].some(isRetryableStatus)).toBe(false);
  });
});

describe('abortableSleep', () => {
  it('rejects with the abort reason as soon as the signal fires', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const sleeping = abortableSleep(60_000, controller.signal);
    controller.abort(new Error('stop now'));
    await expect(sleeping).rejects.toThrow('stop now');
    expect(Date.now() - started).toBeLessThan(500);
    await expect(abortableSleep(10, AbortSignal.abort())).rejects.toMatchObject({ name: 'AbortError' });
    await expect(abortableSleep(5)).resolves.toBeUndefined();
  });
});
