/**
 * Chart data from the summary's timeline series: task attempts as spans with iteration ticks and
 * verdict marks (the timeline), and prompt tokens per model call by task (context pressure).
 * Times are in seconds, as uPlot's time scale wants them. Pure.
 */
import type { Summary } from '../../../shared/summary.ts';

/** Lanes: the plan's tasks in order, then any other task the log mentions. */
export function taskLanes(planOrder: readonly string[], summary: Summary): string[] {
  const lanes = [...planOrder];
  const seen = new Set(lanes);
  for (const id of Object.keys(summary.tasks).sort()) if (!seen.has(id)) lanes.push(id);
  return lanes;
}

export interface Span {
  lane: number;
  start: number;
  end: number;
  outcome: 'done' | 'failed' | 'stopped' | null;
}

export interface Mark {
  lane: number;
  t: number;
  seq: number;
  verdict: 'accept' | 'reject';
  category: string | null;
}

export interface TimelineModel {
  lanes: string[];
  spans: Span[];
  /** Worker iterations, in seq (and so time) order, as parallel arrays. */
  ticks: { t: Float64Array; lane: Int32Array; seq: Int32Array; iter: Int32Array };
  marks: Mark[];
  xMin: number;
  xMax: number;
}

/** `endMs` closes a span still open (now while running, else the last event's time). */
export function timelineModel(summary: Summary, lanes: readonly string[], endMs: number): TimelineModel {
  const laneOf = new Map(lanes.map((id, i) => [id, i]));
  const { attempts, iterations, verdicts } = summary.timeline;
  const spans: Span[] = [];
  for (const [task, , start, end, outcome] of attempts) {
    const lane = laneOf.get(task);
    if (lane === undefined) continue;
    spans.push({ lane, start: start / 1000, end: Math.max(start, end ?? endMs) / 1000, outcome });
  }
  const n = iterations.length;
  const ticks = { t: new Float64Array(n), lane: new Int32Array(n), seq: new Int32Array(n), iter: new Int32Array(n) };
  let kept = 0;
  for (const [seq, ms, task, iter] of iterations) {
    const lane = laneOf.get(task);
    if (lane === undefined) continue;
    ticks.t[kept] = ms / 1000;
    ticks.lane[kept] = lane;
    ticks.seq[kept] = seq;
    ticks.iter[kept] = iter;
    kept++;
  }
  const marks: Mark[] = [];
  for (const [seq, ms, task, verdict, category] of verdicts) {
    const lane = laneOf.get(task);
    if (lane !== undefined) marks.push({ lane, t: ms / 1000, seq, verdict, category });
  }
  let xMin = Infinity;
  let xMax = -Infinity;
  for (const s of spans) {
    xMin = Math.min(xMin, s.start);
    xMax = Math.max(xMax, s.end);
  }
  if (!Number.isFinite(xMin)) {
    xMin = endMs / 1000 - 60;
    xMax = endMs / 1000;
  }
  if (xMax - xMin < 1) xMax = xMin + 1;
  return {
    lanes: [...lanes],
    spans,
    ticks: { t: ticks.t.subarray(0, kept), lane: ticks.lane.subarray(0, kept), seq: ticks.seq.subarray(0, kept), iter: ticks.iter.subarray(0, kept) },
    marks,
    xMin,
    xMax,
  };
}

/** Index of the first value ≥ `x` in an ascending array. */
export function lowerBound(values: ArrayLike<number>, x: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (values[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export interface Hit {
  seq: number;
  kind: 'verdict' | 'iteration';
}

/**
 * The mark or tick nearest to a click at time `t` in `lane`, within `tolerance` seconds. Verdict
 * marks win over iteration ticks at the same spot: they are what a user aims at.
 */
export function hitTest(model: TimelineModel, t: number, lane: number, tolerance: number): Hit | null {
  let best: Hit | null = null;
  let bestDist = tolerance;
  for (const m of model.marks) {
    const d = Math.abs(m.t - t);
    if (m.lane === lane && d <= bestDist) {
      best = { seq: m.seq, kind: 'verdict' };
      bestDist = d;
    }
  }
  if (best !== null) return best;
  const { t: times, lane: lanes, seq } = model.ticks;
  // Ticks are in time order: look only at those within the tolerance.
  for (let i = lowerBound(times, t - tolerance); i < times.length && times[i]! <= t + tolerance; i++) {
    const d = Math.abs(times[i]! - t);
    if (lanes[i] === lane && d <= bestDist) {
      best = { seq: seq[i]!, kind: 'iteration' };
      bestDist = d;
    }
  }
  return best;
}

export interface PressureModel {
  /** Call number, 1…n, in seq order. */
  x: number[];
  seqs: number[];
  /** Per lane: the worker call's prompt tokens at its x, else null. */
  byTask: (number | null)[][];
  /** Evaluator and learnings calls. */
  others: (number | null)[];
  /**
   * The worker's context window at each call (the last one a worker call reported, carried
   * forward), or null while none is known; null altogether when no call reported one.
   */
  window: (number | null)[] | null;
}

/** Prompt tokens per model call: worker calls coloured by task, the other roles apart. */
export function pressureModel(summary: Summary, lanes: readonly string[]): PressureModel {
  const laneOf = new Map(lanes.map((id, i) => [id, i]));
  const { iterations, other_calls, windows } = summary.timeline;
  const workerWindows = windows.filter((w) => w[1] === 'worker');
  const window = workerWindows.length === 0 ? null : new Array<number | null>(iterations.length + other_calls.length).fill(null);
  let w = 0;
  let currentWindow: number | null = null;
  const total = iterations.length + other_calls.length;
  const x: number[] = new Array<number>(total);
  const seqs: number[] = new Array<number>(total);
  const byTask = lanes.map(() => new Array<number | null>(total).fill(null));
  const others = new Array<number | null>(total).fill(null);
  let i = 0;
  let j = 0;
  for (let k = 0; k < total; k++) {
    x[k] = k + 1;
    const it = iterations[i];
    const other = other_calls[j];
    if (it !== undefined && (other === undefined || it[0] < other[0])) {
      seqs[k] = it[0];
      const lane = laneOf.get(it[2]);
      if (lane !== undefined) byTask[lane]![k] = it[4];
      i++;
    } else if (other !== undefined) {
      seqs[k] = other[0];
      others[k] = other[4];
      j++;
    }
    if (window !== null) {
      while (w < workerWindows.length && workerWindows[w]![0] <= seqs[k]!) currentWindow = workerWindows[w++]![2];
      window[k] = currentWindow;
    }
  }
  return { x, seqs, byTask, others, window };
}
