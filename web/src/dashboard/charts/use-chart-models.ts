/**
 * The two charts' models, following the summary as the dashboard folds events into it: each new
 * version appends the timeline rows the summary gained (chart-data.ts `extend…`), so a live update
 * costs what it added, not the whole timeline again. The models are built afresh only when the
 * summary is replaced (fetched again), the lanes change or a series was trimmed at its cap.
 * The models are changed in place; each revision returns new `ModelAt` objects, which is what
 * says they changed.
 */
import { useMemo, useRef } from 'react';
import type { Summary } from '../../../../shared/summary.ts';
import type { SummaryAt } from '../state/select.ts';
import { extendPressure, extendTimeline, pressureModel, timelineModel, type ModelAt, type PressureModel, type TimelineModel } from './chart-data.ts';

export interface ChartModels {
  timeline: ModelAt<TimelineModel>;
  pressure: ModelAt<PressureModel>;
  revision: number;
}

interface Followed {
  summary: Summary;
  lanes: readonly string[];
  timeline: TimelineModel;
  pressure: PressureModel;
  revision: number;
}

/** `at` is new whenever the summary (folded in place) changed; `endMs` closes spans still open. */
export function useChartModels(at: SummaryAt | null, lanes: readonly string[], endMs: number): ChartModels | null {
  const followed = useRef<Followed | null>(null);
  return useMemo(() => {
    if (at === null) {
      followed.current = null;
      return null;
    }
    const { summary } = at;
    let f = followed.current;
    if (f === null || f.summary !== summary || f.lanes !== lanes) {
      f = { summary, lanes, timeline: timelineModel(summary, lanes, endMs), pressure: pressureModel(summary, lanes), revision: (f?.revision ?? 0) + 1 };
      followed.current = f;
    } else {
      if (!extendTimeline(f.timeline, summary.timeline, endMs)) f.timeline = timelineModel(summary, lanes, endMs);
      if (!extendPressure(f.pressure, summary.timeline, lanes)) f.pressure = pressureModel(summary, lanes);
      f.revision++;
    }
    const revision = f.revision;
    return { timeline: { model: f.timeline, revision }, pressure: { model: f.pressure, revision }, revision };
  }, [at, lanes, endMs]);
}
