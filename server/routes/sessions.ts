import type { FastifyInstance } from 'fastify';
import { viewTimeline } from '../../shared/timeline-view.ts';
import type { AppDeps } from '../app-deps.ts';
import { handle } from './contract.ts';
import { existingSession } from './validate.ts';

export function sessionRoutes(app: FastifyInstance, deps: AppDeps): void {
  const { store } = deps;

  handle(app, 'listSessions', async () => ({ sessions: store.list() }));

  /** The session's aggregates, current as of `last_seq`; fold later events into it. */
  /**
   * The session's aggregates, current as of `last_seq` (fold later events into them), with the
   * timeline thinned for the span asked for (the whole run by default).
   */
  handle(app, 'getSummary', async ({ params, query }) => {
    const id = existingSession(store, params.id);
    const summary = await store.summaryOf(id);
    const { timeline, ...view } = viewTimeline(summary.timeline, query);
    return { ...summary, timeline, timeline_view: view };
  });

  // The query is checked before the session is looked up, so a bad query is a 400 either way.
  handle(app, 'getEvents', async ({ params, query }) => {
    const id = existingSession(store, params.id);
    const log = await store.openLog(id);
    const { limit } = query;
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
