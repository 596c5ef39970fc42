/**
 * TanStack Query factories for the review pages. Kept apart from `api/queries.ts` so the review
 * and the dashboard can grow side by side; the keys are not under `['sessions']`, which the
 * sessions list invalidates on every change.
 */
import { queryOptions } from '@tanstack/react-query';
import { api } from '../api/browser.ts';
import { review } from './review-api.ts';

export const reviewKeys = {
  /** Everything review-related of one session: invalidated together after an action. */
  session: (sessionId: string) => ['review', sessionId] as const,
  sessionReview: (sessionId: string) => ['review', sessionId, 'session'] as const,
  task: (sessionId: string, taskId: string) => ['review', sessionId, 'task', taskId] as const,
  taskDiff: (sessionId: string, taskId: string) => ['review', sessionId, 'task', taskId, 'diff'] as const,
  taskEvidence: (sessionId: string, taskId: string) => ['review', sessionId, 'task', taskId, 'evidence'] as const,
  comments: (sessionId: string) => ['review', sessionId, 'comments'] as const,
  rewindPlan: (sessionId: string, after: string) => ['review', sessionId, 'rewind-plan', after] as const,
};

/** The task, its commits, final case, ledger, check attempts and stats. */
export function taskReviewQuery(sessionId: string, taskId: string) {
  return queryOptions({
    queryKey: reviewKeys.task(sessionId, taskId),
    queryFn: ({ signal }) => api.call('getTaskReview', { params: { id: sessionId, taskId } }, { signal }),
  });
}

/** The task's evidence receipt; 404 `evidence_not_found` until it is accepted and committed (not retried). */
export function taskEvidenceQuery(sessionId: string, taskId: string) {
  return queryOptions({
    queryKey: reviewKeys.taskEvidence(sessionId, taskId),
    queryFn: ({ signal }) => api.call('getTaskEvidence', { params: { id: sessionId, taskId } }, { signal }),
  });
}

/** One revision's commit of the task as a diff; null: the latest revision. */
export function taskDiffQuery(sessionId: string, taskId: string, revision: number | null = null) {
  return queryOptions({
    queryKey: [...reviewKeys.taskDiff(sessionId, taskId), revision ?? 'latest'],
    queryFn: ({ signal }) => api.call('getTaskDiff', { params: { id: sessionId, taskId }, ...(revision === null ? {} : { query: { revision } }) }, { signal }),
  });
}

/** The session branch against its base, its commits, tasks, learnings and what may be done now. */
export function sessionReviewQuery(sessionId: string) {
  return queryOptions({
    queryKey: reviewKeys.sessionReview(sessionId),
    queryFn: ({ signal }) => api.call('getSessionReview', { params: { id: sessionId } }, { signal }),
  });
}

/** Every line comment of the session, on any diff (each page picks its own), read a page at a time. */
export function commentsQuery(sessionId: string) {
  return queryOptions({
    queryKey: reviewKeys.comments(sessionId),
    queryFn: ({ signal }) => review.listComments(sessionId, signal),
  });
}

/** What a rewind to after `after` would do; asked afresh each time the dialog shows it. */
export function rewindPlanQuery(sessionId: string, after: string) {
  return queryOptions({
    queryKey: reviewKeys.rewindPlan(sessionId, after),
    queryFn: ({ signal }) => api.call('getRewindPlan', { params: { id: sessionId }, query: { after } }, { signal }),
    staleTime: 0,
    retry: false,
  });
}
