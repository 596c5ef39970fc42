/**
 * Which sessions the list shows: one status or all of them, with archived sessions (their work
 * merged or pushed, the worktree gone) hidden unless asked for — or unless it is the status asked for.
 */
import type { SessionListItem } from '../../../shared/api.ts';
import type { SessionStatus } from '../../../shared/events.ts';

export interface SessionFilter {
  status: SessionStatus | 'all';
  showArchived: boolean;
}

export const DEFAULT_FILTER: SessionFilter = { status: 'all', showArchived: false };
/** Every session, archived ones included: what "Show all" means. */
export const SHOW_EVERYTHING: SessionFilter = { status: 'all', showArchived: true };

export function filterSessions<S extends Pick<SessionListItem, 'status'>>(sessions: readonly S[], filter: SessionFilter): S[] {
  return sessions.filter((s) => {
    if (filter.status !== 'all') return s.status === filter.status;
    return filter.showArchived || s.status !== 'archived';
  });
}

/** How many sessions have each status, in the order statuses are listed. */
export function statusCounts(sessions: readonly Pick<SessionListItem, 'status'>[]): Map<SessionStatus, number> {
  const counts = new Map<SessionStatus, number>();
  for (const s of sessions) counts.set(s.status, (counts.get(s.status) ?? 0) + 1);
  return counts;
}

/** Sessions the status filter lets through but the archived toggle hides. */
export function hiddenArchived(sessions: readonly Pick<SessionListItem, 'status'>[], filter: SessionFilter): number {
  if (filter.status !== 'all' || filter.showArchived) return 0;
  return sessions.filter((s) => s.status === 'archived').length;
}

/** Sessions waiting for the user's answer first; otherwise the server's order (newest first). */
export function sortSessions<S extends Pick<SessionListItem, 'needs_you'>>(sessions: readonly S[]): S[] {
  return [...sessions.filter((s) => s.needs_you), ...sessions.filter((s) => !s.needs_you)];
}

const sessionsWord = (n: number) => (n === 1 ? 'session' : 'sessions');

/** The header's count: every session on disk, and how many of them the filter shows when that is fewer. */
export function countLine(total: number, shown: number): string {
  return shown === total ? `${total} ${sessionsWord(total)}` : `${shown} of ${total} ${sessionsWord(total)} shown`;
}

/**
 * What the filter hides, in words, for a list it leaves empty or short; null when it hides nothing.
 * The one action that shows them all is always "Show all" (`SHOW_EVERYTHING`).
 */
export function hiddenLine(sessions: readonly Pick<SessionListItem, 'status'>[], filter: SessionFilter): string | null {
  const hidden = sessions.length - filterSessions(sessions, filter).length;
  if (hidden === 0) return null;
  const are = hidden === 1 ? 'is' : 'are';
  if (filter.status === 'all') {
    return `${hidden} archived ${sessionsWord(hidden)} ${are} hidden (merged or pushed, then cleansed).`;
  }
  return `${hidden} ${sessionsWord(hidden)} with another status ${are} hidden.`;
}

/** A finished run has something to review; so does a merged one. */
export function offersReview(status: SessionStatus): boolean {
  return status === 'all_done' || status === 'merged';
}
