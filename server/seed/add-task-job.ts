/**
 * Adding a task after the run (add-task.ts) as a job (issue 27). It holds the session's run lock,
 * as a run does, for as long as it works: a Resume accepted meanwhile once ran beside it, and the
 * add-task then wrote back the plan it had read before the model started — finished tasks ran
 * again and the new test landed in another task's commit. While it works every other change to the
 * session is refused (`session_busy`, or `session_locked` from another process); it can be
 * cancelled, and it has a deadline. Cancelled or past its deadline, it leaves the session exactly
 * as it was.
 */
import type { AddedTask, NewTask } from '../../shared/review.ts';
import { buildPath, ROUTES } from '../../shared/routes.ts';
import { AppError, ConflictError } from '../errors/app-error.ts';
import type { JobRunner } from '../jobs/job-runner.ts';
import type { ModelClient } from '../llm/client.ts';
import type { LockKind, SessionHandle } from '../store/session-handle.ts';

/** Cancelled from the page, the API or the terminal (or by the server shutting down) before anything was written. */
export class AddTaskCancelledError extends AppError {
  constructor() {
    super('add_task_cancelled', 'Adding the task was cancelled; nothing was added and the session is as it was.');
  }
}

/** The deadline passed: a 504 whose one sentence is written for the user. */
export class AddTaskTimedOutError extends AppError {
  constructor(ms: number) {
    super(
      'add_task_timed_out',
      `The model did not finish the new task's test within ${formatSeconds(ms)}, so nothing was added; check the provider and try again (TILTH_ADD_TASK_SECONDS sets the limit).`,
    );
  }

  override get expose(): boolean {
    return true;
  }
}

function formatSeconds(ms: number): string {
  const s = Math.round(ms / 1000);
  return s % 60 === 0 ? `${s / 60} minute${s === 60 ? '' : 's'}` : `${s} second${s === 1 ? '' : 's'}`;
}

export interface AddTaskOptions {
  /** Who holds the session meanwhile: `tilth serve` or the terminal's `tilth add-task`. */
  holder: LockKind;
  /** Past it the model call (or the red proof) is aborted and nothing is added (TILTH_ADD_TASK_SECONDS). */
  deadlineMs: number;
  /** Aborting it cancels the add-task. */
  signal?: AbortSignal;
  /** Runs of each new case in its red proof (TILTH_PROOF_REPEATS); the proof's default when absent. */
  repeats?: number;
}

/**
 * Adds the task while holding the session's run lock, within the deadline. Throws `session_locked`
 * when another process holds the session, AddTaskCancelledError when `signal` aborts, and
 * AddTaskTimedOutError past the deadline — in those two cases having written nothing.
 */
export async function addTaskLocked(session: SessionHandle, llm: ModelClient, input: NewTask, options: AddTaskOptions): Promise<AddedTask> {
  const release = session.runLock.acquire(options.holder, { job: 'add_task' });
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new AddTaskTimedOutError(options.deadlineMs)), options.deadlineMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal;
  // Its state is kept beside the session, so a page reloaded meanwhile finds it and its outcome.
  const started_at = new Date().toISOString();
  session.addTask.write({ state: 'running', title: input.title, started_at });
  session.emit({ type: 'add_task_started', data: { title: input.title } });
  try {
    // The model turns and the red proof load when a task is added, not with the server (issue 32).
    const { addTask } = await import('./add-task.ts');
    const added = await addTask(session, llm, input, signal, options.repeats);
    session.addTask.write({
      state: 'added',
      title: input.title,
      started_at,
      ended_at: new Date().toISOString(),
      task_id: added.task.id,
      test_file: added.test_file,
      red: added.red.length,
    });
    return added;
  } catch (caught) {
    // However the abort surfaced (the model client's rejection, a killed test run), say why it stopped.
    const err = options.signal?.aborted ? new AddTaskCancelledError() : deadline.signal.aborted ? deadline.signal.reason : caught;
    const known = err instanceof AppError && err.expose;
    const code = err instanceof AppError ? err.code : 'internal_error';
    const message = known ? err.message : 'Adding the task failed on an internal error; nothing was added. The server log has the details.';
    session.addTask.write({ state: 'failed', title: input.title, started_at, ended_at: new Date().toISOString(), code, message });
    session.emit({ type: 'add_task_failed', data: { title: input.title, code, message } });
    throw err;
  } finally {
    clearTimeout(timer);
    release();
  }
}

/**
 * Runs `add` as the session's `add_task` job in `jobs`: the job runner's one-job-per-session rule
 * fences it from runs and interviews of this process, its stop is the cancel, and a shutdown
 * aborts it. Resolves or rejects with the add-task's own outcome.
 */
export function startAddTaskJob(
  jobs: JobRunner,
  sessionId: string,
  add: (session: SessionHandle, signal: AbortSignal) => Promise<AddedTask>,
): Promise<AddedTask> {
  return new Promise((resolve, reject) => {
    jobs.start('add_task', sessionId, (job) => add(job.session, job.signal).then(resolve, reject));
  });
}

/**
 * The refusal of anything that would change the session while this process adds a task to it
 * (run, resume, rewind, seed edits, send-back, merge, a second add-task): the add-task would
 * otherwise write back a plan that no longer is. `what` completes "then … again".
 */
export function refuseDuringAddTask(jobs: JobRunner, sessionId: string, what: string): void {
  if (jobs.forSession(sessionId)?.kind !== 'add_task') return;
  throw new ConflictError(
    'session_busy',
    `A task is being added to session ${sessionId} (the model is writing its test); wait for it to finish, or cancel it — Cancel in the add-task form of the session review, or DELETE ${buildPath(ROUTES.cancelAddTask.path, { id: sessionId })} — then ${what} again.`,
  );
}

/**
 * Writes the new task's test with the model and adds the task. Refused unless the session's run
 * is over or stopped (before the run, seed review edits the plan; a merged or archived session
 * has nothing to add to). The caller holds the session (addTaskLocked).
 */
