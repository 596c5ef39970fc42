/**
 * The reviewer's line comments (`review-comments.jsonl`): operations appended one per line and
 * folded into the current list on read. Appending instead of rewriting means a crash mid-write
 * loses at most that one operation (a torn last line is skipped), never a comment or a send mark
 * written before it.
 *
 * A sent comment is fixed: the checks here refuse to edit or delete it, and the fold ignores any
 * such operation too, so a hand-edited or raced file cannot unsend one.
 *
 * The file stays bounded: a session keeps at most `SESSION_COMMENTS_MAX` comments (a new one past
 * that is refused), and once the operations outnumber twice the comments they leave (plus some
 * slack, so a small list is not rewritten at every edit) the file is rewritten, atomically, as one
 * `add` per comment, its text and sent mark included. So it holds at most about twice the list.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { CommentOpSchema, SESSION_COMMENTS_MAX, type CommentOp, type ReviewComment } from '../../shared/review.ts';
import { ConflictError, NotFoundError } from '../errors/app-error.ts';
import type { Tree } from '../fs/tree.ts';
import { appendJsonl, readJsonl, rewriteJsonl } from './jsonl.ts';
import { SESSION_FILES } from './session-files.ts';

/** What a new comment carries (the input after its checks); the id, time and sent mark are added here. */
export interface NewComment {
  task_id: string | null;
  file: string;
  line: number;
  side: ReviewComment['side'];
  text: string;
}

/** Operations past the comments they leave, beyond twice the list, before the file is compacted. */
const COMPACT_SLACK = 100;

/** The current list from the operations, oldest comment first. */
export function foldComments(ops: readonly CommentOp[]): ReviewComment[] {
  const byId = new Map<string, ReviewComment>();
  for (const op of ops) {
    switch (op.op) {
      case 'add':
        if (!byId.has(op.comment.id)) byId.set(op.comment.id, op.comment);
        break;
      case 'edit': {
        const c = byId.get(op.id);
        if (c && c.sent === null) byId.set(op.id, { ...c, text: op.text });
        break;
      }
      case 'delete':
        if (byId.get(op.id)?.sent === null) byId.delete(op.id);
        break;
      case 'send':
        for (const id of op.ids) {
          const c = byId.get(id);
          if (c && c.sent === null) byId.set(id, { ...c, sent: { task_id: op.task_id, revision: op.revision, ts: op.ts } });
        }
        break;
    }
  }
  return [...byId.values()];
}

export class ReviewComments {
  private readonly file: string;

  constructor(
    private readonly tree: Tree,
    sessionDir: string,
  ) {
    this.file = path.join(sessionDir, SESSION_FILES.reviewComments);
  }

  list(): ReviewComment[] {
    return this.read().comments;
  }

  /** Refused with `too_many_comments` once the session has `SESSION_COMMENTS_MAX` (sent ones count: they stay in the file). */
  add(input: NewComment, now = new Date()): ReviewComment {
    const { comments, ops } = this.read();
    if (comments.length >= SESSION_COMMENTS_MAX) {
      const open = comments.filter((c) => c.sent === null).length;
      throw new ConflictError(
        'too_many_comments',
        `This session already has ${count(comments.length)} comments (${count(open)} open), the most it keeps; delete open comments you no longer need, or say the rest in a send-back's note.`,
      );
    }
    const comment: ReviewComment = {
      id: `c-${randomBytes(6).toString('hex')}`,
      ts: now.toISOString(),
      task_id: input.task_id,
      file: input.file,
      line: input.line,
      side: input.side,
      text: input.text.trim(),
      sent: null,
    };
    this.append({ op: 'add', comment }, ops, comments.length + 1);
    return comment;
  }

  edit(id: string, text: string, now = new Date()): ReviewComment {
    const state = this.read();
    const current = unsentIn(state.comments, id, 'edit');
    const next = { ...current, text: text.trim() };
    this.append({ op: 'edit', id, text: next.text, ts: now.toISOString() }, state.ops, state.comments.length);
    return next;
  }

  remove(id: string, now = new Date()): void {
    const state = this.read();
    unsentIn(state.comments, id, 'delete');
    this.append({ op: 'delete', id, ts: now.toISOString() }, state.ops, state.comments.length - 1);
  }

  /**
   * Marks comments as sent back with a task (its revision n+1 answers them); all or none: an
   * unknown or already sent id refuses the lot before anything is written.
   */
  markSent(ids: readonly string[], taskId: string, revision: number, now = new Date()): ReviewComment[] {
    const state = this.read();
    const unique = [...new Set(ids)];
    const sent = unique.map((id) => unsentIn(state.comments, id, 'send'));
    if (sent.length === 0) return [];
    const mark = { task_id: taskId, revision, ts: now.toISOString() };
    this.append({ op: 'send', ids: unique, ...mark }, state.ops, state.comments.length);
    return sent.map((c) => ({ ...c, sent: mark }));
  }

  /** The comments, each if it exists and is not sent yet; else the refusal (`comment_not_found`, `comment_sent`) of the first that is not. */
  unsent(ids: readonly string[], what: 'edit' | 'delete' | 'send'): ReviewComment[] {
    const comments = this.list();
    return ids.map((id) => unsentIn(comments, id, what));
  }

  private read(): { ops: number; comments: ReviewComment[] } {
    const ops = readJsonl(this.file, CommentOpSchema);
    return { ops: ops.length, comments: foldComments(ops) };
  }

  /**
   * Appends `op` to a file of `opsBefore` operations that leave `commentsAfter` comments with it,
   * then compacts the file if the operations pile up. The op is appended first and the file read
   * again for the rewrite, so an operation another process appended meanwhile (`tilth reopen`
   * marking comments sent while the page edits one) is kept, unless it lands in the moment
   * between that read and the rename; then it is lost, and at worst a comment is offered again.
   */
  private append(op: CommentOp, opsBefore: number, commentsAfter: number): void {
    appendJsonl(this.tree, this.file, CommentOpSchema, op);
    if (opsBefore + 1 <= 2 * commentsAfter + COMPACT_SLACK) return;
    const current = foldComments(readJsonl(this.file, CommentOpSchema));
    rewriteJsonl(
      this.tree,
      this.file,
      CommentOpSchema,
      current.map((comment) => ({ op: 'add' as const, comment })),
    );
  }
}

const count = (n: number): string => n.toLocaleString('en-US');

function unsentIn(comments: readonly ReviewComment[], id: string, what: 'edit' | 'delete' | 'send'): ReviewComment {
  const found = comments.find((c) => c.id === id);
  if (!found) throw new NotFoundError('comment_not_found', `There is no comment ${id} in this session; it may have been deleted.`);
  if (found.sent !== null)
    throw new ConflictError(
      'comment_sent',
      `Comment ${id} was sent back with ${found.sent.task_id} (rev ${found.sent.revision}), so it cannot ${what === 'send' ? 'be sent again' : `be ${what === 'edit' ? 'edited' : 'deleted'}`}; write a new comment instead.`,
    );
  return found;
}
