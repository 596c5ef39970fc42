/**
 * Where line comments sit in a parsed diff, decided without React. A comment names a side and a
 * line on it (`new`: the line as the branch has it, `old`: as the base had it); react-diff-view
 * places a widget row under a change by the change's key, so each comment is matched to the key
 * of the change showing its line.
 */
import type { ReviewComment } from '../../../shared/review.ts';

/** The fields of a parsed change (react-diff-view's `ChangeData`) this module reads. */
export type ChangeLike =
  | { type: 'insert'; lineNumber: number }
  | { type: 'delete'; lineNumber: number }
  | { type: 'normal'; oldLineNumber: number; newLineNumber: number };

export type CommentSide = ReviewComment['side'];

/** The same key react-diff-view gives a change (`getChangeKey`), so widgets land under it. */
export function changeKey(change: ChangeLike): string {
  return change.type === 'normal' ? `N${change.oldLineNumber}` : `${change.type === 'insert' ? 'I' : 'D'}${change.lineNumber}`;
}

/**
 * The side and line a comment on this change is written on: a removed line on the old side,
 * anything the branch still has (an added or unchanged line) on the new side.
 */
export function commentTarget(change: ChangeLike): { side: CommentSide; line: number } {
  switch (change.type) {
    case 'insert':
      return { side: 'new', line: change.lineNumber };
    case 'delete':
      return { side: 'old', line: change.lineNumber };
    case 'normal':
      return { side: 'new', line: change.newLineNumber };
  }
}

export const lineKey = (side: CommentSide, line: number): string => `${side}:${line}`;

/**
 * `side:line` → change key for every line of a file's hunks. An unchanged line answers to both
 * its numbers, so a comment written on its old side (by another client) still finds it.
 */
export function changeKeysByLine(hunks: readonly { changes: readonly ChangeLike[] }[]): Map<string, string> {
  const keys = new Map<string, string>();
  for (const hunk of hunks) {
    for (const change of hunk.changes) {
      const target = commentTarget(change);
      keys.set(lineKey(target.side, target.line), changeKey(change));
      if (change.type === 'normal' && !keys.has(lineKey('old', change.oldLineNumber))) keys.set(lineKey('old', change.oldLineNumber), changeKey(change));
    }
  }
  return keys;
}

/** The comments of one file grouped by the change key they sit under; those on lines the diff does not show are left out. */
export function commentsByChange(comments: readonly ReviewComment[], file: string, keys: ReadonlyMap<string, string>): Map<string, ReviewComment[]> {
  const out = new Map<string, ReviewComment[]>();
  for (const c of comments) {
    if (c.file !== file) continue;
    const key = keys.get(lineKey(c.side, c.line));
    if (key === undefined) continue;
    const list = out.get(key);
    if (list) list.push(c);
    else out.set(key, [c]);
  }
  return out;
}

/** The comments shown on a diff: a task's own on its diff, the session diff's own (task_id null) on it. */
export function commentsOfDiff(comments: readonly ReviewComment[], taskId: string | null): ReviewComment[] {
  return comments.filter((c) => c.task_id === taskId);
}

/** The element id of a comment shown inline, so the list can scroll to it. */
export const commentAnchor = (id: string): string => `comment-${id}`;

/** `src/a.js:12` for a new-side line, `src/a.js:12 (old)` for a removed one. */
export function commentPlace(c: Pick<ReviewComment, 'file' | 'line' | 'side'>): string {
  return `${c.file}:${c.line}${c.side === 'old' ? ' (old)' : ''}`;
}
