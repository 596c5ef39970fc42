/**
 * How the harness calls git: simple-git with hooks and fsmonitor off, and GitError for failures.
 */
import { simpleGit, type SimpleGit } from 'simple-git';
import { AppError } from '../errors/app-error.ts';

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
 * The files named `<rev>:<path>`, in the order asked, read by one `git cat-file --batch` on
 * `dir` (hooks and fsmonitor off, as `git`): one process however many are asked for, where a
 * `git show` each cost a process per file (a send-back of 200 comments took a minute). Null for
 * a name that is no file there (missing, a folder, a submodule), and, without asking git, for a
 * name with a line break, which the batch protocol (one name a line) cannot carry.
 */
export async function readBlobs(dir: string, names: readonly string[]): Promise<(Buffer | null)[]> {
  const asked = [...new Set(names.filter((n) => !/[\r\n]/.test(n)))];
  if (asked.length === 0) return names.map(() => null);
  const out: Buffer = await simpleGit({
    baseDir: dir,
    config: HARDENED_CONFIG,
    unsafe: { allowUnsafeFsMonitor: true, allowUnsafeHooksPath: true },
    timeout: { block: 60_000 },
    input: () => `${asked.join('\n')}\n`,
  })
    .binaryCatFile(['--batch'])
    .catch((err: unknown) => {
      throw new GitError(`git cat-file could not read ${asked.length} file(s) in ${dir}: ${(err as Error).message}`, { cause: err });
    });
  const found = new Map<string, Buffer | null>();
  let at = 0;
  for (const name of asked) {
    const end = out.indexOf(0x0a, at);
    if (end === -1) throw new GitError(`git cat-file stopped before it answered for ${name}.`);
    // `<sha> <type> <size>`, then the content and a newline; or `<name> missing` (or `ambiguous`).
    const header = /^[0-9a-f]+ (\w+) (\d+)$/.exec(out.subarray(at, end).toString('utf8'));
    at = end + 1;
    if (header === null) {
      found.set(name, null);
      continue;
    }
    const size = Number(header[2]);
    found.set(name, header[1] === 'blob' ? out.subarray(at, at + size) : null);
    at += size + 1;
  }
  return names.map((n) => found.get(n) ?? null);
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
