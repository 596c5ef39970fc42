/**
 * The task review and the session review (SPEC §7): what each task changed, argued and was told,
 * and what the whole session branch holds, with what may be done with it now.
 */
import fs from 'node:fs';
import { matchCoverage } from '../../shared/coverage.ts';
import type { Case, Checkpoint, LedgerEntry, MutationReport, PrdEntry } from '../../shared/files.ts';
import { runsChangedCode, type Evidence } from '../../shared/evidence.ts';
import type { CriterionProblem, SessionReview, Survivor, TaskCriterion, TaskEvidenceStatus, TaskReview } from '../../shared/review.ts';
import { proofsOfCriterion, worstProof, type SeedProof } from '../../shared/seed.ts';
import { canMerge, canPush, canRewind, isTaskWorkSubject, subjectRevision } from '../../shared/session-rules.ts';
import { NotFoundError } from '../errors/app-error.ts';
import { commitsIn, diffBetween, type CommitInfo } from '../git/diff.ts';
import { git } from '../git/git-base.ts';
import { branchHead } from '../git/repo.ts';
import type { SessionHandle } from '../store/session-handle.ts';

/**
 * Where the session's commits can still be read once its branch is gone (cleansed after a merge):
 * a merge commit's second parent, or the fast-forwarded tip. A squash kept no commit of them.
 */
async function mergedHead(cp: Checkpoint): Promise<string | null> {
  if (!cp.merged || cp.merged.strategy === 'squash' || !fs.existsSync(cp.source)) return null;
  const rev = cp.merged.strategy === 'merge' ? `${cp.merged.sha}^2` : cp.merged.sha;
  const out = await git(cp.source)
    .raw(['rev-parse', '--verify', '--quiet', `${rev}^{commit}`])
    .catch(() => '');
  return /^[0-9a-f]{40,64}$/.test(out.trim()) ? out.trim() : null;
}

/**
 * Commits on the session branch since its base (the seed commit included). `head` is the branch's
 * (null once it is gone); the commits are read from the merge when the branch is gone.
 */
export async function sessionCommits(cp: Checkpoint): Promise<{ head: string | null; commits: CommitInfo[] }> {
  const head = await branchHead(cp.source, cp.branch);
  const readFrom = head ?? (await mergedHead(cp));
  if (!readFrom || !cp.base_sha) return { head, commits: [] };
  return { head, commits: await commitsIn(cp.source, `${cp.base_sha}..${readFrom}`) };
}

export async function taskReview(session: SessionHandle, taskId: string): Promise<TaskReview> {
  const task = session.prd.tasks().find((t) => t.id === taskId);
  if (!task) throw new NotFoundError('task_not_found', `Session ${session.id} has no task ${taskId}.`);
  const cp = session.checkpoint.read();
  const { commits } = await sessionCommits(cp);
  const mine = commits.filter((c) => isTaskWorkSubject(c.subject, taskId));
  const ledger = session.ledger.read(taskId);
  const summary = session.summary.current();
  const finalCase = finalCaseOf(ledger);
  return {
    task,
    criteria: taskCriteria(task, ledger, session.seedProof.read(), session.mutations.read(taskId)),
    commits: mine,
    final_case: finalCase,
    ledger,
    checks: session.checks.read(taskId),
    mutation: session.mutations.read(taskId),
    send_backs: session.sendBacks.read(taskId),
    stats: summary.tasks[taskId] ?? null,
    earlier_attempts: session.archive.attempts(taskId),
  };
}

/** The worker's last case on the task (the accepted one for a done task). */
function finalCaseOf(ledger: LedgerEntry[]): Case | null {
  return [...ledger].reverse().find((e) => e.case)?.case ?? null;
}

/**
 * Per criterion: its tests, red on the seed commit, green at the accept, the worker's claim, and
 * from the mutation probe, the survivors on lines its tests run and whether they run the changed code.
 */
function taskCriteria(task: PrdEntry, ledger: LedgerEntry[], proof: SeedProof | null, mutation: MutationReport | null): TaskCriterion[] {
  const coverage = matchCoverage(task.acceptance_criteria, finalCaseOf(ledger));
  const red = proof?.tasks[task.id] ?? [];
  const green = [...ledger].reverse().find((e) => e.green)?.green ?? [];
  const words = ledger.at(-1)?.verdict.criteria ?? [];
  return task.acceptance_criteria.map((criterion, i) => {
    const word = words.findLast((w) => w.n === i + 1);
    const greens = proofsOfCriterion(task, i, green);
    return {
      criterion,
      tests: task.criteria_tests?.[i] ?? [],
      red: worstProof(proofsOfCriterion(task, i, red))?.result ?? null,
      green: greens.length === 0 ? null : greens.every((p) => p.result === 'passed') ? 'passed' : 'failed',
      claimed_by: coverage.criteria[i]?.claims[0]?.addressed_by ?? null,
      evaluator: word ? { met: word.met, note: word.note } : null,
      // Only where the probe traced the cases: a row without them reads as it always did.
      ...(mutation?.coverage
        ? {
            survivors: mutation.survivors.filter((s) => s.criteria?.includes(i)).map(({ file, line, description }) => ({ file, line, description })),
            runs_changed_code: runsChangedCode(mutation, i),
          }
        : {}),
    };
  });
}

