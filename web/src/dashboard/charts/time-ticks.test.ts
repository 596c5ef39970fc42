import { describe, expect, it } from 'vitest';
import { chooseTimeTicks } from './time-ticks.ts';

/** Seconds since the epoch for a local wall-clock time (so the test holds in any time zone). */
const local = (h: number, m: number, s = 0, day = 26) => new Date(2026, 10, day, h, m, s).getTime() / 1000;

describe('chooseTimeTicks', () => {
  it('ticks whole seconds on a run under two minutes, and never finer than a second', () => {
    const ticks = chooseTimeTicks(local(17, 20, 3.4), local(17, 20, 41.9), 900);
    expect(ticks.step).toBe(5);
    expect(ticks.labels).toEqual(['17:20:05', '17:20:10', '17:20:15', '17:20:20', '17:20:25', '17:20:30', '17:20:35', '17:20:40']);
    expect(ticks.splits.every((t) => Number.isInteger(t))).toBe(true);
    expect(chooseTimeTicks(local(9, 0, 0), local(9, 0, 0.3), 1200).step).toBe(1);
  });

  it('ticks minutes for a run of a quarter of an hour, with no date', () => {
    const ticks = chooseTimeTicks(local(5, 18, 40), local(5, 33, 10), 700);
    expect(ticks.step).toBe(120);
    expect(ticks.labels).toEqual(['5:20', '5:22', '5:24', '5:26', '5:28', '5:30', '5:32']);
  });

  it('ticks hours for a long run and gives fewer ticks on a narrow screen', () => {
    expect(chooseTimeTicks(local(8, 10), local(16, 40), 1000).labels).toEqual(['9:00', '10:00', '11:00', '12:00', '13:00', '14:00', '15:00', '16:00']);
    expect(chooseTimeTicks(local(8, 10), local(16, 40), 300).labels).toEqual(['9:00', '12:00', '15:00']);
  });

  it('keeps labels far enough apart that they cannot overlap', () => {
    for (const [span, width] of [
      [30, 200],
      [95, 320],
      [3_000, 250],
      [50_000, 1200],
    ] as const) {
      const ticks = chooseTimeTicks(local(10, 0), local(10, 0) + span, width);
      expect(ticks.splits.length).toBeLessThanOrEqual(Math.floor(width / 70) + 1);
      expect(ticks.splits.length).toBeGreaterThan(0);
    }
  });

  it('puts the date only on the first tick of each day when the span crosses midnight', () => {
    const ticks = chooseTimeTicks(local(21, 30, 0, 26), local(3, 15, 0, 27), 800);
    expect(ticks.step).toBe(3600);
    expect(ticks.labels).toEqual(['Nov 26 22:00', '23:00', 'Nov 27 0:00', '1:00', '2:00', '3:00']);
  });

  it('labels days alone on a run of several days', () => {
    const ticks = chooseTimeTicks(local(12, 0, 0, 20), local(12, 0, 0, 26), 600);
    expect(ticks.step).toBe(2 * 86_400);
    expect(ticks.labels).toHaveLength(3);
    for (const label of ticks.labels) expect(label).toMatch(/^Nov \d{2}$/);
  });
});
