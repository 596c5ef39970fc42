/**
 * The shell sandbox (SPEC §6, §14): when bubblewrap works on this machine, every untrusted command
 * (see untrusted.ts) runs inside it — the root filesystem read-only, the worktree writable, its
 * git metadata read-only, a private `/tmp`, the protected folders (sessions root, Tilth home)
 * hidden, no network unless the session allows it, a private process table, and a process cap.
 * When it does not work, `detectSandbox` says why, plainly, for the UI.
 *
 * What it does not confine: the rest of the filesystem stays readable (a home directory's
 * dotfiles included), and a Unix socket on it (say, Docker's) can still be reached.
 */
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { GitDirs } from '../git/worktree-git.ts';
import { detectProcessCap, type ProcessCapInfo } from './process-cap.ts';
import { findOnPath } from './which.ts';
import type { Command } from './runner.ts';

export interface SandboxInfo {
  available: boolean;
  tool: 'bwrap' | null;
  /** bwrap's version when it is installed (even if it cannot run here). */
  version: string | null;
  /** One plain sentence for the settings page and the startup banner. */
  detail: string;
  /** How the process cap is enforced (null when there is no sandbox). */
  processCap: ProcessCapInfo | null;
}

/** `auto` uses bubblewrap when it works here; `off` never does (TILTH_SANDBOX). */
export type SandboxMode = 'auto' | 'off';

export interface SandboxPolicy {
  /** The one writable folder; the commands run in it. */
  worktree: string;
  /** Folders hidden behind an empty tmpfs (files behind /dev/null) when they exist. */
  hide: string[];
  /**
   * Folders the commands read but must not change, shown read-only at their own path even under
   * a hidden folder or the private /tmp: the project's dependencies outside the worktree (the
   * checkout's node_modules and virtualenv, see server/env/provision.ts). Missing ones are skipped.
   */
  readOnly?: string[];
  /** false: a private network namespace, where not even the host's loopback is reachable. */
  network: boolean;
  /** The worktree's git metadata as recorded at prep: shown, read-only, even under a hidden folder. */
  git: GitDirs | null;
  /**
   * Files inside the worktree the command may read but not change, rename or delete: the locked
   * acceptance tests while the checks run them (`UntrustedScope.frozen`). Missing ones, links and
   * anything that resolves outside the worktree are skipped.
   */
  frozen?: string[];
  /** The process cap as detected (rlimit mode adds prlimit inside the sandbox's user namespace). */
  processCap: ProcessCapInfo | null;
  /** Where the command starts (absolute, inside the worktree); the worktree when absent. */
  cwd?: string;
}

const TRIAL_TIMEOUT_MS = 5_000;

/**
 * The sandbox as configured for an untrusted command, passed with its scope (never process-wide
 * state): the mode from the configuration (TILTH_SANDBOX), and the folders it may not see — the
 * sessions folder (every session's files and worktrees; a command's own worktree is bound back on
 * top) and the Tilth home, which holds the keys.
 */
export interface SandboxConfig {
  readonly mode: SandboxMode;
  readonly hide: readonly string[];
}

/** Detected at most once per mode: PATH and kernel settings do not change under a running server. */
const detected = new Map<SandboxMode, SandboxInfo>();

export function detectSandbox(mode: SandboxMode): SandboxInfo {
  let info = detected.get(mode);
  if (!info) {
    info = runSync(detect(mode));
    detected.set(mode, info);
  }
  return info;
}

/**
 * detectSandbox with its trials run as child processes the event loop waits for, not blocks on:
 * a server's check after it listens (issue 32), during which it answers requests. The result is
 * cached as detectSandbox's.
 */
export async function detectSandboxAsync(mode: SandboxMode): Promise<SandboxInfo> {
  const cached = detected.get(mode);
  if (cached) return cached;
  const info = await runAsync(detect(mode));
  const first = detected.get(mode) ?? info;
  detected.set(mode, first);
  return first;
}

/** One trial run of bwrap: its arguments; what came of it. */
interface Trial {
  args: string[];
}
interface TrialResult {
  ok: boolean;
  stdout: string;
  /** Why it failed, in a few words: the spawn error, the first lines of stderr, or the exit. */
  why: string;
}

function runSync(steps: Generator<Trial, SandboxInfo, TrialResult>): SandboxInfo {
  for (let step = steps.next(); ; ) {
    if (step.done) return step.value;
    const run = spawnSync(bwrapPath()!, step.value.args, { encoding: 'utf8', timeout: TRIAL_TIMEOUT_MS, stdio: ['ignore', 'pipe', 'pipe'] });
    step = steps.next(trialResult(run.error ?? null, run.status, run.signal, run.stdout ?? '', run.stderr ?? ''));
  }
}

