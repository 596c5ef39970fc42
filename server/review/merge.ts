/**
 * Merging a session branch into its base branch without ever leaving the user's repo half-merged
 * (SPEC §7):
 *
 * 1. Refuse at once when the base branch is checked out somewhere with uncommitted changes.
 * 2. Build the merge (merge commit, squash or fast-forward) in a scratch worktree, detached at
 *    the base branch's tip; a conflict is aborted there and refused, naming the files.
 * 3. Run the acceptance tests of every done task on that result, in the scratch worktree.
 * 4. Only then move the base branch, with compare-and-swap on its old sha: `merge --ff-only` in
 *    the (clean) checkout that has it, so its files follow, or `update-ref` when none has it.
 *    The old tip is kept as `refs/tilth/backups/<session>`, and the undo command is recorded.
 *
 * A preview runs steps 1–3 and remembers the result, so the merge that follows need not run the
 * tests again while neither branch has moved.
 */
import fs from 'node:fs';
import { boundCheckOutput } from '../../shared/events.ts';
import type { Checkpoint } from '../../shared/files.ts';
import type { MergePreview, MergeResult, MergeStrategy } from '../../shared/review.ts';
import { sessionSubject } from '../../shared/session-rules.ts';
import { runChecks, type CheckResult } from '../proof/checks.ts';
import { planOf, scratchScope, sessionScope } from '../env/session-env.ts';
import { shadowRuleFor } from '../proof/python-runner-modules.ts';
import { AppError, ConflictError } from '../errors/app-error.ts';
import { taskIdOfTestFile } from '../env/presets.ts';
import { git, HARDENED_CONFIG, strictGit } from '../git/git-base.ts';
import { branchHead, withScratchWorktree } from '../git/repo.ts';
import { identityFor } from '../git/worktree-git.ts';
import { branchMachineryCheck } from '../proof/test-machinery.ts';
import { sessionState, type SessionHandle } from '../store/session-handle.ts';
import { criteriaProblems, mergeAllowed, survivorsOf } from './review.ts';

interface Built {
  strategy: MergeStrategy;
  into: string;
  baseSha: string;
  headSha: string;
  resultSha: string;
  tests: CheckResult[];
  passed: boolean;
}

/** `-c` flags for the git commands run through execa (simple-git adds them to the others). */
const hardened = HARDENED_CONFIG.flatMap((c) => ['-c', c]);

/** The session's last preview; a merge reuses it while the base and the branch have not moved. */
const LAST_PREVIEW = sessionState('merge preview', (): { built: Built | null } => ({ built: null }));

/** The worktree that has `branch` checked out, if any (the main one included). */
async function checkoutOf(repo: string, branch: string): Promise<string | null> {
  const out = await git(repo).raw(['worktree', 'list', '--porcelain']);
  let current: string | null = null;
  for (const line of out.split('\n')) {
    if (line.startsWith('worktree ')) current = line.slice('worktree '.length);
    else if (line === `branch refs/heads/${branch}` && current && fs.existsSync(current)) return current;
  }
  return null;
}

async function refuseIfDirty(repo: string, branch: string): Promise<string | null> {
  const checkout = await checkoutOf(repo, branch);
  if (!checkout) return null;
  // Each line is "XY path": the two status columns may be spaces, so the output is not trimmed.
  const dirty = (await git(checkout).raw(['status', '--porcelain', '--untracked-files=no'])).split('\n').filter((l) => l.length > 3);
  if (dirty.length > 0) {
    const files = dirty.map((l) => l.slice(3)).slice(0, 10);
    throw new ConflictError(
      'base_dirty',
      `${branch} is checked out in ${checkout} with uncommitted changes (${files.join(', ')}${dirty.length > 10 ? ', …' : ''}). Commit or stash them, then merge again; nothing was changed.`,
    );
  }
  return checkout;
}

function checkpointFor(session: SessionHandle): Checkpoint & { base_branch: string } {
  const cp = session.checkpoint.read();
  if (!cp.base_branch)
    throw new ConflictError('no_base_branch', 'The session started from a detached HEAD, so there is no base branch to merge into; push the branch instead.');
  return cp as Checkpoint & { base_branch: string };
}

