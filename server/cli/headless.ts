/**
 * The headless verbs (SPEC §11): `tilth info [id]`, `tilth run <id>`, `tilth resume <id>`,
 * `tilth rewind <id> --after seed|<task>` and `tilth reset <id>`, sharing the engine and the store with the server. A run holds the
 * session's run lock, so the server (or another terminal) cannot drive it at the same time.
 *
 * Exit codes: 0 all done (for rewind: rewound); 1 a task failed, a cap was hit or the run (or
 * rewind) was refused; 2 usage or configuration errors; 130 interrupted (Ctrl+C stops gracefully
 * and leaves it resumable).
 */
import fs from 'node:fs';
import readline from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { progressLine } from '../../shared/event-text.ts';
import { NewTaskSchema, RewindTargetSchema, type RewindPlan } from '../../shared/review.ts';
import { formatTokens, formatUsd } from '../../shared/format.ts';
import { storeOptionsOf, type Config } from '../config/config.ts';
import { AppError } from '../errors/app-error.ts';
import { planRewind, rewindSession } from '../engine/rewind.ts';
import { runDepsFrom, runLocked } from '../engine/run-jobs.ts';
import { detectSandbox } from '../proc/sandbox.ts';
import { removeWorktree } from '../git/repo.ts';
import { JobRunner, type Logger } from '../jobs/job-runner.ts';
import { ModelClient } from '../llm/client.ts';
import { DemoService } from '../demo/demo.ts';
import { sendBack } from '../review/send-back.ts';
import { STOP_WORDS } from '../../shared/event-text.ts';
import { AddTaskCancelledError, AddTaskTimedOutError, addTaskLocked } from '../seed/add-task-job.ts';
import { SessionStore } from '../store/session-store.ts';
import { isSessionId } from '../store/session-id.ts';
import { CliExit } from './cli-exit.ts';

export const HEADLESS_HELP: Record<string, string> = {
  info: `Usage: tilth info [id]

Lists sessions, newest first: status, task progress, cost and worktree. With an id, shows that
session in detail, including whether its worktree is missing (stale).`,
  run: `Usage: tilth run <id>

Runs a prepared session in this terminal: one line per step that matters, a summary at the end.
Ctrl+C stops gracefully; the session stays resumable (tilth resume <id>).
Exit codes: 0 all tasks done; 1 a task failed, a cap was hit, or the run was refused; 2 usage or
configuration error; 130 interrupted.`,
  resume: `Usage: tilth resume <id>

Resumes a stopped session in this terminal (a failed task is retried with a fresh budget).
Exit codes as for tilth run.`,
  reopen: `Usage: tilth reopen <id> <task> [--note TEXT] [--comment COMMENT_ID ...]

Sends a done task back as its next revision: the note and the review comments (every open one
written on the task's diff, or those named with --comment) become its requirements. The session
is then stopped; tilth resume <id> works on the revision and commits it as "<task> (rev n)".
Exit codes: 0 sent back; 1 refused (the task is not done, the session is running or merged…);
2 usage error.`,
  rewind: `Usage: tilth rewind <id> --after seed|<task> [--dry-run]

Moves the session branch back to after the seed, or after a done task (T-001): prints what it
will do, then does it. The old tip is kept as refs/tilth/backups/<id>-rewind-<n>; later tasks go
back to pending, their ledgers and checks kept as earlier attempts. The session is then stopped:
continue with tilth resume <id>. --dry-run prints the plan only.
Exit codes: 0 rewound (or planned); 1 refused (running, merged, archived, a task not done,
nothing to rewind); 2 usage error.`,
  'add-task': `Usage: tilth add-task <id> --title TEXT --description TEXT --criterion TEXT [--criterion TEXT ...]

Adds a task to a finished or stopped session: the interview's model writes its acceptance test
(checked like the seed's, and proven to fail before the work), committed as "seed: added <task>".
The session is then stopped; tilth resume <id> builds it. Meanwhile the session is held: nothing
else runs or changes it. Ctrl+C cancels (nothing is added); past TILTH_ADD_TASK_SECONDS (default
180) it gives up, having added nothing.
Exit codes: 0 added; 1 refused (the session has not run, is running, merged or archived; the model
wrote no acceptable test; the deadline passed); 2 usage or configuration error; 130 cancelled.`,
  reset: `Usage: tilth reset <id> [--yes]

Discards a session: removes its worktree, its session/<id> branch and its folder. Asks first;
--yes skips the question. The source repository's own files are never touched.`,
};

function openStore(config: Config): SessionStore {
  return new SessionStore(config.sessionsDir, storeOptionsOf(config));
}

