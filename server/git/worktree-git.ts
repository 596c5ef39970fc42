/**
 * Git on a session's worktree, the way the harness must run it: nothing the worker can write is
 * allowed to decide what git runs or where it looks.
 *
 * The worker's shell can write the worktree, and in the past it could also write the worktree's
 * git dir. Git discovers a worktree's repository through files in those places — the `.git`
 * pointer file, the git dir's `commondir` — and then runs the hooks and reads the config it finds
 * there. A worker that rewrote a pointer to a planted git dir got its hooks run by the harness,
 * as the server user, with the API key in the environment. So the harness:
 * - records the worktree's git dir and common dir at prep, looked up through the source
 *   repository (which the worker cannot write), and from then on passes them as `GIT_DIR`,
 *   `GIT_COMMON_DIR` and `GIT_WORK_TREE`, so git never reads the pointer files;
 * - checks before every call that the pointer files still say what was recorded, and stops the
 *   task (`git_tampered`, naming the file) when they do not — the user's own git in that folder
 *   would follow them;
 * - turns off hooks (`core.hooksPath=/dev/null`), fsmonitor, system and global config, and runs
 *   with an environment without secrets; diffs pass `--no-ext-diff --no-textconv`. The user's
 *   identity is read from the source repository and passed with `-c`.
 * In the sandbox the git metadata is also read-only (proc/sandbox.ts); either layer alone closes
 * the hole, together they also keep the pointers intact for the user.
 */
import fs from 'node:fs';
import path from 'node:path';
import { simpleGit, type SimpleGit } from 'simple-git';
import { AppError } from '../errors/app-error.ts';
import { Tree } from '../fs/tree.ts';
import { git, GitError, HARDENED_CONFIG } from './git-base.ts';

/** Where a worktree's git metadata lives: its own git dir and the repository's shared one. */
export interface GitDirs {
  gitDir: string;
  commonDir: string;
}

/** A session's worktree with its recorded git dirs and the source repository it came from. */
export interface WorktreeRef extends GitDirs {
  worktree: string;
  source: string;
}

/** A worktree's git pointers no longer say what was recorded at prep. */
export class GitTamperedError extends AppError {
  constructor(message: string) {
    super('git_tampered', message);
  }
}

