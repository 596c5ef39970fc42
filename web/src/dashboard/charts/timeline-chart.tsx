/**
 * The timeline: one lane per task, each attempt a span (outlined red when it failed, dashed when
 * a stop cut it short), worker iterations as ticks and verdicts as marks. Drag across it to zoom
 * (double-click resets); click a mark or tick to show its event in the stream. Drawn by uPlot:
 * its time axis, drag-to-zoom and canvas, with the spans, ticks and marks painted in its draw hook.
 * Verdict marks are also buttons over the canvas while there are few enough in view, so they can
 * be reached by keyboard.
 */
import { memo, useMemo, useRef, useState } from 'react';
import uPlot from 'uplot';
import { useTheme } from '../../theme.ts';
import { hitTest, lowerBound, type ModelAt, type TimelineModel } from './chart-data.ts';
import { type ChartColours, readChartColours, taskColour } from './chart-colours.ts';
import { chooseTimeTicks, type TimeTicks } from './time-ticks.ts';
import { applyNow } from '../state/timing.ts';
import { useUplot } from './use-uplot.ts';

const LANE_PX = 30;
const AXIS_PX = 46;
/** Past this many verdict marks in view, they are painted instead of being buttons. */
const MAX_MARK_BUTTONS = 150;

interface MarkButton {
  seq: number;
  left: number;
  top: number;
  verdict: 'accept' | 'reject';
  label: string;
}

/** The span in view (ms), or null when the whole run is: a thinned timeline asks for its detail. */
export type TimelineSpan = { from: number; to: number } | null;

