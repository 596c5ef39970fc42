import { describe, expect, it } from 'vitest';
import type { PrdEntry } from '../../../shared/files.ts';
import { runControls, runHeadline, spendLine, taskProgress, taskShownStatus } from './run-status.ts';

const idle = { state: 'idle', queue_position: null } as const;

describe('runHeadline', () => {
  it('gives the stop reason and the server’s sentence when stopped', () => {
    expect(
      runHeadline({ status: 'stopped', run: idle, lastStop: 'iter_cap', lastError: 'T-001 failed: hit the iteration cap. Resume retries it with a fresh budget.' }),
    ).toBe('Stopped — iter_cap: T-001 failed: hit the iteration cap. Resume retries it with a fresh budget.');
  });

  it('explains a stop by the user or a crash when the server gave no sentence', () => {
    expect(runHeadline({ status: 'stopped', run: idle, lastStop: 'interrupted', lastError: null })).toBe(
      'Stopped — interrupted: you stopped it. Resume continues where it left off.',
    );
    expect(runHeadline({ status: 'stopped', run: idle, lastStop: 'crash', lastError: null })).toMatch(/^Stopped — crash: the server stopped/);
    expect(runHeadline({ status: 'stopped', run: idle, lastStop: 'wall_clock', lastError: null })).toBe('Stopped — wall_clock');
    expect(runHeadline({ status: 'stopped', run: idle, lastStop: null, lastError: null })).toBe('Stopped');
  });

  it('shows the queue position while queued, whatever the session status says', () => {
    expect(runHeadline({ status: 'stopped', run: { state: 'queued', queue_position: 2 }, lastStop: 'interrupted', lastError: null })).toBe(
      'Queued (position 2) — it starts when a run slot is free',
    );
  });

  it('says running as soon as the run is, and all done at the end', () => {
    expect(runHeadline({ status: 'prepared', run: { state: 'running', queue_position: null }, lastStop: null, lastError: null })).toBe('Running');
    expect(runHeadline({ status: 'running', run: idle, lastStop: null, lastError: null })).toBe('Running');
    expect(runHeadline({ status: 'all_done', run: idle, lastStop: 'all_done', lastError: null })).toBe('All tasks done');
  });
});

describe('runControls', () => {
  it('offers Stop while running or queued, and Resume only when stopped and idle', () => {
    expect(runControls('running', 'running')).toEqual({ stop: true, resume: false, notes: true });
    expect(runControls('prepared', 'queued')).toEqual({ stop: true, resume: false, notes: true });
    expect(runControls('stopped', 'idle')).toEqual({ stop: false, resume: true, notes: true });
    expect(runControls('stopped', 'queued')).toEqual({ stop: true, resume: false, notes: true });
  });

  it('offers nothing but the log once every task is done', () => {
    expect(runControls('all_done', 'idle')).toEqual({ stop: false, resume: false, notes: false });
  });
});

describe('spend and progress', () => {
  it('shows the cost against the dollar cap, the model calls and the tokens', () => {
    const usage = { prompt_tokens: 1000, completion_tokens: 234, total_tokens: 1234, cost_usd: 0.0234, calls: 7 };
    const caps = { max_iterations_per_task: 32, max_wall_clock_minutes: 60, max_tokens: 0, max_dollars: 5, max_evaluator_calls_per_task: 0 };
    expect(spendLine(usage, caps)).toBe('$0.02 of $5.00 · 7 model calls · 1,234 tokens');
    expect(spendLine({ ...usage, calls: 1, cost_usd: 0 }, null)).toBe('$0 · 1 model call · 1,234 tokens');
  });

  it('calls a task cut short by a stop interrupted, not in progress', () => {
    expect(taskShownStatus('in_progress', true)).toBe('in_progress');
    expect(taskShownStatus('in_progress', false)).toBe('interrupted');
    expect(taskShownStatus('failed', false)).toBe('failed');
  });

  it('counts the done tasks', () => {
    const task = (status: PrdEntry['status']): PrdEntry => ({ id: 'T-001', title: 't', description: 'd', acceptance_criteria: ['c'], status });
    expect(taskProgress([task('done'), task('in_progress'), task('pending')])).toBe('1 of 3 done');
  });
});
