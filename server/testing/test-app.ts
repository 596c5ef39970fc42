/** Builds a real app over a throwaway sessions root, for integration tests. */
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach } from 'vitest';
import type { AppDeps } from '../http/base/app-deps.ts';
import { buildApp } from '../http/app.ts';
import { DemoService, type DemoOptions } from '../demo/demo.ts';
import { LiveConfig } from '../config/live-config.ts';
import { createLocalDispatcher } from '../engine/run-jobs.ts';
import type { RunDeps } from '../engine/run-context.ts';
import { JobRunner, type Logger } from '../jobs/job-runner.ts';
import { ModelClient } from '../llm/client.ts';
import type { StreamOptions } from '../http/base/app-deps.ts';
import { SessionStore } from '../store/session-store.ts';
import { tempDir } from './temp-dir.ts';

export { tempDir };

export const TEST_TOKEN = 'test-token-0123456789abcdef';

export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };

/** A fresh SessionStore over a temp root for each test (registers its own vitest hooks). */
export function useTempStore(): { readonly root: string; readonly store: SessionStore } {
  const current = { root: '', store: null as SessionStore | null };
  beforeEach(() => {
    current.root = tempDir();
    current.store = new SessionStore(current.root);
  });
  afterEach(() => {
    current.store?.close();
    fs.rmSync(current.root, { recursive: true, force: true });
  });
  return {
    get root() {
      return current.root;
    },
    get store() {
      if (!current.store) throw new Error('useTempStore: only inside a test');
      return current.store;
    },
  };
}

export interface TestApp {
  app: FastifyInstance;
  deps: AppDeps;
  store: SessionStore;
  home: string;
  /** Sets the port the Host/Origin checks expect (inject uses localhost:80). */
  setPort(port: number): void;
  /** Stops jobs and the app; `keepHome` leaves the sessions on disk (a restart test). */
  close(options?: { keepHome?: boolean }): Promise<void>;
}

export interface TestAppOptions {
  env?: NodeJS.ProcessEnv;
  stream?: StreamOptions;
  webRoot?: string;
  /** Run tuning (short timeouts, a fake clock). */
  run?: Partial<RunDeps>;
  /** Reuse a home (and so its sessions) from an earlier app: a server restart. */
  home?: string;
  /** Demo mode tuning (a pause before each scripted reply). */
  demo?: DemoOptions;
  /** Environment detection for new sessions (until detection lands, tests say what a repository has). */
  projectEnv?: AppDeps['projectEnv'];
}

export async function makeTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const home = options.home ?? tempDir();
  // The mutation probe is off unless a test turns it on: it adds seconds to every accepted task.
  const live = new LiveConfig({ env: { TILTH_MUTATION_SECONDS: '0', ...options.env }, home });
  const config = live.current;
  const store = new SessionStore(config.sessionsDir);
  const jobs = new JobRunner(store, silentLogger);
  const llm = new ModelClient({ endpoints: config.roles, retry: { baseDelayMs: 1, maxAttempts: 2 } });
  const demo = await DemoService.start(store, options.demo);
  let port = 80;
  const deps: AppDeps = {
    config: live,
    store,
    jobs,
    runs: createLocalDispatcher({ store, jobs, llm, llmFor: (id) => demo.clientFor(id), config: live, tuning: { emptyBackoffMs: () => 1, ...options.run } }),
    demo,
    llm,
    interview: { emptyBackoffMs: () => 1 },
    security: { token: TEST_TOKEN, port: () => port },
    version: '0.0.0-test',
    serverId: 'test-server',
    webRoot: options.webRoot ?? path.join(home, 'no-web-build'),
    ...(options.stream ? { stream: options.stream } : {}),
    ...(options.projectEnv ? { projectEnv: options.projectEnv } : {}),
  };
  const app = await buildApp(deps);
  return {
    app,
    deps,
    store,
    home,
    setPort: (p) => {
      port = p;
    },
    close: async (closeOptions = {}) => {
      await jobs.stopAll();
      await app.close();
      await demo.close();
      store.close();
      if (!closeOptions.keepHome) fs.rmSync(home, { recursive: true, force: true });
    },
  };
}

export const auth = { authorization: `Bearer ${TEST_TOKEN}` };
