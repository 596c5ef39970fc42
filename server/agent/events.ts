/** Runtime reports as event fields, shared by the interview and the run. */
import type { EventData } from '../../shared/events.ts';
import type { RetryNotice } from '../llm/client.ts';

/** Past this, a provider's words are cut: a reason is a sentence, not an error page. */
export const REASON_CHARS = 500;

export function retryFields(n: RetryNotice): Pick<EventData<'model_retry'>, 'role' | 'model' | 'attempt' | 'max_attempts' | 'wait_ms' | 'reason' | 'status'> {
  return {
    role: n.role,
    model: n.model,
    attempt: n.attempt,
    max_attempts: n.maxAttempts,
    wait_ms: Math.max(0, Math.round(n.waitMs)),
    reason: n.reason.length > REASON_CHARS ? `${n.reason.slice(0, REASON_CHARS - 1)}…` : n.reason,
    status: n.status,
  };
}
