import type { FastifyInstance } from 'fastify';
import { EventsQuerySchema, SessionParamsSchema, type EventsPage } from '../../shared/api.ts';
import type { AppDeps } from '../app.ts';
import { NotFoundError } from '../errors.ts';
import { parseInput } from './validate.ts';

export function sessionRoutes(app: FastifyInstance, deps: AppDeps): void {
  const { store } = deps;

  app.get('/api/sessions', async () => ({ sessions: store.list() }));

  app.get('/api/sessions/:id/events', async (request): Promise<EventsPage> => {
    const { id } = parseInput(SessionParamsSchema, request.params, 'params');
    const { after, limit } = parseInput(EventsQuerySchema, request.query, 'query');
    if (!store.exists(id)) throw new NotFoundError('session_not_found', `No session ${id} under ${store.root}`);
    const log = store.log(id);
    const events = log.readAfter(after, limit);
    const lastSeq = log.lastSeq;
    const nextAfter = events.at(-1)?.seq ?? Math.min(after, lastSeq);
    return { events, next_after: nextAfter, has_more: nextAfter < lastSeq, last_seq: lastSeq };
  });
}
