import { describe, expect, it } from 'vitest';
import type { SessionDetail } from '../../../shared/api.ts';
import { answered, asked, eventLog } from '../../../shared/test-events.ts';
import { interviewFailure, interviewModel, interviewUsage, pendingQuestion, qaHistory } from './interview-state.ts';

const usage = { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120, cost_usd: 0.01, calls: 2 };

function detail(over: Partial<SessionDetail> = {}): SessionDetail {
  return {
    session: {
      id: '20260525-103149-3800ea',
      status: 'interviewing',
      source: '/repo',
      title: '',
      brief: 'b',
      tasks: { total: 0, done: 0 },
      cost_usd: 0,
      last_stop: null,
      last_error: null,
      created_at: '2026-05-25T10:00:00.000Z',
      updated_at: '2026-05-25T10:00:00.000Z',
      problem: null,
      needs_you: false,
    },
    branch: 'session/20260525-103149-3800ea',
    base_branch: 'main',
    base_sha: 'abc',
    worktree: '/w',
    checks_preset: 'node',
    last_error: null,
    interview: { pending: null, iterations: 1, running: true },
    interview_usage: usage,
    has_seed: false,
    tasks: [],
    run: { state: 'idle', queue_position: null },
    adding_task: false,
    add_task: null,
    usage: { ...usage, calls: 0, cost_usd: 0, prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    caps: null,
    allow_network: false,
    demo: false,
    ...over,
  };
}

describe('qaHistory', () => {
  it('pairs each answer with its question, in the order answered', () => {
    const items = qaHistory(eventLog(asked('q1', 'Format?', ['ISO', 'Date']), answered('q1', 'ISO'), asked('q2', 'Scope?'), answered('q2', 'No reminders')));
    expect(items.map((i) => [i.questionId, i.question, i.answer])).toEqual([
      ['q1', 'Format?', 'ISO'],
      ['q2', 'Scope?', 'No reminders'],
    ]);
    expect(items[0]?.options).toEqual(['ISO', 'Date']);
  });

  it('leaves out the question still waiting, and keeps an answer whose question scrolled away', () => {
    const items = qaHistory(eventLog(answered('q0', 'yes'), asked('q1', 'Format?')));
    expect(items).toEqual([{ questionId: 'q0', question: null, options: [], answer: 'yes', seq: 1 }]);
  });
});

describe('pendingQuestion', () => {
  it('is the newest question not yet answered', () => {
    expect(pendingQuestion(eventLog(asked('q1', 'A?'), answered('q1', 'a'), asked('q2', 'B?', ['x', 'y'])), null)).toEqual({
      question_id: 'q2',
      text: 'B?',
      options: ['x', 'y'],
    });
    expect(pendingQuestion(eventLog(asked('q1', 'A?'), answered('q1', 'a')), null)).toBeNull();
  });

  it('falls back to REST when the events do not have it, unless it was answered', () => {
    const rest = { question_id: 'q7', text: 'From REST?' };
    expect(pendingQuestion([], rest)).toEqual(rest);
    expect(pendingQuestion(eventLog(answered('q7', 'done')), rest)).toBeNull();
  });

  it('gives way as soon as this tab has answered, before the stream confirms it', () => {
    expect(pendingQuestion(eventLog(asked('q1', 'A?')), { question_id: 'q1', text: 'A?' }, new Set(['q1']))).toBeNull();
  });
});

describe('interviewFailure', () => {
  it('prefers the stop event’s words, then the checkpoint’s, then the bare reason', () => {
    const stopped = eventLog({ type: 'stop', data: { reason: 'error', phase: 'interview', error: 'it said nothing' } });
    expect(interviewFailure(stopped, 'older words', 'failed')).toBe('it said nothing');
    const bare = eventLog({ type: 'stop', data: { reason: 'provider_failure', phase: 'interview' } });
    expect(interviewFailure(bare, 'from the checkpoint', 'failed')).toBe('from the checkpoint');
    expect(interviewFailure(bare, null, 'failed')).toBe('The interview ended: provider failure.');
    expect(interviewFailure([], null, 'stopped')).toContain('stopped');
  });
});

describe('interviewUsage', () => {
  it('takes the newest running totals from model calls when they are ahead of REST', () => {
    const events = eventLog({
      type: 'model_call',
      data: { phase: 'interview', prompt_tokens: 50, eval_tokens: 10, tokens_used_total: 180, cost_total_usd: 0.02 },
    });
    expect(interviewUsage(events, usage)).toEqual({ tokens: 180, costUsd: 0.02, calls: 2 });
    expect(interviewUsage([], usage)).toEqual({ tokens: 120, costUsd: 0.01, calls: 2 });
    expect(interviewUsage([], null)).toEqual({ tokens: 0, costUsd: 0, calls: 0 });
  });
});

describe('interviewModel', () => {
  it('asks while a question waits and waits while the model works', () => {
    expect(interviewModel({ events: eventLog(asked('q1', 'A?')), status: 'interviewing', detail: detail() }).phase).toBe('asking');
    expect(interviewModel({ events: [], status: 'interviewing', detail: detail() }).phase).toBe('waiting');
    expect(interviewModel({ events: [], status: 'interviewing', detail: null }).phase).toBe('waiting');
  });

  it('shows why a failed interview failed and offers no form', () => {
    const model = interviewModel({
      events: eventLog(asked('q1', 'A?')),
      status: 'failed',
      detail: detail({ last_error: 'the interviewer stopped without writing the seed' }),
    });
    expect(model).toMatchObject({ phase: 'failed', pending: null, failure: 'the interviewer stopped without writing the seed' });
  });

  it('names the provider failure and keeps its words', () => {
    const model = interviewModel({
      events: eventLog({
        type: 'stop',
        data: { reason: 'provider_failure', phase: 'interview', error: 'the interviewer model failed: HTTP 429: quota used up' },
      }),
      status: 'failed',
      detail: null,
    });
    expect(model).toMatchObject({ phase: 'failed', stopReason: 'provider_failure', failure: 'the interviewer model failed: HTTP 429: quota used up' });
    // With the stop out of the event window, the checkpoint says why.
    const fromRest = interviewModel({ events: [], status: 'failed', detail: detail({ session: { ...detail().session, last_stop: 'provider_failure' } }) });
    expect(fromRest.stopReason).toBe('provider_failure');
  });

  it('shows a model call about to be retried while it waits, and forgets it once the call answered', () => {
    const retry = {
      type: 'model_retry',
      data: { phase: 'interview', role: 'prep', model: 'm', attempt: 1, max_attempts: 6, wait_ms: 2000, reason: 'HTTP 429: busy', status: 429 },
    } as const;
    const waiting = interviewModel({ events: eventLog(retry), status: 'interviewing', detail: detail() });
    expect(waiting).toMatchObject({ phase: 'waiting', retry: { data: { reason: 'HTTP 429: busy' } } });
    const answeredCall = interviewModel({ events: eventLog(retry, asked('q1', 'A?')), status: 'interviewing', detail: detail() });
    expect(answeredCall).toMatchObject({ phase: 'asking', retry: null });
  });
});
