/** Number formats for the dashboard's figures. Pure. */

// One formatter for every figure: `toLocaleString` builds a new one per call, which shows up
// when a live run re-renders dozens of figures every frame.
const INT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** "1,234". */
export function formatInt(n: number): string {
  return INT.format(n);
}

/** "$10.00", "$0.0042" (small amounts keep two significant digits, so a cheap run is not "$0.00"). */
export function formatUsd(usd: number): string {
  if (usd === 0) return '$0';
  if (Math.abs(usd) >= 0.995) return `$${usd.toFixed(2)}`;
  if (Math.abs(usd) >= 0.01) return `$${usd.toFixed(3).replace(/0$/, '')}`;
  return `$${usd.toPrecision(2)}`;
}

/** "1,234", "45.6k", "2.35M": counts that fit a narrow stat cell. */
export function formatCount(n: number): string {
  if (n < 10_000) return formatInt(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 100_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(2)}M`;
}

/** "42s", "3m 05s", "2h 07m". */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const s = total % 60;
  const m = Math.floor(total / 60) % 60;
  const h = Math.floor(total / 3600);
  if (h > 0) return `${h}h ${String(m).padStart(2, '0')}m`;
  if (m > 0) return `${m}m ${String(s).padStart(2, '0')}s`;
  return `${s}s`;
}

/** "4.2 s" per iteration; one decimal under a minute. */
export function formatSeconds(seconds: number): string {
  return seconds < 60 ? `${seconds.toFixed(1)} s` : formatDuration(seconds * 1000);
}
