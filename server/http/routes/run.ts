/**
 * Run routes (SPEC §6, §8): start or resume a run (queued past the concurrency limit), stop it,
 * and guidance notes, which the worker reads once at its next iteration.
 */
import type { FastifyInstance } from 'fastify';
import type { SessionStatus } from '../../../shared/events.ts';
import { canAddNote, canResume, canRun } from '../../../shared/session-rules.ts';
import type { AppDeps } from '../base/app-deps.ts';
import { ConflictError } from '../../errors/app-error.ts';
import { refuseDuringAddTask } from '../../seed/add-task-job.ts';
import { handle } from './contract.ts';
import { existingSession } from './validate.ts';

const RUN_REFUSALS: Partial<Record<SessionStatus, string>> = {
  interviewing: ' (finish the interview first)',
  running: ' (it is already running)',
  all_done: ' (every task is done; review and merge it)',
  failed: ' (it failed before its seed was ready; see its last error)',
  merged: ' (it is merged)',
  archived: ' (it is archived)',
};

export function runRoutes(app: FastifyInstance, deps: AppDeps): void {
  const { store } = deps;

  handle(app, 'startRun', async ({ params, body: options, reply }) => {
    const session = existingSession(store, params.id);
    session.runLock.assertFree();
    refuseDuringAddTask(deps.jobs, session.id, 'run it');
    const { status } = session.checkpoint.read();
    const current = deps.runs.state(session.id);
    if (current.state !== 'idle') {
      reply.status(200);
      return { session: session.listItem(), run: current };
    }
    if (!canRun(status)) {
      throw new ConflictError('session_not_runnable', `Only a prepared or stopped session can run; this one is ${status}${RUN_REFUSALS[status] ?? ''}.`);
    }
    if (options.allow_network !== undefined) session.checkpoint.update(() => ({ allow_network: options.allow_network === true }));
    // Only the first start: once tasks are done, their tests pass and the check says other things.
    if (status === 'prepared') await (await import('../../seed/seed-review.ts')).assertRunnable(session, deps.config.current.proofRepeats);
    const run = await deps.runs.request(session.id);
    return { session: session.listItem(), run };
  });

  handle(app, 'stopRun', async ({ params }) => {
    const session = existingSession(store, params.id);
    if (await deps.runs.cancel(session.id)) return { session: session.listItem(), was: 'queued' as const };
    if (await deps.runs.stop(session.id, 'stopped by user')) return { session: session.listItem(), was: 'running' as const };
    // Not a run of ours: a headless `tilth run` is stopped in its own terminal.
    session.runLock.assertFree();
    throw new ConflictError('session_not_running', `Session ${session.id} has no run to stop; it is ${session.checkpoint.read().status}.`);
  });

  handle(app, 'getResumePlan', async ({ params }) => {
    const session = existingSession(store, params.id);
    const { status } = session.checkpoint.read();
    if (!canResume(status)) throw new ConflictError('session_not_stopped', `Only a stopped session is resumed; this one is ${status}.`);
    return (await import('../../engine/run.ts')).planResume(session);
  });

  handle(app, 'addNote', async ({ params, body: { text } }) => {
    const session = existingSession(store, params.id);
    const { status } = session.checkpoint.read();
    if (!canAddNote(status)) {
      throw new ConflictError('session_not_running', `Guidance goes to the worker of a run; this session is ${status}.`);
    }
    // A queue worker runs it: the note goes to that worker, the session's one writer.
    const delivered = await deps.runs.note(session.id, text);
    if (delivered) return { note: delivered };
    session.runLock.assertFree();
    const note = session.steering.add(text);
    session.emit({ type: 'steering_note', data: { note_id: note.note_id, text: note.text } });
    return { note };
  });
}
