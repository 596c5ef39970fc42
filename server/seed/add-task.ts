/**
 * Adding a task after the run (issue 15): the reviewer gives a title, a description and criteria;
 * the interview's model writes the task's acceptance test through the same sink as the seed
 * (naming, declared cases, the criterion ↔ test matrix), the red proof runs its cases on the
 * current tip (each must fail for the intended reason), and the task joins the plan as pending,
 * its test committed as `seed: added <id>`. The session is left stopped: Resume builds it.
 *
 * It is a job (issue 27). It holds the session's run lock, as a run does, for as long as it works:
 * a Resume accepted meanwhile once ran beside it, and the add-task then wrote back the plan it had
 * read before the model started — finished tasks ran again and the new test landed in another
 * task's commit. While it works every other change to the session is refused (`session_busy`, or
 * `session_locked` from another process); it can be cancelled, and it has a deadline. Cancelled or
 * past its deadline, it leaves the session exactly as it was.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { PrdEntry } from '../../shared/files.ts';
import type { AddedTask, NewTask } from '../../shared/review.ts';
import { testFileRule } from '../../shared/seed.ts';
import { canSendBack } from '../../shared/session-rules.ts';
import { Agent, type AgentCall } from '../agent/runtime.ts';
import { defineTool } from '../agent/tools.ts';
import { sessionScope } from '../env/session-env.ts';
import { buildPath, ROUTES } from '../../shared/routes.ts';
import { AppError, ConflictError, NotFoundError, ValidationError } from '../errors/app-error.ts';
import { Tree } from '../fs/tree.ts';
import { commitAll, worktreeRefOf } from '../git/worktree-git.ts';
import type { JobRunner } from '../jobs/job-runner.ts';
import type { ModelClient } from '../llm/client.ts';
import { loadPrompt } from '../agent/prompts.ts';
import { proveCases } from '../proof/red-proof.ts';
import { resolveTestPath, sha256 } from '../store/seed-input.ts';
import type { LockKind, SessionHandle } from '../store/session-handle.ts';
import { ConfinedRoot, readFile } from '../tools/read-tools.ts';
import { READ_TOOLS, type ReadToolContext } from '../tools/tool-schema.ts';
import { seedKey } from './seed-review.ts';
import { validateSeedBundle } from './sink.ts';
import { existingTaskIds } from './write-seed.ts';

/** Model turns before the model is given up on. */
export const ADD_TASK_TURNS = 10;
/** Of the project's conventions file, shown in the prompt. */
const CONTEXT_CHARS = 6_000;

export const WRITE_TASK_TEST_TOOL = defineTool(
  'write_task_test',
  'The acceptance test of the new task, and which of its cases check each criterion. Ends the work when accepted.',
  z.strictObject({
    test_file: z.string().describe('Path of the test file, following the naming rule.'),
    content: z.string().describe('The whole test file.'),
    criteria_tests: z.array(z.array(z.string())).describe('Per acceptance criterion, in order, the names of the test cases that check it.'),
  }),
);

/**
 * The model's way out when the task cannot be tested as described (too vague, not about this code,
 * or beyond what it can do): its reason reaches the reviewer at once, instead of turns spent on a
 * test that cannot be right.
 */
export const DECLINE_TASK_TOOL = defineTool(
  'decline_task',
  'Say that you cannot write an acceptance test for this task as described, and why, in words the reviewer can act on. Ends the work; nothing is added.',
  z.strictObject({ reason: z.string().min(1).describe('Why not, and what the reviewer could change so that it can be tested.') }),
);

/** The model declined the task: its reason, as it said it. */
export class AddTaskDeclinedError extends AppError {
  constructor(id: string, reason: string) {
    super('add_task_declined', `The model did not add ${id}: ${reason.trim()}`);
  }
}

/** Cancelled from the page, the API or the terminal (or by the server shutting down) before anything was written. */
export class AddTaskCancelledError extends AppError {
  constructor() {
    super('add_task_cancelled', 'Adding the task was cancelled; nothing was added and the session is as it was.');
  }
}

/** The deadline passed: a 504 whose one sentence is written for the user. */
export class AddTaskTimedOutError extends AppError {
  constructor(ms: number) {
    super(
      'add_task_timed_out',
      `The model did not finish the new task's test within ${formatSeconds(ms)}, so nothing was added; check the provider and try again (TILTH_ADD_TASK_SECONDS sets the limit).`,
    );
  }

