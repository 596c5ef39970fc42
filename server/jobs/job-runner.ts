/**
 * Background jobs (interview, run, adding a task) inside the server process. A job is a plain async function
 * that gets a JobContext — its ids, an abort signal, its own session's handle, a logger — and never
 * sees the other sessions, Fastify, requests or sockets. The HTTP layer starts and stops jobs here and learns what they did from
 * the event log.
 */
import { randomUUID } from 'node:crypto';
import type { EventInput, TilthEvent } from '../../shared/events.ts';
import { AppError, ConflictError } from '../errors/app-error.ts';
import type { SessionHandle } from '../store/session-handle.ts';
import type { SessionStore } from '../store/session-store.ts';

export type JobKind = 'interview' | 'run' | 'add_task';

export interface Logger {
  info(msg: string, extra?: Record<string, unknown>): void;
  warn(msg: string, extra?: Record<string, unknown>): void;
  error(msg: string, extra?: Record<string, unknown>): void;
}

export interface JobContext {
  jobId: string;
  sessionId: string;
  signal: AbortSignal;
  emit(event: EventInput): TilthEvent;
  /** The job's own session folder; the only one it can reach. */
  session: SessionHandle;
  logger: Logger;
}

export type JobFn = (ctx: JobContext) => Promise<void>;

export interface JobInfo {
  jobId: string;
  kind: JobKind;
  sessionId: string;
  startedAt: string;
}

interface Job extends JobInfo {
  controller: AbortController;
  done: Promise<void>;
}

export class JobRunner {
  private readonly jobs = new Map<string, Job>();
  private shuttingDown = false;
  /** Per session, the start waiting for the current job to end (see startAfter). */
  private readonly queued = new Map<string, symbol>();

  constructor(
    private readonly store: SessionStore,
    private readonly logger: Logger,
  ) {}

  /** Starts a job; one live job per session at a time. Resolves once it is registered. */
  start(kind: JobKind, sessionId: string, fn: JobFn): JobInfo {
    const existing = this.forSession(sessionId);
    if (existing) {
      throw new ConflictError('job_running', `Session ${sessionId} already has a ${existing.kind} job running; stop it first.`);
    }
    const controller = new AbortController();
    const jobId = randomUUID();
    const ctx: JobContext = {
      jobId,
      sessionId,
      signal: controller.signal,
      emit: (event) => this.store.session(sessionId).emit(event),
      session: this.store.session(sessionId),
      logger: this.logger,
    };
    const info: JobInfo = { jobId, kind, sessionId, startedAt: new Date().toISOString() };
    const done = (async () => {
      try {
        await fn(ctx);
      } catch (err) {
        if (!controller.signal.aborted) logJobFailure(this.logger, `${kind} job for ${sessionId} failed`, err);
      } finally {
        this.jobs.delete(jobId);
        if (controller.signal.aborted) this.settleStopped(sessionId);
      }
    })();
    this.jobs.set(jobId, { ...info, controller, done });
    return info;
  }

  /**
   * A stopped run should leave its session `stopped/interrupted`; if the job did not get that
   * far, do it here, so a clean shutdown is never mistaken for a crash at the next boot. An
   * interview stays `interviewing`: its file is complete and the next boot continues it.
   */
  private settleStopped(sessionId: string): void {
    try {
      const { status } = this.store.session(sessionId).checkpoint.read();
      if (status === 'running') {
        this.store.session(sessionId).checkpoint.setStatus('stopped', { reason: 'interrupted', phase: 'run' });
      }
    } catch (err) {
      this.logger.warn(`could not record that the job for ${sessionId} stopped`, { err: err instanceof Error ? err.message : String(err) });
    }
  }

  /**
   * Starts `fn` once the session's current job (if any) has ended — for work that must follow
   * it, like an interview continuing after the answer arrived while the previous turn was still
   * winding down.
   */
  startAfter(kind: JobKind, sessionId: string, fn: JobFn): void {
    const current = [...this.jobs.values()].find((j) => j.sessionId === sessionId);
    if (!current) {
      this.start(kind, sessionId, fn);
      return;
    }
    const ticket = Symbol(kind);
    this.queued.set(sessionId, ticket);
    void current.done.then(() => {
      // stop() or a later startAfter took the ticket back: nothing to start.
      if (this.queued.get(sessionId) !== ticket) return;
      this.queued.delete(sessionId);
      if (!this.shuttingDown && !this.forSession(sessionId)) this.start(kind, sessionId, fn);
    });
  }

  list(): JobInfo[] {
    return [...this.jobs.values()].map(({ jobId, kind, sessionId, startedAt }) => ({ jobId, kind, sessionId, startedAt }));
  }

  forSession(sessionId: string): JobInfo | undefined {
    for (const job of this.jobs.values()) if (job.sessionId === sessionId) return job;
    return undefined;
  }

