/**
 * Rewind (issue 15): the session branch goes back to after the seed or after a done task, so the
 * run can do the later tasks again. Nothing is lost: the old tip is kept as a backup ref, and the
 * reset tasks' ledgers, checks and mutation reports move to `archive/rewind-<n>/`, where the task
 * review shows them as earlier attempts. The session ends `stopped`, a run to resume; it never
 * starts one by itself.
 *
 * Crash safety. The intent (`rewind.json`: target, old and new tip, backup ref, tasks) is written
 * before anything moves; then the backup ref, the branch and worktree, the archive, the task list
 * and the status; the intent is removed last. Every step repeats safely, so a rewind cut short is
 * finished by the next rewind, or by resume before it plans anything (`finishRewind`).
 */
import fs from 'node:fs';
import type { Checkpoint, PrdEntry, RewindIntent } from '../../shared/files.ts';
import type { RewindPlan, RewindResult, RewindTarget } from '../../shared/review.ts';
import { canRewind, isTaskWorkSubject, subjectTaskId } from '../../shared/session-rules.ts';
import { ConflictError, NotFoundError } from '../errors/app-error.ts';
import { commitsIn, type CommitInfo } from '../git/diff.ts';
import { git, strictGit } from '../git/git-base.ts';
import { branchHead } from '../git/repo.ts';
import { changedFiles, identityFor, worktreeGit, worktreeRefOf } from '../git/worktree-git.ts';
import type { SessionHandle } from '../store/session-handle.ts';

const BACKUPS = 'refs/tilth/backups/';
const isSeedSubject = (subject: string) => subject.startsWith('seed:');
/** A task added after the run: its test's own commit. */
const isAddedSubject = (subject: string) => /^seed: added T-\d{3,}$/.test(subject);
const short = (sha: string) => sha.slice(0, 12);
const targetWords = (after: RewindTarget) => (after === 'seed' ? 'the seed' : after);

/** Refuses a session whose state does not allow a rewind, saying why. */
function refuseState(session: SessionHandle, cp: Checkpoint): void {
  if (canRewind(cp.status)) return;
  if (cp.status === 'running') throw new ConflictError('session_running', `Session ${session.id} is running; stop it before you rewind.`);
  const why =
    cp.status === 'merged'
      ? `it is merged into ${cp.merged?.into ?? cp.base_branch ?? 'its base'}; undo the merge first (${cp.merged?.undo ?? 'see the review'})`
      : cp.status === 'archived'
        ? 'it is archived: its branch is gone'
        : cp.status === 'prepared'
          ? 'it has not run yet'
          : `it is ${cp.status} and has no run to rewind`;
  throw new ConflictError('session_not_rewindable', `Session ${session.id} cannot be rewound: ${why}.`);
}

/** The next free n: past every backup ref and archive folder an earlier rewind of the session left. */
async function nextRewind(session: SessionHandle, cp: Checkpoint): Promise<number> {
  const prefix = `${BACKUPS}${session.id}-rewind-`;
  const refs = (await git(cp.source).raw(['for-each-ref', '--format=%(refname)', BACKUPS])).split('\n').filter((r) => r.startsWith(prefix));
  const used = [...refs.map((r) => Number(r.slice(prefix.length))).filter(Number.isInteger), ...session.archive.rewinds()];
  return Math.max(0, ...used) + 1;
}

