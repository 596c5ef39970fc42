/**
 * Line comments on the task and session diffs (issue 15): the checks around the store's list.
 * A comment may be written, changed or removed while the session is reviewable (its run over or
 * paused); a sent comment is fixed (the store refuses), and a session keeps at most
 * `SESSION_COMMENTS_MAX` (the store refuses more). Listing is always allowed, a page at a time.
 */
import type { z } from 'zod';
import type { CommentInputSchema, CommentList, CommentsQuerySchema, ReviewComment } from '../../shared/review.ts';
import { canReview } from '../../shared/session-rules.ts';
import { AppError, ConflictError, NotFoundError } from '../errors/app-error.ts';
import type { SessionHandle } from '../store/session-handle.ts';

type CommentInput = z.output<typeof CommentInputSchema>;
type CommentsQuery = z.output<typeof CommentsQuerySchema>;

/**
 * One page of the list, oldest first: `limit` comments from after the comment `after` names. The
 * cursor is a comment, not a position, so a comment deleted between two pages does not shift the
 * next one; if the cursor itself was deleted there is nothing to count from, and the answer says
 * to start again.
 */
export function listComments(session: SessionHandle, query: CommentsQuery): CommentList {
  const all = session.comments.list();
  let start = 0;
  if (query.after !== undefined) {
    const at = all.findIndex((c) => c.id === query.after);
    if (at === -1)
      throw new NotFoundError(
        'comment_not_found',
        `There is no comment ${query.after} to list after; it was deleted meanwhile. List again from the start, without after.`,
      );
    start = at + 1;
  }
  const comments = all.slice(start, start + query.limit);
  return { comments, next_after: comments.at(-1)?.id ?? query.after ?? null, has_more: start + comments.length < all.length };
}

export function addComment(session: SessionHandle, input: CommentInput): ReviewComment {
  assertReviewable(session);
  const taskId = input.task_id ?? null;
  if (taskId !== null && !session.prd.tasks().some((t) => t.id === taskId))
    throw new NotFoundError('task_not_found', `Session ${session.id} has no task ${taskId} to comment on.`);
  return session.comments.add({ task_id: taskId, file: checkedPath(input.file), line: input.line, side: input.side, text: input.text });
}

export function editComment(session: SessionHandle, commentId: string, text: string): ReviewComment {
  assertReviewable(session);
  return session.comments.edit(commentId, text);
}

export function deleteComment(session: SessionHandle, commentId: string): void {
  assertReviewable(session);
  session.comments.remove(commentId);
}

function assertReviewable(session: SessionHandle): void {
  const { status } = session.checkpoint.read();
  if (!canReview(status))
    throw new ConflictError(
      'session_not_reviewable',
      `Session ${session.id} is ${status}; comments can be written once its run is over or stopped (all done, stopped, merged or archived).`,
    );
}

/**
 * A comment names a file as the diff does: relative to the repository root. Anything that could
 * point elsewhere (absolute, a drive, `..`, a backslash, a NUL) is refused, because the comment
 * is later quoted to the worker with the lines around it, read from that path.
 */
function checkedPath(file: string): string {
  const problem = file.startsWith('/')
    ? 'it is absolute'
    : /^[A-Za-z]:/.test(file)
      ? 'it names a drive'
      : file.includes('\\')
        ? 'it has a backslash'
        : file.includes('\0')
          ? 'it has a NUL character'
          : file.split('/').some((part) => part === '..')
            ? 'it climbs out with ..'
            : null;
  if (problem !== null) throw new AppError('invalid_path', `The comment's file must be a path inside the repository, like src/app.js; ${problem}.`);
  return file;
}
