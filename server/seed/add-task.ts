/**
 * Adding a task after the run (issue 15): the reviewer gives a title, a description and criteria;
 * the interview's model writes the task's acceptance test through the same sink as the seed
 * (naming, declared cases, the criterion ↔ test matrix), the red proof runs its cases on the
 * current tip (each must fail for the intended reason), and the task joins the plan as pending,
 * its test committed as `seed: added <id>`. The session is left stopped: Resume builds it.
 *
 * How it runs as a job, under the run lock and a deadline: add-task-job.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { CaseProof, Checkpoint, ChecksPreset, PrdEntry } from '../../shared/files.ts';
import type { ProjectEnv } from '../../shared/project-env.ts';
import type { AddedTask, NewTask } from '../../shared/review.ts';
import { testFileRule } from '../../shared/seed.ts';
import { canSendBack } from '../../shared/session-rules.ts';
import { Agent, type AgentCall } from '../agent/runtime.ts';
import { defineTool } from '../agent/tools.ts';
import { sessionScope } from '../env/session-env.ts';
import { AppError, ConflictError, NotFoundError, ValidationError } from '../errors/app-error.ts';
import { Tree } from '../fs/tree.ts';
import { commitAll, worktreeRefOf } from '../git/worktree-git.ts';
import type { ModelClient } from '../llm/client.ts';
import { loadPrompt } from '../agent/prompts.ts';
import { proveCases } from '../proof/red-proof.ts';
import { resolveTestPath, sha256 } from '../store/seed-input.ts';
import type { SessionHandle } from '../store/session-handle.ts';
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

/** What one add-task works with, read once before the model starts. */
interface Adding {
  session: SessionHandle;
  input: NewTask;
  /** The new task's id, past every id the plan, its removed tasks and the worktree's tests use. */
  id: string;
  used: string[];
  before: ReturnType<SessionHandle['readSeed']>;
  cp: Checkpoint;
  preset: ChecksPreset;
  env: ProjectEnv | null;
  rule: ReturnType<typeof testFileRule>;
  scope: ReturnType<typeof sessionScope>;
  signal: AbortSignal | undefined;
  repeats: number | undefined;
}
type TestArgs = z.infer<typeof WRITE_TASK_TEST_TOOL.args>;

export async function addTask(session: SessionHandle, llm: ModelClient, input: NewTask, signal?: AbortSignal, repeats?: number): Promise<AddedTask> {
  const adding = await startAdding(session, input, signal, repeats);
  const root = new ConfinedRoot(adding.cp.worktree);
  const agent = new Agent({
    llm,
    role: 'prep',
    messages: [
      { role: 'system', content: loadPrompt('add-task', {}) },
      { role: 'user', content: userPrompt(root, adding.before, adding.id, input, adding.rule.describe) },
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
      outcome.added = await final(adding, agent, call);
      return outcome.added !== null;
    });
    if (outcome.added !== null) return outcome.added;
  }
  throw new ValidationError(
    `The model did not write an acceptable test for ${adding.id} in ${ADD_TASK_TURNS} turns; nothing was added. Try again, or word the criteria more concretely.`,
  );
}

/** Refuses a session that cannot take a task now, and reads what the add-task works with. */
async function startAdding(session: SessionHandle, input: NewTask, signal: AbortSignal | undefined, repeats: number | undefined): Promise<Adding> {
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
  const scope = sessionScope(session.sandbox, cp, cp.worktree, await worktreeRefOf(cp).catch(() => null));
  return { session, input, id, used, before, cp, preset, env, rule: testFileRule(preset, env), scope, signal, repeats };
}

/** Reads and answers a final call; the added task when `write_task_test` was accepted. */
async function final(adding: Adding, agent: Agent<ReadToolContext>, call: AgentCall): Promise<AddedTask | null> {
  const checked = agent.check<Record<string, unknown>>(call);
  if (!checked.ok) {
    agent.answer(call, checked.message);
    return null;
  }
  if (call.name === DECLINE_TASK_TOOL.name) throw new AddTaskDeclinedError(adding.id, String(checked.args.reason));
  const refused = await tryAdd(adding, checked.args as TestArgs);
  if (typeof refused === 'string') {
    agent.answer(call, `ERROR: the test was refused and nothing was added. ${refused}`);
    return null;
  }
  agent.answer(call, `Added ${adding.id}.`);
  return refused;
}

