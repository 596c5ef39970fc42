/**
 * What the HTTP layer is given: the store, the job runners, the model client, the configuration
 * and the security policy. Its own module so that `app.ts` and the route modules both import it
 * without importing each other.
 */
import type { FastifyServerOptions } from 'fastify';
import type { ProjectEnv } from '../../../shared/project-env.ts';
import type { DemoService } from '../../demo/demo.ts';
import type { InterviewDeps } from '../../interview/interviewer.ts';
import type { JobRunner } from '../../jobs/job-runner.ts';
import type { RunDispatcher } from '../../jobs/dispatcher.ts';
import type { LiveConfig } from '../../config/live-config.ts';
import type { ModelClient } from '../../llm/client.ts';
import type { SecurityPolicy } from './security.ts';
import type { SessionStore } from '../../store/session-store.ts';

/** Tuning of the WebSocket stream (tests shorten the heartbeat and shrink the buffers). */
export interface StreamOptions {
  heartbeatMs?: number;
  maxBufferedBytes?: number;
  drainTimeoutMs?: number;
}

export interface AppDeps {
  /** The one source of truth for the configuration; the settings page changes it. */
  config: LiveConfig;
  store: SessionStore;
  jobs: JobRunner;
  /** Starts, queues and stops runs: in this process, or through a durable queue. */
  runs: RunDispatcher;
  /** Demo mode's scripted model; absent in tests that do not need it. */
  demo?: DemoService;
  llm: ModelClient;
  /** Interview tuning (tests shorten the empty-reply backoff). */
  interview?: Omit<InterviewDeps, 'llm'>;
  /** Environment detection for new sessions' worktrees (see SeedingDeps.projectEnv). */
  projectEnv?: (root: string) => Promise<ProjectEnv>;
  security: SecurityPolicy;
  version: string;
  /** Distinguishes launches, so a reconnecting client can tell it reached a new server. */
  serverId: string;
  /** Folder of the built SPA (index.html + assets). */
  webRoot: string;
  /**
   * The repository `tilth serve` was started in (its root), offered as a new session's workspace.
   * Or how to ask git for it, once, when first needed: the server listens meanwhile (issue 32).
   */
  defaultWorkspace?: string | null | (() => Promise<string | null>);
  stream?: StreamOptions;
  logger?: FastifyServerOptions['logger'];
}