export const TimelineChart = memo(function TimelineChart({
  at,
  onJump,
  onSpan,
}: {
  /** The model as of one revision: it changes in place as rows are appended, and `at` is new each time it does. */
  at: ModelAt<TimelineModel>;
  onJump: (seq: number) => void;
  onSpan?: (span: TimelineSpan) => void;
}) {
  const { model } = at;
  const modelRef = useRef(model);
  modelRef.current = model;
  const jumpRef = useRef(onJump);
  jumpRef.current = onJump;
  const spanRef = useRef(onSpan);
  spanRef.current = onSpan;
  const [zoomed, setZoomed] = useState(false);
  const zoomedRef = useRef(false);
  const [buttons, setButtons] = useState<MarkButton[]>([]);
  const height = AXIS_PX + 12 + Math.max(1, model.lanes.length) * LANE_PX;
  const theme = useTheme();

  const make = (): Omit<uPlot.Options, 'width' | 'height'> => {
    let downX = 0;
    const colours = readChartColours();
    // The ticks chosen for the span in view; `values` labels the splits `splits` just chose.
    let ticks: TimeTicks = { splits: [], labels: [], step: 1 };
    return {
      scales: {
        x: { time: true },
        lane: { auto: false, range: () => [-0.5, Math.max(1, modelRef.current.lanes.length) - 0.5] },
      },
      axes: [
        {
          stroke: colours.axis,
          grid: { stroke: colours.grid, width: 1 },
          ticks: { stroke: colours.ticks, width: 1 },
          splits: (u, _axis, min, max) => {
            ticks = chooseTimeTicks(min, max, u.bbox.width / uPlot.pxRatio);
            return ticks.splits;
          },
          values: (_u, splits) => splits.map((t) => ticks.labels[ticks.splits.indexOf(t)] ?? ''),
        },
        {
          scale: 'lane',
          stroke: colours.text,
          size: 58,
          grid: { show: false },
          ticks: { show: false },
          splits: () => modelRef.current.lanes.map((_, i) => i),
          values: (_u, splits) => splits.map((v) => modelRef.current.lanes[modelRef.current.lanes.length - 1 - v] ?? ''),
        },
      ],
      series: [{}, { scale: 'lane', show: false }],
      legend: { show: false },
      cursor: { drag: { x: true, y: false, setScale: true }, points: { show: false }, y: false },
      hooks: {
        // Drawn from an effect (new data) or an event (zoom): placed after it, at once.
        draw: [
          (u) => {
            // The labels drawn on the canvas, readable for tests and tools.
            u.root.dataset.ticks = ticks.labels.join('|');
            const placed = paint(u, modelRef.current, colours);
            // Most redraws of a live run move no mark: then nothing is rendered again.
            queueMicrotask(() => applyNow(() => setButtons((shown) => (sameButtons(shown, placed) ? shown : placed))));
          },
        ],
        setScale: [
          (u, key) => {
            if (key !== 'x') return;
            const m = modelRef.current;
            const min = u.scales.x!.min ?? m.xMin;
            const max = u.scales.x!.max ?? m.xMax;
            zoomedRef.current = min > m.xMin + 1e-6 || max < m.xMax - 1e-6;
            setZoomed(zoomedRef.current);
            spanRef.current?.(zoomedRef.current ? { from: Math.floor(min * 1000), to: Math.ceil(max * 1000) } : null);
          },
        ],
        ready: [
          (u) => {
            u.over.addEventListener('mousedown', (e) => (downX = e.clientX));
            u.over.addEventListener('click', (e) => {
              if (Math.abs(e.clientX - downX) > 3) return; // the end of a drag-to-zoom
              const m = modelRef.current;
              const t = u.posToVal(e.offsetX, 'x');
              const lane = m.lanes.length - 1 - Math.round(u.posToVal(e.offsetY, 'lane'));
              const perPx = ((u.scales.x!.max ?? m.xMax) - (u.scales.x!.min ?? m.xMin)) / Math.max(1, u.over.clientWidth);
              const hit = hitTest(m, t, lane, perPx * 6);
              if (hit !== null) jumpRef.current(hit.seq);
            });
          },
        ],
      },
    };
  };

  const data = useMemo<uPlot.AlignedData>(
    () => [
      [at.model.xMin, at.model.xMax],
      [null, null],
    ],
    [at],
  );
  const { container, plot } = useUplot({ make, data, shape: `timeline|${theme}`, height, keepZoom: () => zoomedRef.current });

  return (
    <section className="panel chart-panel" aria-label="Timeline" data-testid="timeline" data-iterations={model.ticks.t.length} data-zoomed={String(zoomed)}>
      <div className="chart-head">
        <h2>Timeline</h2>
        <p className="muted small">Drag to zoom · click a mark to see its event</p>
        {zoomed && (
          <button
            type="button"
            className="button button-plain button-small"
            onClick={() => plot.current?.setScale('x', { min: model.xMin, max: model.xMax })}
            data-testid="timeline-reset"
          >
            Show all
          </button>
        )}
      </div>
      {model.spans.length === 0 ? (
        <p className="muted" data-testid="timeline-empty">
          No task has started yet.
        </p>
      ) : null}
      <div className="chart-box" style={model.spans.length === 0 ? { display: 'none' } : undefined}>
        <div ref={container} className="chart" />
        <div className="tl-marks">
          {buttons.map((b) => (
            <button
              key={b.seq}
              type="button"
              className={`tl-mark tl-mark-${b.verdict}`}
              style={{ left: b.left, top: b.top }}
              title={b.label}
              aria-label={b.label}
              onClick={() => onJump(b.seq)}
              data-testid="timeline-mark"
              data-seq={b.seq}
              data-verdict={b.verdict}
            >
              {b.verdict === 'accept' ? '✓' : '✗'}
            </button>
          ))}
        </div>
      </div>
      <ul className="chart-legend" aria-label="Legend">
        <li>
          <span className="legend-span" /> attempt
        </li>
        <li>
          <span className="legend-tick" /> iteration
        </li>
        <li>
          <span className="tl-mark-key tl-mark-accept">✓</span> accepted
        </li>
        <li>
          <span className="tl-mark-key tl-mark-reject">✗</span> rejected
        </li>
      </ul>
    </section>
  );
});

function sameButtons(a: readonly MarkButton[], b: readonly MarkButton[]): boolean {
  return a.length === b.length && a.every((x, i) => x.seq === b[i]!.seq && x.left === b[i]!.left && x.top === b[i]!.top && x.label === b[i]!.label);
}

