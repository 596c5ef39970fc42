/**
 * The reviewer's line comments (`review-comments.jsonl`): operations appended one per line and
 * folded into the current list on read. Appending instead of rewriting means a crash mid-write
 * loses at most that one operation (a torn last line is skipped), never a comment or a send mark
 * written before it.
 *
 * A sent comment is fixed: the checks here refuse to edit or delete it, and the fold ignores any
 * such operation too, so a hand-edited or raced file cannot unsend one.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { CommentOpSchema, type CommentOp, type ReviewComment } from '../../shared/review.ts';
import { ConflictError, NotFoundError } from '../errors.ts';
import type { Tree } from '../fs/tree.ts';
import { appendJsonl, readJsonl } from './jsonl.ts';
import { SESSION_FILES } from './session-files.ts';

/** What a new comment carries (the input after its checks); the id, time and sent mark are added here. */
export interface NewComment {
  task_id: string | null;
  file: string;
  line: number;
  side: ReviewComment['side'];
  text: string;
}

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
    return foldComments(readJsonl(this.file, CommentOpSchema));
  }

  add(input: NewComment, now = new Date()): ReviewComment {
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
    this.append({ op: 'add', comment });
    return comment;
  }

  edit(id: string, text: string, now = new Date()): ReviewComment {
    const current = this.unsent(id, 'edit');
    const next = { ...current, text: text.trim() };
    this.append({ op: 'edit', id, text: next.text, ts: now.toISOString() });
    return next;
  }

  remove(id: string, now = new Date()): void {
    this.unsent(id, 'delete');
    this.append({ op: 'delete', id, ts: now.toISOString() });
  }

  /**
   * Marks comments as sent back with a task (its revision n+1 answers them); all or none: an
   * unknown or already sent id refuses the lot before anything is written.
   */
  markSent(ids: readonly string[], taskId: string, revision: number, now = new Date()): ReviewComment[] {
    const unique = [...new Set(ids)];
    const sent = unique.map((id) => this.unsent(id, 'send'));
    if (sent.length === 0) return [];
    const mark = { task_id: taskId, revision, ts: now.toISOString() };
    this.append({ op: 'send', ids: unique, ...mark });
    return sent.map((c) => ({ ...c, sent: mark }));
  }

  /** The comment, if it exists and is not sent yet; else the refusal (`comment_not_found`, `comment_sent`). */
  unsent(id: string, what: 'edit' | 'delete' | 'send'): ReviewComment {
    const found = this.list().find((c) => c.id === id);
    if (!found) throw new NotFoundError('comment_not_found', `There is no comment ${id} in this session; it may have been deleted.`);
    if (found.sent !== null)
      throw new ConflictError(
        'comment_sent',
        `Comment ${id} was sent back with ${found.sent.task_id} (rev ${found.sent.revision}), so it cannot ${what === 'send' ? 'be sent again' : `be ${what === 'edit' ? 'edited' : 'deleted'}`}; write a new comment instead.`,
      );
    return found;
  }

  private append(op: CommentOp): void {
    appendJsonl(this.tree, this.file, CommentOpSchema, op);
  }
}
