/** Display formatting for the review pages. Pure. */

export const shortSha = (sha: string): string => sha.slice(0, 8);

/** "rejection_category" → "rejection category". */
export const words = (snake: string): string => snake.replaceAll('_', ' ');
