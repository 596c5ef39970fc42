import { describe, expect, it } from 'vitest';
import { baseName, formatAge, formatCost, sessionLabel } from './format.ts';

describe('formatting', () => {
  it('shows ages relative to now', () => {
    const now = Date.parse('2026-05-25T12:00:00Z');
    expect(formatAge('2026-05-25T11:59:50Z', now)).toBe('just now');
    expect(formatAge('2026-05-25T11:55:00Z', now)).toBe('5m ago');
    expect(formatAge('2026-05-25T09:00:00Z', now)).toBe('3h ago');
    expect(formatAge('2026-05-22T12:00:00Z', now)).toBe('3d ago');
    expect(formatAge('not a date', now)).toBe('not a date');
  });

  it('shows cost in dollars, marking amounts under a cent', () => {
    expect(formatCost(0)).toBe('$0');
    expect(formatCost(0.004)).toBe('<$0.01');
    expect(formatCost(1.5)).toBe('$1.50');
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
