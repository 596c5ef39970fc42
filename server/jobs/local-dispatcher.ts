/**
 * Runs inside this process (the default dispatcher). Runs at once are limited
 * (TILTH_MAX_CONCURRENT_RUNS); the rest wait here, first come first served. The queue lives in
 * memory: a server restart forgets it, and the queued sessions stay `prepared` or `stopped`,
 * ready to be started again.
 */
import type { RunState } from '../../shared/api.ts';
import { ConflictError } from '../errors/app-error.ts';
import type { RunDispatcher } from './dispatcher.ts';
import type { JobFn, JobRunner } from './job-runner.ts';

export class LocalDispatcher implements RunDispatcher {
  private readonly waiting: string[] = [];

  constructor(
    private readonly jobs: JobRunner,
    /** Read whenever a slot may have opened: the settings page can change it. */
    private readonly limit: () => number,
    private readonly makeJob: (sessionId: string) => JobFn,
    private readonly onChange: () => void = () => {},
  ) {}

  private running(): number {
    return this.jobs.list().filter((j) => j.kind === 'run').length;
  }

  async request(sessionId: string): Promise<RunState> {
    const current = this.state(sessionId);
    if (current.state !== 'idle') return current;
    const job = this.jobs.forSession(sessionId);
    if (job) throw new ConflictError('job_running', `Session ${sessionId} still has a ${job.kind} job running; wait for it to end.`);
    this.waiting.push(sessionId);
    this.pump();
    this.onChange();
    return this.state(sessionId);
  }

  async cancel(sessionId: string): Promise<boolean> {
    const at = this.waiting.indexOf(sessionId);
    if (at < 0) return false;
    this.waiting.splice(at, 1);
    this.onChange();
    return true;
  }

  async stop(sessionId: string, reason: string): Promise<boolean> {
    if (this.jobs.forSession(sessionId)?.kind !== 'run') return false;
    await this.jobs.stop(sessionId, reason);
    return true;
  }

  /** The limit may have grown: start whatever now fits. */
  limitChanged(): void {
    if (this.waiting.length === 0) return;
    this.pump();
    this.onChange();
  }

  async describe(): Promise<null> {
    return null;
  }

  async note(): Promise<null> {
    return null;
  }

  async close(): Promise<void> {
    this.waiting.length = 0;
  }

  state(sessionId: string): RunState {
    if (this.jobs.forSession(sessionId)?.kind === 'run') return { state: 'running', queue_position: null };
    const at = this.waiting.indexOf(sessionId);
    return at >= 0 ? { state: 'queued', queue_position: at + 1 } : { state: 'idle', queue_position: null };
  }

  private pump(): void {
    while (this.waiting.length > 0 && this.running() < this.limit()) {
      const id = this.waiting.shift()!;
      const fn = this.makeJob(id);
      this.jobs.start('run', id, async (ctx) => {
        try {
          await fn(ctx);
        } finally {
          // The runner forgets the job after this returns; look for the next one after that.
          setImmediate(() => {
            this.pump();
            this.onChange();
          });
        }
      });
    }
  }
}
