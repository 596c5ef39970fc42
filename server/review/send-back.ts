/**
 * Sending a done task back (issue 15): the reviewer's note and line comments become the next
 * revision's requirements. Nothing is rewritten: the task goes back to pending with revision n+1,
 * the request is kept in `send-backs/<task>.jsonl` with the lines around each comment as they
 * were, and the session stops so Run works on it; the revision is committed on top of the last.
 */
import type { Checkpoint, PrdEntry, SendBack } from '../../shared/files.ts';
import type { ReviewComment } from '../../shared/review.ts';
import { ConflictError, NotFoundError, ValidationError } from '../errors/app-error.ts';
import { readBlobs } from '../git/git-base.ts';
import type { SessionHandle } from '../store/session-handle.ts';
import { branchHead } from '../git/repo.ts';
import { sessionCommits } from './review.ts';
import { canSendBack, isTaskWorkSubject } from '../../shared/session-rules.ts';

/** Lines shown on each side of a comment's line. */
export const EXCERPT_CONTEXT = 3;

export interface SendBackInput {
  note?: string | null | undefined;
  /** The comments that go with it; absent: every open comment written on this task's diff. */
  comment_ids?: string[] | undefined;
}

/**
 * Reopens `taskId` as its next revision. Refused unless the session is all done or stopped (not
 * running, merged or archived) and the task is done; a send-back says what to change, so it needs
 * a note or a comment.
 */
export async function sendBack(
  session: SessionHandle,
  taskId: string,
  input: SendBackInput,
  now = new Date(),
): Promise<{ task: PrdEntry; send_back: SendBack }> {
  const cp = session.checkpoint.read();
  if (!canSendBack(cp.status)) {
    throw new ConflictError('session_not_reopenable', `A task can be sent back only when the run is over or stopped; this session is ${cp.status}.`);
  }
  const prd = session.prd.tasks();
  const task = prd.find((t) => t.id === taskId);
  if (!task) throw new NotFoundError('task_not_found', `Session ${session.id} has no task ${taskId}.`);
  if (task.status !== 'done') {
    throw new ConflictError('task_not_done', `${taskId} is ${task.status}: only an accepted task can be sent back. Resume the run to finish it.`);
  }
  const note = input.note?.trim() || null;
  const comments = chosenComments(session, taskId, input.comment_ids);
  if (note === null && comments.length === 0) {
    throw new ValidationError('Say what to change: write a note, or send at least one comment on the diff.');
  }
  const revision = (task.revision ?? 1) + 1;
  const ledger = session.ledger.read(taskId);
  const last = ledger.at(-1) ?? null;
  const anchors = await anchorRevs(cp, taskId);
  const excerpts = await excerptsAt(
    cp.source,
    comments.map((c) => ({ rev: (c.task_id === null ? anchors.session : anchors.task)[c.side], comment: c })),
  );
  const record: SendBack = {
    revision,
    ts: now.toISOString(),
    note,
    comments: comments.map((c, i) => ({ id: c.id, file: c.file, line: c.line, side: c.side, text: c.text, excerpt: excerpts[i] ?? null })),
    previous_case: [...ledger].reverse().find((e) => e.case)?.case ?? null,
    last_verdict: last?.verdict ?? null,
  };
  // In this order, a crash between any two steps leaves something a retry or Run sets right: the
  // request before the plan (a revision never lacks what it answers), the session stopped before
  // the task is pending (an all-done session with a pending task could not run), the comments
  // marked sent last (unmarked, they are merely offered again).
  session.sendBacks.append(taskId, record);
  session.checkpoint.setStatus('stopped', { reason: 'sent_back', phase: 'run' });
  session.prd.write(prd.map((t) => (t.id === taskId ? { ...t, status: 'pending' as const, revision } : t)));
  session.comments.markSent(
    comments.map((c) => c.id),
    taskId,
    revision,
    now,
  );
  session.emit({ type: 'task_sent_back', data: { task_id: taskId, revision, note, comments: record.comments.length } });
  return { task: { ...task, status: 'pending', revision }, send_back: record };
}

/** The named comments (each must exist and be unsent), or every open one on this task's diff. */
function chosenComments(session: SessionHandle, taskId: string, ids: string[] | undefined): ReviewComment[] {
  if (ids === undefined) return session.comments.list().filter((c) => c.sent === null && c.task_id === taskId);
  return session.comments.unsent([...new Set(ids)], 'send');
}

/** Where each side of a diff line is read: the task's diff (its own commits) or the session's (base to head). */
interface AnchorRevs {
  task: { old: string | null; new: string | null };
  session: { old: string | null; new: string | null };
}

async function anchorRevs(cp: Checkpoint, taskId: string): Promise<AnchorRevs> {
  const head = await branchHead(cp.source, cp.branch);
  const mine = (await sessionCommits(cp)).commits.filter((c) => isTaskWorkSubject(c.subject, taskId));
  return {
    // The task review shows the latest revision's commit against its parent.
    task: { old: mine.at(-1) ? `${mine.at(-1)!.sha}^` : null, new: mine.at(-1)?.sha ?? null },
    session: { old: cp.base_sha, new: head },
  };
}

type Excerpt = SendBack['comments'][number]['excerpt'];

/**
 * For each comment, the lines around its line in the file as its side of the diff had it (null
 * when there is no such revision, file or line). Every file is read by one git call, whatever
 * the number of comments.
 */
async function excerptsAt(repo: string, asked: { rev: string | null; comment: ReviewComment }[]): Promise<Excerpt[]> {
  const names = asked.map(({ rev, comment }) => (rev === null ? null : `${rev}:${comment.file}`));
  const wanted = [...new Set(names.filter((n): n is string => n !== null))];
  const blobs = await readBlobs(repo, wanted);
  const lines = new Map(wanted.map((name, i) => [name, blobs[i]?.toString('utf8').split('\n') ?? null]));
  return asked.map(({ comment }, i) => {
    const name = names[i] ?? null;
    return name === null ? null : excerptOf(lines.get(name) ?? null, comment.line);
  });
}

function excerptOf(lines: string[] | null, line: number): Excerpt {
  if (lines === null || line > lines.length) return null;
  const start = Math.max(1, line - EXCERPT_CONTEXT);
  return { start, lines: lines.slice(start - 1, Math.min(lines.length, line + EXCERPT_CONTEXT)) };
}