  /** Resolves once the session's current job, if any, has ended. */
  async settled(sessionId: string): Promise<void> {
    await [...this.jobs.values()].find((j) => j.sessionId === sessionId)?.done;
  }

  /** Asks the session's job to stop and waits until it has. Returns false if none was running. */
  async stop(sessionId: string, reason = 'stopped by user'): Promise<boolean> {
    this.queued.delete(sessionId);
    const job = [...this.jobs.values()].find((j) => j.sessionId === sessionId);
    if (!job) return false;
    job.controller.abort(new Error(reason));
    await job.done;
    return true;
  }

  async stopAll(reason = 'server shutting down'): Promise<void> {
    this.shuttingDown = true;
    const jobs = [...this.jobs.values()];
    for (const job of jobs) job.controller.abort(new Error(reason));
    await Promise.all(jobs.map((j) => j.done));
  }
}

/** Statuses that only make sense while a job is alive in this process. */
const LIVE_STATUSES = new Set(['running', 'interviewing']);

/**
 * At boot no job is alive, so a session that says it is running (or interviewing) was left
 * behind by a crash or kill. Mark it stopped with `last_stop: crash` so the user can resume it.
 * Returns the ids it marked. `onInterviewing`, when given, takes interviews instead: they can
 * continue. A session whose files are unreadable is left alone and logged. The temp files of
 * atomic writes a kill interrupted are removed first.
 */
export function recoverAfterCrash(store: SessionStore, logger: Logger, onInterviewing?: (id: string) => void): string[] {
  const recovered: string[] = [];
  for (const id of store.ids()) {
    try {
      // Before any job of this process writes there; a session run elsewhere keeps its temps.
      const temps = store.session(id).removeStaleTemps();
      if (temps > 0) logger.info(`removed ${temps} temp file(s) an interrupted write left in session ${id}`);
      const checkpoint = store.session(id).checkpoint.read();
      if (!LIVE_STATUSES.has(checkpoint.status)) continue;
      // A headless `tilth run` is driving it right now: it is alive, not crashed.
      if (store.session(id).runLock.heldElsewhere()) continue;
      if (checkpoint.status === 'interviewing' && onInterviewing) {
        // An interview lives on disk and continues from its file (see interview/engine.ts).
        onInterviewing(id);
        continue;
      }
      store.session(id).checkpoint.setStatus('stopped', {
        reason: 'crash',
        phase: checkpoint.status === 'interviewing' ? 'interview' : 'run',
        error: 'The server stopped while this session was active.',
      });
      recovered.push(id);
    } catch (err) {
      logger.warn(`could not check session ${id} after restart`, { err: err instanceof Error ? err.message : String(err) });
    }
  }
  return recovered;
}

/**
 * While the server runs with a queue: a `running` session whose run the queue no longer has as
 * active was left by a worker that died, or that froze past its lease. Its run is given up: a
 * frozen worker's hold on the run lock is revoked (its later writes are then refused, see
 * QueueWorker), and the session is marked `stopped/crash`, as at boot, so it can be resumed.
 * Runs of this process (`runningHere`) and runs of a headless `tilth run` are left alone; so is
 * everything while the queue cannot be asked. Returns the ids it marked.
 */
export async function reconcileRunning(
  store: SessionStore,
  logger: Logger,
  runningHere: (id: string) => boolean,
  activeInQueue: (id: string) => Promise<boolean>,
): Promise<string[]> {
  const ended: string[] = [];
  for (const id of store.ids()) {
    try {
      if (store.session(id).checkpoint.read().status !== 'running' || runningHere(id) || (await activeInQueue(id))) continue;
      const session = store.session(id);
      const owner = session.runLock.owner();
      if (owner && owner.kind !== 'worker') continue;
      // Read again: the run may have ended on its own meanwhile.
      if (store.session(id).checkpoint.read().status !== 'running') continue;
      if (owner) session.runLock.revoke();
      store.session(id).checkpoint.setStatus('stopped', {
        reason: 'crash',
        phase: 'run',
        error: owner
          ? `The worker running this session (pid ${owner.pid}) stopped answering past its lease; its run was given up.`
          : 'The worker running this session stopped without ending it.',
      });
      ended.push(id);
    } catch (err) {
      logger.warn(`could not check session ${id}`, { err: err instanceof Error ? err.message : String(err) });
    }
  }
  return ended;
}

/**
 * A job's failure in the server's log. One Tilth names with a code (a provider that refused, a
 * context that overflowed, a check it could not run) is an outcome the session already records in
 * words: one line, its code and its message. Anything else is a bug, and gets its stack.
 */
export function logJobFailure(logger: Logger, what: string, err: unknown): void {
  if (err instanceof AppError) logger.warn(`${what}: ${err.message}`, { code: err.code });
  else logger.error(what, { err: err instanceof Error ? err.stack : String(err) });
}
