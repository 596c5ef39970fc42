import type { FastifyInstance } from 'fastify';
import type { Summary } from '../../../shared/summary.ts';
import { type TimelineView, viewTimeline } from '../../../shared/timeline-view.ts';
import type { AppDeps } from '../base/app-deps.ts';
import { handle } from './contract.ts';
import { existingSession } from './validate.ts';

/**
 * The whole run's thinned timeline per held summary, until the summary moves on: thinning a
 * million-event run's rows takes 15–20 ms, and a dashboard asks again after every few events.
 * Keyed by the store's summary object, so it goes when the store lets the summary go.
 */
const wholeRunViews = new WeakMap<Summary, { seq: number; view: TimelineView }>();

function wholeRunView(summary: Summary): TimelineView {
  const held = wholeRunViews.get(summary);
  if (held?.seq === summary.last_seq) return held.view;
  const view = viewTimeline(summary.timeline);
  wholeRunViews.set(summary, { seq: summary.last_seq, view });
  return view;
}

export function sessionRoutes(app: FastifyInstance, deps: AppDeps): void {
  const { store } = deps;

  handle(app, 'listSessions', async () => ({ sessions: store.list() }));

  /**
   * The session's aggregates, current as of `last_seq` (fold later events into them), with the
   * timeline thinned for the span asked for (the whole run by default).
   */
  handle(app, 'getSummary', async ({ params, query }) => {
    const session = existingSession(store, params.id);
    const wholeRun = query.from === undefined && query.to === undefined;
    // A finished run's first read: its stored view, not a million rows parsed.
    const stored = wholeRun ? await session.summary.storedWholeView() : null;
    if (stored) {
      const { timeline, ...view } = stored.view;
      return { ...stored.head, timeline, timeline_view: view };
    }
    const summary = await session.summary.forReaders();
    const { timeline, ...view } = wholeRun ? wholeRunView(summary) : viewTimeline(summary.timeline, query);
    return { ...summary, timeline, timeline_view: view };
  });

  // The query is checked before the session is looked up, so a bad query is a 400 either way.
  handle(app, 'getEvents', async ({ params, query }) => {
    const session = existingSession(store, params.id);
    const { limit } = query;
    // Where a page opens: a cold log's newest events are read back from its end while it is
    // indexed in the background, so a long session shows its latest events at once.
    const cold = session.log();
    if (query.tail !== undefined && !cold.indexed) {
      void session.openLog().catch(() => {});
      const events = await cold.readTailCold(limit);
      const lastSeq = events.at(-1)?.seq ?? 0;
      return { events, next_after: lastSeq, has_more: false, has_earlier: (events[0]?.seq ?? 1) > 1, last_seq: lastSeq };
    }
    const log = await session.openLog();
    const events =
      query.tail !== undefined
        ? log.readTail(limit)
        : query.before !== undefined
          ? log.readBefore(query.before, limit)
          : log.readAfter(query.after ?? 0, limit);
    const lastSeq = log.lastSeq;
    const firstSeq = events[0]?.seq;
    const nextAfter = events.at(-1)?.seq ?? Math.min(query.after ?? lastSeq, lastSeq);
    return { events, next_after: nextAfter, has_more: nextAfter < lastSeq, has_earlier: firstSeq !== undefined && firstSeq > 1, last_seq: lastSeq };
  });
}
