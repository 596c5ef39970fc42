import type { FastifyInstance } from 'fastify';
import { EventsQuerySchema, type EventsPage } from '../../shared/api.ts';
import type { AppDeps } from '../app-deps.ts';
import { currentSummary } from '../store/summary-file.ts';
import { existingSessionId, parseInput } from './validate.ts';

export function sessionRoutes(app: FastifyInstance, deps: AppDeps): void {
  const { store } = deps;

  app.get('/api/sessions', async () => ({ sessions: store.list() }));

  /** The session's aggregates, current as of `last_seq`; fold later events into it. */
  app.get('/api/sessions/:id/summary', async (request) => currentSummary(store, existingSessionId(store, request.params)));

  app.get('/api/sessions/:id/events', async (request): Promise<EventsPage> => {
    // The query is checked before the session is looked up, so a bad query is a 400 either way.
    const query = parseInput(EventsQuerySchema, request.query, 'query');
    const id = existingSessionId(store, request.params);
    const log = store.log(id);
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