async function build(session: SessionHandle, strategy: MergeStrategy, signal?: AbortSignal): Promise<Built> {
  const cp = checkpointFor(session);
  const into = cp.base_branch;
  const baseSha = await branchHead(cp.source, into);
  const headSha = await branchHead(cp.source, cp.branch);
  if (!baseSha) throw new ConflictError('base_missing', `The base branch ${into} no longer exists in ${cp.source}.`);
  const prd = session.prd.tasks();
  const allowedNow = mergeAllowed(
    cp,
    headSha,
    prd.some((t) => t.status === 'done'),
  );
  if (!allowedNow.allowed) throw new ConflictError('session_not_mergeable', `This session cannot be merged: ${allowedNow.reason}.`);
  await refuseIfDirty(cp.source, into);

  const cached = session.state(LAST_PREVIEW).built;
  if (cached && cached.strategy === strategy && cached.baseSha === baseSha && cached.headSha === headSha) return cached;

  const scratch = session.mergeScratch();
  return withScratchWorktree(cp.source, scratch, baseSha, async () => {
    // Strict: a conflicted merge and a failed ancestry check exit non-zero with nothing on stderr.
    const s = strictGit(scratch);
    const { execa } = await import('execa');
    const identity = await identityFor(cp.source);
    const title = sessionSubject(cp);
    if (strategy === 'ff') {
      const ancestor =
        (await execa('git', [...hardened, 'merge-base', '--is-ancestor', baseSha, headSha!], { cwd: scratch, reject: false, stdin: 'ignore' })).exitCode === 0;
      if (!ancestor)
        throw new ConflictError(
          'ff_impossible',
          `${into} has moved on since the session started, so it cannot be fast-forwarded; choose a merge commit or a squash.`,
        );
      await s.raw(['checkout', '-q', '--detach', headSha!]);
    } else {
      const args = strategy === 'merge' ? ['merge', '--no-ff', '--no-edit', '-m', `Merge ${cp.branch}: ${title}`, headSha!] : ['merge', '--squash', headSha!];
      // execa, not simple-git: a conflicted merge exits 1 with its report on stdout, which
      // simple-git does not always treat as a failure.
      const result = await execa('git', [...hardened, ...identity, ...args], { cwd: scratch, reject: false, stdin: 'ignore' });
      const conflicted = (await s.raw(['diff', '--name-only', '--diff-filter=U']).catch(() => '')).trim();
      if (conflicted) {
        throw new ConflictError(
          'merge_conflict',
          `Merging ${cp.branch} into ${into} conflicts in ${conflicted.split('\n').join(', ')}. Nothing was changed; resolve it in git yourself, or rebase the session branch.`,
        );
      }
      if (result.exitCode !== 0)
        throw new AppError('merge_failed', `git could not merge ${cp.branch} into ${into}: ${(result.stderr || result.stdout).trim().slice(0, 2_000)}`);
      if (strategy === 'squash') {
        const tasks = prd.filter((t) => t.status === 'done').map((t) => `- ${t.id}: ${t.title}`);
        await s.raw([...identity, 'commit', '--no-verify', '-q', '-m', title, '-m', `Squashed from ${cp.branch} by Tilth:\n${tasks.join('\n')}`]);
      }
    }
    const resultSha = (await s.raw(['rev-parse', 'HEAD'])).trim();
    // What was built must be what was meant: its parents are the base (and, for a merge commit,
    // the session head). Anything else is a git failure nobody reported, and is refused.
    const parents = (await s.raw(['rev-list', '--parents', '-n', '1', resultSha])).trim().split(' ').slice(1);
    const expected = strategy === 'ff' ? null : strategy === 'merge' ? [baseSha, headSha!] : [baseSha];
    if (strategy === 'ff' ? resultSha !== headSha : parents.join(' ') !== expected!.join(' ')) {
      throw new AppError('merge_failed', `git did not produce the expected ${strategy} of ${cp.branch} into ${into}; nothing was changed.`);
    }
    const machinery = await machineryOn(session, cp, headSha!, scratch, signal);
    const tests = [...(machinery ? [machinery] : []), ...(await testsOn(session, cp, scratch, signal))];
    const built: Built = { strategy, into, baseSha, headSha: headSha!, resultSha, tests, passed: tests.every((t) => t.passed) };
    session.state(LAST_PREVIEW).built = built;
    return built;
  });
}

