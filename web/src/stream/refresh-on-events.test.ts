import { describe, expect, it } from 'vitest';
import { answered, asked, eventLog, interviewCall } from '../test-events.ts';
import { refreshTargets } from './refresh-on-events.ts';

describe('refreshTargets', () => {
  it('refreshes the detail on questions and answers', () => {
    expect(refreshTargets(eventLog(asked('q1', 'A?')), 0)).toEqual({ detail: true, seed: false });
    expect(refreshTargets(eventLog(asked('q1', 'A?'), answered('q1', 'a')), 1)).toEqual({ detail: true, seed: false });
  });

  it('refreshes the seed too when the seed or the status changes', () => {
    expect(refreshTargets(eventLog({ type: 'seed_edited', data: { sha: 'abc', changed: ['T-001 title'] } }), 0)).toEqual({ detail: true, seed: true });
    expect(refreshTargets(eventLog({ type: 'status_changed', data: { from: 'interviewing', to: 'prepared' } }), 0)).toEqual({ detail: true, seed: true });
  });

  it('refreshes the usage after an interview model call, not after a tool call', () => {
    const modelCall = { type: 'model_call', data: { phase: 'interview', prompt_tokens: 1, eval_tokens: 1, tokens_used_total: 2 } } as const;
    expect(refreshTargets(eventLog(modelCall), 0)).toEqual({ detail: true, seed: false });
    expect(refreshTargets(eventLog(interviewCall('glob', { pattern: '*' })), 0)).toEqual({ detail: false, seed: false });
  });

  it('looks only at events after the ones already handled', () => {
    const events = eventLog(asked('q1', 'A?'), interviewCall('glob', { pattern: '*' }));
    expect(refreshTargets(events, 1)).toEqual({ detail: false, seed: false });
    expect(refreshTargets(events, 2)).toEqual({ detail: false, seed: false });
  });
});
