/**
 * Getting the branch out without merging: push it to a remote, open a pull request (with `gh`
 * when it is installed and signed in, else the host's compare URL), and cleanse (remove the
 * worktree and branch, keep the record) once the work is safe elsewhere.
 */
import fs from 'node:fs';
import type { PrResultSchema } from '../../shared/review.ts';
import type { z } from 'zod';
import { AppError, ConflictError, ValidationError } from '../errors/app-error.ts';
import { git } from '../git/git-base.ts';
import { branchHead, removeWorktree } from '../git/repo.ts';
import { ghReady, remotes, stateRefusal } from './review.ts';
import type { SessionHandle } from '../store/session-handle.ts';

const NETWORK_TIMEOUT_MS = 120_000;

async function knownRemote(repo: string, remote: string): Promise<void> {
  const names = await remotes(repo);
  if (!names.includes(remote)) {
    throw new ValidationError(
      names.length === 0
        ? `The repository has no remotes; add one with git remote add, then push.`
        : `Unknown remote "${remote}"; this repository has ${names.join(', ')}.`,
    );
  }
}

export async function push(session: SessionHandle, remote: string): Promise<{ remote: string; branch: string }> {
  const cp = session.checkpoint.read();
  const refusal = stateRefusal(cp, 'push');
  if (refusal !== null) throw new ConflictError('session_not_pushable', `This session cannot be pushed: ${refusal}.`);
  if (!(await branchHead(cp.source, cp.branch))) throw new ConflictError('branch_missing', `The session branch ${cp.branch} is gone.`);
  await knownRemote(cp.source, remote);
  const { execa } = await import('execa');
  const result = await execa('git', ['push', '--', remote, `refs/heads/${cp.branch}:refs/heads/${cp.branch}`], {
    cwd: cp.source,
    reject: false,
    timeout: NETWORK_TIMEOUT_MS,
    stdin: 'ignore',
    env: { GIT_TERMINAL_PROMPT: '0' },
  });
  if (result.exitCode !== 0) throw new AppError('push_failed', `git push to ${remote} failed: ${(result.stderr || result.stdout).trim().slice(0, 2_000)}`);
  session.checkpoint.update(() => ({ pushed: { remote, branch: cp.branch, at: new Date().toISOString() } }));
  session.emit({ type: 'push', data: { remote, branch: cp.branch } });
  return { remote, branch: cp.branch };
}

/** `https://github.com/owner/repo/compare/base...branch?expand=1` from a GitHub remote URL. */
export function compareUrl(remoteUrl: string, base: string, branch: string): string | null {
  const m = /^(?:https?:\/\/(?:[^@/]+@)?|ssh:\/\/git@|git@)(github\.com)[:/]([^/\s]+)\/([^/\s]+?)(?:\.git)?\/?$/.exec(remoteUrl.trim());
  if (!m) return null;
  return `https://${m[1]}/${m[2]}/${m[3]}/compare/${encodeURIComponent(base)}...${encodeURIComponent(branch)}?expand=1`;
}

export async function openPr(session: SessionHandle, remoteName?: string): Promise<z.infer<typeof PrResultSchema>> {
  const cp = session.checkpoint.read();
  if (cp.status === 'archived') throw new ConflictError('session_archived', 'This session is archived; its branch is gone.');
  if (!cp.base_branch) throw new ConflictError('no_base_branch', 'The session started from a detached HEAD, so there is no base branch for a pull request.');
  const names = await remotes(cp.source);
  const remote = remoteName ?? (names.includes('origin') ? 'origin' : names[0]);
  if (!remote) throw new ValidationError('The repository has no remotes; add one with git remote add, then push.');
  await knownRemote(cp.source, remote);
  let via: 'gh' | 'compare_url';
  let url: string;
  if (await ghReady()) {
    const title = cp.title || cp.branch;
    const { execa } = await import('execa');
    const result = await execa(
      'gh',
      ['pr', 'create', '--head', cp.branch, '--base', cp.base_branch, '--title', title, '--body', `Built by Tilth in session ${session.id}.`],
      {
        cwd: cp.source,
        reject: false,
        timeout: NETWORK_TIMEOUT_MS,
        stdin: 'ignore',
      },
    );
    if (result.exitCode !== 0) throw new AppError('pr_failed', `gh pr create failed: ${(result.stderr || result.stdout).trim().slice(0, 2_000)}`);
    url = result.stdout.trim().split('\n').at(-1) ?? '';
    via = 'gh';
  } else {
    const remoteUrl = (await git(cp.source).raw(['remote', 'get-url', remote])).trim();
    const compare = compareUrl(remoteUrl, cp.base_branch, cp.branch);
    if (!compare) {
      throw new ConflictError(
        'pr_unavailable',
        `gh is not installed or not signed in, and ${remote} (${remoteUrl}) is not a GitHub remote, so there is no compare URL to offer. Push the branch and open the request on your host.`,
      );
    }
    url = compare;
    via = 'compare_url';
  }
  session.emit({ type: 'pr', data: { url, via } });
  return { url, via };
}

export async function cleanse(session: SessionHandle): Promise<{ removed_worktree: boolean; removed_branch: boolean }> {
  const cp = session.checkpoint.read();
  if (cp.status === 'archived') throw new ConflictError('session_archived', 'This session is already archived.');
  if (cp.merged === null && cp.pushed === null)
    throw new ConflictError('session_not_safe', 'Cleansing removes the session branch; merge or push it first so the work is kept.');
  const hadWorktree = fs.existsSync(cp.worktree);
  const hadBranch = (await branchHead(cp.source, cp.branch)) !== null;
  await removeWorktree(cp.source, cp.worktree, cp.branch);
  const data = { removed_worktree: hadWorktree, removed_branch: hadBranch };
  session.emit({ type: 'cleanse', data });
  session.checkpoint.setStatus('archived');
  return data;
}