/**
 * The test machinery the session's commits changed that the seed let no done task change: the
 * acceptance tests on the merge result ran on it, so the preview fails (a merge needs the override).
 */
async function machineryOn(session: SessionHandle, cp: Checkpoint, headSha: string, scratch: string, signal?: AbortSignal): Promise<CheckResult | null> {
  const meta = session.seedMeta.read();
  if (!meta || !cp.base_sha) return null;
  const started = performance.now();
  const allowed = session.prd
    .tasks()
    .filter((t) => t.status === 'done')
    .flatMap((t) => t.may_change_test_setup ?? []);
  const lockedTests = Object.keys(meta.locked_tests);
  const shadow = await shadowRuleFor({
    preset: meta.checks_preset,
    env: meta.project_env ?? null,
    plan: planOf(cp),
    lockedTests,
    scope: sessionScope(session.sandbox, cp, scratch, null),
    own: [cp.source, scratch],
    signal,
  });
  const changes = await branchMachineryCheck({ source: cp.source, baseSha: cp.base_sha, allowed, shadow }, headSha, lockedTests);
  if (changes.length === 0) return null;
  const listed = changes.map((c) => `${c.path} (${c.change})`).join(', ');
  return {
    name: 'test_machinery',
    passed: false,
    exit_code: null,
    duration_ms: Math.round(performance.now() - started),
    ...boundCheckOutput(
      `The session's commits change files that decide how the tests run, and the seed let no task change them: ${listed}. The acceptance tests below ran on that machinery, so they are not evidence. Merge (with the override) only if you have read the change.`,
    ),
  };
}

/** The acceptance tests of every done task, on the merge result. */
async function testsOn(session: SessionHandle, cp: Checkpoint, dir: string, signal?: AbortSignal): Promise<CheckResult[]> {
  const meta = session.seedMeta.read();
  if (!meta) return [];
  const doneTasks = session.prd.tasks().filter((t) => t.status === 'done');
  const done = new Set(doneTasks.map((t) => t.id));
  const taskOf = (f: string) => taskIdOfTestFile(meta.checks_preset, f, meta.project_env ?? null) ?? '';
  const files = Object.keys(meta.locked_tests).filter((f) => done.has(taskOf(f)));
  // Every done task's named cases must run and pass on the merge result, as in its own check.
  const namedCases = doneTasks.flatMap((t) => {
    const file = files.find((f) => taskOf(f) === t.id);
    return file !== undefined && t.criteria_tests ? [{ taskId: t.id, file, tests: [...new Set(t.criteria_tests.flat())] }] : [];
  });
  if (files.length === 0) return [];
  // The same environment the session's checks had. A failure is the preview's first result, and
  // the tests are not run without it.
  const env = await scratchScope(session.sandbox, cp, dir, 'merge_preview', signal);
  if (!env.ok) {
    const { applied } = env;
    return [
      {
        name: 'environment',
        passed: false,
        exit_code: null,
        duration_ms: applied.duration_ms,
        ...boundCheckOutput(`${applied.problem ?? ''}\n${applied.output}`.trim()),
      },
    ];
  }
  const { results } = await runChecks({
    // The merge result is the worker's code: it runs as untrusted code.
    scope: env.scope,
    preset: meta.checks_preset,
    customChecks: cp.custom_checks ?? meta.custom_checks,
    env: meta.project_env ?? null,
    testFiles: files.sort(),
    namedCases,
    changedFiles: [],
    lockedTests: {},
    ...(signal ? { signal } : {}),
  });
  return results;
}

export async function previewMerge(session: SessionHandle, strategy: MergeStrategy, mutationGate = false): Promise<MergePreview> {
  const b = await build(session, strategy);
  return {
    strategy,
    into: b.into,
    base_sha: b.baseSha,
    head_sha: b.headSha,
    tests: b.tests,
    passed: b.passed,
    criteria_problems: criteriaProblems(session),
    survivors: survivorsOf(session),
    mutation_gate: mutationGate,
  };
}

