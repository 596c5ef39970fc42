import { describe, expect, it } from 'vitest';
import { formatCount, formatDuration, formatSeconds, formatUsd } from './figures.ts';

describe('figures', () => {
  it('keeps small dollar amounts readable and large ones to the cent', () => {
    expect(formatUsd(0)).toBe('$0');
    expect(formatUsd(10)).toBe('$10.00');
    expect(formatUsd(0.05)).toBe('$0.05');
    expect(formatUsd(0.123)).toBe('$0.123');
    expect(formatUsd(0.0042)).toBe('$0.0042');
  });

  it('shortens large counts and durations', () => {
    expect(formatCount(9_999)).toBe('9,999');
    expect(formatCount(45_600)).toBe('45.6k');
    expect(formatCount(2_350_000)).toBe('2.35M');
    expect(formatDuration(42_000)).toBe('42s');
    expect(formatDuration(185_000)).toBe('3m 05s');
    expect(formatDuration(7_620_000)).toBe('2h 07m');
    expect(formatSeconds(4.25)).toBe('4.3 s');
  });
});
