import { lazy, Suspense, type ComponentProps } from 'react';
import type { PressureChart as PressureChartView } from './pressure-chart.tsx';
import type { TimelineChart as TimelineChartView } from './timeline-chart.tsx';

// uPlot and the two charts drawn with it are only needed on a session's dashboard: their own
// chunk, loaded when a chart is first shown, so the list and the other pages start lighter.
const LazyTimeline = lazy(async () => ({ default: (await import('./timeline-chart.tsx')).TimelineChart }));
const LazyPressure = lazy(async () => ({ default: (await import('./pressure-chart.tsx')).PressureChart }));

function ChartLoading({ label }: { label: string }) {
  return (
    <section className="panel chart-panel" aria-label={label} aria-busy="true" data-testid="chart-loading">
      <p className="muted">Loading the chart…</p>
    </section>
  );
}

export function TimelineChart(props: ComponentProps<typeof TimelineChartView>) {
  return (
    <Suspense fallback={<ChartLoading label="Timeline" />}>
      <LazyTimeline {...props} />
    </Suspense>
  );
}

export function PressureChart(props: ComponentProps<typeof PressureChartView>) {
  return (
    <Suspense fallback={<ChartLoading label="Context pressure" />}>
      <LazyPressure {...props} />
    </Suspense>
  );
}
