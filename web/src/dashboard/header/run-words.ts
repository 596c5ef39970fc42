/**
 * What the dashboard says about a run, in words: the headline ("stopped: dollar cap reached at
 * $10.00"), which buttons it offers, and how a task's status reads. Pure, so the wording is
 * tested without a browser.
 */
import type { RunState } from '../../../../shared/api.ts';
import type { SessionStatus, StopReason } from '../../../../shared/events.ts';
import type { Caps, PrdEntry } from '../../../../shared/files.ts';
import { canAddNote, canResume } from '../../../../shared/session-rules.ts';
import type { TaskSummary } from '../../../../shared/summary.ts';
import { formatInt, formatUsd } from '../../../../shared/format.ts';

export interface StopContext {
  caps: Caps | null;
  /** The summary's tasks, to name the one a task-level stop was about. */
  tasks: Readonly<Record<string, TaskSummary>>;
  /** The server's own sentence about the stop (checkpoint `last_error`). */
  lastError: string | null;
}

/** The task a task-level stop was about: the last one that failed for that reason. */
function failedTask(tasks: StopContext['tasks'], reason: StopReason): string | null {
  let found: string | null = null;
  for (const [id, t] of Object.entries(tasks)) if (t.status === 'failed' && t.failure_reason === reason) found = id;
  return found;
}

/** "stopped: dollar cap reached at $10.00", "finished: all tasks done", … */
export function stopInWords(reason: StopReason, ctx: StopContext): string {
  const caps = ctx.caps;
  const task = failedTask(ctx.tasks, reason) ?? 'a task';
  switch (reason) {
    case 'all_done':
      return 'finished: all tasks done';
    case 'dollar_cap':
      return caps && caps.max_dollars > 0 ? `stopped: dollar cap reached at ${formatUsd(caps.max_dollars)}` : 'stopped: dollar cap reached';
    case 'token_cap':
      return caps && caps.max_tokens > 0 ? `stopped: token cap reached at ${formatInt(caps.max_tokens)} tokens` : 'stopped: token cap reached';
    case 'wall_clock':
      return caps && caps.max_wall_clock_minutes > 0
        ? `stopped: wall-clock cap reached after ${caps.max_wall_clock_minutes} min`
        : 'stopped: wall-clock cap reached';
    case 'iter_cap':
      return `stopped: ${task} used all ${caps ? `${caps.max_iterations_per_task} ` : ''}iterations without an accepted case`;
    case 'evaluator_cap':
      return `stopped: ${task} reached the evaluator cap${caps && caps.max_evaluator_calls_per_task > 0 ? ` (${caps.max_evaluator_calls_per_task} calls)` : ''}`;
    case 'empty_responses':
      return `stopped: the model sent ${task} empty replies three times in a row`;
    case 'no_case':
      return `stopped: ${task} never submitted its work, even after reminders`;
    case 'provider_failure':
      return `stopped: the model provider kept failing during ${task}`;
    case 'git_tampered':
      return `stopped: during ${task} the worktree's git metadata was changed, so Tilth ran no git there${ctx.lastError ? ` — ${ctx.lastError}` : ''}`;
    case 'evaluator_unreadable':
      return `stopped: the evaluator twice answered ${task} with something that is not a verdict${ctx.lastError ? ` — ${ctx.lastError}` : ''}`;
    case 'context_overflow':
      return `stopped: ${task}'s conversation no longer fits the worker model's context window${ctx.lastError ? ` — ${ctx.lastError}` : ''}`;
    case 'setup_failed':
      return `stopped: the worktree could not get the project's environment${ctx.lastError ? ` — ${ctx.lastError}` : ''}`;
    case 'task_added':
      return 'paused: a task was added after the run; Resume builds it';
    case 'sent_back':
      return 'paused: a task was sent back for another revision; Resume runs it';
    case 'interrupted':
      return 'stopped: interrupted (Stop was pressed or the server shut down)';
    case 'crash':
      return 'stopped: the server went down in the middle of the run';
    case 'error':
      return ctx.lastError ? `stopped: an error — ${ctx.lastError}` : 'stopped: an error';
  }
}

