/**
 * Context pressure: the prompt tokens of every model call, in order, coloured by task. A worker's
 * context grows with each iteration of a task and starts afresh with the next; evaluator and
 * learnings calls are grey dots. When the calls report the worker's context window, it is a
 * dashed red step line: how close the conversation came to it. Drag to zoom, double-click to
 * reset; click a call to see it.
 */
import { memo, useMemo, useRef, useState } from 'react';
import uPlot from 'uplot';
import type { ModelAt, PressureModel } from './chart-data.ts';
import { readChartColours, taskColour, taskColourVar } from './chart-colours.ts';
import { useTheme } from '../../theme.ts';
import { useUplot } from './use-uplot.ts';
import { formatCount, formatInt } from '../../../../shared/format.ts';

const HEIGHT = 220;
const CALL_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000];

export const PressureChart = memo(function PressureChart(props: {
  /** The model as of one revision: it changes in place as calls are appended, and `at` is new each time it does. */
  at: ModelAt<PressureModel>;
  lanes: readonly string[];
  onJump: (seq: number) => void;
  /** A long run's calls come thinned to the peak of each stretch (shared/timeline-view.ts). */
  sampled?: boolean;
}) {
  const { at, lanes, sampled = false } = props;
  const { model } = at;
  const modelRef = useRef(model);
  modelRef.current = model;
  const jumpRef = useRef(props.onJump);
  jumpRef.current = props.onJump;
  const zoomedRef = useRef(false);
  const [hover, setHover] = useState<string | null>(null);
  const hasWindow = model.window !== null;
  const theme = useTheme();

  const make = (): Omit<uPlot.Options, 'width' | 'height'> => {
    let downX = 0;
    const colours = readChartColours();
    const axis = { stroke: colours.axis, grid: { stroke: colours.grid, width: 1 }, ticks: { stroke: colours.ticks, width: 1 } };
    return {
      scales: { x: { time: false } },
      axes: [
        // Calls are counted: whole-number ticks only.
        {
          ...axis,
          label: 'model call',
          labelSize: 18,
          labelFont: '12px system-ui',
          incrs: CALL_STEPS,
        },
        {
          ...axis,
          size: 54,
          values: (_u, splits) => splits.map((v) => formatCount(v)),
        },
      ],
      series: [
        {},
        ...lanes.map((id, lane) => ({
          label: id,
          stroke: taskColour(colours, lane),
          width: 1.5,
          spanGaps: true,
          points: { size: 4, fill: taskColour(colours, lane) },
        })),
        {
          label: 'evaluator & learnings',
          stroke: colours.other,
          width: 0,
          paths: () => null,
          points: { show: true, size: 5, fill: colours.other, stroke: colours.other },
        },
        ...(hasWindow
          ? [
              {
                label: "worker's context window",
                stroke: colours.bad,
                width: 1.5,
                dash: [6, 4],
                spanGaps: true,
                paths: uPlot.paths.stepped!({ align: 1 }),
                points: { show: false },
              },
            ]
          : []),
      ],
      legend: { show: false },
      cursor: { drag: { x: true, y: false, setScale: true }, points: { show: false } },
      hooks: {
        setScale: [
          (u, key) => {
            if (key !== 'x') return;
            const n = modelRef.current.x.length;
            zoomedRef.current = (u.scales.x!.min ?? 1) > 1 || (u.scales.x!.max ?? n) < n;
          },
        ],
        setCursor: [
          (u) => {
            const idx = u.cursor.idx;
            if (idx === null || idx === undefined) return setHover(null);
            const m = modelRef.current;
            const lane = m.byTask.findIndex((s) => s[idx] !== null);
            const tokens = lane === -1 ? m.others[idx] : m.byTask[lane]![idx];
            const window = m.window?.[idx];
            const ofWindow = window === null || window === undefined ? '' : ` of a ${formatInt(window)}-token window`;
            setHover(
              `call ${idx + 1} · ${lane === -1 ? 'evaluator or learnings' : lanes[lane]} · ${tokens === null || tokens === undefined ? '—' : formatInt(tokens)} prompt tokens${ofWindow} · event #${m.seqs[idx]}`,
            );
          },
        ],
        ready: [
          (u) => {
            u.over.addEventListener('mousedown', (e) => (downX = e.clientX));
            u.over.addEventListener('click', (e) => {
              const idx = u.cursor.idx;
              if (Math.abs(e.clientX - downX) > 3 || idx === null || idx === undefined) return;
              const seq = modelRef.current.seqs[idx];
              if (seq !== undefined) jumpRef.current(seq);
            });
          },
        ],
      },
    };
  };

  const data = useMemo<uPlot.AlignedData>(() => {
    const m = at.model;
    return [m.x, ...m.byTask, m.others, ...(m.window === null ? [] : [m.window])];
  }, [at]);
  const { container } = useUplot({
    make,
    data,
    shape: `${lanes.join(',')}|${hasWindow ? 'window' : ''}|${theme}`,
    height: HEIGHT,
    keepZoom: () => zoomedRef.current,
  });

  return (
    <section
      className="panel chart-panel"
      aria-label="Context pressure"
      data-testid="pressure-chart"
      data-calls={model.x.length}
      data-window={hasWindow}
      data-sampled={String(sampled)}
    >
      <div className="chart-head">
        <h2>Context pressure</h2>
        <p className="muted small" aria-live="off">
          {hover ?? (sampled ? 'Prompt tokens: the peak call of each stretch of this long run · drag to zoom' : 'Prompt tokens per model call · drag to zoom')}
        </p>
      </div>
      {model.x.length === 0 ? <p className="muted">No model calls yet.</p> : null}
      <div className="chart-box" style={model.x.length === 0 ? { display: 'none' } : undefined}>
        <div ref={container} className="chart" />
      </div>
      <ul className="chart-legend" aria-label="Legend">
        {lanes.map((id, lane) => (
          <li key={id}>
            <span className="legend-swatch" style={{ background: taskColourVar(lane) }} /> {id}
          </li>
        ))}
        <li>
          <span className="legend-swatch legend-other" /> evaluator &amp; learnings
        </li>
        {hasWindow && (
          <li data-testid="pressure-window-legend">
            <span className="legend-swatch legend-window" /> worker&rsquo;s context window
          </li>
        )}
      </ul>
    </section>
  );
});