function sessionArg(verb: string, positionals: string[], store: SessionStore): string {
  const id = positionals[0];
  if (!id || positionals.length > 1) throw new CliExit(2, `${HEADLESS_HELP[verb]}`);
  if (!isSessionId(id)) throw new CliExit(2, `"${id}" is not a session id (they look like 20260525-103149-3800ea). tilth info lists them.`);
  if (!store.session(id).exists()) throw new CliExit(2, `No session ${id} under ${store.root}. tilth info lists them.`);
  return id;
}

export function info(config: Config, positionals: string[], out: (s: string) => void): void {
  const store = openStore(config);
  if (positionals.length === 0) {
    const items = store.list();
    if (items.length === 0) {
      out(`No sessions under ${store.root} yet. Start one with tilth serve.`);
      return;
    }
    for (const s of items) {
      const cp = s.problem ? null : store.session(s.id).checkpoint.read();
      const stale = cp && !fs.existsSync(cp.worktree) && s.status !== 'archived' ? ' (worktree missing)' : '';
      out(
        `${s.id}  ${s.status.padEnd(12)} ${`${s.tasks.done}/${s.tasks.total}`.padStart(5)} tasks  ${formatUsd(s.cost_usd).padStart(7)}  ${s.title || s.brief.split('\n')[0] || ''}`,
      );
      if (cp) out(`    ${cp.worktree}${stale}`);
      if (s.problem) out(`    problem: ${s.problem}`);
    }
    return;
  }
  const id = sessionArg('info', positionals, store);
  const cp = store.session(id).checkpoint.read();
  const prd = store.session(id).prd.tasks();
  const worktreeOk = fs.existsSync(cp.worktree);
  out(`session   ${id}`);
  out(
    `status    ${cp.status}${cp.last_stop ? ` (last stop: ${STOP_WORDS[cp.last_stop]})` : ''}${store.session(id).runLock.heldElsewhere() ? ' — being run by another process now' : ''}`,
  );
  if (cp.last_error) out(`          ${cp.last_error}`);
  out(`title     ${cp.title || cp.brief.split('\n')[0]}`);
  out(`source    ${cp.source}`);
  out(`branch    ${cp.branch} (from ${cp.base_branch ?? 'a detached HEAD'} at ${cp.base_sha?.slice(0, 12) ?? '?'})`);
  out(
    `worktree  ${cp.worktree}${worktreeOk ? '' : cp.status === 'archived' ? ' (removed: archived)' : ' (STALE: missing; a run re-creates it from the branch)'}`,
  );
  out(
    `spend     ${formatUsd(cp.usage.cost_usd)} run, ${formatTokens(cp.usage.total_tokens)}, ${cp.usage.calls} model calls; interview ${formatUsd(cp.interview_usage.cost_usd)}`,
  );
  if (prd.length > 0) {
    out('tasks');
    for (const t of prd) out(`  ${t.id}  ${t.status.padEnd(11)} ${t.title}`);
  }
}

const NO_PROVIDER = 'No model provider is configured: set TILTH_BASE_URL, TILTH_API_KEY and TILTH_WORKER_MODEL (tilth config shows the values).';

/**
 * The model a session's work goes to from the terminal: a demo session's is the scripted demo
 * model, started in this process as \`tilth serve\` starts it (no provider needed); any other's
 * is the configured provider. \`close\` ends what was started.
 */
async function modelFor(config: Config, store: SessionStore, id: string): Promise<{ llm: ModelClient; close: () => Promise<void> }> {
  if (store.session(id).checkpoint.read().demo) {
    const demo = await DemoService.start(store);
    return { llm: demo.clientFor(id)!, close: () => demo.close() };
  }
  if (!config.roles.worker && !config.roles.prep) throw new CliExit(2, NO_PROVIDER);
  return { llm: new ModelClient({ endpoints: config.roles }), close: async () => {} };
}

