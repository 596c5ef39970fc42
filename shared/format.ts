/**
 * One way to show money, counts, tokens, durations and dates, for the web and the terminal alike.
 * Pure (no DOM, no node), so it is tested without a browser.
 */

// One formatter for every figure: `toLocaleString` builds a new one per call, which shows up
// when a live run re-renders dozens of figures every frame. Made at first use: making one loads
// the locale data, which a server's start need not wait for.
let intFormat: Intl.NumberFormat | undefined;

/** "1,234". */
export function formatInt(n: number): string {
  intFormat ??= new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
  return intFormat.format(n);
}

/** "1,234", "45.6k", "2.35M": counts that fit a narrow stat cell. */
export function formatCount(n: number): string {
  if (n < 10_000) return formatInt(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 100_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(2)}M`;
}

/** "1,234 tokens", "1 token". */
export function formatTokens(n: number): string {
  return `${formatInt(n)} ${n === 1 ? 'token' : 'tokens'}`;
}

/** "$10.00", "$0.0042" (small amounts keep two significant digits, so a cheap run is not "$0.00"). */
export function formatUsd(usd: number): string {
  if (usd === 0) return '$0';
  if (Math.abs(usd) >= 0.995) return `$${usd.toFixed(2)}`;
  if (Math.abs(usd) >= 0.01) return `$${usd.toFixed(3).replace(/0$/, '')}`;
  return `$${usd.toPrecision(2)}`;
}

/** "850 ms", "12 s", "3 min 20 s", "1 h 05 min"; a negative or unknown span is "—". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${String(seconds % 60).padStart(2, '0')} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

/** "4.2 s" (one decimal under a minute, for a figure such as time per iteration), else as `formatDuration`. */
export function formatSeconds(seconds: number): string {
  return seconds < 60 ? `${seconds.toFixed(1)} s` : formatDuration(seconds * 1000);
}

/** "just now", "5m ago", "3h ago", "2d ago"; an unparseable date is shown as given. */
export function formatAge(iso: string, now: number): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return iso;
  const seconds = Math.max(0, Math.round((now - then) / 1000));
  if (seconds < 45) return 'just now';
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes}m ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours}h ago`;
  return `${Math.round(hours / 24)}d ago`;
}

/**
 * What `toLocaleTimeString(undefined, { hour12: false })` shows, from one formatter made once:
 * that call builds a new formatter each time (about 0.3 ms), and every event card shows a time.
 */
let timeFormat: Intl.DateTimeFormat | null = null;

/** Wall-clock time of an event, to the second, in the viewer's time zone. */
export function formatTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  timeFormat ??= new Intl.DateTimeFormat(undefined, { hour: 'numeric', minute: 'numeric', second: 'numeric', hour12: false });
  return timeFormat.format(date);
}

/** The last path segment, for showing a repository by its folder name. */
export function baseName(path: string): string {
  const trimmed = path.replace(/[\\/]+$/, '');
  const cut = Math.max(trimmed.lastIndexOf('/'), trimmed.lastIndexOf('\\'));
  return cut === -1 ? trimmed : trimmed.slice(cut + 1);
}

/** The session's title, else the first line of its brief, else "untitled". */
export function sessionLabel(session: { title: string; brief: string }): string {
  const title = session.title.trim();
  if (title !== '') return title;
  const brief = session.brief.trim().split('\n')[0]?.trim() ?? '';
  if (brief === '') return 'untitled';
  return brief.length > 90 ? `${brief.slice(0, 89)}…` : brief;
}
