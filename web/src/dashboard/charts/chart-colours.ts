/**
 * The charts' colours come from the page's custom properties (styles.css), read when a chart is
 * made: uPlot paints a canvas, which CSS cannot reach, and this way a chart follows the theme like
 * everything else. The charts are remade when the theme changes (see `useTheme`).
 */

/** How many lane colours styles.css defines (`--task-1` …): picked to stay apart for common colour blindness. */
const TASK_LANES = 8;

export interface ChartColours {
  /** Axis labels and values. */
  axis: string;
  /** The timeline's lane names. */
  text: string;
  grid: string;
  ticks: string;
  good: string;
  bad: string;
  /** Calls that belong to no task (evaluator, learnings). */
  other: string;
  tasks: string[];
}

export function readChartColours(): ChartColours {
  const css = getComputedStyle(document.documentElement);
  const read = (name: string) => css.getPropertyValue(name).trim();
  return {
    axis: read('--muted'),
    text: read('--text'),
    grid: read('--border-soft'),
    ticks: read('--border'),
    good: read('--good-fill'),
    bad: read('--bad-fill'),
    other: read('--neutral-fill'),
    tasks: Array.from({ length: TASK_LANES }, (_, i) => read(`--task-${i + 1}`)),
  };
}

export function taskColour(colours: ChartColours, lane: number): string {
  return colours.tasks[lane % colours.tasks.length]!;
}

/** A lane's colour for CSS (legend swatches): follows the theme without a re-render. */
export function taskColourVar(lane: number): string {
  return `var(--task-${(lane % TASK_LANES) + 1})`;
}
