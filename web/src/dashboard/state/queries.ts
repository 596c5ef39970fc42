/**
 * The dashboard's REST state as TanStack Query factories: the summary, the resume plan, pages of
 * the event log, and the staff probe (who the interviewer was, how the run's shell was set up,
 * when those events are older than anything loaded). Kept apart from `api/queries.ts`.
 */
import { queryOptions } from '@tanstack/react-query';
import type { EventsPage } from '../../../../shared/api.ts';
import type { TilthEvent } from '../../../../shared/events.ts';
import type { Summary } from '../../../../shared/summary.ts';
import { api } from '../../api/browser.ts';
import type { RunStart } from './dashboard-state.ts';

export const dashboardKeys = {
  summary: (id: string) => ['session-summary', id] as const,
  summarySpan: (id: string, from: number, to: number) => ['session-summary-span', id, from, to] as const,
  resumePlan: (id: string) => ['session-resume-plan', id] as const,
  page: (id: string, page: PageRequest) => ['session-events-page', id, page] as const,
  staff: (id: string) => ['session-staff', id] as const,
};

/** Current as of its `last_seq`; the dashboard folds later events into it, so it is never refetched on a timer. */
export function summaryQuery(sessionId: string) {
  return queryOptions({
    queryKey: dashboardKeys.summary(sessionId),
    queryFn: ({ signal }) => api.call('getSummary', { params: { id: sessionId } }, { signal }),
    staleTime: Infinity,
    refetchOnWindowFocus: false,
  });
}

/**
 * The timeline of one span in detail, for a zoomed chart of a long run whose summary came
 * thinned (shared/timeline-view.ts). A snapshot: live events are folded into the whole-run view.
 */
export function summarySpanQuery(sessionId: string, span: { from: number; to: number }) {
  return queryOptions({
    queryKey: dashboardKeys.summarySpan(sessionId, span.from, span.to),
    queryFn: ({ signal }) => api.call('getSummary', { params: { id: sessionId }, query: { from: String(span.from), to: String(span.to) } }, { signal }),
    staleTime: 30_000,
    refetchOnWindowFocus: false,
  });
}

/** What Resume would do; asked for when the user presses Resume, before anything starts. */
export function resumePlanQuery(sessionId: string) {
  return queryOptions({
    queryKey: dashboardKeys.resumePlan(sessionId),
    queryFn: ({ signal }) => api.call('getResumePlan', { params: { id: sessionId } }, { signal }),
    staleTime: 0,
    gcTime: 0,
    retry: false,
  });
}

export type PageRequest = { before: number; limit: number } | { after: number; limit: number };

function eventsPage(sessionId: string, page: PageRequest, signal?: AbortSignal): Promise<EventsPage> {
  const query = 'before' in page ? { before: String(page.before), limit: String(page.limit) } : { after: String(page.after), limit: String(page.limit) };
  return api.call('getEvents', { params: { id: sessionId }, query }, { signal });
}

/** A page of an append-only log: a `before` page never changes, an `after` page only grows. */
export function eventsPageQuery(sessionId: string, page: PageRequest) {
  return queryOptions({
    queryKey: dashboardKeys.page(sessionId, page),
    queryFn: ({ signal }) => eventsPage(sessionId, page, signal),
    staleTime: (query) => ('before' in page || (query.state.data !== undefined && query.state.data.has_more) ? Infinity : 0),
  });
}

export interface Staff {
  runStart: RunStart | null;
  interviewer: string | null;
}

/** The newest run `session_start` in a page. */
function runStartIn(events: readonly TilthEvent[]): RunStart | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (e.type === 'session_start' && e.data.phase === 'run') return { seq: e.seq, ts: e.ts, data: e.data };
  }
  return null;
}

function interviewerIn(events: readonly TilthEvent[]): string | null {
  for (const e of events) {
    if (e.type === 'session_prepared') return e.data.interviewer_model;
    if (e.type === 'model_call' && (e.data.phase === 'interview' || e.data.role === 'prep') && e.data.model) return e.data.model;
  }
  return null;
}

const PROBE = 8;
const MAX_PROBES = 12;

/**
 * Finds the run's `session_start` and the interviewer's model without reading the log: a run
 * logs its `session_start` just before its first task's `context_reset`, so a few small pages
 * ending at the newest attempts' starts find the newest run's; the interview's first model call
 * is on the log's first page.
 */
export async function probeStaff(sessionId: string, attemptStarts: readonly number[], signal?: AbortSignal): Promise<Staff> {
  const get = (page: PageRequest): Promise<EventsPage> => eventsPage(sessionId, page, signal);
  const starts = [...new Set(attemptStarts)].sort((a, b) => b - a).slice(0, MAX_PROBES);
  const [head, ...probes] = await Promise.all([get({ after: 0, limit: 60 }), ...starts.map((start) => get({ before: start, limit: PROBE }))]);
  // Newest attempt first: the first probe that finds one has the newest run's start.
  const runStart = probes.map((p) => runStartIn(p.events)).find((r) => r !== null) ?? runStartIn(head!.events);
  return { runStart, interviewer: interviewerIn(head!.events) };
}

export function staffQuery(sessionId: string, summary: Summary | null) {
  const starts = summary?.timeline.attempts.map((a) => a[1]) ?? [];
  return queryOptions({
    queryKey: dashboardKeys.staff(sessionId),
    queryFn: ({ signal }) => probeStaff(sessionId, starts, signal),
    staleTime: Infinity,
    refetchOnWindowFocus: false,
  });
}
