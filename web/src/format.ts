/** Display formatting shared by the pages. Pure, so it is tested without a browser. */

export function formatCost(usd: number): string {
  if (usd === 0) return '$0';
  if (usd < 0.01) return '<$0.01';
  return `$${usd.toFixed(2)}`;
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

/** Wall-clock time of an event, to the second, in the viewer's time zone. */
export function formatTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleTimeString(undefined, { hour12: false });
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
