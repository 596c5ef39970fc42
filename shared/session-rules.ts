/**
 * The session rules both sides apply: which status allows which action (the server refuses with
 * a 409, the web hides or disables the button), and the commit-subject convention the run writes
 * and the review and resume read back.
 */
import type { SessionStatus } from './events.ts';

const RUNNABLE = new Set<SessionStatus>(['prepared', 'stopped']);
/** A note only makes sense while there is a run ahead: before it, during it, or paused. */
const NOTE_TAKING = new Set<SessionStatus>(['prepared', 'running', 'stopped']);
/** The run is over or paused, so there is a branch to look at. */
const REVIEWABLE = new Set<SessionStatus>(['all_done', 'stopped', 'merged', 'archived']);
const MERGEABLE = new Set<SessionStatus>(['all_done', 'stopped']);
/** Pushing (and so a pull request) also makes sense after a merge. */
const PUSHABLE = new Set<SessionStatus>(['all_done', 'stopped', 'merged']);

/** A finished or paused run can go back to after the seed or a task (never once merged or archived). */
const REWINDABLE = new Set<SessionStatus>(['all_done', 'stopped']);

/** Start a prepared session, or resume a stopped one. */
export const canRun = (status: SessionStatus): boolean => RUNNABLE.has(status);
/** A stopped session resumes (and has a resume plan). */
export const canResume = (status: SessionStatus): boolean => status === 'stopped';
export const canAddNote = (status: SessionStatus): boolean => NOTE_TAKING.has(status);
export const canReview = (status: SessionStatus): boolean => REVIEWABLE.has(status);
export const canMerge = (status: SessionStatus): boolean => MERGEABLE.has(status);
export const canPush = (status: SessionStatus): boolean => PUSHABLE.has(status);
/** A done task can be sent back once the run is over or paused, and before the work leaves (merge, archive). */
export const canSendBack = (status: SessionStatus): boolean => REWINDABLE.has(status);
export const canRewind = (status: SessionStatus): boolean => REWINDABLE.has(status);

// ── Commit subjects ──────────────────────────────────────────────────────────────────────────
// A done task's commit is `<id>: <title>`; a revision after the reviewer sent it back is
// `<id> (rev <n>): <title>` on top. A failed task leaves its work in a placeholder
// `<id>: FAILED (<reason>): <title>` (`<id> (rev <n>): FAILED …` for a revision), which resume
// folds back so the retry is judged on all of it.

const TASK_ID = String.raw`T-\d{3,}`;
const REV = String.raw`(?: \(rev \d+\))?`;
const FAILED = new RegExp(`^${TASK_ID}${REV}: FAILED \\(`);
const ANY_TASK = new RegExp(`^${TASK_ID}${REV}: `);

/** `T-001` or `T-001 (rev 2)`: the part of a subject before the colon. */
function taskHead(task: { id: string; revision?: number | undefined }): string {
  return task.revision && task.revision > 1 ? `${task.id} (rev ${task.revision})` : task.id;
}

/**
 * The subject of the commit a merge writes (the squash commit, or `Merge <branch>: …`): the
 * session's title, else its brief's first sentence, else its branch — without the trailing full
 * stop or other punctuation a sentence has and a commit subject does not. A title cut short (a
 * long brief's first 79 characters and `…`) gives way to the brief's whole first sentence: a
 * subject that stops mid-word says less than a long one.
 */
export function sessionSubject(session: { title: string; brief: string; branch: string }): string {
  const firstLine = session.brief.trim().split('\n')[0]?.trim() ?? '';
  // The first sentence: up to a full stop, ! or ? that ends a word (not the dot of "v1.2").
  const sentence = /^.*?[.!?](?=\s|$)/u.exec(firstLine)?.[0] ?? firstLine;
  const title = session.title.trim();
  const cut = title.endsWith('…') && firstLine.startsWith(title.slice(0, -1));
  const line = [cut ? '' : title, sentence].find((s) => s !== '') ?? '';
  return line.replace(/[\s.,;:!…]+$/u, '') || session.branch;
}

export function taskSubject(task: { id: string; title: string; revision?: number | undefined }): string {
  return `${taskHead(task)}: ${task.title}`;
}

export function failedTaskSubject(task: { id: string; title: string; revision?: number | undefined }, reason: string): string {
  return `${taskHead(task)}: FAILED (${reason}): ${task.title}`;
}

/** The revision a task-work subject records: 1 for `<id>: …`, n for `<id> (rev n): …`; null for another task's. */
export function subjectRevision(subject: string, taskId: string): number | null {
  if (subject.startsWith(`${taskId}: `)) return 1;
  const m = /^(T-\d{3,}) \(rev (\d+)\): /.exec(subject);
  return m && m[1] === taskId ? Number(m[2]) : null;
}

/** The task a commit belongs to — its kept work or a FAILED placeholder — or null (a seed commit, say). */
export function subjectTaskId(subject: string): string | null {
  return ANY_TASK.test(subject) ? (/^T-\d{3,}/.exec(subject)?.[0] ?? null) : null;
}

export function isFailedSubject(subject: string): boolean {
  return FAILED.test(subject);
}

/** A commit of a task's kept work (not a FAILED placeholder); of `taskId` when given. */
export function isTaskWorkSubject(subject: string, taskId?: string): boolean {
  if (isFailedSubject(subject)) return false;
  return taskId === undefined ? ANY_TASK.test(subject) : subjectRevision(subject, taskId) !== null;
}
