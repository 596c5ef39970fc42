/** Which view a session page shows, by status and whether a seed exists. */
import type { SessionStatus, TilthEvent } from '../../shared/events.ts';

export type SessionMode = 'interview' | 'seed' | 'events';

export function sessionMode(status: SessionStatus | null, hasSeed: boolean): SessionMode {
  switch (status) {
    case 'interviewing':
      return 'interview';
    case 'stopped':
    case 'failed':
      // A stopped run has a seed and keeps the event list; a stopped interview has none.
      return hasSeed ? 'events' : 'interview';
    case 'prepared':
      return hasSeed ? 'seed' : 'events';
    default:
      return 'events';
  }
}

/** The stream says the seed exists before a refetched detail can. */
export function seedSeenInEvents(events: readonly TilthEvent[]): boolean {
  return events.some((e) => e.type === 'seed_committed' || e.type === 'session_prepared' || e.type === 'seed_edited');
}
