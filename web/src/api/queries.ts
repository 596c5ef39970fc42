/**
 * TanStack Query factories: the query key and the fetcher live together, so a page writes
 * `useQuery(sessionsQuery())` and an invalidation names the same key via `queryKeys`.
 */
import { queryOptions } from '@tanstack/react-query';
import { api } from './browser.ts';
export const queryKeys = {
  health: ['health'] as const,
  config: ['config'] as const,
  // Not under ['config']: a save sets the config's data directly, and asks the providers again.
  contextWindows: ['context-windows'] as const,
  sessions: ['sessions'] as const,
  events: (sessionId: string, after: number, limit: number) => ['sessions', sessionId, 'events', { after, limit }] as const,
  // Not under ['sessions']: the list is invalidated on every `sessions-changed` frame and a prefix
  // match would drag these along. They are refreshed by the session's own events instead.
  sessionDetail: (sessionId: string) => ['session-detail', sessionId] as const,
  seed: (sessionId: string) => ['session-seed', sessionId] as const,
  workspaceChecks: ['workspace-check'] as const,
  workspaceCheck: (path: string) => ['workspace-check', path] as const,
};

export function healthQuery() {
  return queryOptions({
    queryKey: queryKeys.health,
    queryFn: ({ signal }) => api.call('getHealth', {}, { signal }),
  });
}

export function configQuery() {
  return queryOptions({
    queryKey: queryKeys.config,
    queryFn: ({ signal }) => api.call('getConfig', {}, { signal }),
  });
}

/**
 * Each role's context window as configured and as its provider reports it. Asking the providers
 * takes up to a few seconds, so it is not refetched on every focus; a save refreshes it.
 */
export function contextWindowsQuery() {
  return queryOptions({
    queryKey: queryKeys.contextWindows,
    queryFn: ({ signal }) => api.call('getContextWindows', {}, { signal }),
    staleTime: 60_000,
  });
}

/** Kept fresh by the stream's `sessions-changed` frames rather than by polling. */
export function sessionsQuery() {
  return queryOptions({
    queryKey: queryKeys.sessions,
    queryFn: ({ signal }) => api.call('listSessions', {}, { signal }),
  });
}

/** The newest page of a session's log: where a session page opens. */
export function eventsTail(sessionId: string, limit = 500) {
  return api.call('getEvents', { params: { id: sessionId }, query: { tail: '1', limit: String(limit) } });
}

export function eventsPageQuery(sessionId: string, page: { after?: number; limit?: number } = {}) {
  const after = page.after ?? 0;
  const limit = page.limit ?? 500;
  return queryOptions({
    queryKey: queryKeys.events(sessionId, after, limit),
    queryFn: ({ signal }) => api.call('getEvents', { params: { id: sessionId }, query: { after: String(after), limit: String(limit) } }, { signal }),
    // A page of an append-only log never changes once it is full.
    staleTime: (query) => (query.state.data !== undefined && !query.state.data.has_more ? 0 : Infinity),
  });
}

/** The session's REST state: status, the pending question, interview usage, whether a seed exists. */
export function sessionDetailQuery(sessionId: string) {
  return queryOptions({
    queryKey: queryKeys.sessionDetail(sessionId),
    queryFn: ({ signal }) => api.call('getSession', { params: { id: sessionId } }, { signal }),
  });
}

/** The seed with its contract check; 404 `no_seed` until the interview has written it. */
export function seedQuery(sessionId: string) {
  return queryOptions({
    queryKey: queryKeys.seed(sessionId),
    queryFn: ({ signal }) => api.call('getSeed', { params: { id: sessionId } }, { signal }),
  });
}

/** Is this path a git repository a session can start in? Cached briefly: the tree can change. */
export function workspaceCheckQuery(path: string) {
  return queryOptions({
    queryKey: queryKeys.workspaceCheck(path),
    queryFn: ({ signal }) => api.call('checkWorkspace', { query: { path } }, { signal }),
    staleTime: 5_000,
  });
}
