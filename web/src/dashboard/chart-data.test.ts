import { describe, expect, it } from 'vitest';
import { addToSummary, emptySummary, type Summary } from '../../../shared/summary.ts';
import { hitTest, pressureModel, taskLanes, timelineModel } from './chart-data.ts';
import { RunLog, twoTaskRun } from './test-run.ts';

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
