/**
 * Everything Tilth does with git, through simple-git. The source repo's working tree is never
 * touched: sessions only add a `session/<id>` branch and a worktree that lives under the
 * session folder. Git on a session's worktree goes through worktree-git.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AppError } from '../errors/app-error.ts';
import { Tree } from '../fs/tree.ts';
import { git, GitError } from './git-base.ts';
import { lookupGitDirs } from './worktree-git.ts';

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

/** The root of the working tree `dir` is inside, or null: not in a repository, a bare one, or unreadable. */
export async function workTreeRoot(dir: string): Promise<string | null> {
  try {
    return (await inspectWorkspace(dir)).root;
  } catch {
    return null;
  }
}

/**
 * A path as a shell would read its start: `~` and `~/…` are the user's home folder (the server's
 * user, the only one it runs as). Anything else, `~other` included, is left as typed.
 */
export function expandHome(input: string, home = os.homedir()): string {
  if (input === '~') return home;
  return input.startsWith('~/') ? path.join(home, input.slice(2)) : input;
}

/** What the user pointed at: a repo root or any folder inside one, or why it cannot be used. */
export async function inspectWorkspace(input: string): Promise<WorkspaceInfo> {
  const abs = path.resolve(expandHome(input));
  const base = { path: abs, root: null, branch: null, head: null, clean: null };
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(abs, { throwIfNoEntry: false });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR') return { ...base, kind: 'missing', message: `Nothing exists at ${abs}: part of that path is a file, not a folder.` };
    throw new AppError('invalid_path', unusablePath(abs, code), { cause: err });
  }
  if (!stat) return { ...base, kind: 'missing', message: `Nothing exists at ${abs}.` };
  if (!stat.isDirectory()) return { ...base, kind: 'not_a_directory', message: `${abs} is a file; point at the repository's folder.` };

  const g = git(abs);
  let inside: string;
  try {
    inside = (await g.raw(['rev-parse', '--is-bare-repository', '--is-inside-work-tree'])).trim();
  } catch {
    return {
      ...base,
      kind: 'not_a_repo',
      message: `${abs} is not inside a git repository. Run \`git init -b main && git add -A && git commit -m init\` there first.`,
    };
  }
  if (inside.startsWith('true')) {
    return { ...base, kind: 'bare', message: `${abs} is a bare repository (no working tree). Point at a clone with a working tree.` };
  }
  const root = (await g.raw(['rev-parse', '--show-toplevel'])).trim();
  const branch = (await g.raw(['symbolic-ref', '--quiet', '--short', 'HEAD']).catch(() => '')).trim() || null;
  // Empty output (not an exception) when HEAD names no commit yet.
  const head = (await g.raw(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']).catch(() => '')).trim() || null;
  if (!head) {
    return {
      ...base,
      root,
      branch,
      kind: 'no_commits',
      message: `The repository at ${root} has no commits yet. Commit something first (\`git add -A && git commit -m init\`).`,
    };
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

/** Why the filesystem would not look at a path the user gave, in words that say what to change. */
function unusablePath(abs: string, code: string | undefined): string {
  const shown = abs.length > 200 ? `${abs.slice(0, 200)}…` : abs;
  switch (code) {
    case 'ENAMETOOLONG':
      return `The path ${shown} is too long for the filesystem: each folder name is 255 bytes at most. Check the path you pasted.`;
    case 'EACCES':
    case 'EPERM':
      return `Tilth is not allowed to look inside ${shown} (permission denied). Pick a folder your user can read.`;
    case 'ELOOP':
      return `The path ${shown} goes round a loop of symbolic links. Point at the repository's real folder.`;
    default:
      return `The path ${shown} cannot be read (${code ?? 'unknown error'}). Check it and try again.`;
  }
}

/**
 * Adds `branch` at `baseSha` and checks it out in a new worktree at `worktreePath`; returns the
 * checkpoint fields that record its git dirs (see worktree-git.ts).
 */
export async function addWorktree(repoRoot: string, worktreePath: string, branch: string, baseSha: string): Promise<RecordedGitDirs> {
  try {
    await git(repoRoot).raw(['worktree', 'add', '-b', branch, worktreePath, baseSha]);
  } catch (err) {
    throw new GitError(`Could not create the worktree for ${branch}: ${(err as Error).message}`, { cause: err });
  }
  return recordGitDirs(repoRoot, worktreePath);
}

/** Removes the worktree (if present) and the branch; tolerant of either being gone already. */
export async function removeWorktree(repoRoot: string, worktreePath: string, branch: string): Promise<void> {
  const g = git(repoRoot);
  if (fs.existsSync(worktreePath)) await g.raw(['worktree', 'remove', '--force', worktreePath]).catch(() => {});
  removeFolder(worktreePath);
  await g.raw(['worktree', 'prune']).catch(() => {});
  // (rev-parse --verify --quiet fails silently, which simple-git does not report: ask for-each-ref.)
  const exists = (await g.raw(['for-each-ref', '--format=%(refname)', `refs/heads/${branch}`])).trim() !== '';
  if (exists) await g.raw(['branch', '-D', branch]);
}

export async function localBranches(repoRoot: string): Promise<string[]> {
  const out = await git(repoRoot).raw(['for-each-ref', '--format=%(refname:short)', 'refs/heads']);
  return out.split('\n').filter(Boolean).sort();
}

export async function statusPorcelain(dir: string): Promise<string> {
  return git(dir).raw(['status', '--porcelain']);
}

/** The branch's head, or null when it is gone (cleansed, or deleted by hand). */
export async function branchHead(repo: string, branch: string): Promise<string | null> {
  if (!fs.existsSync(repo)) return null;
  const out = await git(repo)
    .raw(['for-each-ref', '--format=%(objectname)', `refs/heads/${branch}`])
    .catch(() => '');
  return out.trim() || null;
}

/** Subjects of the commits in `range` (e.g. `base..refs/heads/session/x`), newest first. */
export async function subjectsIn(dir: string, range: string): Promise<string[]> {
  const out = await git(dir).raw(['log', '--format=%s', range]);
  return out.split('\n').filter(Boolean);
}

/**
 * Re-creates a worktree deleted by hand from its branch (the Python edition returned the missing
 * path): prune the stale registration, then add the worktree on the existing branch.
 */
export async function restoreWorktree(repoRoot: string, worktreePath: string, branch: string): Promise<RecordedGitDirs> {
  const g = git(repoRoot);
  await g.raw(['worktree', 'prune']);
  const exists = (await g.raw(['for-each-ref', '--format=%(refname)', `refs/heads/${branch}`])).trim() !== '';
  if (!exists) throw new GitError(`The worktree ${worktreePath} is gone and so is its branch ${branch}; the session's work cannot be recovered.`);
  try {
    await g.raw(['worktree', 'add', worktreePath, branch]);
  } catch (err) {
    throw new GitError(`Could not re-create the worktree ${worktreePath} from ${branch}: ${(err as Error).message}`, { cause: err });
  }
  return recordGitDirs(repoRoot, worktreePath);
}

/** The checkpoint fields that record a worktree's git dirs (see worktree-git.ts). */
export interface RecordedGitDirs {
  git_dir: string;
  git_common_dir: string;
}

async function recordGitDirs(repoRoot: string, worktreePath: string): Promise<RecordedGitDirs> {
  const { gitDir, commonDir } = await lookupGitDirs(repoRoot, worktreePath);
  return { git_dir: gitDir, git_common_dir: commonDir };
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
 * in the repository is found from the repository's side (lookupGitDirs), never through the
 * worktree's `.git` file, which the worker can rewrite. Returns the paths removed.
 */
export async function removeStaleSessionLocks(repoRoot: string, worktree: string, branch: string): Promise<string[]> {
  const own = await lookupGitDirs(repoRoot, worktree).catch(() => null); // a worktree deleted by hand has none
  const common = own?.commonDir ?? (await git(repoRoot).raw(['rev-parse', '--path-format=absolute', '--git-common-dir'])).trim();
  const candidates = [{ tree: Tree.at(common), file: path.join(common, 'refs', 'heads', `${branch}.lock`) }];
  if (own) candidates.push(...WORKTREE_LOCKS.map((f) => ({ tree: Tree.at(own.gitDir), file: path.join(own.gitDir, f) })));
  const removed: string[] = [];
  for (const { tree, file } of candidates) {
    if (fs.lstatSync(file, { throwIfNoEntry: false }) === undefined) continue;
    tree.remove(file);
    removed.push(file);
  }
  return removed;
}

/**
 * Runs `fn` in a throwaway detached worktree of `repoRoot` at `rev`, made at `dir` (whatever was
 * left there is removed first) and removed again afterwards, whatever happens — the merge's and
 * the mutation probe's scratch worktrees.
 */
export async function withScratchWorktree<T>(repoRoot: string, dir: string, rev: string, fn: () => Promise<T>): Promise<T> {
  const repo = git(repoRoot);
  removeFolder(dir);
  await repo.raw(['worktree', 'prune']);
  await repo.raw(['worktree', 'add', '--detach', dir, rev]);
  try {
    return await fn();
  } finally {
    await repo.raw(['worktree', 'remove', '--force', dir]).catch(() => {});
    removeFolder(dir);
    await repo.raw(['worktree', 'prune']).catch(() => {});
  }
}

/**
 * Removes a worktree's folder, whatever is left in it, following none of its links. Its parent
 * is a session's own folder (made when missing), which no untrusted command can write.
 */
function removeFolder(dir: string): void {
  Tree.ensure(path.dirname(dir)).remove(dir, { recursive: true });
}
