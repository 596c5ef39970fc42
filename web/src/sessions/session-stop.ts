/**
 * A session row's line about why it stopped: the interview's end in its own words, a run's stop as
 * the dashboard says it, and the server's sentence (for a provider, the provider's words) as the
 * detail beneath.
 */
import type { SessionListItem } from '../../../shared/api.ts';
import { stopInWords } from '../dashboard/header/run-words.ts';

export interface StopLine {
  text: string;
  /** The checkpoint's `last_error`, when it says more than the reason. */
  detail: string | null;
}

export function sessionStopLine(session: Pick<SessionListItem, 'status' | 'last_stop' | 'last_error'>): StopLine | null {
  const { status, last_stop: reason, last_error: error } = session;
  if (reason === null || status === 'running' || status === 'interviewing') return null;
  const detail = error !== null && error.trim() !== '' ? error : null;
  if (status === 'failed') {
    // `failed` is the interview's end; a run stops instead.
    return { text: reason === 'provider_failure' ? 'interview stopped: the model provider failed' : 'interview failed', detail };
  }
  const text = stopInWords(reason, { caps: null, tasks: {}, lastError: null });
  return { text, detail: reason === 'error' || reason === 'provider_failure' || reason === 'crash' ? detail : null };
}
