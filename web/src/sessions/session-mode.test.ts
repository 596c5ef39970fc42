import { describe, expect, it } from 'vitest';
import { eventLog } from '../../../shared/test-events.ts';
import { seedSeenInEvents, sessionMode } from './session-mode.ts';

describe('sessionMode', () => {
  it('shows the interview while interviewing, and after it ended without a seed', () => {
    expect(sessionMode('interviewing', false)).toBe('interview');
    expect(sessionMode('failed', false)).toBe('interview');
    expect(sessionMode('stopped', false)).toBe('interview');
  });

  it('shows the seed review for a prepared session with a seed and no run', () => {
    expect(sessionMode('prepared', true)).toBe('seed');
    expect(sessionMode('prepared', true, 'idle')).toBe('seed');
  });

  it('shows the run view while running, when stopped, when all done, and after the end', () => {
    expect(sessionMode('running', true)).toBe('run');
    expect(sessionMode('running', false)).toBe('run');
    expect(sessionMode('stopped', true)).toBe('run');
    expect(sessionMode('all_done', true)).toBe('run');
    expect(sessionMode('merged', true)).toBe('run');
  });

  it('shows the run view for a queued or just-started run while the session still says prepared or stopped', () => {
    expect(sessionMode('prepared', true, 'queued')).toBe('run');
    expect(sessionMode('prepared', true, 'running')).toBe('run');
    expect(sessionMode('stopped', true, 'queued')).toBe('run');
  });

  it('keeps the event list for a prepared session without a seed, a failed one with a seed, and an unknown status', () => {
    expect(sessionMode('prepared', false)).toBe('events');
    expect(sessionMode('failed', true)).toBe('events');
    expect(sessionMode(null, false)).toBe('events');
  });
});

describe('seedSeenInEvents', () => {
  it('notices the seed commit before the detail is refetched', () => {
    expect(seedSeenInEvents(eventLog({ type: 'seed_committed', data: { sha: 'abc', branch: 'session/x' } }))).toBe(true);
    expect(seedSeenInEvents(eventLog({ type: 'question_answered', data: { question_id: 'q', answer: 'a' } }))).toBe(false);
  });
});
