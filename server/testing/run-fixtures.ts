/**
 * Fixtures for run tests and benchmarks: a prepared session built straight from a seed (no
 * interview), and scripted worker and evaluator turns for the fake model.
 */
import { collectTestCases } from '../../shared/test-cases.ts';
import type { CustomChecks } from '../../shared/files.ts';
import type { ProjectEnv } from '../../shared/project-env.ts';
import type { ChecksPreset } from '../../shared/seed.ts';
import { planEnvironment } from '../env/provision.ts';
import { addWorktree, inspectWorkspace } from '../git/repo.ts';
import { commitAll, worktreeRefOf } from '../git/worktree-git.ts';
import { validateSeedBundle, writeSeed } from '../seed/sink.ts';
import type { SessionStore } from '../store/session-store.ts';
import type { ScriptedReplyInput } from '../scripted-model/model-server.ts';

export interface SeedTask {
  id: string;
  title: string;
  description?: string;
  criteria?: string[];
  /** Per criterion, the test cases that check it; by default every case in the task's test file. */
  criteriaTests?: string[][];
  /** Test file path → content. */
  tests: Record<string, string>;
  /** Test machinery paths the seed lets the task change. */
  mayChangeTestSetup?: string[];
}

export interface PreparedSessionOptions {
  /** The repository's environment, recorded as session creation does (and its plan applied at the run). */
  env?: ProjectEnv;
  customChecks?: CustomChecks;
}

/** Creates a session on `repo`, with its worktree, the seed written and committed, `prepared`. */
export async function makePreparedSession(
  store: SessionStore,
  repo: string,
  preset: ChecksPreset,
  tasks: SeedTask[],
  options: PreparedSessionOptions = {},
): Promise<string> {
  const info = await inspectWorkspace(repo);
  if (!info.root || !info.head) throw new Error(`${repo} is not a repo with commits`);
  const created = store.create({ source: info.root, brief: 'test feature', baseBranch: info.branch, baseSha: info.head, status: 'interviewing' });
  const id = created.session_id;
  const gitDirs = await addWorktree(info.root, created.worktree, created.branch, info.head);
  store.session(id).checkpoint.update(() => gitDirs);
  const bundle = {
    prd_entries: tasks.map((t) => {
      const criteria = t.criteria ?? [`${t.title} works`];
      const cases = Object.entries(t.tests).flatMap(([file, content]) => collectTestCases(file, content));
      return {
        id: t.id,
        title: t.title,
        description: t.description ?? `Build ${t.title}.`,
        acceptance_criteria: criteria,
        criteria_tests: t.criteriaTests ?? criteria.map(() => cases),
        ...(t.mayChangeTestSetup ? { may_change_test_setup: t.mayChangeTestSetup } : {}),
      };
    }),
    test_files: Object.assign({}, ...tasks.map((t) => t.tests)) as Record<string, string>,
    tldr: tasks.map((t) => `- **${t.id}:** ${t.title}`).join('\n'),
    open_questions: [],
    blockers: [],
    scope_notes: 'Nothing else.',
  };
  const { env, customChecks } = options;
  const checked = validateSeedBundle(bundle, { preset, existingIds: [], ...(env ? { env } : {}), ...(customChecks ? { customChecks } : {}) });
  if (!checked.ok) throw new Error(`bad test seed: ${checked.problems.join('; ')}`);
  const now = new Date().toISOString();
  const meta = writeSeed(checked.seed, {
    session: store.session(id),
    meta: {
      interviewer_model: 'test',
      started_at: now,
      ended_at: now,
      tokens: { prompt: 0, completion: 0, total: 0 },
      cost_usd: 0,
      checks_preset: preset,
      ...(env ? { project_env: env } : {}),
      ...(customChecks ? { custom_checks: customChecks } : {}),
    },
  });
  await commitAll(await worktreeRefOf(store.session(id).checkpoint.read()), `seed: ${tasks.length} task(s)`, undefined, {
    paths: Object.keys(meta.locked_tests),
  });
  store.session(id).checkpoint.update(() => ({
    checks_preset: preset,
    title: 'test feature',
    ...(env ? { project_env: env, environment: { plan: planEnvironment({ source: info.root!, worktree: created.worktree, env }), ready_at: null } } : {}),
    ...(customChecks ? { custom_checks: customChecks } : {}),
  }));
  store.session(id).checkpoint.setStatus('prepared');
  return id;
}

let callId = 0;
const call = (name: string, args: Record<string, unknown>) => ({ id: `call_${++callId}`, name, arguments: args });

/** A worker turn that calls tools (each `[name, args]`). */
export function workerTurn(...calls: [string, Record<string, unknown>][]): ScriptedReplyInput {
  return { tool_calls: calls.map(([name, args]) => call(name, args)), usage: { prompt_tokens: 100, completion_tokens: 20, cost: 0.001 } };
}

export function writeTurn(path: string, content: string): ScriptedReplyInput {
  return workerTurn(['write_file', { path, content }]);
}

export function caseTurn(summary = 'Done and verified.', criterion = 'it works', addressedBy = 'src/todo.js:fn()'): ScriptedReplyInput {
  return workerTurn(['submit_case', { summary, ac_coverage: [{ criterion, addressed_by: addressedBy }] }]);
}

export function verdictTurn(
  verdict: 'accept' | 'reject',
  extra: { category?: string; next_step?: string; concern?: string; criteria?: { n: number; met: boolean; note: string }[] } = {},
): ScriptedReplyInput {
  return {
    tool_calls: [
      call('submit_verdict', {
        verdict,
        concern: extra.concern ?? (verdict === 'accept' ? 'Meets every criterion.' : 'Something is missing.'),
        evidence: ['tests pass'],
        ...(verdict === 'reject' ? { rejection_category: extra.category ?? 'acceptance_gap', next_step: extra.next_step ?? 'Fix it.' } : {}),
        ...(extra.criteria ? { criteria: extra.criteria } : {}),
      }),
    ],
    usage: { prompt_tokens: 200, completion_tokens: 30, cost: 0.002 },
  };
}

/** A learnings reply with no lesson. */
export const noLearning: ScriptedReplyInput = { content: '{"learning": null}', usage: { prompt_tokens: 50, completion_tokens: 5, cost: 0.0005 } };

/** A node acceptance test for `name` exported from src/<file>.js returning `expected` for `input`. */
export function nodeTest(fnName: string, file: string, input: string, expected: string): string {
  return [
    "import { test } from 'node:test';",
    "import assert from 'node:assert/strict';",
    `import { ${fnName} } from '../src/${file}.js';`,
    '',
    `test('${fnName} works', () => {`,
    `  assert.deepEqual(${fnName}(${input}), ${expected});`,
    '});',
    '',
  ].join('\n');
}
