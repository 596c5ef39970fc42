import { describe, expect, it } from 'vitest';
import type { Timeline } from './summary.ts';
import { fullSpan, viewTimeline } from './timeline-view.ts';

/** One task, T-001, from 0 to 100 s: a worker call every 10 ms (tokens rise and fall), a reject every 100 ms, one accept at the end. */
function longRun(): Timeline {
  const t: Timeline = { attempts: [['T-001', 1, 0, 100_000, 'done']], iterations: [], other_calls: [], verdicts: [], windows: [[2, 'worker', 128_000]] };
  let seq = 2;
  for (let ms = 0; ms < 100_000; ms += 10) {
    t.iterations.push([seq++, ms, 'T-001', t.iterations.length + 1, 1000 + ((ms / 10) % 97)]);
    if (ms % 100 === 50) t.verdicts.push([seq++, ms, 'T-001', 'reject', 'weak_test']);
    if (ms % 500 === 0) t.other_calls.push([seq++, ms, 'T-001', 'evaluator', 2000]);
  }
  t.verdicts.push([seq++, 100_000, 'T-001', 'accept', null]);
  return t;
}

describe('viewTimeline', () => {
  it('leaves a short timeline whole', () => {
    const t: Timeline = {
      attempts: [['T-001', 1, 0, 50, 'done']],
      iterations: [[2, 10, 'T-001', 1, 500]],
      other_calls: [],
      verdicts: [[3, 40, 'T-001', 'accept', null]],
      windows: [],
    };
    expect(viewTimeline(t)).toEqual({ timeline: t, span: { from: 0, to: 50 }, full: { from: 0, to: 50 }, thinned: false });
    const empty: Timeline = { attempts: [], iterations: [], other_calls: [], verdicts: [], windows: [] };
    expect(viewTimeline(empty)).toMatchObject({ span: null, thinned: false });
  });

  it('thins a long run to the buckets, keeping attempts, windows, every accept and the peak of each bucket', () => {
    const t = longRun();
    const view = viewTimeline(t, {}, 100);
    expect(view.thinned).toBe(true);
    expect(view.timeline.iterations.length).toBeLessThanOrEqual(100);
    expect(view.timeline.iterations.length).toBeGreaterThan(90);
    expect(view.timeline.other_calls.length).toBeLessThanOrEqual(100);
    expect(view.timeline.attempts).toEqual(t.attempts);
    expect(view.timeline.windows).toEqual(t.windows);
    expect(view.timeline.verdicts.filter((v) => v[3] === 'accept')).toHaveLength(1);
    expect(view.timeline.verdicts.filter((v) => v[3] === 'reject').length).toBeLessThanOrEqual(100);
    // Each kept worker call is the highest of its bucket: here every bucket holds a full 97-step cycle.
    expect(view.timeline.iterations.every((i) => i[4] === 1096)).toBe(true);
    // In seq order, as the charts read them.
    const seqs = view.timeline.verdicts.map((v) => v[0]);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  });

  it('a narrower span brings the detail back', () => {
    const t = longRun();
    const zoomed = viewTimeline(t, { from: 20_000, to: 20_900 }, 100);
    expect(zoomed.span).toEqual({ from: 20_000, to: 20_900 });
    expect(zoomed.full).toEqual(fullSpan(t));
    expect(zoomed.thinned).toBe(false);
    expect(zoomed.timeline.iterations.map((i) => i[1])).toEqual(Array.from({ length: 91 }, (_, k) => 20_000 + k * 10));
    expect(zoomed.timeline.verdicts).toHaveLength(9);
    // A span past the end is clamped; one that is empty after clamping has no series.
    expect(viewTimeline(t, { from: 99_000, to: 500_000 }).span).toEqual({ from: 99_000, to: 100_000 });
    expect(viewTimeline(t, { from: 200_000 }).timeline.iterations).toEqual([]);
  });

  it('keeps each task its own points in a bucket two tasks share', () => {
    const t: Timeline = { attempts: [], iterations: [], other_calls: [], verdicts: [], windows: [] };
    for (let k = 0; k < 40; k++) t.iterations.push([k + 1, k, k % 2 === 0 ? 'T-001' : 'T-002', k, k]);
    const view = viewTimeline(t, {}, 2);
    expect(view.timeline.iterations.map((i) => [i[2], i[4]])).toEqual([
      ['T-001', 18],
      ['T-002', 19],
      ['T-001', 38],
      ['T-002', 39],
    ]);
  });
});