/**
 * The sink, then the red proof, then the write and the commit; a string says why not. The test
 * file is in the worktree only for the proof until the task is written: any other way out
 * (refused, cancelled, past the deadline, failed) takes it away again.
 */
async function tryAdd(adding: Adding, args: TestArgs): Promise<AddedTask | string> {
  const task = sunkTask(adding, args);
  if (typeof task === 'string') return task;
  const target = resolveTestPath(adding.cp.worktree, args.test_file);
  // Taking it away afterwards must not delete a file of the project's (nor write through a link).
  if (fs.lstatSync(target, { throwIfNoEntry: false }))
    return `${args.test_file} already exists in the worktree; name the new task's test ${adding.rule.describe}, as a new file.`;
  const tree = Tree.at(adding.cp.worktree);
  let written = false;
  try {
    tree.mkdir(path.dirname(target), { recursive: true });
    tree.writeFile(target, args.content);
    const proofs = await proveRed(adding, task, args);
    if (typeof proofs === 'string') return proofs;
    return await writeAdded(adding, task, args, proofs, { tree, target }, () => {
      written = true;
    });
  } finally {
    if (!written) tree.remove(target);
  }
}

/** The new task as the seed's sink reads it beside the plan, or why it refused it. */
function sunkTask(adding: Adding, args: TestArgs): PrdEntry | string {
  const { before, id } = adding;
  if (args.test_file in before.testFiles)
    return `${args.test_file} is an existing task's test; the new task needs its own file, named ${adding.rule.describe}.`;
  const entry = { id, ...adding.input, criteria_tests: args.criteria_tests };
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
      preset: adding.preset,
      env: adding.env,
      keptIds: before.prd.map((t) => t.id),
      existingIds: adding.used,
      ...(before.meta.custom_checks ? { customChecks: before.meta.custom_checks } : {}),
    },
  );
  if (!checked.ok) return checked.problems.join('; ');
  return checked.seed.prd.find((t) => t.id === id)!;
}

/** The red proof of the new cases on the current tip: each must fail because the work is missing. */
async function proveRed(adding: Adding, task: PrdEntry, args: TestArgs): Promise<CaseProof[] | string> {
  const { signal, repeats } = adding;
  const input = {
    prd: [task],
    testFiles: { [args.test_file]: args.content },
    preset: adding.preset,
    project: adding.env,
    scope: adding.scope,
    ...(signal ? { signal } : {}),
    ...(repeats ? { repeats } : {}),
  };
  const proofs = (await proveCases(input, [task]))[adding.id] ?? [];
  signal?.throwIfAborted(); // a proof cut short by the cancel proves nothing
  const wrong = proofs.filter((p) => p.result === 'error' || p.result === 'not_run' || p.result === 'flaky');
  if (wrong.length > 0) {
    return `Its cases must fail now because the work is missing, and these do not: ${wrong.map((p) => `"${p.test}": ${p.detail}`).join('; ')}.`;
  }
  return proofs;
}

/**
 * Writes the task into the plan with its test and proof, and commits the test. From here on
 * nothing is aborted: the task is written whole or not at all. The plan and the state are read
 * again rather than taken from before the model started: what is written is the session as it is
 * now plus the new task, so it can never put back a plan that moved on. `onWritten` is called once
 * the test file is the plan's, so the caller no longer takes it away.
 */
async function writeAdded(
  adding: Adding,
  task: PrdEntry,
  args: TestArgs,
  proofs: CaseProof[],
  file: { tree: Tree; target: string },
  onWritten: () => void,
): Promise<AddedTask> {
  const { session, id, input } = adding;
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
  session.writeSeedFiles({ prd, meta }, [{ ...file, content: args.content }]);
  onWritten();
  const old = session.seedProof.read();
  session.seedProof.write({ key: seedKey(prd, meta), at: new Date().toISOString(), tasks: { ...(old?.tasks ?? {}), [id]: proofs } });
  const sha = await commitAll(await worktreeRefOf(adding.cp), `seed: added ${id}`, `Added after the run: ${input.title}`, { paths: [args.test_file] });
  if (now.status === 'all_done') session.checkpoint.setStatus('stopped', { reason: 'task_added', phase: 'run' });
  session.emit({ type: 'task_added', data: { task_id: id, title: input.title, test_file: args.test_file, sha: sha ? sha.slice(0, 12) : null } });
  return { task: added, test_file: args.test_file, red: proofs, sha };
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
