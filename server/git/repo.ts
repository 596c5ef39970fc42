/**
 * Everything Tilth does with git, through simple-git. The source repo's working tree is never
 * touched: sessions only add a `session/<id>` branch and a worktree that lives under the
 * session folder.
 */
import fs from 'node:fs';
import path from 'node:path';
import { simpleGit, type SimpleGit } from 'simple-git';
import { AppError } from '../errors.ts';

export class GitError extends AppError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('git_failed', message, 500, options);
  }
}

/** Used only when the repo and the machine have no git identity, so commits never fail on it. */
const FALLBACK_IDENTITY = ['-c', 'user.name=Tilth', '-c', 'user.email=tilth@localhost'];

/** `-c` flags giving a commit an identity when the repo and the machine have none. */
export async function identityArgs(dir: string): Promise<string[]> {
  const hasIdentity = (await git(dir).raw(['config', '--get', 'user.email']).catch(() => '')).trim() !== '';
  return hasIdentity ? [] : FALLBACK_IDENTITY;
}

export function git(dir: string): SimpleGit {
  // A hostile repo config must not run a program when Tilth only wants to read: no fsmonitor.
  // (Output is never a TTY, so no pager runs either.)
  // (simple-git refuses any fsmonitor setting unless told this one is deliberate.)
  return simpleGit({
    baseDir: dir,
    config: ['core.fsmonitor=false'],
    unsafe: { allowUnsafeFsMonitor: true },
    timeout: { block: 60_000 },
  });
}

/**
 * `git` for commands whose exit code is the answer. simple-git reports a failure only when the
 * exit code is non-zero *and* something was written to stderr, so a conflicted `git merge` (its
 * CONFLICT lines go to stdout) or `merge-base --is-ancestor` (silent) "succeed". Here any
 * non-zero exit rejects, with whatever git printed.
 */
export function strictGit(dir: string): SimpleGit {
  return simpleGit({
    baseDir: dir,
    config: ['core.fsmonitor=false'],
    unsafe: { allowUnsafeFsMonitor: true },
    timeout: { block: 60_000 },
    errors(error, result) {
      if (error) return error;
      if (result.exitCode === 0) return undefined;
      const printed = Buffer.concat([...result.stdErr, ...result.stdOut]).toString('utf8').trim();
      return Buffer.from(printed || `git exited with code ${result.exitCode}`);
    },
  });
}

export type WorkspaceKind = 'repo' | 'missing' | 'not_a_directory' | 'not_a_repo' | 'bare' | 'no_commits';

export interface WorkspaceInfo {
  path: string;
  kind: WorkspaceKind;
  message: string;
  root: string | null;
  branch: string | null;
  head: string | null;
  clean: boolean | null;
}

