import { describe, expect, it } from 'vitest';
import { backoffDelay, RetrySchedule, type RetryPolicy } from './retry-schedule.ts';

const POLICY: RetryPolicy = { probeMs: 100, probeForMs: 1_000, flapMs: 500, backoff: { baseMs: 100, capMs: 1_000 } };

describe('backoffDelay', () => {
  it('grows exponentially up to the cap, scaled by the random draw (full jitter)', () => {
    const options = { baseMs: 100, capMs: 1000 };
    const attempts = [1, 2, 3, 4, 5, 6];
    expect(attempts.map((n) => backoffDelay(n, options, () => 0.5))).toEqual([50, 100, 200, 400, 500, 500]);
    expect(attempts.map((n) => backoffDelay(n, options, () => 0.999))).toEqual([99, 199, 399, 799, 999, 999]);
    expect(attempts.map((n) => backoffDelay(n, options, () => 0))).toEqual([0, 0, 0, 0, 0, 0]);
  });
});

describe('RetrySchedule', () => {
  it('tries at once after a loss, then every probeMs while the outage is young, then backs off', () => {
    const schedule = new RetrySchedule(POLICY, () => 0.5);
    const at = [10_000, 10_000, 10_100, 10_900, 10_999, 11_000, 11_100, 11_500, 12_000, 13_000, 20_000];
    const waits = at.map((now) => schedule.next(now));
    expect(waits).toEqual([0, 100, 100, 100, 100, 50, 100, 200, 400, 500, 500]);
    expect(schedule.downFor(10_000)).toBe(0);
    expect(schedule.downFor(13_000)).toBe(3_000);
  });

  it('starts a new outage once connected: at once again, then short tries', () => {
    const schedule = new RetrySchedule(POLICY, () => 0.5);
    for (const now of [0, 0, 1_000, 2_000]) schedule.next(now);
    schedule.opened();
    expect(schedule.downFor(5_000)).toBe(0);
    expect([5_000, 5_000, 5_100].map((now) => schedule.next(now))).toEqual([0, 100, 100]);
  });

  it('backs off for the rest of the outage once the server answered but refused the socket', () => {
    const schedule = new RetrySchedule(POLICY, () => 0.5);
    expect(schedule.next(0)).toBe(0);
    expect(schedule.next(0)).toBe(100);
    expect(schedule.next(100, true)).toBe(50);
    expect(schedule.next(200)).toBe(100);
    expect(schedule.next(300)).toBe(200);
  });

  it('does not try at once when the connection flaps: lost again soon after the last at-once try', () => {
    const schedule = new RetrySchedule(POLICY, () => 0.5);
    expect(schedule.next(0)).toBe(0);
    schedule.opened();
    expect(schedule.next(499)).toBe(100);
    schedule.opened();
    expect(schedule.next(1_000)).toBe(0);
  });
});
