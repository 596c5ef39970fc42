/**
 * Review and getting the work out (SPEC §7, §8): the task review and its diff, the session review
 * and its diff, the merge preview and the merge, push, PR and cleanse, the line comments, sending a
 * task back, adding one (and cancelling that), and the rewind with its plan. Every action on a
 * session in the wrong state is a 409 that says why.
 */
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../base/app-deps.ts';
import { ConflictError } from '../../errors/app-error.ts';
import type { AddedTask } from '../../../shared/review.ts';
import { AddTaskCancelledError, addTaskLocked, refuseDuringAddTask, startAddTaskJob } from '../../seed/add-task-job.ts';
import { handle } from './contract.ts';
import { existingSession } from './validate.ts';

// The review code (diffs, merge, publishing, rewind, comments) loads at its first request, not
// with the server (issue 32).
const reviewCode = () => import('../../review/review.ts');
const mergeCode = () => import('../../review/merge.ts');
const publishCode = () => import('../../review/publish.ts');
const rewindCode = () => import('../../engine/rewind.ts');
const commentsCode = () => import('../../review/comments.ts');

export function reviewRoutes(app: FastifyInstance, deps: AppDeps): void {
  const { store } = deps;

  /** Git actions on a session are serialised: two clicks must not merge twice. */
  const busy = new Set<string>();
  /** Refuses `what` while another process or action holds the session, or a job of this one runs. */
  function assertIdle(id: string, what: string): void {
    store.session(id).runLock.assertFree();
    refuseDuringAddTask(deps.jobs, id, what);
    if (busy.has(id)) throw new ConflictError('session_busy', `Another action on session ${id} is still in progress; wait for it, then ${what} again.`);
    if (deps.jobs.forSession(id)) throw new ConflictError('session_running', `Session ${id} has a job running; stop it before you ${what}.`);
  }
  async function exclusive<T>(id: string, what: string, fn: () => Promise<T>): Promise<T> {
    assertIdle(id, what);
    busy.add(id);
    try {
      return await fn();
    } finally {
      busy.delete(id);
    }
  }

  /** Per session, the add-task under way in this process, as its POST waits for it. */
  const adding = new Map<string, Promise<AddedTask>>();

  handle(app, 'getTaskReview', async ({ params }) => (await reviewCode()).taskReview(existingSession(store, params.id), params.taskId));
  handle(app, 'getTaskEvidence', async ({ params }) => (await reviewCode()).taskEvidence(existingSession(store, params.id), params.taskId));

  // The request waits for the task (a few model turns and a red proof, within the deadline); the
  // add-task is a job of its own meanwhile, so a second request can cancel it (cancelAddTask).
  handle(app, 'addTask', async ({ params, body }) => {
    const session = existingSession(store, params.id);
    assertIdle(session.id, 'add a task');
    refuseWhileRunning(session.id, 'add a task');
    const deadlineMs = deps.config.current.addTaskDeadlineMs;
    const added = startAddTaskJob(deps.jobs, session.id, (session, signal) =>
      addTaskLocked(session, deps.demo?.clientFor(session.id) ?? deps.llm, body, {
        holder: 'serve',
        deadlineMs,
        signal,
        repeats: deps.config.current.proofRepeats,
      }),
    );
    adding.set(session.id, added);
    try {
      return await added;
    } finally {
      adding.delete(session.id);
    }
  });

  /** Ends the add-task under way: it writes nothing, and the session is free again when this answers. */
  handle(app, 'cancelAddTask', async ({ params }) => {
    const session = existingSession(store, params.id);
    // One a terminal's `tilth add-task` holds is cancelled there: the refusal says so.
    session.runLock.assertFree();
    const pending = adding.get(session.id);
    if (!pending || deps.jobs.forSession(session.id)?.kind !== 'add_task') return { cancelled: false };
    await deps.jobs.stop(session.id, 'add-task cancelled');
    return {
      cancelled: await pending.then(
        () => false,
        (err: unknown) => err instanceof AddTaskCancelledError,
      ),
    };
  });

  handle(app, 'reopenTask', async ({ params, body }) => {
    const session = existingSession(store, params.id);
    const { sendBack } = await import('../../review/send-back.ts');
    return exclusive(session.id, 'send a task back', () => sendBack(session, params.taskId, body));
  });

  handle(app, 'getTaskDiff', async ({ params, query }) => (await reviewCode()).taskDiff(existingSession(store, params.id), params.taskId, query.revision));

  handle(app, 'getSessionReview', async ({ params }) => (await reviewCode()).sessionReview(existingSession(store, params.id)));

  handle(app, 'previewMerge', async ({ params, body }) => {
    const session = existingSession(store, params.id);
    const { previewMerge } = await mergeCode();
    return exclusive(session.id, 'preview the merge', () => previewMerge(session, body.strategy, deps.config.current.mutationGate));
  });

  handle(app, 'merge', async ({ params, body }) => {
    const session = existingSession(store, params.id);
    const { merge } = await mergeCode();
    return exclusive(session.id, 'merge', () => merge(session, body.strategy, body.override_failed_tests === true, deps.config.current.mutationGate));
  });

  handle(app, 'push', async ({ params, body }) => {
    const session = existingSession(store, params.id);
    const { push } = await publishCode();
    return exclusive(session.id, 'push', () => push(session, body.remote));
  });

  handle(app, 'openPr', async ({ params, body }) => {
    const session = existingSession(store, params.id);
    const { openPr } = await publishCode();
    return exclusive(session.id, 'open a pull request', () => openPr(session, body.remote));
  });

  /** A run going or queued (its checkpoint may still say `stopped` while it starts). */
  function refuseWhileRunning(id: string, what: string): void {
    const run = deps.runs.state(id).state;
    if (run !== 'idle' || deps.jobs.forSession(id)?.kind === 'run') {
      throw new ConflictError('session_running', `Session ${id} ${run === 'queued' ? 'is queued to run' : 'is running'}; stop it before you ${what}.`);
    }
  }

  handle(app, 'getRewindPlan', async ({ params, query }) => {
    const session = existingSession(store, params.id);
    refuseWhileRunning(session.id, 'rewind');
    return (await rewindCode()).planRewind(session, query.after);
  });

  handle(app, 'rewind', async ({ params, body }) => {
    const session = existingSession(store, params.id);
    return exclusive(session.id, 'rewind', async () => {
      refuseWhileRunning(session.id, 'rewind');
      return (await rewindCode()).rewindSession(session, body.after);
    });
  });

  handle(app, 'cleanse', async ({ params }) => {
    const session = existingSession(store, params.id);
    const { cleanse } = await publishCode();
    return exclusive(session.id, 'cleanse', () => cleanse(session));
  });

  handle(app, 'listComments', async ({ params, query }) => (await commentsCode()).listComments(existingSession(store, params.id), query));

  handle(app, 'addComment', async ({ params, body }) => (await commentsCode()).addComment(existingSession(store, params.id), body));

  handle(app, 'editComment', async ({ params, body }) => (await commentsCode()).editComment(existingSession(store, params.id), params.commentId, body.text));

  handle(app, 'deleteComment', async ({ params }) => {
    (await commentsCode()).deleteComment(existingSession(store, params.id), params.commentId);
    return { ok: true as const };
  });
}
