/**
 * The shell sandbox (SPEC §6): when bubblewrap works on this machine, the worker's `bash` and the
 * checks run inside it — the root filesystem read-only, the worktree writable, a private `/tmp`,
 * the sessions root and the Tilth home hidden, no network unless the session allows it, and a
 * private process table. When it does not work, `detectSandbox` says why, plainly, for the UI.
 *
 * What it does not confine: the rest of the filesystem stays readable (a home directory's
 * dotfiles included), and a Unix socket on it (say, Docker's) can still be reached. The
 * environment is scrubbed of secrets separately (runBounded's `scrubSecrets`).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from './command-runner.ts';

export interface SandboxInfo {
  available: boolean;
  tool: 'bwrap' | null;
  /** bwrap's version when it is installed (even if it cannot run here). */
  version: string | null;
  /** One plain sentence for the settings page and the startup banner. */
  detail: string;
}

/** `auto` uses bubblewrap when it works here; `off` never does (TILTH_SANDBOX). */
export type SandboxMode = 'auto' | 'off';

export interface SandboxPolicy {
  /** The one writable folder; the commands run in it. */
  worktree: string;
  /** Folders hidden behind an empty tmpfs (files behind /dev/null) when they exist. */
  hide: string[];
  /** false: a private network namespace, where not even the host's loopback is reachable. */
  network: boolean;
  /**
   * The worktree's git metadata (see gitBinds): shown even when it lies under a hidden or private
   * folder, with only the worktree's own index and the object store writable.
   */
  git?: { commonDir: string; worktreeGitDir: string } | null;
}

const TRIAL_TIMEOUT_MS = 5_000;

/** Detected at most once per mode: PATH and kernel settings do not change under a running server. */
const detected = new Map<SandboxMode, SandboxInfo>();
let configuredMode: SandboxMode | null = null;

/** The mode from the resolved configuration; set once at startup. Until then TILTH_SANDBOX from the environment decides. */
export function setSandboxMode(mode: SandboxMode): void {
  configuredMode = mode;
}

function modeFromEnv(): SandboxMode {
  return process.env.TILTH_SANDBOX?.trim().toLowerCase() === 'off' ? 'off' : 'auto';
}

export function detectSandbox(mode: SandboxMode = configuredMode ?? modeFromEnv()): SandboxInfo {
  let info = detected.get(mode);
  if (!info) {
    info = detect(mode);
    detected.set(mode, info);
  }
  return info;
}

function detect(mode: SandboxMode): SandboxInfo {
  if (mode === 'off') {
    return { available: false, tool: null, version: null, detail: "the shell sandbox is turned off (TILTH_SANDBOX=off), so the worker's shell and the checks run unsandboxed." };
  }
  const bwrap = findOnPath('bwrap');
  if (bwrap === null) {
    return {
      available: false,
      tool: null,
      version: null,
      detail: "bubblewrap (bwrap) is not installed, so the worker's shell runs unsandboxed. Install it with: apt-get install -y bubblewrap",
    };
  }
  const versionRun = spawnSync(bwrap, ['--version'], { encoding: 'utf8', timeout: TRIAL_TIMEOUT_MS });
  const version = /(\d+(?:\.\d+)+)/.exec(versionRun.stdout ?? '')?.[1] ?? null;
  // The trial uses every namespace and mount sandboxCommand does: a container may allow some
  // (a read-only bind) and deny others (a new /proc, a network namespace).
  const trial = spawnSync(bwrap, [...baseArgs(), '--unshare-net', '--unshare-pid', '--new-session', '--die-with-parent', '--', 'true'], {
    encoding: 'utf8',
    timeout: TRIAL_TIMEOUT_MS,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  if (trial.error || trial.status !== 0) {
    const why = trial.error ? trial.error.message : (trial.stderr ?? '').trim().split('\n').slice(0, 3).join(' ').slice(0, 300) || `exit ${trial.status ?? trial.signal}`;
    return { available: false, tool: null, version, detail: `bwrap is installed but cannot create a sandbox here, so the worker's shell runs unsandboxed: ${why}` };
  }
  return {
    available: true,
    tool: 'bwrap',
    version,
    detail: `bubblewrap${version ? ` ${version}` : ''}: the worker's shell and the checks see a read-only system, a writable worktree, a private /tmp and no network unless the session allows it.`,
  };
}

function findOnPath(program: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, program);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return null;
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
 * root read-only, a fresh /dev and /proc, an empty /tmp, then the hidden folders, and only then
 * the worktree, bound writable on top — it usually lives under the sessions root (hidden) and, in
 * tests, under /tmp. A hidden folder inside the worktree is applied after the bind, or the bind
 * would uncover it. Paths are real paths: bwrap mounts what the kernel resolves, and a symlinked
 * hide would otherwise leave its target visible.
 *
 * The worktree's git metadata lives in the source repository's `.git`. It is bound read-only
 * (so it is there even when the source repo sits under /tmp), except the worktree's own folder
 * (index, HEAD) and the object store: `git add`, `git checkout -- <file>` and `git diff` work,
 * while refs stay read-only, so commits and branch moves are the engine's alone.
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
  const args = baseArgs();
  for (const hide of hides.filter((h) => !isInside(h, worktree))) args.push(...hideArgs(hide));
  if (policy.git) args.push(...gitBinds(policy.git));
  args.push('--bind', worktree, worktree);
  for (const hide of hides.filter((h) => isInside(h, worktree))) args.push(...hideArgs(hide));
  if (!policy.network) args.push('--unshare-net');
  args.push('--unshare-pid', '--new-session', '--die-with-parent', '--chdir', worktree, '--');
  if (cmd.kind === 'argv') return { kind: 'argv', command: 'bwrap', args: [...args, cmd.command, ...cmd.args], env: cmd.env };
  return { kind: 'argv', command: 'bwrap', args: [...args, '/bin/sh', '-c', cmd.script], env: {} };
}

function gitBinds(git: { commonDir: string; worktreeGitDir: string }): string[] {
  const real = (p: string) => fs.realpathSync(p);
  const common = real(git.commonDir);
  const objects = path.join(common, 'objects');
  return ['--ro-bind', common, common, '--bind', objects, objects, '--bind', real(git.worktreeGitDir), real(git.worktreeGitDir)];
}