function real(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/**
 * The git dirs of `worktree`, found through the source repository: its common dir, then the
 * `worktrees/<name>/gitdir` entry that points back at `<worktree>/.git`. Nothing in the worktree
 * is read.
 */
export async function lookupGitDirs(source: string, worktree: string): Promise<GitDirs> {
  const commonDir = real(path.resolve(source, (await git(source).raw(['rev-parse', '--path-format=absolute', '--git-common-dir'])).trim()));
  const wanted = path.join(real(worktree), '.git');
  const listed = path.join(commonDir, 'worktrees');
  for (const name of fs.existsSync(listed) ? fs.readdirSync(listed) : []) {
    const gitDir = path.join(listed, name);
    let pointsAt: string;
    try {
      pointsAt = fs.readFileSync(path.join(gitDir, 'gitdir'), 'utf8').trim();
    } catch {
      continue;
    }
    if (path.join(real(path.dirname(path.resolve(gitDir, pointsAt))), '.git') === wanted) return { gitDir: real(gitDir), commonDir };
  }
  throw new AppError('git_failed', `The source repository ${source} has no worktree registered at ${worktree}.`);
}

/** The worktree of a session as the harness must address it: recorded dirs, or (older sessions) looked up. */
export async function worktreeRefOf(cp: { source: string; worktree: string; git_dir: string | null; git_common_dir: string | null }): Promise<WorktreeRef> {
  const dirs = cp.git_dir && cp.git_common_dir ? { gitDir: cp.git_dir, commonDir: cp.git_common_dir } : await lookupGitDirs(cp.source, cp.worktree);
  return { ...dirs, worktree: cp.worktree, source: cp.source };
}

function readPointer(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
}

/** What differs between the worktree's pointer files and the recorded git dirs, in words; [] when nothing. */
export function pointerProblems(ref: WorktreeRef): string[] {
  const problems: string[] = [];
  const dotGit = path.join(ref.worktree, '.git');
  const stat = fs.lstatSync(dotGit, { throwIfNoEntry: false });
  if (!stat) problems.push(`${dotGit} was deleted`);
  else if (!stat.isFile()) problems.push(`${dotGit} was replaced by a ${stat.isSymbolicLink() ? 'symlink' : stat.isDirectory() ? 'folder' : 'special file'}`);
  else {
    const content = readPointer(dotGit) ?? '';
    const target = content.startsWith('gitdir:') ? real(path.resolve(ref.worktree, content.slice('gitdir:'.length).trim())) : null;
    if (target !== real(ref.gitDir))
      problems.push(`${dotGit} was changed to point at ${target ?? JSON.stringify(content.slice(0, 200))} instead of ${ref.gitDir}`);
  }
  const commondir = readPointer(path.join(ref.gitDir, 'commondir'));
  if (commondir === null || real(path.resolve(ref.gitDir, commondir)) !== real(ref.commonDir)) {
    problems.push(
      `${path.join(ref.gitDir, 'commondir')} was changed to point at ${commondir === null ? '(nothing)' : path.resolve(ref.gitDir, commondir)} instead of ${ref.commonDir}`,
    );
  }
  const back = readPointer(path.join(ref.gitDir, 'gitdir'));
  if (back === null || real(path.resolve(ref.gitDir, back)) !== real(dotGit)) {
    problems.push(`${path.join(ref.gitDir, 'gitdir')} was changed to point at ${back ?? '(nothing)'} instead of ${dotGit}`);
  }
  return problems;
}

/** Throws GitTamperedError, naming what changed, unless the pointers are as recorded. */
export function verifyPointers(ref: WorktreeRef): void {
  const problems = pointerProblems(ref);
  if (problems.length > 0) {
    throw new GitTamperedError(`The worktree's git metadata was tampered with: ${problems.join('; ')}. Tilth ran no git command there.`);
  }
}

/** Puts the pointer files back as recorded (resume does this after a `git_tampered` stop); returns what it repaired. */
export function restorePointers(ref: WorktreeRef): string[] {
  const problems = pointerProblems(ref);
  if (problems.length === 0) return [];
  const dotGit = path.join(ref.worktree, '.git');
  // The worker may have put a folder or a link where each pointer was: each is replaced, never followed.
  const worktree = Tree.at(ref.worktree);
  worktree.remove('.git', { recursive: true });
  worktree.writeFileAtomic('.git', `gitdir: ${ref.gitDir}\n`);
  const gitDir = Tree.at(ref.gitDir);
  gitDir.writeFileAtomic('commondir', `${path.relative(ref.gitDir, ref.commonDir) || '.'}\n`);
  gitDir.writeFileAtomic('gitdir', `${dotGit}\n`);
  return problems;
}

/**
 * The environment of a harness git call: only what git needs to run (no editor, pager, askpass
 * or ssh command from the server's environment, and no secrets), with git pinned to the recorded
 * dirs and no system or global config.
 */
const PINNED_ENV = ['GIT_DIR', 'GIT_COMMON_DIR', 'GIT_WORK_TREE', 'GIT_CONFIG_NOSYSTEM', 'GIT_CONFIG_GLOBAL', 'GIT_TERMINAL_PROMPT'] as const;

function harnessEnv(ref: WorktreeRef): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of ['PATH', 'HOME', 'USER', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TMPDIR', 'TZ']) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return {
    ...env,
    GIT_DIR: ref.gitDir,
    GIT_COMMON_DIR: ref.commonDir,
    GIT_WORK_TREE: ref.worktree,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
  };
}

/**
 * A simple-git bound to the recorded dirs, after checking the pointers. Call it once per
 * operation, so the check runs right before the git commands it guards.
 */
