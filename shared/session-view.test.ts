import { describe, expect, it } from 'vitest';
import type { TilthEvent } from './events.ts';
import { emptySessionView, foldEvents } from './session-view.ts';

const ts = '2026-05-25T10:00:00.000Z';
const answer = (seq: number): TilthEvent => ({ seq, ts, type: 'question_answered', data: { question_id: `q${seq}`, answer: 'a' } });
const status = (seq: number, to: 'running' | 'stopped'): TilthEvent => ({ seq, ts, type: 'status_changed', data: { from: null, to } });
const stop = (seq: number): TilthEvent => ({ seq, ts, type: 'stop', data: { reason: 'crash' } });

describe('foldEvents', () => {
  it('counts events by type and follows status and the last stop', () => {
    const view = foldEvents(emptySessionView, [status(1, 'running'), answer(2), answer(3), stop(4), status(5, 'stopped')]);
    expect(view).toMatchObject({ lastSeq: 5, status: 'stopped', lastStop: 'crash' });
    expect(view.countsByType).toEqual({ status_changed: 2, question_answered: 2, stop: 1 });
  });

  it('ignores what it has already seen and returns the same object when nothing is new', () => {
    const view = foldEvents(emptySessionView, [answer(1), answer(2)]);
    expect(foldEvents(view, [answer(1), answer(2)])).toBe(view);
    expect(foldEvents(view, [answer(2), answer(3)]).recent.map((e) => e.seq)).toEqual([1, 2, 3]);
  });

  it('keeps only a bounded window of recent events however long the session', () => {
    let view = emptySessionView;
    for (let start = 1; start <= 100_000; start += 500) {
      view = foldEvents(
        view,
        Array.from({ length: 500 }, (_, i) => answer(start + i)),
        1000,
      );
    }
    expect(view.lastSeq).toBe(100_000);
    expect(view.countsByType).toEqual({ question_answered: 100_000 });
    expect(view.recent).toHaveLength(1000);
    expect(view.recent[0]!.seq).toBe(99_001);
    expect(view.recent.at(-1)!.seq).toBe(100_000);
  });

  it('gives the same view whether events arrive in one batch or one by one', () => {
    const events = [status(1, 'running'), answer(2), stop(3), answer(4)];
    const batched = foldEvents(emptySessionView, events, 2);
    const stepwise = events.reduce((v, e) => foldEvents(v, [e], 2), emptySessionView);
    expect(batched).toEqual(stepwise);
    expect(batched.recent.map((e) => e.seq)).toEqual([3, 4]);
  });
});