async function runAsync(steps: Generator<Trial, SandboxInfo, TrialResult>): Promise<SandboxInfo> {
  for (let step = steps.next(); ; ) {
    if (step.done) return step.value;
    const args = step.value.args;
    const result = await new Promise<TrialResult>((resolve) => {
      execFile(bwrapPath()!, args, { encoding: 'utf8', timeout: TRIAL_TIMEOUT_MS }, (error, stdout, stderr) => {
        const spawnError = error && typeof error.code === 'string' ? error : null;
        const status = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve(trialResult(spawnError, status, error?.signal ?? null, stdout, stderr));
      });
    });
    step = steps.next(result);
  }
}

function trialResult(error: Error | null, status: number | null, signal: string | null, stdout: string, stderr: string): TrialResult {
  if (error) return { ok: false, stdout, why: error.message };
  const said = stderr.trim().split('\n').slice(0, 3).join(' ').slice(0, 300);
  return { ok: status === 0, stdout, why: said || `exit ${status ?? signal}` };
}

let bwrapFound: string | null | undefined;

/** Looked up once: every sandboxed command needs it, and PATH does not change under a running server. */
function bwrapPath(): string | null {
  if (bwrapFound === undefined) bwrapFound = findOnPath('bwrap');
  return bwrapFound;
}

/** The detection's steps: each bwrap trial is yielded to the driver that runs it. */
function* detect(mode: SandboxMode): Generator<Trial, SandboxInfo, TrialResult> {
  if (mode === 'off') {
    return {
      available: false,
      tool: null,
      version: null,
      processCap: null,
      detail: "the shell sandbox is turned off (TILTH_SANDBOX=off), so the worker's shell and the checks run unsandboxed.",
    };
  }
  if (bwrapPath() === null) {
    return {
      available: false,
      tool: null,
      version: null,
      processCap: null,
      detail: "bubblewrap (bwrap) is not installed, so the worker's shell runs unsandboxed. Install it with: apt-get install -y bubblewrap",
    };
  }
  const versionRun = yield { args: ['--version'] };
  const version = /(\d+(?:\.\d+)+)/.exec(versionRun.stdout)?.[1] ?? null;
  // The trial uses every namespace and mount sandboxCommand does: a container may allow some
  // (a read-only bind) and deny others (a new /proc, a network namespace).
  const trial = yield { args: [...baseArgs(), '--unshare-net', '--unshare-pid', '--new-session', '--die-with-parent', '--', 'true'] };
  if (!trial.ok) {
    return {
      available: false,
      tool: null,
      version,
      processCap: null,
      detail: `bwrap is installed but cannot create a sandbox here, so the worker's shell runs unsandboxed: ${trial.why}`,
    };
  }
  let processCap = detectProcessCap();
  if (processCap.mode === 'rlimit') {
    // The cap needs a user namespace of the sandbox's own (see process-cap.ts): prove it works.
    const userTrial = yield {
      args: [
        ...baseArgs(),
        '--unshare-user',
        '--unshare-pid',
        '--die-with-parent',
        '--',
        processCap.prlimit!,
        `--nproc=${processCap.limit}:${processCap.limit}`,
        '--',
        'true',
      ],
    };
    if (!userTrial.ok) processCap = { ...processCap, mode: 'watchdog', prlimit: null };
  }
  const capWords = { cgroup: 'a pids cgroup', rlimit: 'an RLIMIT_NPROC in its own user namespace', watchdog: 'a watchdog' }[processCap.mode];
  return {
    available: true,
    tool: 'bwrap',
    version,
    processCap,
    detail: `bubblewrap${version ? ` ${version}` : ''}: the worker's shell and the checks see a read-only system, a writable worktree, read-only git metadata, a private /tmp, no network unless the session allows it, and at most ${processCap.processes} processes (${capWords}, with a watchdog).`,
  };
}

function baseArgs(): string[] {
  return ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
}

function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

function hideArgs(target: string): string[] {
  return fs.statSync(target).isDirectory() ? ['--tmpfs', target] : ['--ro-bind', '/dev/null', target];
}

