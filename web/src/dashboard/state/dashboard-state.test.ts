import { describe, expect, it } from 'vitest';
import type { TilthEvent } from '../../../../shared/events.ts';
import { addToSummary, emptySummary, type Summary } from '../../../../shared/summary.ts';
import { dashboardReducer, initialDashboard, WINDOW_MAX, type DashboardAction, type DashboardState } from './dashboard-state.ts';
import { RunLog, twoTaskRun } from '../test-run.ts';

function summaryOf(events: readonly TilthEvent[]): Summary {
  const s = emptySummary('s');
  for (const e of events) addToSummary(s, e);
  return s;
}

const reduce = (state: DashboardState, ...actions: DashboardAction[]) => actions.reduce(dashboardReducer, state);
/** The stream's window as the session store would hand it over: the newest `keep` events. */
const stream = (events: readonly TilthEvent[], upTo: number, keep = 1000): DashboardAction => ({
  type: 'stream',
  recent: events.slice(Math.max(0, upTo - keep), upTo),
});
const seqs = (events: readonly TilthEvent[]) => events.map((e) => e.seq);

describe('the summary fold', () => {
  const events = twoTaskRun().events;

  it('folds each live event into the REST summary exactly once, whatever the order they arrive in', () => {
    const full = summaryOf(events);
    // The summary is fetched at seq 10, the stream delivers up to 20, then the rest in frames.
    let state = reduce(initialDashboard, stream(events, 20), { type: 'summary', summary: summaryOf(events.slice(0, 10)) });
    expect(state.summary!.last_seq).toBe(20);
    for (let upTo = 21; upTo <= events.length; upTo += 3) state = reduce(state, stream(events, upTo), stream(events, upTo));
    state = reduce(state, stream(events, events.length));
    expect(state.summaryStale).toBe(false);
    expect(state.summary).toEqual(full);
  });

  it('never mutates the summary it was given (the query cache keeps it)', () => {
    const given = summaryOf(events.slice(0, 5));
    const copy = structuredClone(given);
    reduce(initialDashboard, { type: 'summary', summary: given }, stream(events, 15));
    expect(given).toEqual(copy);
  });

  it('marks the summary stale when events it has not seen were missed, and recovers with a fresh one', () => {
    // The stream keeps only 5 events: 6…10 after a summary at seq 3 leaves 4 and 5 unseen.
    let state = reduce(initialDashboard, { type: 'summary', summary: summaryOf(events.slice(0, 3)) }, stream(events, 10, 5));
    expect(state.summaryStale).toBe(true);
    const version = state.summaryVersion;
    state = reduce(state, stream(events, 12, 5));
    expect(state.summaryVersion).toBe(version); // nothing folded into a stale summary
    state = reduce(state, { type: 'summary', summary: summaryOf(events.slice(0, 9)) });
    expect(state.summaryStale).toBe(false);
    expect(state.summary!.last_seq).toBe(12);
    expect(state.summary).toEqual(summaryOf(events.slice(0, 12)));
  });

  it('ignores a summary older than the one it holds', () => {
    const state = reduce(initialDashboard, { type: 'summary', summary: summaryOf(events.slice(0, 10)) }, stream(events, 15));
    expect(reduce(state, { type: 'summary', summary: summaryOf(events.slice(0, 8)) })).toBe(state);
  });

  it('bumps the version only when something was folded', () => {
    const state = reduce(initialDashboard, { type: 'summary', summary: summaryOf(events.slice(0, 10)) }, stream(events, 10));
    expect(reduce(state, stream(events, 10)).summaryVersion).toBe(state.summaryVersion);
  });
});

