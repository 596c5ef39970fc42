/**
 * Adding a task after the run (issue 15): the reviewer gives a title, a description and criteria;
 * the interview's model writes the task's acceptance test through the same sink as the seed
 * (naming, declared cases, the criterion ↔ test matrix), the red proof runs its cases on the
 * current tip (each must fail for the intended reason), and the task joins the plan as pending,
 * its test committed as `seed: added <id>`. The session is left stopped: Resume builds it.
 */
import path from 'node:path';
import { z } from 'zod';
import type { PrdEntry } from '../../shared/files.ts';
import type { AddedTask, NewTask } from '../../shared/review.ts';
import { testFileRule } from '../../shared/seed.ts';
import { canSendBack } from '../../shared/session-rules.ts';
import { Agent, type AgentCall } from '../agent/runtime.ts';
import { defineTool } from '../agent/tools.ts';
import { sessionScope } from '../env/session-env.ts';
import { ConflictError, NotFoundError, ValidationError } from '../errors.ts';
import { Tree } from '../fs/tree.ts';
import { commitAll, worktreeRefOf } from '../git/worktree-git.ts';
import type { ModelClient } from '../llm/client.ts';
import { loadPrompt } from '../prompts.ts';
import { proveCases } from '../proof/red-proof.ts';
import { resolveTestPath, sha256 } from '../store/seed-input.ts';
import type { SessionHandle } from '../store/session-handle.ts';
import { ConfinedRoot, readFile, runReadTool, ToolError } from '../tools/read-tools.ts';
import { READ_TOOLS } from '../tools/tool-schema.ts';
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
 * Writes the new task's test with the model and adds the task. Refused unless the session's run
 * is over or stopped (before the run, seed review edits the plan; a merged or archived session
 * has nothing to add to).
 */
export async function addTask(session: SessionHandle, llm: ModelClient, input: NewTask, signal?: AbortSignal): Promise<AddedTask> {
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
  const scope = sessionScope(cp, cp.worktree, await worktreeRefOf(cp).catch(() => null));

  const agent = new Agent({
    llm,
    role: 'prep',
    messages: [
      { role: 'system', content: loadPrompt('add-task', {}) },
      { role: 'user', content: userPrompt(root, before, id, input, rule.describe) },
    ],
    tools: [...READ_TOOLS, WRITE_TASK_TEST_TOOL],
    ...(signal ? { signal } : {}),
  });

  for (let turn = 1; turn <= ADD_TASK_TURNS; turn++) {
    const reply = await agent.turn();
    if (reply.kind === 'empty' || reply.calls.length === 0) {
      agent.say('Reply with a tool call: look around with read_file, glob or grep, or call write_task_test.');
      continue;
    }
    for (const call of reply.calls) {
      const done = await answer(agent, call);
      if (done) return done;
    }
  }
  throw new ValidationError(
    `The model did not write an acceptable test for ${id} in ${ADD_TASK_TURNS} turns; nothing was added. Try again, or word the criteria more concretely.`,
  );

  /** Runs one call; the added task when `write_task_test` was accepted. */
  async function answer(a: Agent, call: AgentCall): Promise<AddedTask | null> {
    const checked = a.check<Record<string, unknown>>(call);
    if (!checked.ok) {
      a.answer(call, checked.message);
      return null;
    }
    if (call.name !== WRITE_TASK_TEST_TOOL.name) {
      try {
        a.answer(call, await runReadTool(call.name as 'read_file' | 'glob' | 'grep', checked.args, root));
      } catch (err) {
        a.answer(call, `ERROR: ${err instanceof ToolError ? err.message : (err as Error).message}`);
      }
      return null;
    }
    const args = checked.args as z.infer<typeof WRITE_TASK_TEST_TOOL.args>;
    const refused = await tryAdd(args);
    if (typeof refused === 'string') {
      a.answer(call, `ERROR: the test was refused and nothing was added. ${refused}`);
      return null;
    }
    a.answer(call, `Added ${id}.`);
    return refused;
  }

  /** The sink, then the red proof, then the write and the commit; a string says why not. */
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
    const tree = Tree.at(cp.worktree);
    tree.mkdir(path.dirname(target), { recursive: true });
    tree.writeFile(target, args.content);
    const proofs =
      (await proveCases({ prd: [task], testFiles: { [args.test_file]: args.content }, preset, project: env, scope, ...(signal ? { signal } : {}) }, [task]))[
        id
      ] ?? [];
    const wrong = proofs.filter((p) => p.result === 'error');
    if (wrong.length > 0) {
      tree.remove(target);
      return `Its cases must fail now because the work is missing, and these do not: ${wrong.map((p) => `"${p.test}": ${p.detail}`).join('; ')}.`;
    }
    const added: PrdEntry = { ...task, status: 'pending' };
    const prd = [...before.prd, added];
    const meta = { ...before.meta, locked_tests: { ...before.meta.locked_tests, [args.test_file]: sha256(args.content) } };
    session.writeSeedFiles({ prd, meta }, [{ tree, target, content: args.content }]);
    const old = session.seedProof.read();
    session.seedProof.write({ key: seedKey(prd, meta), at: new Date().toISOString(), tasks: { ...(old?.tasks ?? {}), [id]: proofs } });
    const sha = await commitAll(await worktreeRefOf(cp), `seed: added ${id}`, `Added after the run: ${input.title}`, { paths: [args.test_file] });
    if (session.checkpoint.read().status === 'all_done') session.checkpoint.setStatus('stopped', { reason: 'task_added', phase: 'run' });
    session.emit({ type: 'task_added', data: { task_id: id, title: input.title, test_file: args.test_file, sha: sha ? sha.slice(0, 12) : null } });
    return { task: added, test_file: args.test_file, red: proofs, sha };
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
