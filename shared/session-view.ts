/**
 * The pure fold of a session's events into what views show: `(view, events) → view`. The web
 * folds the stream with it (the server keeps its own fold, shared/summary.ts). Cost per batch is
 * O(batch + window), never O(all events so far): a 100k-event session keeps a bounded window of
 * recent events plus running counts, and older history is read from the log in pages.
 */
import type { SessionStatus, StopReason, TilthEvent } from './events.ts';

/** How many of the newest events a view keeps in memory. */
export const RECENT_EVENTS_LIMIT = 1000;

export interface SessionView {
  /**
   * Highest seq folded in; events at or below it are ignored, so replays are harmless. Seq is
   * dense from 1, so this is also how many events the session has.
   */
  readonly lastSeq: number;
  /** Counts of the events folded into this view (a view opened at a late page counts from there). */
  readonly countsByType: Readonly<Record<string, number>>;
  /** From the latest `status_changed`, or null before one is seen. */
  readonly status: SessionStatus | null;
  /** From the latest `stop`. */
  readonly lastStop: StopReason | null;
  /** The newest events, oldest first, at most `RECENT_EVENTS_LIMIT`. */
  readonly recent: readonly TilthEvent[];
}

export const emptySessionView: SessionView = {
  lastSeq: 0,
  countsByType: {},
  status: null,
  lastStop: null,
  recent: [],
};

/** Folds a batch in seq order; returns the same object when nothing in the batch is new. */
export function foldEvents(view: SessionView, events: readonly TilthEvent[], limit = RECENT_EVENTS_LIMIT): SessionView {
  const added: TilthEvent[] = [];
  let { lastSeq, status, lastStop } = view;
  let counts: Record<string, number> | null = null;
  for (const event of events) {
    if (event.seq <= lastSeq) continue;
    lastSeq = event.seq;
    added.push(event);
    counts ??= { ...view.countsByType };
    counts[event.type] = (counts[event.type] ?? 0) + 1;
    if (event.type === 'status_changed') status = event.data.to;
    else if (event.type === 'stop') lastStop = event.data.reason;
  }
  if (added.length === 0) return view;
  const keep = Math.max(0, limit - added.length);
  const older = view.recent.length > keep ? view.recent.slice(view.recent.length - keep) : view.recent;
  const recent = added.length >= limit ? added.slice(added.length - limit) : older.concat(added);
  return { lastSeq, countsByType: counts ?? view.countsByType, status, lastStop, recent };
}