/** Paints spans, ticks and (when there are many) marks; returns the mark buttons to place. */
function paint(u: uPlot, m: TimelineModel, colours: ChartColours): MarkButton[] {
  const { ctx } = u;
  const n = Math.max(1, m.lanes.length);
  const dpr = u.bbox.height / Math.max(1, u.over.clientHeight);
  const laneY = (lane: number) => u.valToPos(n - 1 - lane, 'lane', true);
  const half = ((u.bbox.height / n) * 0.3) | 0;
  const xMin = u.scales.x!.min ?? m.xMin;
  const xMax = u.scales.x!.max ?? m.xMax;
  ctx.save();
  ctx.beginPath();
  ctx.rect(u.bbox.left, u.bbox.top, u.bbox.width, u.bbox.height);
  ctx.clip();

  for (const s of m.spans) {
    if (s.end < xMin || s.start > xMax) continue;
    const x0 = u.valToPos(s.start, 'x', true);
    const x1 = Math.max(x0 + 2 * dpr, u.valToPos(s.end, 'x', true));
    const y = laneY(s.lane);
    ctx.fillStyle = taskColour(colours, s.lane);
    ctx.globalAlpha = 0.2;
    ctx.fillRect(x0, y - half, x1 - x0, half * 2);
    ctx.globalAlpha = 1;
    ctx.lineWidth = (s.outcome === 'failed' ? 2 : 1) * dpr;
    ctx.strokeStyle = s.outcome === 'failed' ? colours.bad : taskColour(colours, s.lane);
    ctx.setLineDash(s.outcome === 'stopped' ? [4 * dpr, 3 * dpr] : []);
    ctx.strokeRect(x0, y - half, x1 - x0, half * 2);
  }
  ctx.setLineDash([]);

  // One path per lane, stroked once: a live run redraws every frame, and a stroke per tick is
  // most of what a redraw costs.
  const { t, lane } = m.ticks;
  const tickPaths = m.lanes.map(() => new Path2D());
  for (let i = lowerBound(t, xMin); i < t.length && t[i]! <= xMax; i++) {
    const x = Math.round(u.valToPos(t[i]!, 'x', true)) + 0.5;
    const y = laneY(lane[i]!);
    const path = tickPaths[lane[i]!]!;
    path.moveTo(x, y - half + 2 * dpr);
    path.lineTo(x, y + half - 2 * dpr);
  }
  ctx.lineWidth = Math.max(1, dpr);
  for (const [l, path] of tickPaths.entries()) {
    ctx.strokeStyle = taskColour(colours, l);
    ctx.stroke(path);
  }

  const inView = m.marks.filter((mk) => mk.t >= xMin && mk.t <= xMax);
  const buttons: MarkButton[] = [];
  if (inView.length <= MAX_MARK_BUTTONS) {
    const left0 = u.over.offsetLeft;
    const top0 = u.over.offsetTop;
    for (const mk of inView) {
      buttons.push({
        seq: mk.seq,
        left: left0 + u.valToPos(mk.t, 'x'),
        top: top0 + u.valToPos(n - 1 - mk.lane, 'lane') - (u.over.clientHeight / n) * 0.3,
        verdict: mk.verdict,
        label: `${m.lanes[mk.lane]} ${mk.verdict === 'accept' ? 'accepted' : `rejected${mk.category ? ` (${mk.category.replace(/_/g, ' ')})` : ''}`}: event #${mk.seq}`,
      });
    }
  } else {
    for (const mk of inView) {
      const x = u.valToPos(mk.t, 'x', true);
      const y = laneY(mk.lane) - half;
      ctx.fillStyle = mk.verdict === 'accept' ? colours.good : colours.bad;
      ctx.beginPath();
      ctx.arc(x, y, 4 * dpr, 0, Math.PI * 2);
      ctx.fill();
    }
  }
  ctx.restore();
  return buttons;
}
