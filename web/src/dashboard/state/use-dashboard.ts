/**
 * Wires a session's dashboard: the stream's events (from the tab's session store) and the
 * summary (REST) fold through the dashboard reducer; history pages load on demand. Components
 * read one snapshot and re-render at most once per animation frame.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useContext, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { StreamContext } from '../../stream/stream-provider.tsx';
import type { DashboardAction } from './dashboard-state.ts';
import { DashboardStore } from './dashboard-store.ts';
import { eventsPageQuery, staffQuery, summaryQuery } from './queries.ts';
import { applyNow } from './timing.ts';

/** Events per history page: small enough to parse, and then render, inside one frame's budget each. */
export const HISTORY_PAGE = 200;

/** Lets the browser paint between parsing a page and rendering it: two short tasks, not one long one. */
const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

export type PageLoad = 'older' | 'newer' | 'jump';

export function useDashboard(sessionId: string) {
  const stream = useContext(StreamContext);
  if (stream === null) throw new Error('useDashboard needs <StreamProvider>');
  const sessionStore = useMemo(() => stream.sessions.get(sessionId), [stream, sessionId]);
  const [store] = useState(() => new DashboardStore());

  // Fed from the session store's own listener: same frame, same render.
  useEffect(() => {
    const feed = () => store.dispatch({ type: 'stream', recent: sessionStore.getSnapshot().view.recent });
    const off = sessionStore.subscribe(feed);
    feed();
    return off;
  }, [store, sessionStore]);
  const state = useSyncExternalStore(store.subscribe, store.getSnapshot);

  // A new object per fetch (no structural sharing): a refetch after a hole must reach the reducer.
  const summary = useQuery({ ...summaryQuery(sessionId), structuralSharing: false });
  useEffect(() => {
    if (summary.data !== undefined) store.dispatch({ type: 'summary', summary: summary.data });
  }, [store, summary.data]);
  const { refetch } = summary;
  // A new version while still stale asks again: the events moved on since the last fetch.
  const staleAt = state.summaryStale ? state.summaryVersion : null;
  useEffect(() => {
    if (staleAt !== null) void refetch();
  }, [staleAt, refetch]);

  // Staff facts older than the loaded events: probe for them once.
  const needStaff = state.summary !== null && state.window.hasEarlier && (state.runStart === null || state.modelsSeen.interviewer === undefined);
  const staff = useQuery({ ...staffQuery(sessionId, state.summary), enabled: needStaff });
  useEffect(() => {
    if (staff.data !== undefined) store.dispatch({ type: 'facts', runStart: staff.data.runStart, interviewer: staff.data.interviewer });
  }, [store, staff.data]);

  const queryClient = useQueryClient();
  const [loading, setLoading] = useState<PageLoad | null>(null);
  const [pageError, setPageError] = useState<string | null>(null);
  const busy = useRef(false);

  /**
   * Fetches a page (`fetch` returns what to fold), then folds it and clears the loading state in
   * one render, in a task of its own after the page was parsed: a long session's history stays
   * two short tasks per page, never one long one.
   */
  const load = useCallback(
    async (kind: PageLoad, fetch: () => Promise<DashboardAction>): Promise<DashboardAction | null> => {
      if (busy.current) return null;
      busy.current = true;
      setLoading(kind);
      setPageError(null);
      let action: DashboardAction | null = null;
      let error: string | null = null;
      try {
        action = await fetch();
      } catch (err) {
        error = err instanceof Error ? err.message : String(err);
      }
      await nextTask();
      busy.current = false;
      applyNow(() => {
        if (action !== null) store.dispatch(action);
        setPageError(error);
        setLoading(null);
      });
      return action;
    },
    [store],
  );

  const loadOlder = useCallback(() => {
    const first = store.getSnapshot().window.events[0]?.seq;
    if (first === undefined || first <= 1) return;
    void load('older', async () => {
      const page = await queryClient.fetchQuery(eventsPageQuery(sessionId, { before: first, limit: HISTORY_PAGE }));
      return { type: 'older', events: page.events, hasEarlier: page.has_earlier };
    });
  }, [load, queryClient, sessionId, store]);

  const loadNewer = useCallback(() => {
    const last = store.getSnapshot().window.events.at(-1)?.seq;
    if (last === undefined) return;
    void load('newer', async () => {
      const page = await queryClient.fetchQuery(eventsPageQuery(sessionId, { after: last, limit: HISTORY_PAGE }));
      return { type: 'newer', events: page.events, hasLater: page.has_more };
    });
  }, [load, queryClient, sessionId, store]);

  /** Makes sure `seq` is in the window (loading the page around it if needed). */
  const reveal = useCallback(
    async (seq: number): Promise<boolean> => {
      const { events } = store.getSnapshot().window;
      if (events.length > 0 && seq >= events[0]!.seq && seq <= events.at(-1)!.seq) return true;
      const action = await load('jump', async () => {
        const page = await queryClient.fetchQuery(eventsPageQuery(sessionId, { after: Math.max(0, seq - HISTORY_PAGE / 2), limit: HISTORY_PAGE }));
        return { type: 'jump', events: page.events, hasEarlier: page.has_earlier, hasLater: page.has_more };
      });
      return action?.type === 'jump' && action.events.some((e) => e.seq === seq);
    },
    [load, queryClient, sessionId, store],
  );

  const goNewest = useCallback(() => store.dispatch({ type: 'newest' }), [store]);

  return {
    state,
    summaryError: summary.error,
    retrySummary: refetch,
    loading,
    pageError,
    loadOlder,
    loadNewer,
    reveal,
    goNewest,
  };
}

export type DashboardApi = ReturnType<typeof useDashboard>;
