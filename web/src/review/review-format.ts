/** Display formatting for the review pages. Pure. */

/** "850 ms", "12 s", "3 min 20 s", "1 h 05 min". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${String(seconds % 60).padStart(2, '0')} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

export const shortSha = (sha: string): string => sha.slice(0, 8);

/** "rejection_category" → "rejection category". */
export const words = (snake: string): string => snake.replaceAll('_', ' ');
