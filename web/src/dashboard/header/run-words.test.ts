import { describe, expect, it } from 'vitest';
import { emptySummary, addToSummary } from '../../../../shared/summary.ts';
import { boardStatus, headlineTone, runControls, runHeadline, stopInWords } from './run-words.ts';
import { CAPS, RunLog } from '../test-run.ts';

const idle = { state: 'idle', queue_position: null } as const;
const caps = { ...CAPS, max_dollars: 10 };

describe('stopInWords', () => {
  it('names the cap and its value for a session cap', () => {
    expect(stopInWords('dollar_cap', { caps, tasks: {}, lastError: null })).toBe('stopped: dollar cap reached at $10.00');
    expect(stopInWords('token_cap', { caps, tasks: {}, lastError: null })).toBe('stopped: token cap reached at 100,000 tokens');
    expect(stopInWords('wall_clock', { caps, tasks: {}, lastError: null })).toBe('stopped: wall-clock cap reached after 60 min');
    expect(stopInWords('dollar_cap', { caps: null, tasks: {}, lastError: null })).toBe('stopped: dollar cap reached');
  });

  it('names the task a task-level stop was about', () => {
    const log = new RunLog().start().task('T-001').workerCall('T-001', 1).failed('T-001', 'iter_cap');
    const summary = emptySummary('s');
    for (const e of log.events) addToSummary(summary, e);
    expect(stopInWords('iter_cap', { caps, tasks: summary.tasks, lastError: null })).toBe('stopped: T-001 used all 10 iterations without an accepted case');
    expect(stopInWords('evaluator_cap', { caps, tasks: summary.tasks, lastError: null })).toBe('stopped: a task reached the evaluator cap (4 calls)');
  });

  it('says what happened for a stop by the user, a crash or an error', () => {
    expect(stopInWords('interrupted', { caps, tasks: {}, lastError: null })).toMatch(/^stopped: interrupted/);
    expect(stopInWords('crash', { caps, tasks: {}, lastError: null })).toBe('stopped: the server went down in the middle of the run');
    expect(stopInWords('error', { caps, tasks: {}, lastError: 'disk full' })).toBe('stopped: an error — disk full');
    expect(stopInWords('all_done', { caps, tasks: {}, lastError: null })).toBe('finished: all tasks done');
  });
});

describe('headlineTone and the deliberate stops', () => {
  it('colours a send-back, an added task and Stop as a pause, and names the button that goes on', () => {
    expect(headlineTone('stopped', 'idle', 'sent_back')).toBe('stopped');
    expect(headlineTone('stopped', 'idle', 'task_added')).toBe('stopped');
    expect(headlineTone('stopped', 'idle', 'interrupted')).toBe('stopped');
    expect(headlineTone('stopped', 'idle', 'iter_cap')).toBe('problem');
    expect(headlineTone('stopped', 'idle', null)).toBe('problem');
    expect(stopInWords('sent_back', { caps: null, tasks: {}, lastError: null })).toBe('paused: a task was sent back for another revision; Resume runs it');
    expect(stopInWords('task_added', { caps: null, tasks: {}, lastError: null })).toBe('paused: a task was added after the run; Resume builds it');
  });
});

describe('runHeadline', () => {
  const base = { caps, tasks: {}, lastError: null, lastStop: null, current: null };
  it('names the task a running run is on, without jargon', () => {
    expect(
      runHeadline({ ...base, status: 'running', run: { state: 'running', queue_position: null }, current: { taskId: 'T-002', title: 'Add due dates' } }),
    ).toBe('running T-002: Add due dates');
    expect(runHeadline({ ...base, status: 'prepared', run: { state: 'running', queue_position: null } })).toBe('running');
  });

  it('shows the queue position whatever the status says', () => {
    expect(runHeadline({ ...base, status: 'stopped', lastStop: 'interrupted', run: { state: 'queued', queue_position: 2 } })).toBe(
      'queued (position 2): it starts when a run slot is free',
    );
  });

  it('gives the stop reason in words once stopped', () => {
    expect(runHeadline({ ...base, status: 'stopped', lastStop: 'dollar_cap', run: idle })).toBe('stopped: dollar cap reached at $10.00');
    expect(runHeadline({ ...base, status: 'all_done', lastStop: 'all_done', run: idle })).toBe('finished: all tasks done');
  });
});

describe('runControls', () => {
  it('offers Stop while running or queued and Resume only when stopped and idle', () => {
    expect(runControls('running', 'running')).toEqual({ stop: true, resume: false, notes: true });
    expect(runControls('prepared', 'queued')).toEqual({ stop: true, resume: false, notes: true });
    expect(runControls('stopped', 'idle')).toEqual({ stop: false, resume: true, notes: true });
    expect(runControls('all_done', 'idle')).toEqual({ stop: false, resume: false, notes: false });
  });
});

describe('boardStatus', () => {
  it('is ahead of the plan when the stream says a task is done or failed', () => {
    expect(boardStatus('in_progress', 'done', true)).toBe('done');
    expect(boardStatus('in_progress', 'failed', false)).toBe('failed');
  });

  it('calls a task a stop cut short interrupted, and a failed task resume put back "to retry"', () => {
    expect(boardStatus('in_progress', 'in_progress', false)).toBe('interrupted');
    expect(boardStatus('pending', 'in_progress', false)).toBe('interrupted');
    expect(boardStatus('pending', 'failed', true)).toBe('retry');
    expect(boardStatus('pending', null, true)).toBe('pending');
    // Sent back or rewound: the summary's pending is later than a plan not refetched yet.
    expect(boardStatus('done', 'pending', false)).toBe('pending');
    expect(boardStatus('pending', 'pending', true)).toBe('pending');
    expect(boardStatus('in_progress', 'pending', true)).toBe('in_progress');
    expect(boardStatus('in_progress', null, true)).toBe('in_progress');
  });
});