/** What a rewind to after `after` will do, computed without changing anything. */
export async function planRewind(session: SessionHandle, after: RewindTarget): Promise<RewindPlan> {
  const cp = session.checkpoint.read();
  refuseState(session, cp);
  const tip = await branchHead(cp.source, cp.branch);
  if (!tip || !cp.base_sha) throw new ConflictError('branch_missing', `The session branch ${cp.branch} is gone; there is nothing to rewind.`);
  const commits = await commitsIn(cp.source, `${cp.base_sha}..${tip}`);
  const prd = session.prd.tasks();
  const at = targetIndex(session, cp, commits, prd, after);
  const target = commits[at]!;
  const kept = commits.slice(0, at + 1);
  const leaving = commits.slice(at + 1);

  // A task added after the run keeps its test: its `seed: added` commit goes back on top of the
  // target (it touches only that test file). Any other seed commit past the target would take a
  // seed change away, leaving the plan pointing at a test that is gone.
  const replayed = leaving.filter((c) => isAddedSubject(c.subject));
  if (replayed.length > 0 && !fs.existsSync(cp.worktree)) {
    throw new ConflictError(
      'rewind_not_possible',
      `The worktree is missing, so the tests of tasks added after the run cannot be put back; resume the session once (it re-creates the worktree), then rewind.`,
    );
  }
  const seedLeaving = leaving.find((c) => isSeedSubject(c.subject) && !isAddedSubject(c.subject));
  if (seedLeaving) {
    throw new ConflictError(
      'rewind_not_possible',
      `"${seedLeaving.subject}" (${short(seedLeaving.sha)}) comes after ${targetWords(after)} on ${cp.branch}; a rewind there would take that seed change away. Rewind to after a later task.`,
    );
  }
  const position = after === 'seed' ? -1 : prd.findIndex((t) => t.id === after);
  const leavingTasks = new Set(leaving.map((c) => subjectTaskId(c.subject)).filter((id) => id !== null));
  const reset = prd.filter((t, i) => i > position || leavingTasks.has(t.id));
  for (const task of reset) {
    const stays = kept.find((c) => isTaskWorkSubject(c.subject, task.id));
    if (stays) {
      throw new ConflictError(
        'rewind_not_possible',
        `${task.id} comes after ${targetWords(after)} in the plan, but its commit "${stays.subject}" (${short(stays.sha)}) comes before it on the branch and would stay. Rewind to after an earlier task.`,
      );
    }
  }
  // Only the tasks that change: a pending task that never ran has nothing to reset.
  const tasks = reset.filter((t) => t.status !== 'pending' || t.revision !== undefined || session.archive.filesOf(t.id).length > 0).map((t) => t.id);
  const uncommitted = fs.existsSync(cp.worktree) ? await changedFiles(await worktreeRefOf(cp)) : [];
  const n = await nextRewind(session, cp);
  const last = commits.at(-1);
  return {
    after,
    rewind: n,
    target: { sha: target.sha, subject: target.subject },
    tip: { sha: tip, subject: last?.sha === tip ? last.subject : '' },
    leaving,
    replayed,
    tasks,
    archived: tasks.flatMap((id) => session.archive.filesOf(id)),
    uncommitted,
    backup_ref: `${BACKUPS}${session.id}-rewind-${n}`,
    nothing_to_do: leaving.length === 0 && tasks.length === 0 && uncommitted.length === 0,
  };
}

/** The index in `commits` (oldest first) of the commit the branch moves to. */
function targetIndex(session: SessionHandle, cp: Checkpoint, commits: CommitInfo[], prd: PrdEntry[], after: RewindTarget): number {
  if (after === 'seed') {
    // After the seed: the tip before the first task's commit (seed edits before it stay).
    const firstTask = commits.findIndex((c) => subjectTaskId(c.subject) !== null);
    const beforeTasks = firstTask < 0 ? commits : commits.slice(0, firstTask);
    if (!beforeTasks.some((c) => isSeedSubject(c.subject))) {
      throw new ConflictError('rewind_not_possible', `${cp.branch} has no seed commit before the first task's, so there is no "after the seed" to go back to.`);
    }
    return beforeTasks.length - 1;
  }
  const task = prd.find((t) => t.id === after);
  if (!task) throw new NotFoundError('task_not_found', `Session ${session.id} has no task ${after}.`);
  if (task.status !== 'done') throw new ConflictError('task_not_done', `${after} is ${task.status}; a rewind goes back to after a done task.`);
  const at = commits.findLastIndex((c) => isTaskWorkSubject(c.subject, after));
  if (at < 0) throw new ConflictError('task_not_done', `${after} is marked done but has no commit on ${cp.branch}, so there is nothing to go back to.`);
  return at;
}

