/**
 * What the interview view shows, derived from the session's recent events with the REST detail
 * as the fallback. The stream is usually ahead of REST (an event arrives before the refetch it
 * triggers), so events win where both speak; REST fills in what the event window has lost.
 */
import type { SessionDetail } from '../../../shared/api.ts';
import type { SessionStatus, StopReason, TilthEvent } from '../../../shared/events.ts';
import type { Usage } from '../../../shared/files.ts';
import { pendingRetry, type RetryEvent } from '../pending-retry.ts';

export interface PendingQuestion {
  question_id: string;
  text: string;
  options?: string[] | undefined;
}

export interface QaItem {
  questionId: string;
  /** Null when the question fell out of the event window. */
  question: string | null;
  options: readonly string[];
  answer: string;
  seq: number;
}

/** The answered questions, in the order they were answered. */
export function qaHistory(events: readonly TilthEvent[]): QaItem[] {
  const asked = new Map<string, { text: string; options: readonly string[] }>();
  const items: QaItem[] = [];
  for (const event of events) {
    if (event.type === 'question_asked') {
      asked.set(event.data.question_id, { text: event.data.text, options: event.data.options ?? [] });
    } else if (event.type === 'question_answered') {
      const question = asked.get(event.data.question_id);
      items.push({
        questionId: event.data.question_id,
        question: question?.text ?? null,
        options: question?.options ?? [],
        answer: event.data.answer,
        seq: event.seq,
      });
    }
  }
  return items;
}

/**
 * The question waiting for an answer: the newest asked and not answered in the events, else the
 * one REST reports, unless the events or this tab (`answeredHere`) already answered it.
 */
export function pendingQuestion(
  events: readonly TilthEvent[],
  restPending: PendingQuestion | null,
  answeredHere: ReadonlySet<string> = new Set(),
): PendingQuestion | null {
  const answered = new Set(answeredHere);
  let latest: PendingQuestion | null = null;
  for (const event of events) {
    if (event.type === 'question_asked') latest = { ...event.data };
    else if (event.type === 'question_answered') answered.add(event.data.question_id);
  }
  if (latest !== null && !answered.has(latest.question_id)) return latest;
  if (restPending !== null && !answered.has(restPending.question_id)) return restPending;
  return null;
}

export type InterviewPhase = 'asking' | 'waiting' | 'failed' | 'stopped';

function lastInterviewStop(events: readonly TilthEvent[]): Extract<TilthEvent, { type: 'stop' }> | null {
  let stop: Extract<TilthEvent, { type: 'stop' }> | null = null;
  for (const event of events) if (event.type === 'stop' && event.data.phase !== 'run') stop = event;
  return stop;
}

/** Why the interview ended: the stop event's words, else the checkpoint's, else the bare reason. */
export function interviewFailure(events: readonly TilthEvent[], lastError: string | null, status: SessionStatus): string {
  const stop = lastInterviewStop(events);
  if (stop?.data.error !== undefined && stop.data.error !== '') return stop.data.error;
  if (lastError !== null && lastError !== '') return lastError;
  if (stop !== null) return `The interview ended: ${stop.data.reason.replaceAll('_', ' ')}.`;
  return status === 'stopped' ? 'The interview was stopped before the seed was written.' : 'The interview failed.';
}

/** The heading of an interview that ended without a seed. */
export function interviewEndedTitle(phase: 'failed' | 'stopped', reason: StopReason | null): string {
  switch (reason) {
    case 'provider_failure':
      return 'The interview stopped: the model provider failed';
    case 'crash':
      return 'The interview stopped when the server went down';
    case 'interrupted':
      return 'The interview was stopped';
    default:
      return phase === 'failed' ? 'The interview failed' : 'The interview was stopped';
  }
}

export interface InterviewUsageView {
  tokens: number;
  costUsd: number;
  calls: number;
}

/**
 * Running totals: a `model_call` carries the interview's totals after that call, so the newest
 * one is fresher than a detail fetched before it; the larger of the two is the current one.
 */
export function interviewUsage(events: readonly TilthEvent[], rest: Usage | null): InterviewUsageView {
  let tokens = rest?.total_tokens ?? 0;
  let costUsd = rest?.cost_usd ?? 0;
  let calls = rest?.calls ?? 0;
  let seen = 0;
  for (const event of events) {
    if (event.type !== 'model_call' || event.data.phase !== 'interview') continue;
    seen++;
    tokens = Math.max(tokens, event.data.tokens_used_total);
    if (event.data.cost_total_usd !== undefined) costUsd = Math.max(costUsd, event.data.cost_total_usd);
  }
  calls = Math.max(calls, seen);
  return { tokens, costUsd, calls };
}

export interface InterviewModel {
  phase: InterviewPhase;
  pending: PendingQuestion | null;
  history: QaItem[];
  failure: string | null;
  /** Why it ended (failed or stopped): the stop event's reason, else the checkpoint's. */
  stopReason: StopReason | null;
  /** While waiting: a model call that failed and is about to be tried again. */
  retry: RetryEvent | null;
  usage: InterviewUsageView;
}

export function interviewModel(input: {
  events: readonly TilthEvent[];
  status: SessionStatus;
  detail: SessionDetail | null;
  answeredHere?: ReadonlySet<string>;
}): InterviewModel {
  const { events, status, detail } = input;
  const history = qaHistory(events);
  const usage = interviewUsage(events, detail?.interview_usage ?? null);
  if (status === 'failed' || status === 'stopped') {
    const stopReason = lastInterviewStop(events)?.data.reason ?? detail?.session.last_stop ?? null;
    return { phase: status, pending: null, history, failure: interviewFailure(events, detail?.last_error ?? null, status), stopReason, retry: null, usage };
  }
  const pending = pendingQuestion(events, detail?.interview?.pending ?? null, input.answeredHere);
  if (pending !== null) return { phase: 'asking', pending, history, failure: null, stopReason: null, retry: null, usage };
  return { phase: 'waiting', pending: null, history, failure: null, stopReason: null, retry: pendingRetry(events), usage };
}
