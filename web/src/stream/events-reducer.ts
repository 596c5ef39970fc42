/**
 * Folds a session's stream into the state the session page renders: the shared session view
 * (`shared/session-view.ts`) plus the stream's own state (caught up, last error). Pure:
 * `(state, actions)` → state, so a batch of a thousand events costs one new state and one render.
 */
import { emptySessionView, foldEvents, type SessionView } from '../../../shared/session-view.ts';
import type { TilthEvent } from '../../../shared/events.ts';

export interface SessionEventsState {
  readonly view: SessionView;
  /** The backlog has been delivered at least once; later events are live. */
  readonly caughtUp: boolean;
  readonly error: { code: string; message: string } | null;
}

export type SessionEventsAction =
  | { type: 'event'; event: TilthEvent }
  | { type: 'caught-up'; lastSeq: number }
  | { type: 'error'; code: string; message: string };

export const initialSessionEvents: SessionEventsState = { view: emptySessionView, caughtUp: false, error: null };

/** Applies a batch; events go through `foldEvents` together, so the cost is per batch, not per event. */
export function foldSessionEvents(state: SessionEventsState, actions: readonly SessionEventsAction[]): SessionEventsState {
  if (actions.length === 0) return state;
  let { view, caughtUp, error } = state;
  let pending: TilthEvent[] = [];
  const flush = () => {
    if (pending.length === 0) return;
    const next = foldEvents(view, pending);
    if (next !== view) error = null;
    view = next;
    pending = [];
  };
  for (const action of actions) {
    switch (action.type) {
      case 'event':
        pending.push(action.event);
        break;
      case 'caught-up':
        flush();
        caughtUp = true;
        error = null;
        break;
      case 'error':
        flush();
        error = { code: action.code, message: action.message };
        break;
    }
  }
  flush();
  if (view === state.view && caughtUp === state.caughtUp && error === state.error) return state;
  return { view, caughtUp, error };
}
