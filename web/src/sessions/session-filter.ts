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

/** A finished run has something to review; so does a merged one. */
export function offersReview(status: SessionStatus): boolean {
  return status === 'all_done' || status === 'merged';
}
