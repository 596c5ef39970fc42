/**
 * A model call that failed and is about to be tried again: the interview shows it in place of
 * "thinking" (the dashboard's now line reads it from the events itself, see dashboard/now-line.ts),
 * so a busy or failing provider is visible while it happens rather than only when the retries run
 * out.
 */
import type { EventType, TilthEvent } from '../../shared/events.ts';
import { retryLine } from '../../shared/event-text.ts';

export type RetryEvent = Extract<TilthEvent, { type: 'model_retry' }>;

/** Events that can land while a call waits for its next attempt without being its outcome. */
const BESIDE_A_CALL = new Set<EventType>(['steering_note', 'provider_notice', 'log_opened']);

/**
 * The newest `model_retry` whose next attempt has not answered yet: nothing but events from
 * outside the call came after it. Anything else — a model call, an empty reply, a failed task, a
 * stop, a status change — is that attempt's outcome. Scans back only to the latest such event.
 */
export function pendingRetry(events: readonly TilthEvent[]): RetryEvent | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.type === 'model_retry') return event;
    if (!BESIDE_A_CALL.has(event.type)) return null;
  }
  return null;
}

/** The retry in words, counting down to the next attempt: "provider busy, retrying in 6 s — attempt 2 of 6: …". */
export function retryStatus(event: RetryEvent, now: number): string {
  const due = Date.parse(event.ts) + event.data.wait_ms;
  return retryLine(event.data, Number.isNaN(due) ? event.data.wait_ms : due - now);
}
