/**
 * Chart data from the summary's timeline series: task attempts as spans with iteration ticks and
 * verdict marks (the timeline), and prompt tokens per model call by task (context pressure).
 * Times are in seconds, as uPlot's time scale wants them. Pure.
 */
import type { Summary, Timeline } from '../../../../shared/summary.ts';

/** Lanes: the plan's tasks in order, then any other task the log mentions. */
/** A model changed in place, as of one revision: a new object each time the model changed. */
export interface ModelAt<M> {
  readonly model: M;
  readonly revision: number;
}

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
  ticks: { t: number[]; lane: number[]; seq: number[]; iter: number[] };
  marks: Mark[];
  xMin: number;
  xMax: number;
  /** How far into the timeline's series the model has read: where the next `extendTimeline` starts. */
  read: { iterations: SeriesMark; verdicts: SeriesMark };
}

/** Rows of a series read so far, and the seq of the last one (to notice a series trimmed or replaced). */
export interface SeriesMark {
  rows: number;
  lastSeq: number;
}

type Row = readonly [number, ...unknown[]];

/** Whether `rows` still begins with the rows `mark` says were read. */
function continues(rows: readonly Row[], mark: SeriesMark): boolean {
  return mark.rows === 0 || (rows.length >= mark.rows && rows[mark.rows - 1]![0] === mark.lastSeq);
}

function markRead(rows: readonly Row[], mark: SeriesMark): void {
  mark.rows = rows.length;
  if (rows.length > 0) mark.lastSeq = rows[rows.length - 1]![0];
}

export function emptyTimelineModel(lanes: readonly string[]): TimelineModel {
  return {
    lanes: [...lanes],
    spans: [],
    ticks: { t: [], lane: [], seq: [], iter: [] },
    marks: [],
    xMin: 0,
    xMax: 1,
    read: { iterations: { rows: 0, lastSeq: 0 }, verdicts: { rows: 0, lastSeq: 0 } },
  };
}

/** `endMs` closes a span still open (now while running, else the last event's time). */
export function timelineModel(summary: Summary, lanes: readonly string[], endMs: number): TimelineModel {
  const model = emptyTimelineModel(lanes);
  extendTimeline(model, summary.timeline, endMs);
  return model;
}

/**
 * Appends the iterations and verdicts `timeline` gained since the model last read it, and redoes
 * the spans (a task's attempts are few, and their ends change in place). O(new rows + attempts).
 * Returns false, leaving the model as it was, when the series no longer begin with what was read
 * (trimmed at the summary's cap, or another timeline): build a new model then.
 */
export function extendTimeline(model: TimelineModel, timeline: Timeline, endMs: number): boolean {
  const { iterations, verdicts } = timeline;
  if (!continues(iterations, model.read.iterations) || !continues(verdicts, model.read.verdicts)) return false;
  const laneOf = new Map(model.lanes.map((id, i) => [id, i]));
  const ticks = model.ticks;
  for (let i = model.read.iterations.rows; i < iterations.length; i++) {
    const [seq, ms, task, iter] = iterations[i]!;
    const lane = laneOf.get(task);
    if (lane === undefined) continue;
    ticks.t.push(ms / 1000);
    ticks.lane.push(lane);
    ticks.seq.push(seq);
    ticks.iter.push(iter);
  }
  markRead(iterations, model.read.iterations);
  for (let i = model.read.verdicts.rows; i < verdicts.length; i++) {
    const [seq, ms, task, verdict, category] = verdicts[i]!;
    const lane = laneOf.get(task);
    if (lane !== undefined) model.marks.push({ lane, t: ms / 1000, seq, verdict, category });
  }
  markRead(verdicts, model.read.verdicts);

  const spans: Span[] = [];
  for (const [task, , start, end, outcome] of timeline.attempts) {
    const lane = laneOf.get(task);
    if (lane === undefined) continue;
    spans.push({ lane, start: start / 1000, end: Math.max(start, end ?? endMs) / 1000, outcome });
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
  model.spans = spans;
  model.xMin = xMin;
  model.xMax = xMax;
  return true;
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
  /** How far into the series the model has read, and the worker's window as of the last call. */
  read: { iterations: SeriesMark; other_calls: SeriesMark; windows: SeriesMark; window: number | null };
}

export function emptyPressureModel(lanes: readonly string[]): PressureModel {
  return {
    x: [],
    seqs: [],
    byTask: lanes.map(() => []),
    others: [],
    window: null,
    read: { iterations: { rows: 0, lastSeq: 0 }, other_calls: { rows: 0, lastSeq: 0 }, windows: { rows: 0, lastSeq: 0 }, window: null },
  };
}

/** Prompt tokens per model call: worker calls coloured by task, the other roles apart. */
export function pressureModel(summary: Summary, lanes: readonly string[]): PressureModel {
  const model = emptyPressureModel(lanes);
  extendPressure(model, summary.timeline, lanes);
  return model;
}

/**
 * Appends the model calls `timeline` gained since the model last read it (`lanes` as when the
 * model was made). New calls come after every call read before (the summary folds events in seq
 * order), so this merges only the new rows. Returns false, leaving the model as it was, when the
 * series no longer begin with what was read: build a new model then.
 */
export function extendPressure(model: PressureModel, timeline: Timeline, lanes: readonly string[]): boolean {
  const { iterations, other_calls, windows } = timeline;
  const { read } = model;
  if (!continues(iterations, read.iterations) || !continues(other_calls, read.other_calls) || !continues(windows, read.windows)) return false;
  if (model.window === null && windows.some((w, k) => k >= read.windows.rows && w[1] === 'worker')) {
    model.window = new Array<number | null>(model.x.length).fill(null);
  }
  const laneOf = new Map(lanes.map((id, i) => [id, i]));
  let i = read.iterations.rows;
  let j = read.other_calls.rows;
  let w = read.windows.rows;
  while (i < iterations.length || j < other_calls.length) {
    const it = iterations[i];
    const other = other_calls[j];
    const worker = it !== undefined && (other === undefined || it[0] < other[0]);
    const [seq, , , , tokens] = worker ? it : other!;
    // A worker call goes to its task's series (none when the task has no lane), any other apart.
    const lane = worker ? laneOf.get(it[2]) : undefined;
    if (worker) i++;
    else j++;
    model.x.push(model.x.length + 1);
    model.seqs.push(seq);
    for (let l = 0; l < model.byTask.length; l++) model.byTask[l]!.push(l === lane ? tokens : null);
    model.others.push(worker ? null : tokens);
    while (w < windows.length && windows[w]![0] <= seq) {
      if (windows[w]![1] === 'worker') read.window = windows[w]![2];
      w++;
    }
    model.window?.push(read.window);
  }
  markRead(iterations, read.iterations);
  markRead(other_calls, read.other_calls);
  read.windows.rows = w;
  if (w > 0) read.windows.lastSeq = windows[w - 1]![0];
  return true;
}
