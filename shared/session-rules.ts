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

/** Start a prepared session, or resume a stopped one. */
export const canRun = (status: SessionStatus): boolean => RUNNABLE.has(status);
/** A stopped session resumes (and has a resume plan). */
export const canResume = (status: SessionStatus): boolean => status === 'stopped';
export const canAddNote = (status: SessionStatus): boolean => NOTE_TAKING.has(status);
export const canReview = (status: SessionStatus): boolean => REVIEWABLE.has(status);
export const canMerge = (status: SessionStatus): boolean => MERGEABLE.has(status);
export const canPush = (status: SessionStatus): boolean => PUSHABLE.has(status);

// ── Commit subjects ──────────────────────────────────────────────────────────────────────────
// A done task's commit is `<id>: <title>`. A failed task leaves its work in a placeholder
// `<id>: FAILED (<reason>): <title>`, which resume folds back so the retry is judged on all of it.

const TASK_ID = String.raw`T-\d{3,}`;
const FAILED = new RegExp(`^${TASK_ID}: FAILED \\(`);
const ANY_TASK = new RegExp(`^${TASK_ID}: `);

export function taskSubject(task: { id: string; title: string }): string {
  return `${task.id}: ${task.title}`;
}

export function failedTaskSubject(task: { id: string; title: string }, reason: string): string {
  return `${task.id}: FAILED (${reason}): ${task.title}`;
}

export function isFailedSubject(subject: string): boolean {
  return FAILED.test(subject);
}

/** A commit of a task's kept work (not a FAILED placeholder); of `taskId` when given. */
export function isTaskWorkSubject(subject: string, taskId?: string): boolean {
  if (isFailedSubject(subject)) return false;
  return taskId === undefined ? ANY_TASK.test(subject) : subject.startsWith(`${taskId}: `);
}
