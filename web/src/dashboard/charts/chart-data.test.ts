import { describe, expect, it } from 'vitest';
import { addToSummary, emptySummary, type Summary } from '../../../../shared/summary.ts';
import { emptyPressureModel, emptyTimelineModel, extendPressure, extendTimeline, hitTest, pressureModel, taskLanes, timelineModel } from './chart-data.ts';
import { RunLog, twoTaskRun } from '../test-run.ts';

function summaryOf(log: RunLog): Summary {
  const s = emptySummary('s');
  for (const e of log.events) addToSummary(s, e);
  return s;
}

describe('timelineModel', () => {
  const log = twoTaskRun();
  const summary = summaryOf(log);
  const lanes = taskLanes(['T-001', 'T-002'], summary);
  const model = timelineModel(summary, lanes, Date.parse(log.events.at(-1)!.ts));

  it('draws each task attempt as a span with its outcome, iteration ticks and verdict marks', () => {
    expect(model.lanes).toEqual(['T-001', 'T-002']);
    expect(model.spans.map((s) => [s.lane, s.outcome])).toEqual([
      [0, 'done'],
      [1, 'done'],
    ]);
    expect(Array.from(model.ticks.iter)).toEqual([1, 2, 3, 1]);
    expect(Array.from(model.ticks.lane)).toEqual([0, 0, 0, 1]);
    expect(model.marks.map((m) => [m.lane, m.verdict, m.category])).toEqual([
      [0, 'reject', 'acceptance_gap'],
      [0, 'accept', null],
      [1, 'accept', null],
    ]);
    expect(model.xMin).toBe(model.spans[0]!.start);
    expect(model.xMax).toBe(model.spans[1]!.end);
  });

  it('keeps an open attempt open until the given end', () => {
    const running = new RunLog().start().task('T-001').workerCall('T-001', 1);
    const s = summaryOf(running);
    const end = Date.parse(running.events.at(-1)!.ts) + 60_000;
    const span = timelineModel(s, ['T-001'], end).spans[0]!;
    expect(span.outcome).toBeNull();
    expect(span.end).toBe(end / 1000);
  });

  it('finds the verdict or iteration under a click, preferring the verdict', () => {
    const reject = model.marks[0]!;
    expect(hitTest(model, reject.t + 0.2, 0, 1)).toEqual({ seq: reject.seq, kind: 'verdict' });
    const tick = model.ticks;
    expect(hitTest(model, tick.t[0]! + 0.1, 0, 0.5)).toEqual({ seq: tick.seq[0], kind: 'iteration' });
    expect(hitTest(model, reject.t, 1, 0.5)).toBeNull();
  });
});

describe('pressureModel', () => {
  it('puts each call’s prompt tokens in its task’s series, in seq order, evaluator calls apart', () => {
    const summary = summaryOf(twoTaskRun());
    const model = pressureModel(summary, ['T-001', 'T-002']);
    expect(model.x).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(model.byTask[0]).toEqual([1000, 1500, null, 2000, null, null, null]);
    expect(model.byTask[1]).toEqual([null, null, null, null, null, 900, null]);
    expect(model.others).toEqual([null, null, 2000, null, 2000, null, 2000]);
    expect(model.seqs).toEqual([...model.seqs].sort((a, b) => a - b));
    expect(model.window).toBeNull();
  });

  it("draws the worker's context window from the call that first reported it, carried forward, changes included", () => {
    const summary = summaryOf(twoTaskRun());
    const model0 = pressureModel(summary, ['T-001', 'T-002']);
    const [first, , third, , fifth] = model0.seqs;
    summary.timeline.windows = [
      [first!, 'worker', 32_768],
      [third!, 'evaluator', 128_000],
      [fifth!, 'worker', 65_536],
    ];
    const model = pressureModel(summary, ['T-001', 'T-002']);
    expect(model.window).toEqual([32_768, 32_768, 32_768, 32_768, 65_536, 65_536, 65_536]);
  });

  it('leaves the window unknown before the first call that reports one', () => {
    const summary = summaryOf(twoTaskRun());
    const seqs = pressureModel(summary, ['T-001', 'T-002']).seqs;
    summary.timeline.windows = [[seqs[3]!, 'worker', 8_192]];
    expect(pressureModel(summary, ['T-001', 'T-002']).window).toEqual([null, null, null, 8_192, 8_192, 8_192, 8_192]);
  });
});