export async function runVerb(verb: 'run' | 'resume', config: Config, positionals: string[], out: (s: string) => void): Promise<number> {
  const store = openStore(config);
  const id = sessionArg(verb, positionals, store);
  const { status } = store.session(id).checkpoint.read();
  if (verb === 'run' && status !== 'prepared') {
    throw new CliExit(
      1,
      status === 'stopped' ? `Session ${id} is stopped; continue it with tilth resume ${id}.` : `Only a prepared session can run; ${id} is ${status}.`,
    );
  }
  if (verb === 'resume' && status !== 'stopped') {
    throw new CliExit(
      1,
      status === 'prepared' ? `Session ${id} has not run yet; start it with tilth run ${id}.` : `Only a stopped session can be resumed; ${id} is ${status}.`,
    );
  }
  try {
    store.session(id).runLock.assertFree();
  } catch (err) {
    throw new CliExit(1, (err as Error).message);
  }
  if (!config.roles.worker && !store.session(id).checkpoint.read().demo) throw new CliExit(2, NO_PROVIDER);
  const sandbox = detectSandbox(store.sandbox.mode);
  out(`shell sandbox: ${sandbox.available ? 'on' : `off — ${sandbox.detail}`}`);

  const logger: Logger = { info: () => {}, warn: (m) => process.stderr.write(`warning: ${m}\n`), error: (m) => process.stderr.write(`error: ${m}\n`) };
  const jobs = new JobRunner(store, logger);
  const { llm, close } = await modelFor(config, store, id);
  const unsubscribe = store.bus.subscribe(id, (event) => {
    const line = progressLine(event);
    if (line) out(line);
  });
  let interrupted = false;
  const onSignal = () => {
    if (interrupted) process.exit(130); // a second Ctrl+C: stop waiting
    interrupted = true;
    out('\nstopping (the current step ends, everything is kept)…');
    void jobs.stop(id, 'interrupted from the terminal');
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    jobs.start('run', id, (ctx) => runLocked(ctx, runDepsFrom(config, llm), 'cli'));
    while (jobs.forSession(id)) await new Promise((r) => setTimeout(r, 50));
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    unsubscribe();
    await close();
  }
  const cp = store.session(id).checkpoint.read();
  const prd = store.session(id).prd.tasks();
  out('');
  out(
    `${cp.status}${cp.last_stop && cp.status !== 'all_done' ? ` (${cp.last_stop})` : ''}: ${prd.filter((t) => t.status === 'done').length} of ${prd.length} tasks done, ${formatUsd(cp.usage.cost_usd)}, ${formatTokens(cp.usage.total_tokens)}`,
  );
  if (cp.last_error && cp.status !== 'all_done') out(cp.last_error);
  store.close();
  if (cp.status === 'all_done') return 0;
  if (interrupted || cp.last_stop === 'interrupted') return 130;
  return 1;
}

export async function reopen(config: Config, rest: string[], out: (s: string) => void): Promise<void> {
  const { values, positionals } = parseArgs({
    args: rest,
    options: { note: { type: 'string' }, comment: { type: 'string', multiple: true } },
    strict: true,
    allowPositionals: true,
  });
  const [sessionId, taskId, ...extra] = positionals;
  if (!taskId || extra.length > 0) throw new CliExit(2, HEADLESS_HELP.reopen!);
  const store = openStore(config);
  const id = sessionArg('reopen', [sessionId!], store);
  try {
    store.session(id).runLock.assertFree();
    const { task, send_back } = await sendBack(store.session(id), taskId, { note: values.note ?? null, comment_ids: values.comment });
    out(
      `${task.id} sent back as revision ${send_back.revision}${send_back.comments.length > 0 ? ` with ${send_back.comments.length} comment${send_back.comments.length === 1 ? '' : 's'}` : ''}. Work on it: tilth resume ${id}`,
    );
  } catch (err) {
    if (err instanceof AppError && err.status < 500) throw new CliExit(1, err.message);
    throw err;
  } finally {
    store.close();
  }
}

/**
 * `tilth add-task`: holds the session while the model writes the test, within TILTH_ADD_TASK_SECONDS.
 * Ctrl+C cancels it — nothing is added — and exits 130; a second Ctrl+C stops waiting.
 */
export async function addTaskVerb(config: Config, rest: string[], out: (s: string) => void): Promise<number> {
  const { values, positionals } = parseArgs({
    args: rest,
    options: { title: { type: 'string' }, description: { type: 'string' }, criterion: { type: 'string', multiple: true } },
    strict: true,
    allowPositionals: true,
  });
  const input = NewTaskSchema.safeParse({ title: values.title, description: values.description, acceptance_criteria: values.criterion ?? [] });
  if (positionals.length !== 1 || !input.success) throw new CliExit(2, HEADLESS_HELP['add-task']!);
  const store = openStore(config);
  const cancel = new AbortController();
  const onSignal = () => {
    if (cancel.signal.aborted) process.exit(130);
    out('\ncancelling (nothing is added)…');
    cancel.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const id = sessionArg('add-task', positionals, store);
    const model = await modelFor(config, store, id);
    out(`The model is writing the test of the new task (at most ${Math.round(config.addTaskDeadlineMs / 1000)} s; Ctrl+C cancels)…`);
    const added = await addTaskLocked(store.session(id), model.llm, input.data, {
      holder: 'cli',
      deadlineMs: config.addTaskDeadlineMs,
      repeats: config.proofRepeats,
      signal: cancel.signal,
    }).finally(() => model.close());
    out(`Added ${added.task.id} (${added.task.title}) with ${added.test_file}. Build it: tilth resume ${id}`);
    return 0;
  } catch (err) {
    if (err instanceof AddTaskCancelledError) {
      out(err.message);
      return 130;
    }
    if (err instanceof AddTaskTimedOutError || (err instanceof AppError && err.status < 500)) throw new CliExit(1, err.message);
    throw err;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    store.close();
  }
}

