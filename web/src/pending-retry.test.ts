import { describe, expect, it } from 'vitest';
import type { EventInput } from '../../shared/events.ts';
import { pendingRetry, retryStatus, type RetryEvent } from './pending-retry.ts';
import { eventLog, interviewCall } from '../../shared/test-events.ts';

const retry = (attempt: number, status: number | null, reason: string, wait_ms = 8_000): EventInput => ({
  type: 'model_retry',
  data: { phase: 'interview', role: 'prep', model: 'm', attempt, max_attempts: 6, wait_ms, reason, status },
});
const call: EventInput = {
  type: 'model_call',
  data: { phase: 'interview', role: 'prep', prompt_tokens: 10, eval_tokens: 2, tokens_used_total: 12 },
} as EventInput;

describe('pendingRetry', () => {
  it('is the newest retry while its next attempt has not answered', () => {
    const log = eventLog(interviewCall('glob', { pattern: '*' }), retry(1, 429, 'HTTP 429: slow down'), retry(2, 429, 'HTTP 429: still busy'));
    expect(pendingRetry(log)?.data).toMatchObject({ attempt: 2, reason: 'HTTP 429: still busy' });
  });

  it('ends with the call that answered, a stop or a status change', () => {
    expect(pendingRetry(eventLog(retry(1, 503, 'HTTP 503: down'), call))).toBeNull();
    expect(pendingRetry(eventLog(retry(1, 503, 'HTTP 503: down'), { type: 'stop', data: { reason: 'provider_failure', phase: 'interview' } }))).toBeNull();
    expect(pendingRetry(eventLog(retry(1, null, 'connection failed'), { type: 'status_changed', data: { from: 'interviewing', to: 'failed' } }))).toBeNull();
    expect(pendingRetry(eventLog(call))).toBeNull();
    expect(pendingRetry([])).toBeNull();
  });

  it('is not ended by guidance the user leaves meanwhile', () => {
    const log = eventLog(retry(1, 429, 'HTTP 429: busy'), { type: 'steering_note', data: { note_id: 'n1', text: 'go on' } });
    expect(pendingRetry(log)?.data.attempt).toBe(1);
  });
});

describe('retryStatus', () => {
  it('counts down to the next attempt, then says it is under way', () => {
    const [event] = eventLog(retry(1, 429, 'HTTP 429: rate limited', 8_000)) as [RetryEvent];
    const at = Date.parse(event.ts);
    expect(retryStatus(event, at)).toBe('provider busy, retrying in 8 s — attempt 2 of 6: HTTP 429: rate limited');
    expect(retryStatus(event, at + 5_600)).toBe('provider busy, retrying in 2 s — attempt 2 of 6: HTTP 429: rate limited');
    expect(retryStatus(event, at + 9_000)).toBe('provider busy, retrying now — attempt 2 of 6: HTTP 429: rate limited');
    const [down] = eventLog(retry(3, null, 'connection failed: connect ECONNREFUSED 127.0.0.1:1', 4_000)) as [RetryEvent];
    expect(retryStatus(down, Date.parse(down.ts))).toBe(
      'model call failed, retrying in 4 s — attempt 4 of 6: connection failed: connect ECONNREFUSED 127.0.0.1:1',
    );
  });
});