export interface HeadlineInput extends StopContext {
  status: SessionStatus | null;
  run: RunState;
  lastStop: StopReason | null;
  /** The task the run is on, when one is in progress (the now line says what it is doing). */
  current: { taskId: string; title: string | null } | null;
}

/** The header's one line about where the run stands. */
export function runHeadline(input: HeadlineInput): string {
  const { status, run, lastStop } = input;
  if (run.state === 'queued') {
    return `queued${run.queue_position === null ? '' : ` (position ${run.queue_position})`}: it starts when a run slot is free`;
  }
  if (run.state === 'running' || status === 'running') {
    const c = input.current;
    return c ? `running ${c.taskId}${c.title ? `: ${c.title}` : ''}` : 'running';
  }
  switch (status) {
    case 'stopped':
      return lastStop === null ? (input.lastError ? `stopped: ${input.lastError}` : 'stopped') : stopInWords(lastStop, input);
    case 'all_done':
      return 'finished: all tasks done';
    case 'prepared':
      return 'prepared: not started yet';
    case 'merged':
      return 'merged';
    case 'archived':
      return 'archived: the worktree is gone, the record is kept';
    case 'failed':
      return 'failed during the interview';
    case 'interviewing':
      return 'interviewing';
    case null:
      return 'loading…';
  }
}

/** Stops the user made: the run waits for them to go on, and nothing went wrong. */
export const DELIBERATE: ReadonlySet<StopReason> = new Set<StopReason>(['interrupted', 'sent_back', 'task_added']);

/** The headline's tone, for its colour. */
export function headlineTone(
  status: SessionStatus | null,
  run: RunState['state'],
  lastStop: StopReason | null,
): 'running' | 'queued' | 'stopped' | 'problem' | 'done' | 'idle' {
  if (run === 'queued') return 'queued';
  if (run === 'running' || status === 'running') return 'running';
  if (status === 'all_done' || status === 'merged') return 'done';
  // Stop pressed, a task sent back or added: the user's own doing, not a problem.
  if (status === 'stopped') return lastStop !== null && DELIBERATE.has(lastStop) ? 'stopped' : 'problem';
  return 'idle';
}

export interface RunControls {
  stop: boolean;
  resume: boolean;
  /** Guidance is read by the worker of a run ahead: before it, during it, or while paused. */
  notes: boolean;
}

export function runControls(status: SessionStatus | null, run: RunState['state']): RunControls {
  const active = run !== 'idle' || status === 'running';
  return {
    stop: active,
    resume: !active && status !== null && canResume(status),
    notes: status !== null && canAddNote(status),
  };
}

export type BoardStatus = PrdEntry['status'] | 'interrupted' | 'retry';

export const BOARD_STATUS_LABELS: Record<BoardStatus, string> = {
  pending: 'pending',
  in_progress: 'in progress',
  interrupted: 'interrupted',
  retry: 'to retry',
  done: 'done',
  failed: 'failed',
};

/**
 * A task's status on the board, from the plan (refetched) and the summary (folded live, so it
 * is ahead of the plan for a moment). The plan keeps `in_progress` on a task a stop cut short, so
 * with no run going it reads "interrupted"; a failed task that resume has put back is "to retry".
 * The summary says `pending` only of a task sent back or rewound: that is later news than a plan
 * still saying done, and what the review and the CLI say.
 */
export function boardStatus(prd: PrdEntry['status'], live: TaskSummary['status'] | null, runActive: boolean): BoardStatus {
  if (live === 'pending' && prd !== 'in_progress') return 'pending';
  if (prd === 'done' || live === 'done') return 'done';
  if (live === 'failed') return prd === 'pending' ? 'retry' : 'failed';
  const inProgress = live === 'in_progress' || prd === 'in_progress';
  if (inProgress) return runActive ? 'in_progress' : 'interrupted';
  return prd;
}