function planLines(plan: RewindPlan): string[] {
  const where = plan.after === 'seed' ? 'the seed' : plan.after;
  const lines = [`rewind ${plan.rewind}: to after ${where} — ${plan.target.sha.slice(0, 12)} ${plan.target.subject}`];
  lines.push(`  tip now: ${plan.tip.sha.slice(0, 12)} ${plan.tip.subject}`);
  for (const c of plan.leaving) lines.push(`  leaves the branch: ${c.sha.slice(0, 12)} ${c.subject}`);
  for (const c of plan.replayed) lines.push(`  put back on top (a task added after the run keeps its test): ${c.subject}`);
  lines.push(`  back to pending: ${plan.tasks.length > 0 ? plan.tasks.join(', ') : 'none'}`);
  if (plan.archived.length > 0) lines.push(`  archived as earlier attempts: ${plan.archived.join(', ')}`);
  if (plan.uncommitted.length > 0) lines.push(`  uncommitted changes discarded: ${plan.uncommitted.join(', ')}`);
  lines.push(`  the old tip is kept as ${plan.backup_ref}`);
  return lines;
}

/** `tilth rewind <id> --after …`: the plan, then the rewind; a refusal is exit 1 with the server's words. */
export async function rewindVerb(
  config: Config,
  positionals: string[],
  options: { after: string | undefined; dryRun: boolean },
  out: (s: string) => void,
): Promise<number> {
  const store = openStore(config);
  try {
    const id = sessionArg('rewind', positionals, store);
    const after = RewindTargetSchema.safeParse(options.after);
    if (!after.success) throw new CliExit(2, `--after must be "seed" or a task id like T-001.\n\n${HEADLESS_HELP.rewind}`);
    const session = store.session(id);
    try {
      session.runLock.assertFree();
      const plan = await planRewind(session, after.data);
      for (const line of planLines(plan)) out(line);
      if (options.dryRun) return 0;
      const result = await rewindSession(session, after.data);
      out(`Rewound ${id}: ${result.from_sha.slice(0, 12)} → ${result.to_sha.slice(0, 12)}; the session is stopped. Continue with tilth resume ${id}.`);
      return 0;
    } catch (err) {
      if (err instanceof AppError && err.status < 500) throw new CliExit(1, err.message);
      throw err;
    }
  } finally {
    store.close();
  }
}

export async function reset(config: Config, positionals: string[], yes: boolean, out: (s: string) => void): Promise<void> {
  const store = openStore(config);
  const id = sessionArg('reset', positionals, store);
  try {
    store.session(id).runLock.assertFree();
  } catch (err) {
    throw new CliExit(1, (err as Error).message);
  }
  const cp = store.session(id).checkpoint.read();
  if (!yes) {
    if (!process.stdin.isTTY) throw new CliExit(2, `Refusing to discard ${id} without confirmation; pass --yes.`);
    const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
    const answer = await rl.question(
      `Discard session ${id} (${cp.status}): remove ${cp.worktree}, the branch ${cp.branch} and the session folder? Type the id to confirm: `,
    );
    rl.close();
    if (answer.trim() !== id) throw new CliExit(1, 'Not confirmed; nothing was removed.');
  }
  if (fs.existsSync(cp.source)) await removeWorktree(cp.source, cp.worktree, cp.branch);
  store.session(id).remove();
  store.close();
  out(`Discarded ${id}.`);
}

export interface VerbArgs {
  positionals: string[];
  help: boolean;
  yes: boolean;
  after: string | undefined;
  dryRun: boolean;
}

/** `yes` only for reset, `after` and `dry-run` only for rewind: any other verb refuses them. */
export function parseVerbArgs(args: string[], verb: 'info' | 'run' | 'resume' | 'reset' | 'rewind'): VerbArgs {
  const { values, positionals } = parseArgs({
    args,
    options: {
      help: { type: 'boolean', short: 'h' },
      ...(verb === 'reset' ? { yes: { type: 'boolean', short: 'y' } } : {}),
      ...(verb === 'rewind' ? { after: { type: 'string' }, 'dry-run': { type: 'boolean' } } : {}),
    },
    strict: true,
    allowPositionals: true,
  });
  const v = values as { help?: boolean; yes?: boolean; after?: string; 'dry-run'?: boolean };
  return { positionals, help: v.help === true, yes: v.yes === true, after: v.after, dryRun: v['dry-run'] === true };
}