describe('the event window', () => {
  const log = new RunLog().start().task('T-001');
  for (let i = 1; i <= 20; i++) log.tool('T-001', 1, 'read_file', { path: `f${i}` });
  const events = log.events; // 42 events

  it('starts from the stream’s window and grows with live events, each once', () => {
    let state = reduce(initialDashboard, stream(events, 10, 4));
    expect(seqs(state.window.events)).toEqual([7, 8, 9, 10]);
    expect(state.window.hasEarlier).toBe(true);
    state = reduce(state, stream(events, 12, 4), stream(events, 12, 4), stream(events, 13, 4));
    expect(seqs(state.window.events)).toEqual([7, 8, 9, 10, 11, 12, 13]);
  });

  it('prepends a page of older events and knows when the log begins', () => {
    let state = reduce(initialDashboard, stream(events, 10, 4));
    state = reduce(state, { type: 'older', events: events.slice(2, 6), hasEarlier: true });
    expect(seqs(state.window.events)).toEqual([3, 4, 5, 6, 7, 8, 9, 10]);
    state = reduce(state, { type: 'older', events: events.slice(0, 2), hasEarlier: false });
    expect(seqs(state.window.events)).toEqual(seqs(events.slice(0, 10)));
    expect(state.window.hasEarlier).toBe(false);
    // A page that does not join (a stale response) changes nothing.
    expect(reduce(state, { type: 'older', events: events.slice(0, 1), hasEarlier: false }).window.events).toBe(state.window.events);
  });

  it('after a jump, stops following the stream until the newer pages join it again', () => {
    let state = reduce(initialDashboard, stream(events, 30, 5));
    state = reduce(state, { type: 'jump', events: events.slice(4, 9), hasEarlier: true, hasLater: true });
    state = reduce(state, stream(events, 31, 5));
    expect(seqs(state.window.events)).toEqual([5, 6, 7, 8, 9]);
    state = reduce(state, { type: 'newer', events: events.slice(9, 26), hasLater: true });
    // 10…26 from REST, then 27…31 from the stream: joined, and live again.
    expect(seqs(state.window.events)).toEqual(Array.from({ length: 27 }, (_, i) => i + 5));
    expect(state.window.hasLater).toBe(false);
    state = reduce(state, stream(events, 32, 5));
    expect(state.window.events.at(-1)!.seq).toBe(32);
  });

  it('goes back to the newest events on request', () => {
    let state = reduce(initialDashboard, stream(events, 30, 5), { type: 'jump', events: events.slice(0, 3), hasEarlier: false, hasLater: true });
    state = reduce(state, { type: 'newest' });
    expect(seqs(state.window.events)).toEqual([26, 27, 28, 29, 30]);
    expect(state.window.hasLater).toBe(false);
  });

  it('keeps at most WINDOW_MAX events, dropping the far end', () => {
    const log = new RunLog().start().task('T-001');
    for (let i = 0; i < WINDOW_MAX + 50; i++) log.tool('T-001', 1, 'read_file', { path: `f${i}` });
    const many = log.events;
    let state = reduce(initialDashboard, stream(many, 900, 900));
    for (let upTo = 1800; upTo <= many.length; upTo += 900) state = reduce(state, stream(many, upTo, 1000));
    state = reduce(state, stream(many, many.length, 1000));
    expect(state.window.events.length).toBeLessThanOrEqual(WINDOW_MAX);
    expect(state.window.events.at(-1)!.seq).toBe(many.length);
    expect(state.window.hasEarlier).toBe(true);
    const w = seqs(state.window.events);
    expect(w).toEqual(Array.from({ length: w.length }, (_, i) => w[0]! + i));
  });
});

describe('staff and sandbox', () => {
  it('remembers the newest run start and the models seen, from the stream or a probe', () => {
    const log = twoTaskRun();
    let state = reduce(initialDashboard, stream(log.events, log.events.length));
    expect(state.runStart?.data.sandbox).toEqual({ available: false, network: true, detail: 'bwrap is not installed' });
    expect(state.modelsSeen).toEqual({ worker: 'w-model', evaluator: 'e-model' });
    state = reduce(state, { type: 'facts', runStart: null, interviewer: 'i-model' });
    expect(state.modelsSeen.interviewer).toBe('i-model');
    const older = { seq: 1, ts: log.events[0]!.ts, data: { source: '/', phase: 'run' as const, worktree: '/', branch: 'b' } };
    expect(reduce(state, { type: 'facts', runStart: older, interviewer: null }).runStart!.seq).toBe(state.runStart!.seq);
  });
});