/** What the user pointed at: a repo root or any folder inside one, or why it cannot be used. */
export async function inspectWorkspace(input: string): Promise<WorkspaceInfo> {
  const abs = path.resolve(input);
  const base = { path: abs, root: null, branch: null, head: null, clean: null };
  const stat = fs.statSync(abs, { throwIfNoEntry: false });
  if (!stat) return { ...base, kind: 'missing', message: `Nothing exists at ${abs}.` };
  if (!stat.isDirectory()) return { ...base, kind: 'not_a_directory', message: `${abs} is a file; point at the repository's folder.` };

  const g = git(abs);
  let inside: string;
  try {
    inside = (await g.raw(['rev-parse', '--is-bare-repository', '--is-inside-work-tree'])).trim();
  } catch {
    return { ...base, kind: 'not_a_repo', message: `${abs} is not inside a git repository. Run \`git init -b main && git add -A && git commit -m init\` there first.` };
  }
  if (inside.startsWith('true')) {
    return { ...base, kind: 'bare', message: `${abs} is a bare repository (no working tree). Point at a clone with a working tree.` };
  }
  const root = (await g.raw(['rev-parse', '--show-toplevel'])).trim();
  const branch = (await g.raw(['symbolic-ref', '--quiet', '--short', 'HEAD']).catch(() => '')).trim() || null;
  // Empty output (not an exception) when HEAD names no commit yet.
  const head = (await g.raw(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']).catch(() => '')).trim() || null;
  if (!head) {
    return { ...base, root, branch, kind: 'no_commits', message: `The repository at ${root} has no commits yet. Commit something first (\`git add -A && git commit -m init\`).` };
  }
  const status = await git(root).raw(['status', '--porcelain', '--untracked-files=normal']);
  const clean = status.trim() === '';
  const where = branch ? `on branch ${branch}` : `at a detached HEAD`;
  return {
    ...base,
    root,
    branch,
    head,
    clean,
    kind: 'repo',
    message: clean
      ? `Git repository ${where}, clean.`
      : `Git repository ${where}. It has uncommitted changes: the interview can read them, but the session branch starts from the last commit.`,
  };
}

/** Adds `branch` at `baseSha` and checks it out in a new worktree at `worktreePath`. */
export async function addWorktree(repoRoot: string, worktreePath: string, branch: string, baseSha: string): Promise<void> {
  try {
    await git(repoRoot).raw(['worktree', 'add', '-b', branch, worktreePath, baseSha]);
  } catch (err) {
    throw new GitError(`Could not create the worktree for ${branch}: ${(err as Error).message}`, { cause: err });
  }
}

/** Removes the worktree (if present) and the branch; tolerant of either being gone already. */
export async function removeWorktree(repoRoot: string, worktreePath: string, branch: string): Promise<void> {
  const g = git(repoRoot);
  if (fs.existsSync(worktreePath)) await g.raw(['worktree', 'remove', '--force', worktreePath]).catch(() => {});
  fs.rmSync(worktreePath, { recursive: true, force: true });
  await g.raw(['worktree', 'prune']).catch(() => {});
  // (rev-parse --verify --quiet fails silently, which simple-git does not report: ask for-each-ref.)
  const exists = (await g.raw(['for-each-ref', '--format=%(refname)', `refs/heads/${branch}`])).trim() !== '';
  if (exists) await g.raw(['branch', '-D', branch]);
}

/**
 * Stages everything in the worktree and commits; returns the new sha, or null if nothing changed
 * (unless `allowEmpty`: a record-only commit, e.g. a seed edit that changed only task text, which
 * lives in the session folder rather than the worktree).
 */
export async function commitAll(
  worktree: string,
  subject: string,
  body?: string,
  /** `paths`: stage only these (additions, changes and deletions), not the whole worktree. */
  options: { allowEmpty?: boolean; paths?: string[] } = {},
): Promise<string | null> {
  const g = git(worktree);
  if (options.paths) {
    if (options.paths.length > 0) await g.raw(['add', '-A', '--', ...options.paths]);
  } else {
    await g.raw(['add', '-A']);
  }
  const staged = (await g.raw(['diff', '--cached', '--name-only'])).trim();
  if (staged === '' && !options.allowEmpty) return null;
  const message = body ? `${subject}\n\n${body}` : subject;
  try {
    await g.raw([...(await identityArgs(worktree)), 'commit', '--no-verify', '-q', ...(options.allowEmpty ? ['--allow-empty'] : []), '-m', message]);
  } catch (err) {
    throw new GitError(`The commit "${subject}" failed: ${(err as Error).message}`, { cause: err });
  }
  return (await g.raw(['rev-parse', 'HEAD'])).trim();
}

export async function localBranches(repoRoot: string): Promise<string[]> {
  const out = await git(repoRoot).raw(['for-each-ref', '--format=%(refname:short)', 'refs/heads']);
  return out.split('\n').filter(Boolean).sort();
}

export async function statusPorcelain(dir: string): Promise<string> {
  return git(dir).raw(['status', '--porcelain']);
}

/**
 * The task's work so far: the worktree against the last commit, new files included (marked
 * intent-to-add first, as the Python edition did, so `git diff` shows them).
 */
export async function workingDiff(worktree: string): Promise<string> {
  const g = git(worktree);
  await g.raw(['add', '-N', '.']);
  return g.raw(['diff', 'HEAD', '--no-color', '--no-ext-diff']);
}

/** Paths changed, added or deleted since the last commit (relative to the worktree), for lint. */
export async function changedFiles(worktree: string): Promise<string[]> {
  const out = await git(worktree).raw(['status', '--porcelain', '-z', '--untracked-files=all']);
  const files: string[] = [];
  const entries = out.split('\0').filter(Boolean);
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    const status = entry.slice(0, 2);
    files.push(entry.slice(3));
    if (status.startsWith('R') || status.startsWith('C')) i++; // the rename's source path follows
  }
  return files.sort();
}

/** `path (+a -d)` per changed path (new files included), joined by `; `, for the ledger. */
export async function diffSummary(worktree: string): Promise<string> {
  const g = git(worktree);
  await g.raw(['add', '-N', '.']);
  const out = await g.raw(['diff', '--numstat', 'HEAD']);
  const parts = out
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [added, deleted, ...rest] = line.split('\t');
      const file = rest.join('\t');
      return added === '-' ? `${file} (binary)` : `${file} (+${added} -${deleted})`;
    });
  return parts.length > 0 ? parts.join('; ') : '(no changes)';
}

