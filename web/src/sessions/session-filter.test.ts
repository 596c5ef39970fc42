import { describe, expect, it } from 'vitest';
import type { SessionStatus } from '../../../shared/events.ts';
import {
  countLine,
  DEFAULT_FILTER,
  filterSessions,
  hiddenArchived,
  hiddenLine,
  offersReview,
  SHOW_EVERYTHING,
  sortSessions,
  statusCounts,
} from './session-filter.ts';

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

  it('shows every session, archived ones included, when asked to show all', () => {
    expect(filterSessions(sessions, SHOW_EVERYTHING)).toHaveLength(sessions.length);
    expect(hiddenLine(sessions, SHOW_EVERYTHING)).toBeNull();
  });
});

describe('what the list says it hides', () => {
  it('names the archived sessions the default filter hides', () => {
    const cleansed = [S('a', 'archived')];
    expect(filterSessions(cleansed, DEFAULT_FILTER)).toEqual([]);
    expect(hiddenLine(cleansed, DEFAULT_FILTER)).toBe('1 archived session is hidden (merged or pushed, then cleansed).');
    expect(hiddenLine(sessions, DEFAULT_FILTER)).toBe('2 archived sessions are hidden (merged or pushed, then cleansed).');
  });

  it('names the sessions a status filter hides, even when none has that status any more', () => {
    expect(hiddenLine(sessions, { status: 'stopped', showArchived: false })).toBe('5 sessions with another status are hidden.');
    expect(hiddenLine([S('a', 'running')], { status: 'all_done', showArchived: false })).toBe('1 session with another status is hidden.');
  });

  it('counts every session in the header, and what is shown when that is fewer', () => {
    expect(countLine(1, 1)).toBe('1 session');
    expect(countLine(3, 3)).toBe('3 sessions');
    expect(countLine(1, 0)).toBe('0 of 1 session shown');
    expect(countLine(5, 3)).toBe('3 of 5 sessions shown');
  });
});

describe('sortSessions', () => {
  it('puts sessions that need the user first and keeps the order otherwise', () => {
    const list = [
      { id: 'a', needs_you: false },
      { id: 'b', needs_you: true },
      { id: 'c', needs_you: false },
      { id: 'd', needs_you: true },
    ];
    expect(sortSessions(list).map((s) => s.id)).toEqual(['b', 'd', 'a', 'c']);
  });
});
