import { describe, expect, it } from 'vitest';
import { eventLog } from './test-events.ts';
import { seedSeenInEvents, sessionMode } from './session-mode.ts';

describe('sessionMode', () => {
  it('shows the interview while interviewing, and after it ended without a seed', () => {
    expect(sessionMode('interviewing', false)).toBe('interview');
    expect(sessionMode('failed', false)).toBe('interview');
    expect(sessionMode('stopped', false)).toBe('interview');
  });

  it('shows the seed review for a prepared session with a seed', () => {
    expect(sessionMode('prepared', true)).toBe('seed');
  });

  it('keeps the event list for everything else, including a prepared session without a seed', () => {
    expect(sessionMode('prepared', false)).toBe('events');
    expect(sessionMode('stopped', true)).toBe('events');
    expect(sessionMode('running', true)).toBe('events');
    expect(sessionMode(null, false)).toBe('events');
  });
});

describe('seedSeenInEvents', () => {
  it('notices the seed commit before the detail is refetched', () => {
    expect(seedSeenInEvents(eventLog({ type: 'seed_committed', data: { sha: 'abc', branch: 'session/x' } }))).toBe(true);
    expect(seedSeenInEvents(eventLog({ type: 'question_answered', data: { question_id: 'q', answer: 'a' } }))).toBe(false);
  });
});
