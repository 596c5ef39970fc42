/**
 * The summary's timeline as a chart needs it: the series of a span (the whole run by default)
 * thinned to about `buckets` time buckets, so what crosses the wire stays small at any log size.
 * What a reader must not lose is kept whole: every task attempt (the task boundaries and stops),
 * every context-window change and every accept. Model calls keep the peak prompt tokens per
 * bucket (per task for the worker, per role for the others), which is what the pressure chart
 * shows; rejects keep one mark per bucket and task. Zooming in asks for a narrower span, which
 * is thinned in turn, so detail comes back as the span shrinks. Pure.
 */
import type { Timeline } from './summary.ts';

/** Buckets across the span shown: a few per pixel column of a chart on a wide screen. */
export const VIEW_BUCKETS = 600;

export interface TimelineSpan {
  from: number;
  to: number;
}

export interface TimelineView {
  timeline: Timeline;
  /** The span the series cover (ms). Null when the timeline is empty. */
  span: TimelineSpan | null;
  /** The whole run's span, for a chart to offer "zoom out". */
  full: TimelineSpan | null;
  /** Whether any entry was thinned out. */
  thinned: boolean;
}

/** First and last moment the timeline knows of. */
export function fullSpan(t: Timeline): TimelineSpan | null {
  let from = Number.POSITIVE_INFINITY;
  let to = Number.NEGATIVE_INFINITY;
  const see = (ms: number | null) => {
    if (ms === null) return;
    if (ms < from) from = ms;
    if (ms > to) to = ms;
  };
  for (const a of t.attempts) {
    see(a[2]);
    see(a[3]);
  }
  for (const i of t.iterations) see(i[1]);
  for (const c of t.other_calls) see(c[1]);
  for (const v of t.verdicts) see(v[1]);
  return from <= to ? { from, to } : null;
}

interface Thinned<T> {
  kept: T[];
  /** Entries in the span before thinning. */
  inSpan: number;
}

/**
 * Keeps, per bucket and key, the entry with the largest `weight` (the first on a tie), in the
 * original order. Entries outside the span are dropped. One pass, numeric slots: it runs over a
 * long run's whole series on the request path.
 */
function thin<T>(list: readonly T[], span: TimelineSpan, buckets: number, at: (e: T) => number, key: (e: T) => string, weight: (e: T) => number): Thinned<T> {
  const width = Math.max(span.to - span.from, 1) / buckets;
  const keys = new Map<string, number>();
  const best = new Map<number, number>(); // slot → index into list
  let inSpan = 0;
  for (let i = 0; i < list.length; i++) {
    const e = list[i]!;
    const t = at(e);
    if (t < span.from || t > span.to) continue;
    inSpan++;
    const k = key(e);
    let keyId = keys.get(k);
    if (keyId === undefined) {
      keyId = keys.size;
      keys.set(k, keyId);
    }
    const slot = Math.min(Math.floor((t - span.from) / width), buckets - 1) * 1_000_003 + keyId;
    const held = best.get(slot);
    if (held === undefined || weight(e) > weight(list[held]!)) best.set(slot, i);
  }
  if (inSpan <= buckets) return { kept: list.filter((e) => at(e) >= span.from && at(e) <= span.to), inSpan };
  return { kept: [...best.values()].sort((a, b) => a - b).map((i) => list[i]!), inSpan };
}

export function viewTimeline(t: Timeline, requested: { from?: number | undefined; to?: number | undefined } = {}, buckets = VIEW_BUCKETS): TimelineView {
  const full = fullSpan(t);
  if (!full) return { timeline: t, span: null, full: null, thinned: false };
  const span = { from: Math.max(requested.from ?? full.from, full.from), to: Math.min(requested.to ?? full.to, full.to) };
  if (span.from > span.to) {
    return { timeline: { attempts: [], iterations: [], other_calls: [], verdicts: [], windows: t.windows }, span, full, thinned: false };
  }
  const attempts = t.attempts.filter((a) => a[2] <= span.to && (a[3] ?? Number.POSITIVE_INFINITY) >= span.from);
  const iterations = thin(
    t.iterations,
    span,
    buckets,
    (i) => i[1],
    (i) => i[2],
    (i) => i[4],
  );
  const otherCalls = thin(
    t.other_calls,
    span,
    buckets,
    (c) => c[1],
    (c) => c[3],
    (c) => c[4],
  );
  // Accepts are kept whole; rejects keep one mark per bucket and task (the first: weight 0).
  const verdicts = thin(
    t.verdicts,
    span,
    buckets,
    (v) => v[1],
    (v) => (v[3] === 'accept' ? `accept ${v[0]}` : v[2]),
    () => 0,
  );
  const thinned = iterations.kept.length < iterations.inSpan || otherCalls.kept.length < otherCalls.inSpan || verdicts.kept.length < verdicts.inSpan;
  return {
    timeline: { attempts, iterations: iterations.kept, other_calls: otherCalls.kept, verdicts: verdicts.kept, windows: t.windows },
    span,
    full,
    thinned,
  };
}