  override get expose(): boolean {
    return true;
  }
}

function formatSeconds(ms: number): string {
  const s = Math.round(ms / 1000);
  return s % 60 === 0 ? `${s / 60} minute${s === 60 ? '' : 's'}` : `${s} second${s === 1 ? '' : 's'}`;
}

export interface AddTaskOptions {
  /** Who holds the session meanwhile: `tilth serve` or the terminal's `tilth add-task`. */
  holder: LockKind;
  /** Past it the model call (or the red proof) is aborted and nothing is added (TILTH_ADD_TASK_SECONDS). */
  deadlineMs: number;
  /** Aborting it cancels the add-task. */
  signal?: AbortSignal;
  /** Runs of each new case in its red proof (TILTH_PROOF_REPEATS); the proof's default when absent. */
  repeats?: number;
}

/**
 * Adds the task while holding the session's run lock, within the deadline. Throws `session_locked`
 * when another process holds the session, AddTaskCancelledError when `signal` aborts, and
 * AddTaskTimedOutError past the deadline — in those two cases having written nothing.
 */
export async function addTaskLocked(session: SessionHandle, llm: ModelClient, input: NewTask, options: AddTaskOptions): Promise<AddedTask> {
  const release = session.runLock.acquire(options.holder, { job: 'add_task' });
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new AddTaskTimedOutError(options.deadlineMs)), options.deadlineMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal;
  // Its state is kept beside the session, so a page reloaded meanwhile finds it and its outcome.
  const started_at = new Date().toISOString();
  session.addTask.write({ state: 'running', title: input.title, started_at });
  session.emit({ type: 'add_task_started', data: { title: input.title } });
  try {
    const added = await addTask(session, llm, input, signal, options.repeats);
    session.addTask.write({
      state: 'added',
      title: input.title,
      started_at,
      ended_at: new Date().toISOString(),
      task_id: added.task.id,
      test_file: added.test_file,
      red: added.red.length,
    });
    return added;
  } catch (caught) {
    // However the abort surfaced (the model client's rejection, a killed test run), say why it stopped.
    const err = options.signal?.aborted ? new AddTaskCancelledError() : deadline.signal.aborted ? deadline.signal.reason : caught;
    const known = err instanceof AppError && err.expose;
    const code = err instanceof AppError ? err.code : 'internal_error';
    const message = known ? err.message : 'Adding the task failed on an internal error; nothing was added. The server log has the details.';
    session.addTask.write({ state: 'failed', title: input.title, started_at, ended_at: new Date().toISOString(), code, message });
    session.emit({ type: 'add_task_failed', data: { title: input.title, code, message } });
    throw err;
  } finally {
    clearTimeout(timer);
    release();
  }
}

/**
 * Runs `add` as the session's `add_task` job in `jobs`: the job runner's one-job-per-session rule
 * fences it from runs and interviews of this process, its stop is the cancel, and a shutdown
 * aborts it. Resolves or rejects with the add-task's own outcome.
 */
export function startAddTaskJob(
  jobs: JobRunner,
  sessionId: string,
  add: (session: SessionHandle, signal: AbortSignal) => Promise<AddedTask>,
): Promise<AddedTask> {
  return new Promise((resolve, reject) => {
    jobs.start('add_task', sessionId, (job) => add(job.session, job.signal).then(resolve, reject));
  });
}

/**
 * The refusal of anything that would change the session while this process adds a task to it
 * (run, resume, rewind, seed edits, send-back, merge, a second add-task): the add-task would
 * otherwise write back a plan that no longer is. `what` completes "then … again".
 */
export function refuseDuringAddTask(jobs: JobRunner, sessionId: string, what: string): void {
  if (jobs.forSession(sessionId)?.kind !== 'add_task') return;
  throw new ConflictError(
    'session_busy',
    `A task is being added to session ${sessionId} (the model is writing its test); wait for it to finish, or cancel it — Cancel in the add-task form of the session review, or DELETE ${buildPath(ROUTES.cancelAddTask.path, { id: sessionId })} — then ${what} again.`,
  );
}

/**
 * Writes the new task's test with the model and adds the task. Refused unless the session's run
 * is over or stopped (before the run, seed review edits the plan; a merged or archived session
 * has nothing to add to). The caller holds the session (addTaskLocked).
 */
