/**
 * Takes runs from the queue and runs them in this process with the same engine as the server:
 * `tilth worker` and `tilth serve --worker-slots N`. Each run is a job of this process's own
 * JobRunner (so its session's run lock, its abort signal and its `stopped/interrupted` ending are
 * exactly those of a local run); the worker writes the session's log itself, and the server's
 * watcher publishes what it appends.
 *
 * A stop reaches the run wherever it is through the control channel; a lost lease (the lock
 * could not be renewed, so another worker may take the job over) stops the run at once.
 *
 * Nothing from Redis is trusted as it comes (queue-signing.ts): a job runs only if the server
 * signed it and its session's run request is still open (closed here as the run starts, so a
 * replayed job finds it gone); a stop or a note only if the server signed it, lately, once, for
 * the run this worker holds. Anything else is ignored, and each kind of problem said once.
 */
import os from 'node:os';
import { type Job, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { JobFn, Logger } from './job-runner.ts';
import { JobRunner } from './job-runner.ts';
import { connectionOf, controlChannel, outageLog, queueName, type RunJobData, runJobId, shownQueueUrl } from './queue.ts';
import type { QueueKey } from './queue-key.ts';
import { openMessage, parseControl, ProblemLog, ReplayGuard } from './queue-signing.ts';
import { AppError } from '../errors/app-error.ts';
import type { SessionStore } from '../store/session-store.ts';

/** A write refused: the worker's lease on the session's run is over (see QueueWorker.process). */
export class LeaseLostError extends AppError {
  constructor(sessionId: string) {
    super('session_locked', `This worker's hold on ${sessionId} is over (another worker or the server has it now); its write was refused.`);
  }
}

export interface QueueWorkerOptions {
  url: string;
  store: SessionStore;
  /** Runs at once in this process. */
  slots: number;
  /** The run for a session under a lease: the engine with this process's configuration. */
  makeJob: (sessionId: string, lease: string) => JobFn;
  logger: Logger;
  /** How long a run's lease lasts without renewal (BullMQ lockDuration); default 30 s. */
  leaseMs?: number;
  /** The key shared with the server ($TILTH_HOME/queue.key). */
  signing: QueueKey;
}

/** How this process names itself in logs and in its runs' session_start. */
export const workerName = () => `${os.hostname()}:${process.pid}`;

export class QueueWorker {
  private readonly jobs: JobRunner;
  private readonly worker: Worker<RunJobData>;
  private readonly control: Redis;
  readonly queue: string;
  private readonly problems: ProblemLog;
  private readonly replays = new ReplayGuard();
  /** Per session this process runs, the run request its job named: stops and notes must name it too. */
  private readonly running = new Map<string, string>();

  private constructor(private readonly opts: QueueWorkerOptions) {
    this.queue = queueName(opts.store.root);
    this.jobs = new JobRunner(opts.store, opts.logger);
    this.problems = new ProblemLog(opts.logger, `queue worker ${workerName()}`, opts.signing.file);
    const connection = connectionOf(opts.url);
    this.worker = new Worker<RunJobData>(this.queue, (job, token, signal) => this.process(job, token, signal), {
      connection,
      concurrency: opts.slots,
      lockDuration: opts.leaseMs ?? 30_000,
      // Every worker also looks for runs whose worker went silent past the lease.
      stalledInterval: opts.leaseMs ?? 30_000,
      // A run whose worker died is not run again by itself: the server marks it stopped/crash
      // and the user resumes it (resume repairs from git), as after a crash of the server.
      maxStalledCount: 0,
      autorun: false,
      // Listed by name (host:pid) on the settings page and in `tilth config`.
      name: workerName(),
    });
    this.worker.on('lockRenewalFailed', (ids) => {
      for (const id of ids) this.worker.cancelJob(id, 'lease lost: another worker may have taken this run over');
    });
    this.control = new Redis({ ...(connection as object), lazyConnect: false });
    const outage = outageLog(opts.logger, `queue worker (${shownQueueUrl(opts.url)})`);
    this.worker.on('error', outage.down);
    this.control.on('error', outage.down);
    this.control.on('ready', outage.up);
  }

  static async start(opts: QueueWorkerOptions): Promise<QueueWorker> {
    const worker = new QueueWorker(opts);
    await worker.control.subscribe(controlChannel(worker.queue));
    worker.control.on('message', (_channel, text: string) => worker.onControl(text));
    void worker.worker.run();
    await worker.worker.waitUntilReady();
    return worker;
  }

  private onControl(text: string): void {
    const parsed = parseControl(text);
    if (!parsed.ok) {
      this.problems.report(parsed.problem, 'a control message');
      return;
    }
    const opened = openMessage(this.opts.signing.key, { kinds: ['stop', 'note'], queue: this.queue }, parsed.value);
    if (!opened.ok) {
      this.problems.report(opened.problem, 'a control message');
      return;
    }
    const message = opened.message;
    // Every worker hears every message: one for a run this process does not hold is not a problem.
    if (this.running.get(message.session) !== message.body.request) return;
    if (!this.replays.admit(message)) {
      this.problems.report('stale', `a ${message.kind} for ${message.session}`);
      return;
    }
    if (message.kind === 'stop') this.worker.cancelJob(runJobId(message.session), message.body.reason);
    else this.takeNote(message.session, message.body);
  }

  /** Writes the note into the session and emits it, once: the server may send it again. */
  private takeNote(sessionId: string, note: { note_id: string; ts: string; text: string }): void {
    try {
      const session = this.opts.store.session(sessionId);
      if (session.steering.read().some((n) => n.note_id === note.note_id)) return;
      const written = session.steering.add(note.text, new Date(note.ts), note.note_id);
      session.emit({ type: 'steering_note', data: { note_id: written.note_id, text: written.text } });
    } catch (err) {
      this.opts.logger.warn(`queue worker: could not take a note for ${sessionId}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private async process(job: Job<RunJobData>, token: string | undefined, signal: AbortSignal | undefined): Promise<void> {
    const opened = openMessage(this.opts.signing.key, { kinds: ['run'], queue: this.queue }, job.data);
    if (!opened.ok) {
      this.problems.report(opened.problem, `run job ${job.id}`);
      return;
    }
    const { session: sessionId, body } = opened.message;
    if (job.id !== runJobId(sessionId)) {
      this.problems.report('misplaced', `run job ${job.id}`);
      return;
    }
    if (!this.opts.store.ids().includes(sessionId)) {
      this.opts.logger.warn(`queue worker: no session ${sessionId} under ${this.opts.store.root}; dropping its run`);
      return;
    }
    // Taken once: the same job again (replayed from Redis, or a copy) finds the request gone.
    if (!this.opts.store.session(sessionId).runRequest.close(body.request)) {
      this.problems.report('not_requested', `the run job for ${sessionId}`);
      return;
    }
    // The lease is this job's lock token, recorded in the session's run lock when the run takes
    // it. Once the server has taken the session back from a worker gone silent (revoked the lock)
    // and maybe handed it to another, the lock no longer carries it: every write from here on is
    // refused, so a frozen worker that wakes cannot write into a session that moved on.
    const lease = `${job.id}:${token ?? 'none'}`;
    const lock = this.opts.store.session(sessionId).runLock;
    let held = false;
    this.opts.store.session(sessionId).guardWrites(() => {
      if (lock.holdsLease(lease)) held = true;
      else if (held) throw new LeaseLostError(sessionId);
    });
    this.jobs.start('run', sessionId, this.opts.makeJob(sessionId, lease));
    this.running.set(sessionId, body.request);
    const onAbort = () => void this.jobs.stop(sessionId, signal?.reason instanceof Error ? signal.reason.message : String(signal?.reason ?? 'stopped'));
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await this.jobs.settled(sessionId);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.running.delete(sessionId);
      this.opts.store.session(sessionId).guardWrites(null);
    }
  }

  /** True while this process runs the session. */
  holds(sessionId: string): boolean {
    return this.jobs.forSession(sessionId) !== undefined;
  }

  /** Stops the runs in progress (they end stopped/interrupted, resumable) and leaves the queue. */
  async close(reason = 'worker shutting down'): Promise<void> {
    // Closing first takes no new run; it resolves once the runs under way have ended.
    const closed = this.worker.close();
    await this.jobs.stopAll(reason);
    await closed;
    await this.control.quit().catch(() => {});
  }
}
