import { describe, expect, it } from 'vitest';
import { baseName, formatAge, formatCount, formatDuration, formatSeconds, formatTime, formatTokens, formatUsd, sessionLabel } from './format.ts';

describe('formatting', () => {
  it('shows an event time as the browser would, to the second on a 24-hour clock', () => {
    for (const iso of ['2026-11-27T09:05:07.123Z', '2026-01-01T00:00:00Z', '2026-06-30T23:59:59Z']) {
      expect(formatTime(iso)).toBe(new Date(iso).toLocaleTimeString(undefined, { hour12: false }));
    }
    expect(formatTime('not a date')).toBe('not a date');
  });

  it('shows ages relative to now', () => {
    const now = Date.parse('2026-05-25T12:00:00Z');
    expect(formatAge('2026-05-25T11:59:50Z', now)).toBe('just now');
    expect(formatAge('2026-05-25T11:55:00Z', now)).toBe('5m ago');
    expect(formatAge('2026-05-25T09:00:00Z', now)).toBe('3h ago');
    expect(formatAge('2026-05-22T12:00:00Z', now)).toBe('3d ago');
    expect(formatAge('not a date', now)).toBe('not a date');
  });

  it('keeps small dollar amounts readable and large ones to the cent', () => {
    expect(formatUsd(0)).toBe('$0');
    expect(formatUsd(10)).toBe('$10.00');
    expect(formatUsd(1.5)).toBe('$1.50');
    expect(formatUsd(0.05)).toBe('$0.05');
    expect(formatUsd(0.123)).toBe('$0.123');
    expect(formatUsd(0.0042)).toBe('$0.0042');
  });

  it('shortens large counts and spells out tokens', () => {
    expect(formatCount(9_999)).toBe('9,999');
    expect(formatCount(45_600)).toBe('45.6k');
    expect(formatCount(2_350_000)).toBe('2.35M');
    expect(formatTokens(1)).toBe('1 token');
    expect(formatTokens(65_536)).toBe('65,536 tokens');
  });

  it('shows durations in the largest sensible unit', () => {
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(12_400)).toBe('12 s');
    expect(formatDuration(185_000)).toBe('3 min 05 s');
    expect(formatDuration(3_900_000)).toBe('1 h 05 min');
    expect(formatDuration(-1)).toBe('—');
    expect(formatSeconds(4.25)).toBe('4.3 s');
    expect(formatSeconds(200)).toBe('3 min 20 s');
  });

  it('labels a session by title, else the first line of its brief, else "untitled"', () => {
    expect(sessionLabel({ title: 'Add CSV export', brief: 'whatever' })).toBe('Add CSV export');
    expect(sessionLabel({ title: ' ', brief: 'Export reports\nas CSV files' })).toBe('Export reports');
    expect(sessionLabel({ title: '', brief: '' })).toBe('untitled');
  });

  it('shows a repository by its folder name', () => {
    expect(baseName('/home/me/code/shop/')).toBe('shop');
    expect(baseName('C:\\code\\shop')).toBe('shop');
    expect(baseName('shop')).toBe('shop');
  });
});