/**
 * Rewinds the session to after `after`; a rewind cut short earlier is finished first, and its
 * result answered (ask again for another target). Refused when there is nothing to undo.
 */
export async function rewindSession(session: SessionHandle, after: RewindTarget, now: Date = new Date()): Promise<RewindResult> {
  refuseState(session, session.checkpoint.read());
  const unfinished = session.rewindIntent.read();
  if (unfinished) return finishRewind(session, unfinished);
  const plan = await planRewind(session, after);
  if (plan.nothing_to_do) {
    throw new ConflictError(
      'nothing_to_rewind',
      `${session.checkpoint.read().branch} is already at ${targetWords(after)} (${short(plan.target.sha)}), no later task has anything to reset and the worktree has no changes: nothing to rewind.`,
    );
  }
  const intent: RewindIntent = {
    after,
    rewind: plan.rewind,
    from_sha: plan.tip.sha,
    to_sha: plan.target.sha,
    backup_ref: plan.backup_ref,
    tasks: plan.tasks,
    ...(plan.replayed.length > 0 ? { replay: plan.replayed.map((c) => c.sha) } : {}),
    started_at: now.toISOString(),
  };
  session.rewindIntent.write(intent);
  return finishRewind(session, intent);
}

/** Does (or finishes) the rewind `intent` records; each step is safe to repeat. */
export async function finishRewind(session: SessionHandle, intent: RewindIntent): Promise<RewindResult> {
  const cp = session.checkpoint.read();
  await git(cp.source).raw(['update-ref', '-m', `tilth: before rewind ${intent.rewind}`, intent.backup_ref, intent.from_sha]);
  if (fs.existsSync(cp.worktree)) {
    // The worktree is Tilth's own: its uncommitted changes belong to the work being rewound.
    const ref = await worktreeRefOf(cp);
    await worktreeGit(ref).raw(['reset', '--hard', '-q', intent.to_sha]);
    await worktreeGit(ref).raw(['clean', '-fdq']);
    // From the target each time, so a replay cut short is simply done again.
    for (const sha of intent.replay ?? []) {
      await worktreeGit(ref).raw([...(await identityFor(cp.source)), 'cherry-pick', '--allow-empty', '--no-gpg-sign', sha]);
    }
  } else {
    // No worktree (deleted by hand): move the branch; resume re-creates the worktree from it.
    await strictGit(cp.source).raw(['update-ref', '-m', `tilth: rewind ${intent.rewind}`, `refs/heads/${cp.branch}`, intent.to_sha]);
  }
  const reset = new Set(intent.tasks);
  for (const id of intent.tasks) session.archive.take(intent.rewind, id);
  const before = session.prd.tasks();
  session.prd.write(before.map((t) => (reset.has(t.id) ? pendingAgain(t) : t)));
  for (const t of before) {
    const line = `rewound:${intent.rewind}`;
    if (reset.has(t.id) && !session.progress.has(`${t.id}\t${line}\t`)) session.progress.append(t.id, line, t.title);
  }
  // A rewound session is a run to resume; its last stop no longer describes where it stands.
  session.checkpoint.update(() => ({ last_stop: null, last_error: null }));
  if (session.checkpoint.read().status !== 'stopped') session.checkpoint.setStatus('stopped');
  session.emit({
    type: 'rewound',
    data: {
      after: intent.after,
      rewind: intent.rewind,
      from_sha: intent.from_sha,
      to_sha: intent.to_sha,
      backup_ref: intent.backup_ref,
      tasks: intent.tasks,
    },
  });
  session.rewindIntent.clear();
  return { ...intent, status: 'stopped' };
}

function pendingAgain(task: PrdEntry): PrdEntry {
  const { revision: _dropped, ...rest } = task;
  return { ...rest, status: 'pending' };
}