/** The subject line of HEAD in `dir`. */
export async function headSubject(dir: string): Promise<string> {
  return (await git(dir).raw(['log', '-1', '--format=%s'])).trim();
}

/** Subjects of the commits in `range` (e.g. `base..refs/heads/session/x`), newest first. */
export async function subjectsIn(dir: string, range: string): Promise<string[]> {
  const out = await git(dir).raw(['log', '--format=%s', range]);
  return out.split('\n').filter(Boolean);
}

/** `git reset --soft HEAD^`: the last commit's changes go back to the index, nothing is lost. */
export async function undoLastCommit(dir: string): Promise<void> {
  await git(dir).raw(['reset', '--soft', 'HEAD^']);
}

/** The diff of the last commit, for the learnings step. */
export async function lastCommitDiff(dir: string): Promise<string> {
  return git(dir).raw(['show', '--format=', '--no-color', '--no-ext-diff', 'HEAD']);
}

/**
 * Re-creates a worktree deleted by hand from its branch (the Python edition returned the missing
 * path): prune the stale registration, then add the worktree on the existing branch.
 */
export async function restoreWorktree(repoRoot: string, worktreePath: string, branch: string): Promise<void> {
  const g = git(repoRoot);
  await g.raw(['worktree', 'prune']);
  const exists = (await g.raw(['for-each-ref', '--format=%(refname)', `refs/heads/${branch}`])).trim() !== '';
  if (!exists) throw new GitError(`The worktree ${worktreePath} is gone and so is its branch ${branch}; the session's work cannot be recovered.`);
  try {
    await g.raw(['worktree', 'add', worktreePath, branch]);
  } catch (err) {
    throw new GitError(`Could not re-create the worktree ${worktreePath} from ${branch}: ${(err as Error).message}`, { cause: err });
  }
}

/** Lock files git leaves behind when it is killed mid-write, in a worktree's own folder. */
const WORKTREE_LOCKS = ['index.lock', 'HEAD.lock'];

/**
 * Removes the lock files a killed server's git left in a session's own corners of the
 * repository — its worktree's index and HEAD, and its branch's ref — which otherwise make every
 * later git command there fail ("Unable to create …/index.lock: File exists"). Git's advice is to
 * delete them when no git process is running; callers make sure of that: only after a crash, and
 * before the session's next job runs any git. Locks of the whole repository (its main index,
 * packed-refs, config) are never touched: the user's own git may hold them. The worktree's folder
 * in the repository is found from the repository's side (`worktrees/<name>/gitdir`), never through
 * the worktree's `.git` file, which the worker can rewrite. Returns the paths removed.
 */
export async function removeStaleSessionLocks(repoRoot: string, worktree: string, branch: string): Promise<string[]> {
  const common = (await git(repoRoot).raw(['rev-parse', '--path-format=absolute', '--git-common-dir'])).trim();
  const candidates = [path.join(common, 'refs', 'heads', `${branch}.lock`)];
  const real = (p: string) => {
    try {
      return fs.realpathSync(p);
    } catch {
      return path.resolve(p);
    }
  };
  const ours = real(worktree);
  const folders = path.join(common, 'worktrees');
  for (const name of fs.existsSync(folders) ? fs.readdirSync(folders) : []) {
    let pointer: string;
    try {
      pointer = fs.readFileSync(path.join(folders, name, 'gitdir'), 'utf8').trim();
    } catch {
      continue;
    }
    if (real(path.dirname(pointer)) === ours) candidates.push(...WORKTREE_LOCKS.map((f) => path.join(folders, name, f)));
  }
  const removed: string[] = [];
  for (const file of candidates) {
    try {
      fs.unlinkSync(file);
      removed.push(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  return removed;
}

/** Where a worktree's git metadata lives: the shared `.git` and the worktree's own folder in it. */
export async function gitDirs(worktree: string): Promise<{ commonDir: string; worktreeGitDir: string }> {
  const out = await git(worktree).raw(['rev-parse', '--path-format=absolute', '--git-common-dir', '--git-dir']);
  const [commonDir, worktreeGitDir] = out.trim().split('\n');
  if (!commonDir || !worktreeGitDir) throw new GitError(`git rev-parse gave no git folders for ${worktree}`);
  return { commonDir, worktreeGitDir };
}
