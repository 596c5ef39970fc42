/**
 * TanStack Query factories: the query key and the fetcher live together, so a page writes
 * `useQuery(sessionsQuery())` and an invalidation names the same key via `queryKeys`.
 */
import { queryOptions } from '@tanstack/react-query';
import { ConfigResponseSchema, EventsPageSchema, HealthSchema, SessionListSchema } from '../../../shared/api.ts';
import { api } from './browser.ts';

export const queryKeys = {
  health: ['health'] as const,
  config: ['config'] as const,
  sessions: ['sessions'] as const,
  events: (sessionId: string, after: number, limit: number) => ['sessions', sessionId, 'events', { after, limit }] as const,
};

export function healthQuery() {
  return queryOptions({
    queryKey: queryKeys.health,
    queryFn: ({ signal }) => api.get('/api/health', HealthSchema, { signal }),
  });
}

export function configQuery() {
  return queryOptions({
    queryKey: queryKeys.config,
    queryFn: ({ signal }) => api.get('/api/config', ConfigResponseSchema, { signal }),
  });
}

/** Kept fresh by the stream's `sessions-changed` frames rather than by polling. */
export function sessionsQuery() {
  return queryOptions({
    queryKey: queryKeys.sessions,
    queryFn: ({ signal }) => api.get('/api/sessions', SessionListSchema, { signal }),
  });
}

/** The newest page of a session's log: where a session page opens. */
export function eventsTailPath(sessionId: string, limit = 500): string {
  return `/api/sessions/${encodeURIComponent(sessionId)}/events?tail=1&limit=${limit}`;
}

export function eventsPageQuery(sessionId: string, page: { after?: number; limit?: number } = {}) {
  const after = page.after ?? 0;
  const limit = page.limit ?? 500;
  const params = new URLSearchParams({ after: String(after), limit: String(limit) });
  return queryOptions({
    queryKey: queryKeys.events(sessionId, after, limit),
    queryFn: ({ signal }) =>
      api.get(`/api/sessions/${encodeURIComponent(sessionId)}/events?${params.toString()}`, EventsPageSchema, { signal }),
    // A page of an append-only log never changes once it is full.
    staleTime: (query) => (query.state.data !== undefined && !query.state.data.has_more ? 0 : Infinity),
  });
}