/**
 * `cmd` wrapped in bwrap under `policy`. Mounts apply in order, so the order is the design:
 * root read-only, a fresh /dev and /proc, an empty /tmp, then the hidden folders, then the
 * project's dependency folders read-only (after the hides and /tmp, which would cover them: a
 * test's checkout lives under /tmp, and the merge preview reads a session worktree's), then the
 * git metadata read-only, and only then the worktree, bound writable on top — it usually lives under
 * the sessions root (hidden) and, in tests, under /tmp. The worktree's `.git` pointer file is
 * bound read-only over itself, and a hidden folder inside the worktree is applied after the
 * worktree bind, or the bind would uncover it; so are the frozen files (the locked tests while the
 * checks run them). Paths are real paths: bwrap mounts what the
 * kernel resolves, and a symlinked hide would otherwise leave its target visible.
 *
 * Git metadata: the worktree's git dir and the repository's common dir (objects, refs, config,
 * hooks) are read-only, so `git status`, `diff`, `log` and `show` work while nothing the command
 * does can change what the harness's git reads, run a hook, or damage the user's repository.
 * Commits and branch moves are the engine's alone.
 *
 * Killing: runBounded starts bwrap as a process-group leader and signals the group. With
 * `--unshare-pid` the command runs under bwrap's own init in a new PID namespace, and
 * `--die-with-parent` kills that init when bwrap dies; the kernel then kills every process in the
 * namespace — including ones that called setsid or ignore SIGTERM, which a group kill alone
 * misses. The private PID namespace also keeps `/proc/<server pid>/environ` (which holds the API
 * keys) out of reach. `--new-session` (no terminal to inject keystrokes into) is safe only
 * because of this: without a PID namespace it takes the command out of the group runBounded
 * signals, and the command outlives a timeout (tried with bwrap 0.8).
 */
export function sandboxCommand(cmd: Command, policy: SandboxPolicy): Command {
  const worktree = fs.realpathSync(policy.worktree);
  const hides: string[] = [];
  for (const hide of policy.hide) {
    try {
      hides.push(fs.realpathSync(hide));
    } catch {
      // Not there: nothing to hide.
    }
  }
  const readOnly: string[] = [];
  for (const folder of policy.readOnly ?? []) {
    try {
      readOnly.push(fs.realpathSync(folder));
    } catch {
      // Not there: nothing to show.
    }
  }
  const args = baseArgs();
  for (const hide of hides.filter((h) => !isInside(h, worktree))) args.push(...hideArgs(hide));
  for (const folder of readOnly.filter((f) => !isInside(f, worktree) && f !== worktree)) args.push('--ro-bind', folder, folder);
  if (policy.git) args.push(...gitBinds(policy.git));
  args.push('--bind', worktree, worktree);
  const pointer = path.join(worktree, '.git');
  if (policy.git && fs.lstatSync(pointer, { throwIfNoEntry: false })?.isFile()) args.push('--ro-bind', pointer, pointer);
  for (const hide of hides.filter((h) => isInside(h, worktree))) args.push(...hideArgs(hide));
  for (const file of frozenFiles(worktree, policy.frozen ?? [])) args.push('--ro-bind', file, file);
  if (!policy.network) args.push('--unshare-net');
  const cap = policy.processCap;
  if (cap?.mode === 'rlimit') args.push('--unshare-user');
  args.push('--unshare-pid', '--new-session', '--die-with-parent', '--chdir', policy.cwd ?? worktree, '--');
  if (cap?.mode === 'rlimit' && cap.prlimit) args.push(cap.prlimit, `--nproc=${cap.limit}:${cap.limit}`, '--');
  // bwrap by its full path: the command's own PATH (which the caller may set) is for inside.
  const bwrap = bwrapPath() ?? 'bwrap';
  if (cmd.kind === 'argv') return { kind: 'argv', command: bwrap, args: [...args, cmd.command, ...cmd.args], env: cmd.env };
  return { kind: 'argv', command: bwrap, args: [...args, '/bin/sh', '-c', cmd.script], env: {} };
}

/**
 * The frozen files as bwrap binds them: regular files, not links, inside the worktree by their
 * real path. A file bound over itself is a mount point, so writing it fails (read-only) and so
 * does renaming or deleting it (busy) — whatever the process does, by whatever path.
 */
function frozenFiles(worktree: string, files: string[]): string[] {
  const out: string[] = [];
  for (const rel of files) {
    const abs = path.resolve(worktree, rel);
    const stat = fs.lstatSync(abs, { throwIfNoEntry: false });
    if (!stat?.isFile()) continue;
    const real = fs.realpathSync(abs);
    if (isInside(real, worktree)) out.push(real);
  }
  return out;
}

function gitBinds(git: GitDirs): string[] {
  const common = fs.realpathSync(git.commonDir);
  const own = fs.realpathSync(git.gitDir);
  const binds = ['--ro-bind', common, common];
  if (!isInside(own, common)) binds.push('--ro-bind', own, own);
  return binds;
}
