/**
 * Ticks for a chart's time axis, chosen for the span shown: seconds for a short run, minutes,
 * hours, days for a long one — never finer than a second — spaced so their labels never touch,
 * and with a date only where the span crosses midnight. uPlot's own time ticks go down to
 * milliseconds and print a date on the first label of any span ("11/26/26 5:20"). Pure; times
 * are in seconds, labels in the viewer's time zone.
 */

/** Steps between ticks, in seconds: 1 s up to a week. */
const STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400, 172_800, 604_800];
const DAY = 86_400;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

export interface TimeTicks {
  /** Tick positions (seconds since the epoch), ascending. */
  splits: number[];
  labels: string[];
  /** Seconds between ticks. */
  step: number;
}

/** Pixels a label needs: "17:20:05" and "17:20" fit 70; with a date ("Nov 26 17:20"), 110. */
const GAP_PX = 70;
const DATED_GAP_PX = 110;

const pad = (n: number) => String(n).padStart(2, '0');
/** The viewer's offset from UTC at `t`, in seconds (east is positive). */
const offsetAt = (t: number) => -new Date(t * 1000).getTimezoneOffset() * 60;
const dayOf = (d: Date) => `${d.getFullYear()}-${d.getMonth()}-${d.getDate()}`;

/** Ticks for `min`..`max` (seconds) drawn across `widthPx`. */
export function chooseTimeTicks(min: number, max: number, widthPx: number): TimeTicks {
  const span = Math.max(1, max - min);
  const crossesDays = dayOf(new Date(min * 1000)) !== dayOf(new Date(max * 1000));
  const room = Math.max(1, Math.floor(widthPx / (crossesDays ? DATED_GAP_PX : GAP_PX)));
  const step = STEPS.find((s) => span / s <= room) ?? Math.ceil(span / room / DAY) * DAY;

  // Aligned to the viewer's clock: minutes on :00, :05 …, days at local midnight.
  const off = offsetAt(min);
  const splits: number[] = [];
  for (let t = Math.ceil((min + off) / step) * step - off; t <= max + 1e-6; t += step) splits.push(t);

  const labels: string[] = [];
  let lastDay = '';
  for (const t of splits) {
    const d = new Date(t * 1000);
    const day = dayOf(d);
    const date = `${MONTHS[d.getMonth()]} ${d.getDate()}`;
    const time = step < 60 ? `${d.getHours()}:${pad(d.getMinutes())}:${pad(d.getSeconds())}` : `${d.getHours()}:${pad(d.getMinutes())}`;
    if (step >= DAY) labels.push(date);
    else labels.push(crossesDays && day !== lastDay ? `${date} ${time}` : time);
    lastDay = day;
  }
  return { splits, labels, step };
}
