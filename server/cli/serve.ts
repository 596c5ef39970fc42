/**
 * `tilth serve`: detect the shell sandbox, resolve the token, make sure the SPA is built, recover
 * sessions a crash left behind, listen on loopback, print the URL, and shut down cleanly on
 * SIGINT/SIGTERM.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../http/app.ts';
import { detectSandboxAsync } from '../proc/sandbox.ts';
import { DemoService } from '../demo/demo.ts';
import { createLocalDispatcher, runJobFor } from '../engine/run-jobs.ts';
import type { RunDispatcher } from '../jobs/dispatcher.ts';
import type { QueueDispatcher } from '../jobs/queue-dispatcher.ts';
import type { QueueWorker } from '../jobs/queue-worker.ts';
import { JobRunner, reconcileRunning, recoverAfterCrash, type Logger } from '../jobs/job-runner.ts';
import { storeOptionsOf } from '../config/config.ts';
import type { LiveConfig } from '../config/live-config.ts';
import { ModelClient } from '../llm/client.ts';
import { PACKAGE_ROOT, WEB_ROOT } from '../config/package-root.ts';
import { queueKey } from '../jobs/queue-key.ts';
import { launchToken } from '../http/base/launch-token.ts';
import { SessionStore } from '../store/session-store.ts';
import { acquireServeLock, recordServeOrigin } from '../store/serve-lock.ts';
import { SessionsWatcher } from '../store/sessions-watcher.ts';

export function packageVersion(): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host) || (net.isIPv4(host) && host.startsWith('127.'));
}

export interface RunningServer {
  url: string;
  port: number;
  token: string;
  app: FastifyInstance;
  /** Starts a demo session (tilth serve --demo); resolves with its id. */
  startDemo(): Promise<string>;
  close(): Promise<void>;
}

export const consoleLogger: Logger = {
  info: (msg) => console.log(msg),
  warn: (msg, extra) => console.warn(`warning: ${msg}`, extra ?? ''),
  error: (msg, extra) => console.error(`error: ${msg}`, extra ?? ''),
};

/** Builds the SPA once if this checkout has no build yet (a fresh `npm ci`). */
export async function ensureWebBuild(log: Logger): Promise<void> {
  if (fs.existsSync(path.join(WEB_ROOT, 'index.html'))) return;
  log.info('Building the web app (first run only)…');
  try {
    const vite = await import('vite');
    await vite.build({ configFile: path.join(PACKAGE_ROOT, 'web', 'vite.config.ts'), logLevel: 'warn' });
  } catch (err) {
    log.warn(`could not build the web app; run \`npm run build\` (${err instanceof Error ? err.message : String(err)})`);
  }
}

export interface StartOptions {
  /** The repository the server was started in (see AppDeps.defaultWorkspace). */
  defaultWorkspace?: string | null | (() => Promise<string | null>);
  /** With TILTH_QUEUE: also run this many of the queue's runs in this process (--worker-slots). */
  workerSlots?: number;
}

/**
 * How often a queue server checks that every `running` session still has a live run. A dead
 * worker's lease runs out within the lease, so its session is marked within the lease plus this
 * (issue 32: within the lease plus 5 s).
 */
const RECONCILE_MS = 2_000;