/** `mutationGate` (TILTH_MUTATION_GATE): surviving mutants need the override too. */
export async function merge(session: SessionHandle, strategy: MergeStrategy, override: boolean, mutationGate = false): Promise<MergeResult> {
  const b = await build(session, strategy);
  if (!b.passed && !override) {
    const failed = b.tests.filter((t) => !t.passed).map((t) => t.name);
    throw new ConflictError(
      'merge_tests_failed',
      `The acceptance tests fail on the merge result (${failed.join(', ')}); nothing was merged. Merge anyway only if you have read why.`,
    );
  }
  const problems = criteriaProblems(session);
  if (problems.length > 0 && !override) {
    const listed = problems.map((p) => `${p.task_id} "${p.criterion}": ${p.detail}`);
    throw new ConflictError(
      'merge_criteria_unproven',
      `${problems.length} acceptance ${problems.length === 1 ? 'criterion is' : 'criteria are'} not backed by evidence (${listed.join('; ')}); nothing was merged. Merge anyway only if you have read why.`,
    );
  }
  const survivors = mutationGate ? survivorsOf(session) : [];
  if (survivors.length > 0 && !override) {
    const listed = survivors.map((s) => `${s.task_id} ${s.file}:${s.line} ${s.description}`);
    throw new ConflictError(
      'merge_mutants_survive',
      `The mutation gate is on and ${survivors.length} ${survivors.length === 1 ? 'mutant' : 'mutants'} of the tasks' code went unnoticed by their tests (${listed.join('; ')}); nothing was merged. Strengthen the tests, or merge anyway if you have read why.`,
    );
  }
  const cp = checkpointFor(session);
  const repo = git(cp.source);
  const backupRef = `refs/tilth/backups/${session.id}`;
  const checkout = await refuseIfDirty(cp.source, b.into);
  await repo.raw(['update-ref', backupRef, b.baseSha]);
  try {
    if (checkout) {
      // Moves the branch, the index and the files together, and only if it is a fast-forward of
      // exactly what we built on; a clean tree means nothing of the user's can be lost.
      const tip = (await git(checkout).raw(['rev-parse', 'HEAD'])).trim();
      if (tip !== b.baseSha) throw new ConflictError('base_moved', `${b.into} moved while the merge was being prepared; merge again.`);
      await strictGit(checkout).raw(['merge', '--ff-only', '-q', b.resultSha]);
    } else {
      await strictGit(cp.source).raw(['update-ref', '-m', `tilth: merge ${cp.branch}`, `refs/heads/${b.into}`, b.resultSha, b.baseSha]);
    }
    const now = await branchHead(cp.source, b.into);
    if (now !== b.resultSha) throw new ConflictError('merge_failed', `${b.into} is at ${now ?? 'nothing'} instead of the merge result; nothing was merged.`);
  } catch (err) {
    await repo.raw(['update-ref', '-d', backupRef]).catch(() => {});
    session.state(LAST_PREVIEW).built = null;
    if (err instanceof AppError) throw err;
    throw new ConflictError('merge_failed', `${b.into} could not be moved to the merge result: ${(err as Error).message}. Nothing was changed.`);
  }
  session.state(LAST_PREVIEW).built = null;
  const undo = checkout
    ? `git -C ${JSON.stringify(checkout)} reset --keep ${backupRef}`
    : `git -C ${JSON.stringify(cp.source)} update-ref refs/heads/${b.into} ${backupRef}`;
  session.checkpoint.update(() => ({ merged: { strategy, into: b.into, sha: b.resultSha, backup_ref: backupRef, undo, at: new Date().toISOString() } }));
  session.emit({ type: 'merge', data: { strategy, into: b.into, sha: b.resultSha, backup_ref: backupRef } });
  session.checkpoint.setStatus('merged');
  return { into: b.into, sha: b.resultSha, backup_ref: backupRef, undo, tests: b.tests, passed: b.passed };
}
