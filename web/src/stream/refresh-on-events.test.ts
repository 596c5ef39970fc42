import { describe, expect, it } from 'vitest';
import type { EventInput } from '../../../shared/events.ts';
import { answered, asked, eventLog, interviewCall } from '../../../shared/test-events.ts';
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

  it('refreshes the usage after an interview model call, not after a run model call (the dashboard folds those) or a tool call', () => {
    const modelCall = { type: 'model_call', data: { phase: 'interview', prompt_tokens: 1, eval_tokens: 1, tokens_used_total: 2 } } as const;
    expect(refreshTargets(eventLog(modelCall), 0)).toEqual({ detail: true, seed: false });
    const workerCall = {
      type: 'model_call',
      data: { task_id: 'T-001', iter: 1, role: 'worker', prompt_tokens: 1, eval_tokens: 1, tokens_used_total: 2 },
    } as const;
    expect(refreshTargets(eventLog(workerCall), 0)).toEqual({ detail: false, seed: false });
    expect(refreshTargets(eventLog(interviewCall('glob', { pattern: '*' })), 0)).toEqual({ detail: false, seed: false });
  });

  it('refreshes the detail when a run moves a task, resumes or commits', () => {
    const ids = { trace_id: 'a'.repeat(32), span_id: 'b'.repeat(16) };
    const runEvents: EventInput[] = [
      { type: 'context_reset', data: { task_id: 'T-001', ...ids } },
      { type: 'task_done', data: { task_id: 'T-001', ...ids, summary: 'done' } },
      { type: 'task_failed', data: { task_id: 'T-001', ...ids, reason: 'iter_cap' } },
      { type: 'commit', data: { task_id: 'T-001', trace_id: ids.trace_id, sha: 'abc' } },
      { type: 'session_resume', data: { session_id: 's', last_stop: 'interrupted', retried: [], pending: ['T-001'], unwound_commit: false, plan: '' } },
    ];
    for (const event of runEvents) expect(refreshTargets(eventLog(event), 0), event.type).toEqual({ detail: true, seed: false });
    const toolCall = { type: 'tool_call', data: { task_id: 'T-001', iter: 1, tool: 'read_file', args: { path: 'x' } } } as const;
    expect(refreshTargets(eventLog(toolCall), 0)).toEqual({ detail: false, seed: false });
  });

  it('looks only at events after the ones already handled', () => {
    const events = eventLog(asked('q1', 'A?'), interviewCall('glob', { pattern: '*' }));
    expect(refreshTargets(events, 1)).toEqual({ detail: false, seed: false });
    expect(refreshTargets(events, 2)).toEqual({ detail: false, seed: false });
  });
});