export function worktreeGit(ref: WorktreeRef): SimpleGit {
  verifyPointers(ref);
  return simpleGit({
    baseDir: ref.worktree,
    config: HARDENED_CONFIG,
    unsafe: { allowUnsafeFsMonitor: true, allowUnsafeHooksPath: true, allowUnsafeConfigPaths: true },
    allowEnvironment: PINNED_ENV,
    timeout: { block: 60_000 },
  }).env(harnessEnv(ref));
}

/**
 * `-c user.name=… -c user.email=…` for a commit in the worktree: the identity the user's own
 * git would use in the source repository (read there, where the worker cannot write), or Tilth's
 * when there is none.
 */
export async function identityFor(source: string): Promise<string[]> {
  const read = async (key: string) =>
    (
      await git(source)
        .raw(['config', '--get', key])
        .catch(() => '')
    ).trim();
  const [name, email] = await Promise.all([read('user.name'), read('user.email')]);
  return ['-c', `user.name=${name || 'Tilth'}`, '-c', `user.email=${email || 'tilth@localhost'}`];
}

/**
 * Stages everything in the worktree and commits; returns the new sha, or null if nothing changed
 * (unless `allowEmpty`: a record-only commit, e.g. a seed edit that changed only task text, which
 * lives in the session folder rather than the worktree).
 */
export async function commitAll(
  ref: WorktreeRef,
  subject: string,
  body?: string,
  /** `paths`: stage only these (additions, changes and deletions), not the whole worktree. */
  options: { allowEmpty?: boolean; paths?: string[] } = {},
): Promise<string | null> {
  const g = worktreeGit(ref);
  if (options.paths) {
    if (options.paths.length > 0) await g.raw(['add', '-A', '--', ...options.paths]);
  } else {
    await g.raw(['add', '-A']);
  }
  const staged = (await g.raw(['diff', '--cached', '--name-only', '--no-ext-diff'])).trim();
  if (staged === '' && !options.allowEmpty) return null;
  const message = body ? `${subject}\n\n${body}` : subject;
  try {
    await worktreeGit(ref).raw([
      ...(await identityFor(ref.source)),
      'commit',
      '--no-verify',
      '--no-gpg-sign',
      '-q',
      ...(options.allowEmpty ? ['--allow-empty'] : []),
      '-m',
      message,
    ]);
  } catch (err) {
    throw new GitError(`The commit "${subject}" failed: ${(err as Error).message}`, { cause: err });
  }
  return (await worktreeGit(ref).raw(['rev-parse', 'HEAD'])).trim();
}

/**
 * The task's work so far: the worktree against the last commit, new files included (marked
 * intent-to-add first, as the Python edition did, so `git diff` shows them).
 */
export async function workingDiff(ref: WorktreeRef): Promise<string> {
  const g = worktreeGit(ref);
  await g.raw(['add', '-N', '.']);
  return g.raw(['diff', 'HEAD', '--no-color', '--no-ext-diff', '--no-textconv']);
}

/** Paths changed, added or deleted since the last commit (relative to the worktree), for lint. */
export async function changedFiles(ref: WorktreeRef): Promise<string[]> {
  const out = await worktreeGit(ref).raw(['status', '--porcelain', '-z', '--untracked-files=all']);
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
export async function diffSummary(ref: WorktreeRef): Promise<string> {
  const g = worktreeGit(ref);
  await g.raw(['add', '-N', '.']);
  const out = await g.raw(['diff', '--numstat', '--no-ext-diff', '--no-textconv', 'HEAD']);
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

/** The subject line of the worktree's HEAD. */
export async function headSubject(ref: WorktreeRef): Promise<string> {
  return (await worktreeGit(ref).raw(['log', '-1', '--format=%s'])).trim();
}

/** `git reset --soft HEAD^`: the last commit's changes go back to the index, nothing is lost. */
export async function undoLastCommit(ref: WorktreeRef): Promise<void> {
  await worktreeGit(ref).raw(['reset', '--soft', 'HEAD^']);
}

/** The diff of the last commit, for the learnings step. */
export async function lastCommitDiff(ref: WorktreeRef): Promise<string> {
  return worktreeGit(ref).raw(['show', '--format=', '--no-color', '--no-ext-diff', '--no-textconv', 'HEAD']);
}
