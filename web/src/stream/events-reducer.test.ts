import { describe, expect, it } from 'vitest';
import type { TilthEvent } from '../../../shared/events.ts';
import { foldSessionEvents, initialSessionEvents, type SessionEventsAction } from './events-reducer.ts';

const ts = '2026-05-25T10:00:00.000Z';
const status = (seq: number, to: 'running' | 'stopped'): TilthEvent => ({
  seq,
  ts,
  type: 'status_changed',
  data: { from: null, to },
});
const commit = (seq: number): TilthEvent => ({ seq, ts, type: 'commit', data: { task_id: 'T-001', trace_id: 'a'.repeat(32), sha: null } });
const ev = (event: TilthEvent): SessionEventsAction => ({ type: 'event', event });

describe('foldSessionEvents', () => {
  it('appends events in order and tracks the last seq', () => {
    const state = foldSessionEvents(initialSessionEvents, [ev(commit(1)), ev(commit(2)), ev(commit(3))]);
    expect(state.view.recent.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(state.view.lastSeq).toBe(3);
    expect(state.caughtUp).toBe(false);
  });

  it('ignores events at or below the last seq, within a batch and across batches', () => {
    const first = foldSessionEvents(initialSessionEvents, [ev(commit(1)), ev(commit(2)), ev(commit(2))]);
    const second = foldSessionEvents(first, [ev(commit(1)), ev(commit(2)), ev(commit(3))]);
    expect(second.view.recent.map((e) => e.seq)).toEqual([1, 2, 3]);
  });

  it('returns the same state object when nothing changes, so React skips the render', () => {
    const state = foldSessionEvents(initialSessionEvents, [ev(commit(1))]);
    expect(foldSessionEvents(state, [])).toBe(state);
    expect(foldSessionEvents(state, [ev(commit(1))])).toBe(state);
  });

  it('marks caught-up and keeps the latest status from status_changed', () => {
    const state = foldSessionEvents(initialSessionEvents, [ev(status(1, 'running')), { type: 'caught-up', lastSeq: 1 }, ev(status(2, 'stopped'))]);
    expect(state.caughtUp).toBe(true);
    expect(state.view.status).toBe('stopped');
  });

  it('records a stream error and clears it once events flow again', () => {
    const failed = foldSessionEvents(initialSessionEvents, [{ type: 'error', code: 'session_not_found', message: 'gone' }]);
    expect(failed.error).toEqual({ code: 'session_not_found', message: 'gone' });
    expect(foldSessionEvents(failed, [ev(commit(1))]).error).toBeNull();
  });

  it('folding a batch equals folding its actions one at a time', () => {
    const actions: SessionEventsAction[] = [ev(status(1, 'running')), ev(commit(2)), { type: 'caught-up', lastSeq: 2 }, ev(commit(3))];
    const batched = foldSessionEvents(initialSessionEvents, actions);
    const stepwise = actions.reduce((s, a) => foldSessionEvents(s, [a]), initialSessionEvents);
    expect(batched).toEqual(stepwise);
  });
});
