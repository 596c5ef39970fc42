/**
 * Folds a session's stream into the state the session page renders. Pure: `(state, actions)`
 * → state, so a batch of a thousand events costs one new state and one render.
 */
import type { SessionStatus, TilthEvent } from '../../../shared/events.ts';

export interface SessionEventsState {
  /** Every event received, in seq order, each once. */
  readonly events: readonly TilthEvent[];
  readonly lastSeq: number;
  /** The backlog has been delivered at least once; later events are live. */
  readonly caughtUp: boolean;
  /** From the latest `status_changed`, or null before one is seen. */
  readonly status: SessionStatus | null;
  readonly error: { code: string; message: string } | null;
}

export type SessionEventsAction =
  | { type: 'event'; event: TilthEvent }
  | { type: 'caught-up'; lastSeq: number }
  | { type: 'error'; code: string; message: string };

export const initialSessionEvents: SessionEventsState = {
  events: [],
  lastSeq: 0,
  caughtUp: false,
  status: null,
  error: null,
};

/**
 * Applies a batch. The event array is copied once per batch, not once per event; an event at or
 * below `lastSeq` is ignored, so replaying a batch is harmless.
 */
export function foldSessionEvents(
  state: SessionEventsState,
  actions: readonly SessionEventsAction[],
): SessionEventsState {
  if (actions.length === 0) return state;
  const added: TilthEvent[] = [];
  let { lastSeq, caughtUp, status, error } = state;
  for (const action of actions) {
    switch (action.type) {
      case 'event': {
        const { event } = action;
        if (event.seq <= lastSeq) break;
        added.push(event);
        lastSeq = event.seq;
        if (event.type === 'status_changed') status = event.data.to;
        error = null;
        break;
      }
      case 'caught-up':
        caughtUp = true;
        error = null;
        break;
      case 'error':
        error = { code: action.code, message: action.message };
        break;
    }
  }
  return {
    events: added.length === 0 ? state.events : state.events.concat(added),
    lastSeq,
    caughtUp,
    status,
    error,
  };
}
