/**
 * Runs through a durable queue (BullMQ on Redis, `TILTH_QUEUE=redis://…`): Run adds a job that
 * a `tilth worker` process takes, so a restart of `tilth serve` loses no queued run and stops no
 * running one. TILTH_MAX_CONCURRENT_RUNS is the queue's global limit over every worker.
 *
 * Every job and control message it sends is signed with the queue key (queue-signing.ts), and
 * every job it reads is checked: one it did not sign is not shown as queued or running, and is
 * taken out of the way when the session is asked to run. Before a job is queued, the session's
 * run request is written, so a worker runs a job only while the API's request for it is open.
 *
 * `state()` answers from what the queue said last (kept current from its events, and read
 * again after every change made here), so the routes and the sessions list stay synchronous.
 */
import { type Job, Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import type { RunState } from '../../shared/api.ts';
import type { SteeringNote } from '../../shared/files.ts';
import { AppError, QueueUnavailableError } from '../errors/app-error.ts';
import type { SessionStore } from '../store/session-store.ts';
import type { RunDispatcher } from './dispatcher.ts';
import type { Logger } from './job-runner.ts';
import type { QueueKey } from './queue-key.ts';
import { type Envelope, type MessageBody, type MessageKind, openMessage, ProblemLog, seal } from './queue-signing.ts';
import {
  connectionOf,
  controlChannel,
  type QueueView,
  queueName,
  type RunJobData,
  runJobId,
  outageLog,
  shownQueueUrl,
  viewOfQueue,
  withinMs,
} from './queue.ts';

export interface QueueDispatcherOptions {
  url: string;
  /** The sessions folder the server and its workers share. */
  store: SessionStore;
  /** Read whenever it may have changed: the settings page can change it. */
  limit: () => number;
  /** Something about the queue changed (the sessions list shows queue positions). */
  onChange?: () => void;
  logger: Logger;
  /** How long Stop waits for the worker holding the run to end it; default 60 s. */
  stopWaitMs?: number;
  /** The key shared with the workers ($TILTH_HOME/queue.key). */
  signing: QueueKey;
}

/** How long one exchange with Redis may take before the request fails with queue_unavailable. */
const ASK_MS = 5_000;
/** How long `tilth serve` waits for Redis at start. */
const OPEN_MS = 10_000;

/** How long a guidance note may take to reach the worker and be written. */
const NOTE_WAIT_MS = 5_000;
const STOPPABLE_WHILE_WAITING = new Set(['waiting', 'prioritized', 'delayed', 'waiting-children']);

export class QueueDispatcher implements RunDispatcher {
  private readonly queueName: string;
  private readonly queue: Queue<RunJobData>;
  private readonly events: QueueEvents;
  private readonly publisher: Redis;
  private states = new Map<string, RunState>();
  private refreshing: Promise<void> | null = null;
  private again = false;
  private unreachable = false;
  private readonly timer: NodeJS.Timeout;
  private readonly problems: ProblemLog;
  /** Per session, the Run being queued now: a second click waits for it rather than racing it. */
  private readonly requesting = new Map<string, Promise<RunState>>();

  private constructor(private readonly opts: QueueDispatcherOptions) {
    this.queueName = queueName(opts.store.root);
    const connection = connectionOf(opts.url);
    // Fail fast while Redis is away (no offline queue): a Run must not be queued minutes after the
    // user was told it could not be.
    this.queue = new Queue<RunJobData>(this.queueName, { connection: { ...(connection as object), enableOfflineQueue: false } });
    this.events = new QueueEvents(this.queueName, { connection });
    this.publisher = new Redis(connection as object);
    for (const name of ['waiting', 'active', 'completed', 'failed', 'removed'] as const) this.events.on(name, () => void this.refresh());
    const outage = outageLog(opts.logger, `run queue at ${shownQueueUrl(opts.url)}`);
    this.problems = new ProblemLog(opts.logger, `run queue at ${shownQueueUrl(opts.url)}`, opts.signing.file);
    this.queue.on('error', outage.down);
    this.events.on('error', outage.down);
    this.publisher.on('error', outage.down);
    this.publisher.on('ready', outage.up);
    // Events can be missed across a reconnect: read the queue again now and then.
    this.timer = setInterval(() => void this.refresh(), 2_000);
    this.timer.unref();
  }

  /** Connects and reads the queue; fails with what to do when Redis does not answer within 10 s. */
  static async open(opts: QueueDispatcherOptions): Promise<QueueDispatcher> {
    const dispatcher = new QueueDispatcher(opts);
    try {
      await dispatcher.ask(
        'connect',
        async () => {
          await Promise.all([dispatcher.queue.waitUntilReady(), dispatcher.events.waitUntilReady()]);
          await dispatcher.queue.setGlobalConcurrency(opts.limit());
        },
        OPEN_MS,
      );
    } catch (err) {
      void dispatcher.close().catch(() => {}); // not awaited: closing waits for a connection that is not coming
      throw new QueueUnavailableError(`${(err as Error).message} Start Redis there, or unset TILTH_QUEUE to run sessions inside tilth serve.`);
    }
    await dispatcher.refresh();
    return dispatcher;
  }

  request(sessionId: string): Promise<RunState> {
    const pending = this.requesting.get(sessionId);
    if (pending) return pending;
    const asked = this.requestNow(sessionId).finally(() => this.requesting.delete(sessionId));
    this.requesting.set(sessionId, asked);
    return asked;
  }

  private async requestNow(sessionId: string): Promise<RunState> {
    const current = this.state(sessionId);
    if (current.state !== 'idle') return current;
    const jobId = runJobId(sessionId);
    await this.ask('queue the run', async () => {
      const existing = await this.queue.getJob(jobId);
      if (existing) {
        // Ours, queued or running (the state was not read yet): a second click adds nothing.
        if (this.runOf(existing)) return;
        // Not ours: under the session's job id, it would turn the add below into nothing.
        await existing.remove().catch(() => {});
      }
      // The request first: the worker runs the job only while it is open.
      const { request_id } = this.opts.store.session(sessionId).runRequest.open();
      await this.queue.add('run', this.seal('run', sessionId, { request: request_id }), { jobId, removeOnComplete: true, removeOnFail: true });
    });
    await this.refresh();
    return this.state(sessionId);
  }

  async cancel(sessionId: string): Promise<boolean> {
    const { job, state, run } = await this.jobOf(sessionId);
    if (!job || !STOPPABLE_WHILE_WAITING.has(state)) return false;
    // Closed before the job goes: a copy of it added back to Redis meanwhile cannot run.
    if (run) this.opts.store.session(sessionId).runRequest.close(run.body.request);
    try {
      await job.remove();
    } catch {
      return false; // a worker took it meanwhile: it is running now
    }
    await this.refresh();
    return run !== null;
  }

  async stop(sessionId: string, reason: string): Promise<boolean> {
    const { state, run } = await this.jobOf(sessionId);
    if (state !== 'active' || !run) return false;
    await this.ask('send the stop', () => this.send(this.seal('stop', sessionId, { request: run.body.request, reason })));
    const deadline = Date.now() + (this.opts.stopWaitMs ?? 60_000);
    while (Date.now() < deadline && (await this.isActive(sessionId))) await new Promise((resolve) => setTimeout(resolve, 100));
    await this.refresh();
    return true;
  }

  async note(sessionId: string, text: string): Promise<SteeringNote | null> {
    // Not running anywhere: the server writes it, for the next run to read.
    const { state, run } = await this.jobOf(sessionId);
    if (state !== 'active' || !run) return null;
    const noteId = `n-${randomBytes(4).toString('hex')}`;
    const body = { request: run.body.request, note_id: noteId, ts: new Date().toISOString(), text };
    await this.ask('send the note', () => this.send(this.seal('note', sessionId, body)));
    // Written by the worker into the shared folder: wait until it is there.
    const session = this.opts.store.session(sessionId);
    const deadline = Date.now() + NOTE_WAIT_MS;
    while (Date.now() < deadline) {
      const written = session.steering.read().find((n) => n.note_id === noteId);
      if (written) return written;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new AppError('note_not_delivered', `The worker running ${sessionId} did not take the note within ${NOTE_WAIT_MS / 1000} s; send it again.`);
  }

  private seal<K extends MessageKind>(kind: K, sessionId: string, body: MessageBody<K>): Envelope<K> {
    return seal(this.opts.signing.key, kind, { queue: this.queueName, session: sessionId }, body);
  }

  private send(message: Envelope<'stop' | 'note'>): Promise<number> {
    return this.publisher.publish(controlChannel(this.queueName), JSON.stringify(message));
  }

  /** The job's signed request to run, or null (said once per kind of problem) when it is not one this Tilth made. */
  private runOf(job: Job): RunJobData | null {
    const opened = openMessage(this.opts.signing.key, { kinds: ['run'], queue: this.queueName }, job.data);
    if (!opened.ok) {
      this.problems.report(opened.problem, `run job ${job.id}`);
      return null;
    }
    // Signed for one session, it must sit under that session's job id (which Stop and Cancel look up).
    if (job.id !== runJobId(opened.message.session)) {
      this.problems.report('misplaced', `run job ${job.id}`);
      return null;
    }
    return opened.message;
  }

  /** Whether a worker holds the session's run now, asked of the queue (not what it said last). */
  async isActive(sessionId: string): Promise<boolean> {
    const { state, run } = await this.jobOf(sessionId);
    return state === 'active' && run !== null;
  }

  /**
   * Whether a worker still holds the session's run: active, ours, and its lease (BullMQ's lock on
   * the job, which the worker renews every half lease) not run out. A run whose lease ran out had
   * a worker that died or froze: its job is taken off the queue, so that Resume can queue it again.
   */
  async isHeld(sessionId: string): Promise<boolean> {
    const { job, state, run } = await this.jobOf(sessionId);
    if (state !== 'active' || !run || job?.id === undefined) return false;
    const lock = `${this.queue.toKey(job.id)}:lock`;
    if ((await this.ask('read the run lease', () => this.publisher.exists(lock))) === 1) return true;
    await job.remove().catch(() => {});
    return false;
  }

  /** The session's job, its state ('none' without one) and its signed request (null if not ours), asked of the queue now. */
  private async jobOf(sessionId: string): Promise<{ job: Job<RunJobData> | undefined; state: string; run: RunJobData | null }> {
    return this.ask('read the queue', async () => {
      const job = await this.queue.getJob(runJobId(sessionId));
      return { job, state: job ? await job.getState() : 'none', run: job ? this.runOf(job) : null };
    });
  }

  /** One exchange with Redis, within ASK_MS; otherwise queue_unavailable saying what failed. */
  private async ask<T>(what: string, exchange: () => Promise<T>, ms = ASK_MS): Promise<T> {
    try {
      return await withinMs(ms, exchange());
    } catch (err) {
      throw new QueueUnavailableError(
        `Could not ${what}: the run queue at ${shownQueueUrl(this.opts.url)} did not answer (${err instanceof Error ? err.message : String(err)}). Is Redis running?`,
      );
    }
  }

  describe(): Promise<QueueView> {
    return viewOfQueue(this.queue, this.opts.url, ASK_MS);
  }

  state(sessionId: string): RunState {
    return this.states.get(sessionId) ?? { state: 'idle', queue_position: null };
  }

  limitChanged(): void {
    void this.queue.setGlobalConcurrency(this.opts.limit()).catch((err: Error) => this.opts.logger.warn(`run queue: ${err.message}`));
  }

  /** Reads which runs are active and which wait, in order; one read at a time, the last change always read. */
  private refresh(): Promise<void> {
    if (this.refreshing) {
      this.again = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      do {
        this.again = false;
        try {
          const [active, waiting] = await Promise.all([this.queue.getActive(), this.queue.getWaiting()]);
          const next = new Map<string, RunState>();
          for (const job of active) {
            const run = this.runOf(job);
            if (run) next.set(run.session, { state: 'running', queue_position: null });
          }
          // Oldest first: the next to run is 1. A job this Tilth did not sign takes no place.
          let position = 0;
          for (const job of waiting) {
            const run = this.runOf(job);
            if (run) next.set(run.session, { state: 'queued', queue_position: ++position });
          }
          const changed = JSON.stringify([...next]) !== JSON.stringify([...this.states]);
          this.states = next;
          if (changed) this.opts.onChange?.();
          if (this.unreachable) this.opts.logger.info('run queue: reachable again');
          this.unreachable = false;
        } catch (err) {
          // Once per outage, not every 2 s.
          if (!this.unreachable) this.opts.logger.warn(`run queue: could not read it (${err instanceof Error ? err.message : String(err)})`);
          this.unreachable = true;
        }
      } while (this.again);
    })().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.refreshing;
    await Promise.all([this.queue.close(), this.events.close(), this.publisher.quit().catch(() => {})]);
  }
}