/** Every mutant of the task survived: its tests noticed none of the mistakes the probe made. */
function allSurvived(mutation: MutationReport | null): boolean {
  return mutation?.status === 'done' && mutation.survived > 0 && mutation.killed === 0;
}

const RED_WORDS = {
  passed: 'its tests passed before any work',
  error: 'its tests failed for another reason than the missing work',
  not_run: 'a test of it never ran before the work',
  flaky: 'a test of it both passed and failed before the work',
} as const;

/** The criteria of done tasks whose evidence falls short, in task order. */
export function criteriaProblems(session: SessionHandle): CriterionProblem[] {
  const proof = session.seedProof.read();
  const problems: CriterionProblem[] = [];
  for (const task of session.prd.tasks().filter((t) => t.status === 'done')) {
    const mutation = session.mutations.read(task.id);
    for (const row of taskCriteria(task, session.ledger.read(task.id), proof, mutation)) {
      const at = { task_id: task.id, criterion: row.criterion };
      if (row.tests.length === 0) problems.push({ ...at, problem: 'no_tests', detail: 'no test case checks it' });
      else if (row.red !== 'failed')
        problems.push({ ...at, problem: 'not_red', detail: row.red === null ? 'its tests were never proven to fail before the work' : RED_WORDS[row.red] });
      else if (row.green !== 'passed')
        problems.push({
          ...at,
          problem: 'not_green',
          detail: row.green === null ? 'its tests were not run alone at the commit' : 'a test of it failed at the commit',
        });
      else if (row.runs_changed_code === false)
        problems.push({ ...at, problem: 'changed_code_not_run', detail: "its tests never run the task's changed code, so they cannot be what proves it" });
      else if (allSurvived(mutation)) {
        const first = mutation!.survivors[0];
        const example = first ? ` (such as ${first.file}:${first.line}, which ${first.description})` : '';
        problems.push({
          ...at,
          problem: 'mutants_unnoticed',
          detail: `the task's tests noticed none of the ${mutation!.survived} ${mutation!.survived === 1 ? 'mistake' : 'mistakes'} the mutation probe made in its code${example}`,
        });
      } else if (row.claimed_by === null) problems.push({ ...at, problem: 'unclaimed', detail: "the worker's final case does not say where it is met" });
    }
  }
  return problems;
}

/** The task's evidence receipt; `task_not_found` or `evidence_not_found` (not accepted and committed yet). */
export function taskEvidence(session: SessionHandle, taskId: string): Evidence {
  const task = session.prd.tasks().find((t) => t.id === taskId);
  if (!task) throw new NotFoundError('task_not_found', `Session ${session.id} has no task ${taskId}.`);
  const receipt = session.evidence.read(taskId);
  if (receipt === null)
    throw new NotFoundError('evidence_not_found', `${taskId} has no evidence receipt: one is written when the task is accepted and committed.`);
  return receipt;
}

/** Each done task's receipt status, in task order; a done task without a receipt (an older session) is left out. */
export function evidenceStatuses(session: SessionHandle): TaskEvidenceStatus[] {
  return session.prd
    .tasks()
    .filter((t) => t.status === 'done')
    .flatMap((t) => {
      const receipt = session.evidence.read(t.id);
      return receipt ? [{ task_id: t.id, status: receipt.status, gaps: receipt.gaps.length }] : [];
    });
}

/** The surviving mutants of the done tasks, in task order. */
export function survivorsOf(session: SessionHandle): Survivor[] {
  return session.prd
    .tasks()
    .filter((t) => t.status === 'done')
    .flatMap((t) =>
      (session.mutations.read(t.id)?.survivors ?? []).map(({ criteria, ...s }) => ({
        task_id: t.id,
        ...s,
        ...(criteria ? { run_by: criteria.map((i) => t.acceptance_criteria[i] ?? `criterion ${i + 1}`) } : {}),
      })),
    );
}

/**
 * The diff of one revision of the task (its commit against its parent); without `revision`, the
 * latest. A revision sent back sits on top of later tasks, so each revision is its own diff.
 */
export async function taskDiff(session: SessionHandle, taskId: string, revision?: number) {
  const review = await taskReview(session, taskId);
  const cp = session.checkpoint.read();
  const commit = revision === undefined ? review.commits.at(-1) : review.commits.findLast((c) => subjectRevision(c.subject, taskId) === revision);
  if (!commit) {
    if (revision !== undefined && review.commits.length > 0) throw new NotFoundError('task_not_found', `${taskId} has no committed revision ${revision}.`);
    return { files: [], text: '', truncated: false };
  }
  return diffBetween(cp.source, `${commit.sha}^`, commit.sha);
}

export async function remotes(repo: string): Promise<string[]> {
  if (!fs.existsSync(repo)) return [];
  const out = await git(repo)
    .raw(['remote'])
    .catch(() => '');
  return out.split('\n').filter(Boolean).sort();
}