/** A seeded random run: tasks with iterations, verdicts, retries, reported windows, other roles. */
function randomRun(seed: number): RunLog {
  let state = seed;
  const rnd = () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
  const log = new RunLog().start();
  const call = (task: string | null, iter: number, role: 'worker' | 'evaluator' | 'self_improve', window?: number) =>
    log.add({
      type: 'model_call',
      data: {
        ...(task === null ? {} : { task_id: task }),
        iter,
        ...(role === 'worker' ? { role: 'worker' as const } : role === 'evaluator' ? { role: 'evaluator' as const } : { phase: 'self_improve' as const }),
        model: 'm',
        prompt_tokens: 500 + Math.floor(rnd() * 5000),
        eval_tokens: 10,
        tokens_used_total: 10,
        cost_usd: 0,
        ...(window === undefined ? {} : { context_window: window }),
      },
    });
  // T-009 is not on the plan's lanes given to the models below: its rows are skipped.
  for (const task of ['T-001', 'T-002', 'T-009', 'T-003']) {
    for (let attempt = 0; attempt < 1 + Math.floor(rnd() * 2); attempt++) {
      log.task(task);
      const iterations = 1 + Math.floor(rnd() * 8);
      for (let iter = 1; iter <= iterations; iter++) {
        call(task, iter, 'worker', rnd() < 0.3 ? undefined : rnd() < 0.8 ? 32_768 : 65_536);
        if (rnd() < 0.3) log.verdict(task, iter, rnd() < 0.5 ? 'accept' : 'reject', 'weak_test');
        if (rnd() < 0.1) call(null, iter, 'self_improve');
      }
      if (rnd() < 0.2) call(task, iterations, 'evaluator', 128_000);
    }
    if (rnd() < 0.8) log.done(task);
    else log.failed(task, 'iter_cap');
  }
  return log.stop('all_done');
}

describe('extending the chart models', () => {
  const lanes = ['T-001', 'T-002', 'T-003'];

  it('gives the models built from the whole timeline, however the events are split between extends', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const log = randomRun(seed);
      const summary = emptySummary('s');
      const timeline = emptyTimelineModel(lanes);
      const pressure = emptyPressureModel(lanes);
      let split = seed % 7;
      for (const [k, event] of log.events.entries()) {
        addToSummary(summary, event);
        if (k === split || k === log.events.length - 1) {
          expect(extendTimeline(timeline, summary.timeline, Date.parse(event.ts))).toBe(true);
          expect(extendPressure(pressure, summary.timeline, lanes)).toBe(true);
          split += 1 + ((seed * k) % 11);
        }
      }
      const end = Date.parse(log.events.at(-1)!.ts);
      expect(timeline).toEqual(timelineModel(summary, lanes, end));
      expect(pressure).toEqual(pressureModel(summary, lanes));
    }
  });

  it('follows the end of a span still open, and closes it when the task is done', () => {
    const log = new RunLog().start().task('T-001').workerCall('T-001', 1);
    const summary = summaryOf(log);
    const t0 = Date.parse(log.events.at(-1)!.ts);
    const model = timelineModel(summary, ['T-001'], t0 + 5_000);
    expect(model.spans[0]!.end).toBe((t0 + 5_000) / 1000);
    expect(extendTimeline(model, summary.timeline, t0 + 9_000)).toBe(true);
    expect(model.spans[0]!.end).toBe((t0 + 9_000) / 1000);
    for (const event of log.done('T-001').events.slice(-2)) addToSummary(summary, event);
    expect(extendTimeline(model, summary.timeline, t0 + 60_000)).toBe(true);
    expect(model.spans[0]).toMatchObject({ outcome: 'done', end: (t0 + 1_000) / 1000 });
    expect(model.xMax).toBe((t0 + 1_000) / 1000);
  });

  it('refuses a timeline that no longer begins with the rows it read (trimmed at the cap)', () => {
    const summary = summaryOf(randomRun(3));
    const timeline = timelineModel(summary, lanes, 0);
    const pressure = pressureModel(summary, lanes);
    const before = structuredClone(timeline);
    const trimmed = { ...summary.timeline, iterations: summary.timeline.iterations.slice(1) };
    expect(extendTimeline(timeline, trimmed, 0)).toBe(false);
    expect(extendPressure(pressure, trimmed, lanes)).toBe(false);
    expect(timeline).toEqual(before);
  });
});
