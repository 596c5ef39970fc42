/**
 * A session's run as a job: what the server's runs, a queue worker's and `tilth run`'s are made
 * from (the configuration a run takes, its run lock), apart from the run loop itself (run.ts), so
 * that a server loads the loop at its first run rather than at its start (issue 32).
 */
import type { Config } from '../config/config.ts';
import type { LiveConfig } from '../config/live-config.ts';
import type { JobContext, JobFn, JobRunner } from '../jobs/job-runner.ts';
import { LocalDispatcher } from '../jobs/local-dispatcher.ts';
import type { ModelClient } from '../llm/client.ts';
import type { SessionStore } from '../store/session-store.ts';
import type { LockKind } from '../store/session-handle.ts';
import type { RunDeps } from './run-context.ts';

export interface RunJobOptions {
  llm: ModelClient;
  /** The model client for one session (the demo's scripted model for a demo session). */
  llmFor?: (id: string) => ModelClient | null;
  config: LiveConfig;
  tuning?: Partial<RunDeps>;
  /** Who runs it: a lock kind, and the name session_start gives (queue workers name themselves). */
  runner?: { kind: LockKind; name?: string };
}

/** A session's run as a job; `lease` names a queue worker's hold on it (see acquireRunLock). */
export type RunJobMaker = (sessionId: string, lease?: string) => JobFn;

/**
 * What a run takes from the configuration: the one place the server's runs, a queue worker's and
 * `tilth run`'s are set up from, so none of them runs without the windows, prices or caps the
 * others get.
 */
export function runDepsFrom(config: Config, llm: ModelClient): RunDeps {
  return {
    llm,
    caps: config.caps,
    contextFiles: config.contextFiles,
    mutationBudgetMs: config.mutationBudgetMs,
    proofRepeats: config.proofRepeats,
    contextWindows: config.contextWindows,
    prices: config.prices,
  };
}

/**
 * A session's run as a job. Each run takes the configuration current when it starts — caps,
 * context files, endpoints (a pinned client) — and keeps them to its end, so a settings save
 * changes the next run, never one under way (session_start records what it got).
 */
export function runJobFor(opts: RunJobOptions): RunJobMaker {
  const depsNow = (): RunDeps => ({ ...runDepsFrom(opts.config.current, opts.llm.pinned()), ...opts.tuning });
  const kind = opts.runner?.kind ?? 'serve';
  return (id, lease) => {
    const deps = { ...depsNow(), ...(opts.runner?.name ? { runner: opts.runner.name } : {}) };
    const own = opts.llmFor?.(id);
    return (job) => runLocked(job, own ? { ...deps, llm: own } : deps, kind, lease);
  };
}

/** The in-process runs of a server (or a test app): the default dispatcher. */
export function createLocalDispatcher(opts: RunJobOptions & { store: SessionStore; jobs: JobRunner }): LocalDispatcher {
  return new LocalDispatcher(
    opts.jobs,
    () => opts.config.current.maxConcurrentRuns,
    runJobFor(opts),
    () => opts.store.bus.sessionsChanged(),
  );
}

/** Runs the session while holding its run lock, so no other process drives it meanwhile. */
export async function runLocked(job: JobContext, deps: RunDeps, kind: LockKind, lease?: string): Promise<void> {
  let release: () => void;
  try {
    release = job.session.runLock.acquire(kind, lease ? { lease } : {});
  } catch (err) {
    job.logger.warn(err instanceof Error ? err.message : String(err));
    return;
  }
  try {
    // The run loop and all it uses (tools, proofs, environments) load at the first run, not with
    // the server (issue 32).
    const { runSession } = await import('./run.ts');
    await runSession(job, deps);
  } finally {
    release();
  }
}
