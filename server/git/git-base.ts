/**
 * How the harness calls git: simple-git with hooks and fsmonitor off, and GitError for failures.
 */
import { simpleGit, type SimpleGit } from 'simple-git';
import { AppError } from '../errors.ts';

export class GitError extends AppError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('git_failed', message, options);
  }
}

/** `-c` settings on every git command the harness runs: no hooks, no fsmonitor. */
export const HARDENED_CONFIG = ['core.hooksPath=/dev/null', 'core.fsmonitor=false'];

/**
 * git on the source repository (or a scratch worktree the harness made): no hooks, no fsmonitor,
 * so no program runs that the user did not ask Tilth to run. The user's own config still applies
 * (identity, safe.directory). Output is never a TTY, so no pager runs either. (simple-git refuses
 * these settings unless told they are deliberate.) A session's worktree goes through
 * worktree-git.ts instead, which also pins the git dirs.
 */
export function git(dir: string): SimpleGit {
  return simpleGit({
    baseDir: dir,
    config: HARDENED_CONFIG,
    unsafe: { allowUnsafeFsMonitor: true, allowUnsafeHooksPath: true },
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
    config: HARDENED_CONFIG,
    unsafe: { allowUnsafeFsMonitor: true, allowUnsafeHooksPath: true },
    timeout: { block: 60_000 },
    errors(error, result) {
      if (error) return error;
      if (result.exitCode === 0) return undefined;
      const printed = Buffer.concat([...result.stdErr, ...result.stdOut])
        .toString('utf8')
        .trim();
      return Buffer.from(printed || `git exited with code ${result.exitCode}`);
    },
  });
}
