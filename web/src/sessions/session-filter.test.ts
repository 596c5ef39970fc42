import { describe, expect, it } from 'vitest';
import type { SessionStatus } from '../../../shared/events.ts';
import { DEFAULT_FILTER, filterSessions, hiddenArchived, offersReview, statusCounts } from './session-filter.ts';

const S = (id: string, status: SessionStatus) => ({ id, status });
const sessions = [S('a', 'running'), S('b', 'archived'), S('c', 'merged'), S('d', 'all_done'), S('e', 'archived')];

describe('filterSessions', () => {
  it('hides archived sessions by default', () => {
    expect(filterSessions(sessions, DEFAULT_FILTER).map((s) => s.id)).toEqual(['a', 'c', 'd']);
    expect(hiddenArchived(sessions, DEFAULT_FILTER)).toBe(2);
  });

  it('shows them when the toggle is on', () => {
    const filter = { status: 'all' as const, showArchived: true };
    expect(filterSessions(sessions, filter).map((s) => s.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(hiddenArchived(sessions, filter)).toBe(0);
  });

  it('shows only the chosen status, archived included when that is the one chosen', () => {
    expect(filterSessions(sessions, { status: 'merged', showArchived: false }).map((s) => s.id)).toEqual(['c']);
    expect(filterSessions(sessions, { status: 'archived', showArchived: false }).map((s) => s.id)).toEqual(['b', 'e']);
  });

  it('counts sessions per status', () => {
    expect(Object.fromEntries(statusCounts(sessions))).toEqual({ running: 1, archived: 2, merged: 1, all_done: 1 });
  });

  it('offers a review link for finished and merged sessions only', () => {
    expect(offersReview('all_done')).toBe(true);
    expect(offersReview('merged')).toBe(true);
    expect(offersReview('running')).toBe(false);
    expect(offersReview('archived')).toBe(false);
  });
});