export async function startServer(live: LiveConfig, logger: Logger = consoleLogger, options: StartOptions = {}): Promise<RunningServer> {
  // What is read here (host, port, sessions folder, token, sandbox) is fixed for this launch; the
  // settings page changes only what later work reads through `live`.
  const config = live.current;
  // Decided once, before any job starts: every shell and check of this server runs in the
  // sandbox its sessions' store is given (the configured mode; the home and the sessions hidden).
  const storeOptions = storeOptionsOf(config);
  // Kept in $TILTH_HOME between launches, so a restart keeps open tabs signed in (TILTH_TOKEN wins).
  const token = config.token ?? launchToken(config.home).token;
  const store = new SessionStore(config.sessionsDir, storeOptions);
  const jobs = new JobRunner(store, logger);
  // Retries are logged one line each (role, model, endpoint without credentials, the provider's words).
  const llm = new ModelClient({ endpoints: config.roles, logger });
  const demo = await DemoService.start(store);
  const runOptions = { llm, llmFor: (id: string) => demo.clientFor(id), config: live };
  // The queue's modules (BullMQ, ioredis: ~17 MB resident) load only when a queue is set.
  const queueModules = config.queueUrl
    ? await Promise.all([import('../jobs/queue-dispatcher.ts'), import('../jobs/queue-worker.ts'), import('../jobs/queue.ts')])
    : null;
  // Made on first use, shared with the workers through TILTH_HOME; refused when others can read it.
  const signing = config.queueUrl ? queueKey(config.home) : null;
  const queue: QueueDispatcher | null =
    queueModules && config.queueUrl && signing
      ? await queueModules[0].QueueDispatcher.open({
          url: config.queueUrl,
          signing,
          store,
          limit: () => live.current.maxConcurrentRuns,
          onChange: () => store.bus.sessionsChanged(),
          logger,
        })
      : null;
  const runs: RunDispatcher = queue ?? createLocalDispatcher({ ...runOptions, store, jobs });
  // Lock first: recovery below assumes no other live server owns these sessions.
  let releaseLock: () => void;
  try {
    releaseLock = acquireServeLock(store.root, { port: config.port });
  } catch (err) {
    await runs.close();
    throw err;
  }

  let port = config.port;
  let app: FastifyInstance;
  try {
    app = await buildApp({
      config: live,
      store,
      jobs,
      runs,
      demo,
      llm,
      security: { token, port: () => port, boundHost: config.host },
      version: packageVersion(),
      serverId: randomUUID(),
      webRoot: WEB_ROOT,
      defaultWorkspace: options.defaultWorkspace ?? null,
      logger: { level: 'warn', redact: ['req.headers.authorization', 'req.headers.cookie'] },
    });
    await app.listen({ host: config.host, port: config.port });
  } catch (err) {
    await runs.close();
    releaseLock();
    throw err;
  }
  port = (app.server.address() as AddressInfo).port;
  // Tried once the server answers its first requests (issue 32: a launch's checks come after
  // listening), and cached for every shell and check of this server; whatever needs it sooner
  // tries it then.
  // Its trials run as child processes the server waits for, answering requests meanwhile; they
  // start once the first requests are in (a fork of the server is not free).
  setTimeout(() => {
    void detectSandboxAsync(storeOptions.sandbox.mode).then((sandbox) => {
      if (sandbox.available) logger.info(`Shell sandbox: on (bubblewrap${sandbox.version ? ` ${sandbox.version}` : ''})`);
      else logger.warn(`Shell sandbox: off — ${sandbox.detail}`);
    });
  }, 50).unref();
  // A wildcard bind still answers on loopback; the printed link must pass the Host check.
  const shownHost = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host.includes(':') ? `[${config.host}]` : config.host;
  // The lock says where this server answers (the real port, with --port 0): `tilth token` prints the link.
  recordServeOrigin(store.root, `http://${shownHost}:${port}`);

  // Only once we own the folder and the port: a failed start must not touch anyone's sessions.
  // Interviews continue from their file: one waiting for an answer stays waiting; one that was
  // mid-call repeats that call.
  // The interview's code loads when one continues, not with the server (issue 32).
  const continueInterview = (id: string) =>
    void import('../sessions/session-setup.ts')
      .then(({ startInterviewJob }) => startInterviewJob({ store, jobs, llm, llmFor: (sid) => demo.clientFor(sid) ?? llm }, id))
      .catch((err: unknown) => logger.warn(`could not continue the interview of ${id}`, { err: err instanceof Error ? err.message : String(err) }));
  const recovered = recoverAfterCrash(store, logger, continueInterview);
  if (recovered.length > 0) logger.info(`Marked ${recovered.length} session(s) stopped after an unclean shutdown: ${recovered.join(', ')}`);
  const watcher = new SessionsWatcher(store.root, store.bus, (id) => {
    try {
      store.session(id).publishAppendedElsewhere();
    } catch (err) {
      logger.warn(`could not follow the event log of ${id}`, { err: err instanceof Error ? err.message : String(err) });
    }
  });
  watcher.start();
  // Only after recovery: a run this process takes must not be mistaken for one left by a crash.
  let queueWorker: QueueWorker | null = null;
  if (queueModules && config.queueUrl && signing) {
    const [, { QueueWorker, workerName }, { shownQueueUrl }] = queueModules;
    if (options.workerSlots) {
      const makeJob = runJobFor({ ...runOptions, runner: { kind: 'worker', name: `worker ${workerName()} (in tilth serve)` } });
      queueWorker = await QueueWorker.start({
        url: config.queueUrl,
        signing,
        store,
        slots: options.workerSlots,
        makeJob,
        logger,
        leaseMs: config.queueLeaseMs,
      });
    }
    logger.info(
      `Runs: through the queue at ${shownQueueUrl(config.queueUrl)}; ${queueWorker ? `${options.workerSlots} at once in this process, more with` : 'start'} \`tilth worker\` to run them`,
    );
  }
  // A queue worker that died leaves its session `running` with nobody behind it: the server says so.
  let reconciling = false;
  const reconciler = queue
    ? setInterval(() => {
        if (reconciling) return;
        reconciling = true;
        void reconcileRunning(
          store,
          logger,
          (id) => queueWorker?.holds(id) === true,
          (id) => queue.isHeld(id),
        )
          .then((ended) => {
            if (ended.length > 0) logger.warn(`Marked ${ended.length} session(s) stopped: the worker running them is gone: ${ended.join(', ')}`);
          })
          .finally(() => {
            reconciling = false;
          });
      }, RECONCILE_MS)
    : null;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${shownHost}:${port}/#token=${token}`,
    port,
    token,
    app,
    startDemo: async () => (await demo.createSession({ store, jobs, llm, llmFor: (sid) => demo.clientFor(sid) ?? llm })).id,
    close: () =>
      (closing ??= (async () => {
        watcher.stop();
        if (reconciler) clearInterval(reconciler);
        await queueWorker?.close('server shutting down');
        await jobs.stopAll();
        await runs.close();
        await app.close();
        await demo.close();
        store.close();
        releaseLock();
      })()),
  };
}
