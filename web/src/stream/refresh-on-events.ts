/**
 * Keeps a session's REST state fresh from its stream: an event that changes what
 * `GET /api/sessions/:id` or `GET /seed` would answer invalidates that query. The scan covers only
 * events newer than the last one looked at, so each event costs once.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import type { TilthEvent } from '../../../shared/events.ts';
import { queryKeys } from '../api/queries.ts';

export interface RefreshTargets {
  detail: boolean;
  seed: boolean;
}

const DETAIL_EVENTS = new Set<TilthEvent['type']>([
  'status_changed',
  'question_asked',
  'question_answered',
  'session_prepared',
  'seed_written',
  'seed_committed',
  'seed_edited',
  'stop',
  // The run: the plan's task statuses, the run state and the spend.
  'session_resume',
  'rewound',
  'context_reset',
  'task_done',
  'task_failed',
  'commit',
]);
const SEED_EVENTS = new Set<TilthEvent['type']>(['status_changed', 'session_prepared', 'seed_committed', 'seed_edited']);

/** Which queries the events after `afterSeq` make stale. `events` is oldest first. */
export function refreshTargets(events: readonly TilthEvent[], afterSeq: number): RefreshTargets {
  const targets: RefreshTargets = { detail: false, seed: false };
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i];
    if (event === undefined || event.seq <= afterSeq) break;
    // An interview's model call moves its token totals, which the interview view reads from the
    // detail. A run's spend is read from the summary the dashboard folds: refetching the detail
    // after each of a run's model calls would only load the server while it works.
    if (DETAIL_EVENTS.has(event.type) || (event.type === 'model_call' && event.data.phase === 'interview')) targets.detail = true;
    if (SEED_EVENTS.has(event.type)) targets.seed = true;
    if (targets.detail && targets.seed) break;
  }
  return targets;
}

export function useRefreshOnSessionEvents(sessionId: string, recent: readonly TilthEvent[], lastSeq: number): void {
  const queryClient = useQueryClient();
  const seen = useRef(0);
  useEffect(() => {
    if (lastSeq <= seen.current) return;
    const targets = refreshTargets(recent, seen.current);
    seen.current = lastSeq;
    if (targets.detail) void queryClient.invalidateQueries({ queryKey: queryKeys.sessionDetail(sessionId) });
    if (targets.seed) void queryClient.invalidateQueries({ queryKey: queryKeys.seed(sessionId) });
  }, [queryClient, sessionId, recent, lastSeq]);
}