/** Whether `gh` is installed and signed in (checked per request: it is cheap and can change). */
export async function ghReady(): Promise<boolean> {
  const { execa } = await import('execa');
  const result = await execa('gh', ['auth', 'status'], { reject: false, timeout: 10_000, stdin: 'ignore' }).catch(() => null);
  return result?.exitCode === 0;
}

const allowed = (ok: boolean, reason: string) => ({ allowed: ok, reason: ok ? null : reason });

export async function sessionReview(session: SessionHandle): Promise<SessionReview> {
  const cp = session.checkpoint.read();
  const { head, commits } = await sessionCommits(cp);
  const last = head ?? commits.at(-1)?.sha ?? null;
  const diff = last && cp.base_sha ? await diffBetween(cp.source, cp.base_sha, last) : { files: [], text: '', truncated: false };
  const names = await remotes(cp.source);
  const gh = names.length > 0 && (await ghReady());
  const hasWork = commits.some((c) => isTaskWorkSubject(c.subject));
  return {
    branch: cp.branch,
    base_branch: cp.base_branch,
    base_sha: cp.base_sha,
    head_sha: head,
    tasks: session.prd.tasks(),
    commits,
    diff,
    learnings: session.learnings.read(),
    criteria_problems: criteriaProblems(session),
    survivors: survivorsOf(session),
    evidence: evidenceStatuses(session),
    actions: {
      merge: mergeAllowed(cp, head, hasWork),
      push: {
        ...allowed(
          head !== null && canPush(cp.status) && names.length > 0,
          (head === null ? null : stateRefusal(cp, 'push')) ?? (head === null ? 'the session branch is gone' : 'the repository has no remotes'),
        ),
        remotes: names,
      },
      pr: {
        ...allowed(
          head !== null && names.length > 0 && cp.status !== 'archived',
          names.length === 0 ? 'the repository has no remotes' : 'the session branch is gone',
        ),
        gh,
      },
      cleanse: allowed(
        cp.status !== 'archived' && (cp.merged !== null || cp.pushed !== null),
        cp.status === 'archived' ? 'already archived' : 'merge or push the branch first: cleansing removes it',
      ),
      rewind: allowed(
        head !== null && canRewind(cp.status),
        head === null
          ? 'the session branch is gone'
          : cp.status === 'merged'
            ? 'it is merged; undo the merge first'
            : cp.status === 'running'
              ? 'stop the run first'
              : `a ${cp.status} session has no run to rewind`,
      ),
    },
    merged: cp.merged ? { into: cp.merged.into, sha: cp.merged.sha, backup_ref: cp.merged.backup_ref, undo: cp.merged.undo } : null,
    pushed: cp.pushed ? { remote: cp.pushed.remote, branch: cp.pushed.branch } : null,
  };
}

export function mergeAllowed(cp: Checkpoint, head: string | null, hasWork: boolean): { allowed: boolean; reason: string | null } {
  const refusal = stateRefusal(cp, 'merge');
  if (refusal !== null) return { allowed: false, reason: refusal };
  if (!cp.base_branch)
    return { allowed: false, reason: 'the session started from a detached HEAD, so there is no base branch to merge into; push the branch instead' };
  if (!head) return { allowed: false, reason: 'the session branch is gone' };
  if (!hasWork) return { allowed: false, reason: 'no task has been committed yet' };
  return { allowed: true, reason: null };
}

const short = (sha: string) => sha.slice(0, 8);

/**
 * Why the session's state rules out merging or pushing it now, in words that say what happened
 * and what to do next; null when the state allows it. A discarded session has no state to
 * refuse with: its folder is gone, so it is not found at all.
 */
export function stateRefusal(cp: Checkpoint, action: 'merge' | 'push'): string | null {
  if (action === 'merge' ? canMerge(cp.status) : canPush(cp.status)) return null;
  const verb = action === 'merge' ? 'merged' : 'pushed';
  switch (cp.status) {
    case 'interviewing':
      return `the interview is still going: answer its questions and run the plan it writes; there is nothing to ${action} yet`;
    case 'prepared':
      return `the run has not started: run the plan first; there is nothing to ${action} yet`;
    case 'running':
      return 'the run is still going: let it finish, or stop it first';
    case 'failed':
      return `the interview failed before it wrote a plan, so there is no work to ${action}: retry the interview, or discard the session`;
    case 'merged':
      return cp.merged ? `already merged into ${cp.merged.into} at ${short(cp.merged.sha)}` : 'already merged';
    case 'archived':
      if (cp.merged) return `already merged into ${cp.merged.into} at ${short(cp.merged.sha)}, and then cleansed: its branch is gone`;
      if (cp.pushed) return `already pushed to ${cp.pushed.remote} as ${cp.pushed.branch}, and then cleansed: its branch is gone`;
      return 'it was cleansed: its branch is gone';
    default:
      return `the session is ${cp.status.replace('_', ' ')} and cannot be ${verb}`;
  }
}
