/**
 * The end of an interview: `write_seed` through the sink, the seed commit, and `prepared`.
 * `finishSeed` is also the resume path when the server stopped between writing and committing.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Checkpoint, InterviewState } from '../../shared/files.ts';
import { goBuildsFolder, type ProjectEnv } from '../../shared/project-env.ts';
import { testFileRule, type ChecksPreset } from '../../shared/seed.ts';
import { commitAll, worktreeRefOf } from '../git/worktree-git.ts';
import type { JobContext } from '../jobs/job-runner.ts';
import { taskIdOfTestFile } from '../env/presets.ts';
import { validateSeedBundle, writeSeed } from './sink.ts';

/** Task ids whose acceptance tests the session branch already has (from an earlier seed, say). */
export function existingTaskIds(worktree: string, preset: ChecksPreset, env: ProjectEnv | null = null): string[] {
  const ids = new Set<string>();
  for (const file of candidateFiles(worktree, preset, env)) {
    const id = taskIdOfTestFile(preset, file, env);
    if (id) ids.add(id);
  }
  return [...ids].sort();
}

/** The files an acceptance test may be: the rule's folder, or for go every package folder (bounded). */
function candidateFiles(worktree: string, preset: ChecksPreset, env: ProjectEnv | null): string[] {
  const list = (rel: string) => {
    try {
      return fs.readdirSync(path.join(worktree, rel), { withFileTypes: true });
    } catch {
      return [];
    }
  };
  if (preset !== 'go') {
    const testDir = testFileRule(preset, env).dir;
    return list(testDir).map((e) => `${testDir}/${e.name}`);
  }
  const files: string[] = [];
  const queue = ['.'];
  for (let seen = 0; queue.length > 0 && seen < GO_FOLDERS; seen++) {
    const dir = queue.shift()!;
    for (const e of list(dir)) {
      const rel = dir === '.' ? e.name : `${dir}/${e.name}`;
      if (e.isFile()) files.push(rel);
      else if (e.isDirectory() && goBuildsFolder(e.name) && e.name !== 'node_modules') queue.push(rel);
    }
  }
  return files;
}
const GO_FOLDERS = 2_000;

/** Returns null when the seed is written and committed, or the message to send back. */
export async function tryWriteSeed(
  args: Record<string, unknown>,
  turn: { ctx: JobContext; checkpoint: Checkpoint; state: InterviewState },
): Promise<string | null> {
  const { ctx, checkpoint, state } = turn;
  const preset = checkpoint.checks_preset ?? 'custom';
  const env = checkpoint.project_env;
  const checked = validateSeedBundle(args, {
    preset,
    env,
    ...(checkpoint.custom_checks ? { customChecks: checkpoint.custom_checks } : {}),
    existingIds: existingTaskIds(checkpoint.worktree, preset, env),
  });
  if (!checked.ok) {
    return `ERROR: the seed was rejected and nothing was written. Fix every problem and call write_seed again with the whole bundle:\n${checked.problems.map((p) => `- ${p}`).join('\n')}`;
  }
  const current = ctx.session.checkpoint.read();
  const usage = current.interview_usage;
  writeSeed(checked.seed, {
    session: ctx.session,
    meta: {
      interviewer_model: current.models?.prep ?? 'unknown',
      started_at: state.started_at,
      ended_at: new Date().toISOString(),
      tokens: { prompt: usage.prompt_tokens, completion: usage.completion_tokens, total: usage.total_tokens },
      cost_usd: usage.cost_usd,
      checks_preset: preset,
      ...(checkpoint.custom_checks ? { custom_checks: checkpoint.custom_checks } : {}),
      ...(env ? { project_env: env } : {}),
    },
  });
  ctx.emit({
    type: 'seed_written',
    data: { task_ids: checked.seed.prd.map((t) => t.id), test_files: Object.keys(checked.seed.testFiles), checks_preset: preset },
  });
  await finishSeed(ctx, checkpoint, state.trace_id);
  return null;
}

/**
 * The seed is on disk: commit its test files (only those — anything else in the worktree is not
 * the seed's) and mark the session prepared. Also the resume path when the server stopped in
 * between, so a written seed is never asked for twice.
 */
export async function finishSeed(ctx: JobContext, checkpoint: Checkpoint, traceId: string): Promise<void> {
  const { prd, meta } = ctx.session.readSeed();
  const testFiles = Object.keys(meta.locked_tests);
  const sha = await commitAll(
    await worktreeRefOf(checkpoint),
    `seed: ${prd.length} task(s) + ${testFiles.length} acceptance test(s)`,
    'Written by the Tilth interview. It anchors the session branch, so each task diff holds only that task.',
    { paths: testFiles },
  );
  if (sha) ctx.emit({ type: 'seed_committed', data: { sha: sha.slice(0, 12), branch: checkpoint.branch } });
  ctx.emit({
    type: 'session_prepared',
    data: {
      trace_id: traceId,
      interviewer_model: meta.interviewer_model,
      prd_entries: prd.length,
      test_files: testFiles.length,
      tokens_used: meta.tokens.total,
    },
  });
  ctx.session.checkpoint.setStatus('prepared');
  ctx.session.checkpoint.update(() => ({ title: titleFrom(prd[0]?.title, checkpoint.brief) }));
}

function titleFrom(first: string | undefined, brief: string): string {
  const line = brief.trim().split('\n')[0] ?? '';
  const text = line || first || '';
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}
