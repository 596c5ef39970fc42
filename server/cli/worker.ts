/**
 * `tilth worker [--slots N] [--sessions-dir DIR]`: takes runs from the queue (TILTH_QUEUE) and
 * runs them here with the same engine and configuration files as `tilth serve`, on the same
 * sessions folder. SIGTERM or Ctrl+C stops its runs (they end stopped/interrupted and can be
 * resumed) and exits.
 */
import { parseArgs } from 'node:util';
import { CliExit } from './cli-exit.ts';
import { storeOptionsOf, type ConfigKey } from '../config/config.ts';
import { runJobFor } from '../engine/run-jobs.ts';
import type { Logger } from '../jobs/job-runner.ts';
import { shownQueueUrl } from '../jobs/queue.ts';
import { queueKey } from '../jobs/queue-key.ts';
import { QueueWorker, workerName } from '../jobs/queue-worker.ts';
import { LiveConfig } from '../config/live-config.ts';
import { ModelClient } from '../llm/client.ts';
import { detectSandbox } from '../proc/sandbox.ts';
import { SessionStore } from '../store/session-store.ts';

export const WORKER_HELP = `Usage: tilth worker [--slots N] [--sessions-dir DIR]

Runs the sessions queued in TILTH_QUEUE (a Redis URL), N at a time (default 1), on the same
sessions folder as the tilth serve that queued them, with the same TILTH_HOME (its queue.key
signs what they tell each other through Redis). Its runs name it in their session_start.
SIGTERM or Ctrl+C stops its runs (they can be resumed) and exits.`;

export async function workerVerb(args: string[], log: Logger): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { slots: { type: 'string', default: '1' }, 'sessions-dir': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${WORKER_HELP}\n`);
    return;
  }
  const slots = Number(values.slots);
  if (!Number.isInteger(slots) || slots < 1 || slots > 64) throw new CliExit(2, `--slots must be a whole number from 1 to 64, got "${values.slots}"`);
  const flags: Partial<Record<ConfigKey, string>> = {};
  if (values['sessions-dir'] !== undefined) flags.TILTH_SESSIONS_DIR = values['sessions-dir'];
  const live = new LiveConfig({ flags });
  const config = live.current;
  if (!config.queueUrl)
    throw new CliExit(2, 'tilth worker takes runs from a queue: set TILTH_QUEUE to a Redis URL (redis://127.0.0.1:6379), the same as tilth serve has.');
  const storeOptions = storeOptionsOf(config);
  const sandbox = detectSandbox(storeOptions.sandbox.mode);
  log.info(`Shell sandbox: ${sandbox.available ? 'on' : `off — ${sandbox.detail}`}`);

  const store = new SessionStore(config.sessionsDir, storeOptions);
  const llm = new ModelClient({ endpoints: config.roles, logger: log });
  const name = `worker ${workerName()}`;
  const makeJob = runJobFor({ llm, config: live, runner: { kind: 'worker', name } });
  const signing = queueKey(config.home);
  const worker = await QueueWorker.start({ url: config.queueUrl, signing, store, slots, makeJob, logger: log, leaseMs: config.queueLeaseMs });
  log.info(`${name}: taking runs from ${worker.queue} at ${shownQueueUrl(config.queueUrl)}, ${slots} at a time; sessions in ${config.sessionsDir}`);

  await new Promise<void>((resolve) => {
    let stopping = false;
    const stop = () => {
      if (stopping) return;
      stopping = true;
      log.info(`${name}: stopping its runs (they can be resumed)…`);
      void worker.close('worker shutting down').then(resolve, resolve);
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  store.close();
  log.info(`${name}: stopped`);
}
