/**
 * Run routes (SPEC §6, §8): start or resume a run (queued past the concurrency limit), stop it,
 * and guidance notes, which the worker reads once at its next iteration.
 */
import type { FastifyInstance } from 'fastify';
import type { SessionStatus } from '../../../shared/events.ts';
import { canAddNote, canResume, canRun } from '../../../shared/session-rules.ts';
import type { AppDeps } from '../base/app-deps.ts';
import { ConflictError } from '../../errors/app-error.ts';
import { planResume } from '../../engine/run.ts';
import { refuseDuringAddTask } from '../../seed/add-task.ts';
import { assertRunnable } from '../../seed/seed-review.ts';
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
    const id = existingSession(store, params.id);
    const session = store.session(id);
    session.runLock.assertFree();
    refuseDuringAddTask(deps.jobs, id, 'run it');
    const { status } = session.checkpoint.read();
    const current = deps.runs.state(id);
    if (current.state !== 'idle') {
      reply.status(200);
      return { session: store.listItem(id), run: current };
    }
    if (!canRun(status)) {
      throw new ConflictError('session_not_runnable', `Only a prepared or stopped session can run; this one is ${status}${RUN_REFUSALS[status] ?? ''}.`);
    }
    if (options.allow_network !== undefined) session.checkpoint.update(() => ({ allow_network: options.allow_network === true }));
    // Only the first start: once tasks are done, their tests pass and the check says other things.
    if (status === 'prepared') await assertRunnable(session, deps.config.current.proofRepeats);
    const run = await deps.runs.request(id);
    return { session: store.listItem(id), run };
  });

  handle(app, 'stopRun', async ({ params }) => {
    const id = existingSession(store, params.id);
    if (await deps.runs.cancel(id)) return { session: store.listItem(id), was: 'queued' as const };
    if (await deps.runs.stop(id, 'stopped by user')) return { session: store.listItem(id), was: 'running' as const };
    // Not a run of ours: a headless `tilth run` is stopped in its own terminal.
    store.session(id).runLock.assertFree();
    throw new ConflictError('session_not_running', `Session ${id} has no run to stop; it is ${store.readCheckpoint(id).status}.`);
  });

  handle(app, 'getResumePlan', async ({ params }) => {
    const id = existingSession(store, params.id);
    const { status } = store.readCheckpoint(id);
    if (!canResume(status)) throw new ConflictError('session_not_stopped', `Only a stopped session is resumed; this one is ${status}.`);
    return planResume(store.session(id));
  });

  handle(app, 'addNote', async ({ params, body: { text } }) => {
    const id = existingSession(store, params.id);
    const session = store.session(id);
    const { status } = session.checkpoint.read();
    if (!canAddNote(status)) {
      throw new ConflictError('session_not_running', `Guidance goes to the worker of a run; this session is ${status}.`);
    }
    // A queue worker runs it: the note goes to that worker, the session's one writer.
    const delivered = await deps.runs.note(id, text);
    if (delivered) return { note: delivered };
    session.runLock.assertFree();
    const note = session.steering.add(text);
    session.emit({ type: 'steering_note', data: { note_id: note.note_id, text: note.text } });
    return { note };
  });
}