export async function addTask(session: SessionHandle, llm: ModelClient, input: NewTask, signal?: AbortSignal, repeats?: number): Promise<AddedTask> {
  const cp = session.checkpoint.read();
  if (!canSendBack(cp.status)) {
    throw new ConflictError(
      'session_not_reopenable',
      cp.status === 'prepared'
        ? 'The run has not started: add the task in seed review instead.'
        : `A task can be added only once the run is over or stopped; this session is ${cp.status}.`,
    );
  }
  if (!session.hasSeed()) throw new NotFoundError('no_seed', 'This session has no seed to add a task to.');
  const before = session.readSeed();
  const preset = before.meta.checks_preset;
  const env = before.meta.project_env ?? null;
  const used = [...before.prd.map((t) => t.id), ...(before.meta.removed_task_ids ?? []), ...existingTaskIds(cp.worktree, preset, env)];
  const id = `T-${String(Math.max(0, ...used.map((u) => Number(u.slice(2)))) + 1).padStart(3, '0')}`;
  const rule = testFileRule(preset, env);
  const root = new ConfinedRoot(cp.worktree);
  const scope = sessionScope(session.sandbox, cp, cp.worktree, await worktreeRefOf(cp).catch(() => null));

  const agent = new Agent({
    llm,
    role: 'prep',
    messages: [
      { role: 'system', content: loadPrompt('add-task', {}) },
      { role: 'user', content: userPrompt(root, before, id, input, rule.describe) },
    ],
    tools: [...READ_TOOLS, WRITE_TASK_TEST_TOOL, DECLINE_TASK_TOOL],
    ...(signal ? { signal } : {}),
  });

  for (let turn = 1; turn <= ADD_TASK_TURNS; turn++) {
    const reply = await agent.turn();
    if (reply.kind === 'empty' || reply.calls.length === 0) {
      agent.say('Reply with a tool call: look around with read_file, glob or grep, or call write_task_test.');
      continue;
    }
    const outcome: { added: AddedTask | null } = { added: null };
    // The read tools run themselves; write_task_test and decline_task end the add-task.
    await agent.dispatch(reply.calls, { root }, {}, async (call) => {
      outcome.added = await final(agent, call);
      return outcome.added !== null;
    });
    if (outcome.added !== null) return outcome.added;
  }
  throw new ValidationError(
    `The model did not write an acceptable test for ${id} in ${ADD_TASK_TURNS} turns; nothing was added. Try again, or word the criteria more concretely.`,
  );

  /** Reads and answers a final call; the added task when `write_task_test` was accepted. */
  async function final(a: Agent<ReadToolContext>, call: AgentCall): Promise<AddedTask | null> {
    const checked = a.check<Record<string, unknown>>(call);
    if (!checked.ok) {
      a.answer(call, checked.message);
      return null;
    }
    if (call.name === DECLINE_TASK_TOOL.name) throw new AddTaskDeclinedError(id, String(checked.args.reason));
    const args = checked.args as z.infer<typeof WRITE_TASK_TEST_TOOL.args>;
    const refused = await tryAdd(args);
    if (typeof refused === 'string') {
      a.answer(call, `ERROR: the test was refused and nothing was added. ${refused}`);
      return null;
    }
    a.answer(call, `Added ${id}.`);
    return refused;
  }

  /**
   * The sink, then the red proof, then the write and the commit; a string says why not. The test
   * file is in the worktree only for the proof until the task is written: any other way out
   * (refused, cancelled, past the deadline, failed) takes it away again.
   */
  async function tryAdd(args: z.infer<typeof WRITE_TASK_TEST_TOOL.args>): Promise<AddedTask | string> {
    if (args.test_file in before.testFiles) return `${args.test_file} is an existing task's test; the new task needs its own file, named ${rule.describe}.`;
    const entry = { id, ...input, criteria_tests: args.criteria_tests };
    const checked = validateSeedBundle(
      {
        prd_entries: [...before.prd.map(({ status: _s, revision: _r, ...t }) => t), entry],
        test_files: { ...before.testFiles, [args.test_file]: args.content },
        tldr: before.meta.tldr,
        open_questions: before.meta.open_questions,
        blockers: before.meta.blockers,
        scope_notes: before.meta.scope_notes,
      },
      {
        preset,
        env,
        keptIds: before.prd.map((t) => t.id),
        existingIds: used,
        ...(before.meta.custom_checks ? { customChecks: before.meta.custom_checks } : {}),
      },
    );
    if (!checked.ok) return checked.problems.join('; ');
    const task = checked.seed.prd.find((t) => t.id === id)!;
    const target = resolveTestPath(cp.worktree, args.test_file);
    // Taking it away afterwards must not delete a file of the project's (nor write through a link).
    if (fs.lstatSync(target, { throwIfNoEntry: false }))
      return `${args.test_file} already exists in the worktree; name the new task's test ${rule.describe}, as a new file.`;
    const tree = Tree.at(cp.worktree);
    let written = false;
    try {
      tree.mkdir(path.dirname(target), { recursive: true });
      tree.writeFile(target, args.content);
      const proofs =
        (
          await proveCases(
            {
              prd: [task],
              testFiles: { [args.test_file]: args.content },
              preset,
              project: env,
              scope,
              ...(signal ? { signal } : {}),
              ...(repeats ? { repeats } : {}),
            },
            [task],
          )
        )[id] ?? [];
      signal?.throwIfAborted(); // a proof cut short by the cancel proves nothing
      const wrong = proofs.filter((p) => p.result === 'error' || p.result === 'not_run' || p.result === 'flaky');
      if (wrong.length > 0) {
        return `Its cases must fail now because the work is missing, and these do not: ${wrong.map((p) => `"${p.test}": ${p.detail}`).join('; ')}.`;
      }
      // From here on nothing is aborted: the task is written whole or not at all. The plan and the
      // state are read again rather than taken from before the model started: what is written is
      // the session as it is now plus the new task, so it can never put back a plan that moved on.
      const now = session.checkpoint.read();
      if (!canSendBack(now.status)) {
        throw new ConflictError('session_not_reopenable', `Session ${session.id} became ${now.status} while the test was being written; nothing was added.`);
      }
      const current = session.readSeed();
      if (current.prd.some((t) => t.id === id) || args.test_file in current.testFiles) {
        throw new ConflictError(
          'session_busy',
          `The plan of session ${session.id} changed while the test was being written (${id} is taken now); nothing was added. Add the task again.`,
        );
      }
      const added: PrdEntry = { ...task, status: 'pending' };
      const prd = [...current.prd, added];
      const meta = { ...current.meta, locked_tests: { ...current.meta.locked_tests, [args.test_file]: sha256(args.content) } };
      session.writeSeedFiles({ prd, meta }, [{ tree, target, content: args.content }]);
      written = true;
      const old = session.seedProof.read();
      session.seedProof.write({ key: seedKey(prd, meta), at: new Date().toISOString(), tasks: { ...(old?.tasks ?? {}), [id]: proofs } });
      const sha = await commitAll(await worktreeRefOf(cp), `seed: added ${id}`, `Added after the run: ${input.title}`, { paths: [args.test_file] });
      if (now.status === 'all_done') session.checkpoint.setStatus('stopped', { reason: 'task_added', phase: 'run' });
      session.emit({ type: 'task_added', data: { task_id: id, title: input.title, test_file: args.test_file, sha: sha ? sha.slice(0, 12) : null } });
      return { task: added, test_file: args.test_file, red: proofs, sha };
    } finally {
      if (!written) tree.remove(target);
    }
  }
}

function userPrompt(root: ConfinedRoot, seed: ReturnType<SessionHandle['readSeed']>, id: string, task: NewTask, naming: string): string {
  const parts: string[] = [];
  for (const name of ['AGENTS.md', 'CLAUDE.md']) {
    try {
      const text = readFile(root, name);
      parts.push(`## Project conventions (${name})`, '', text.slice(0, CONTEXT_CHARS), '');
      break;
    } catch {
      // not there: the next one
    }
  }
  parts.push('## The plan so far', '');
  for (const t of seed.prd) parts.push(`- ${t.id} — ${t.title} [${t.status}]`);
  parts.push('', `## The new task: ${id} — ${task.title}`, '', task.description, '', '### Acceptance criteria');
  parts.push(...task.acceptance_criteria.map((c, i) => `${i + 1}. ${c}`));
  parts.push('', '## Its test file', '', `Name it ${naming}, with ${id} as the task id.`);
  const [example] = Object.entries(seed.testFiles);
  if (example)
    parts.push('', `An existing acceptance test, for the house style (\`${example[0]}\`):`, '', '```', example[1].slice(0, CONTEXT_CHARS).trimEnd(), '```');
  parts.push('', 'Write the test and call `write_task_test`.');
  return parts.join('\n');
}
