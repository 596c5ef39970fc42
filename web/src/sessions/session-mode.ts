/** Which view a session page shows, by status, whether a seed exists, and the run's state. */
import type { RunState } from '../../../shared/api.ts';
import type { SessionStatus, TilthEvent } from '../../../shared/events.ts';

export type SessionMode = 'interview' | 'seed' | 'run' | 'events';

export function sessionMode(status: SessionStatus | null, hasSeed: boolean, run: RunState['state'] = 'idle'): SessionMode {
  // A queued session is still `prepared` or `stopped`; a started one may not have said `running`
  // yet. Either way the run is what the user is waiting on.
  if (run !== 'idle' && hasSeed) return 'run';
  switch (status) {
    case 'interviewing':
      return 'interview';
    case 'stopped':
      // A stopped run has a seed; a stopped interview has none.
      return hasSeed ? 'run' : 'interview';
    case 'failed':
      // Failed is the interview's end (a run stops instead), so there is no run to show.
      return hasSeed ? 'events' : 'interview';
    case 'prepared':
      return hasSeed ? 'seed' : 'events';
    case 'running':
    case 'all_done':
    case 'merged':
    case 'archived':
      return 'run';
    default:
      return 'events';
  }
}

/** The stream says the seed exists before a refetched detail can. */
export function seedSeenInEvents(events: readonly TilthEvent[]): boolean {
  return events.some((e) => e.type === 'seed_committed' || e.type === 'session_prepared' || e.type === 'seed_edited');
}
