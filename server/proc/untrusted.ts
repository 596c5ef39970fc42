/**
 * The one way Tilth runs code it does not control (SPEC §14): the worker's `bash`, the checks,
 * the seed's contract check, the merge preview's tests. Every such run gets the whole policy, and
 * the caller can only say *where* (the worktree, its git dirs, whether the session allows the
 * network) and *how long* — so a new caller cannot forget a part of it:
 * - the environment is scrubbed of secrets (API keys, the access token, anything named like a
 *   credential);
 * - where bubblewrap works (and the scope's policy does not turn it off): the root read-only, the
 *   worktree writable, its git metadata read-only, a private /tmp and process table, no network
 *   unless allowed, and the policy's folders hidden — the session store's root and the Tilth home,
 *   which the store puts in the policy of every session's scope;
 * - the process cap (process-cap.ts), with a watchdog that stops the command at the cap;
 * - a time limit and an abort signal, with the whole process tree killed at the end (runner.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { GitDirs } from '../git/worktree-git.ts';
import { CgroupSlot, watchProcessCap } from './process-cap.ts';
import { runBounded, type Command, type RunResult } from './runner.ts';
import { detectSandbox, sandboxCommand, type SandboxConfig } from './sandbox.ts';
import { findOnPath } from './which.ts';

export type { Command } from './runner.ts';

/** Where an untrusted command runs. */
export interface UntrustedScope {
  /** The sandbox mode and the folders hidden from the command (a session's: its store's policy). */
  sandbox: SandboxConfig;
  /** The one writable folder; the command runs in it. */
  worktree: string;
  /** The worktree's git metadata as recorded at prep, shown read-only; null when it is not a session worktree. */
  git: GitDirs | null;
  /** The session allows the network (off unless the user turned it on for the run). */
  network: boolean;
  /**
   * The project's environment for this worktree (server/env/provision.ts): variables that put its
   * interpreter and its sources first (PATH, VIRTUAL_ENV, PYTHONPATH), and the dependency folders
   * outside the worktree the commands read (the checkout's node_modules and virtualenv), shown
   * read-only in the sandbox even where they would be hidden (a checkout under /tmp).
   */
  project?: { env: Record<string, string>; readOnly: string[] } | undefined;
  /**
   * Files of the worktree (relative) the command must not change: the locked acceptance tests
   * while the checks run them. Code the run loads early — a build script, a module the first test
   * file imports — could otherwise rewrite a test before the runner reads it. Read-only in the
   * sandbox; without one, the checks compare the files' hashes after the run instead.
   */
  frozen?: string[] | undefined;
  /**
   * The folder inside the worktree (relative) the command starts in: a workspace package's, whose
   * tests run from there (issue 29, step 4). The worktree when absent. A folder that is not a real
   * folder inside the worktree (a link out of it) is refused: the command does not start.
   */
  cwd?: string | undefined;
}

export interface UntrustedOptions {
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** Added to the scrubbed environment (never secrets: PAGER, GIT_TERMINAL_PROMPT, …), after the scope's. */
  env?: Record<string, string>;
  /** Told the output as it arrives (a setup command's live view); the result still carries it all. */
  onOutput?: (text: string) => void;
  /**
   * Work done beside the run rather than for it (the mutation probe): started at a lower CPU
   * priority (`nice`, inherited by every process it starts), so on a busy machine the run's own
   * checks and the worker's commands get the CPU first and the probe takes what is left.
   */
  background?: boolean;
}

/** The niceness of background work: below the run's own, as a user's `nice` would put it. */
export const BACKGROUND_NICENESS = 10;

/**
 * Whether background work also gets Linux's idle scheduling class (`chrt --idle 0`, inherited like
 * the niceness): it then runs only on CPU time nothing else wants. `nice` alone still leaves it a
 * share beside the run on a machine of few cores (bench/demo-run, 2 cores: a run with every proof
 * took 1.36× one without under `nice`, 1.24× with the idle class). Looked up on PATH at each
 * background command (a few file checks beside a process start).
 */
export function idleClassHere(): boolean {
  return process.platform === 'linux' && findOnPath('chrt') !== null;
}

/**
 * `command` started through `nice` (and `chrt --idle 0` where there is one), which run it in their
 * own place (same process) at a lower priority.
 */
export function niced(command: Command, idle = idleClassHere()): Command {
  const [file, ...lower] = idle ? ['chrt', '--idle', '0', 'nice', '-n', String(BACKGROUND_NICENESS)] : ['nice', '-n', String(BACKGROUND_NICENESS)];
  if (command.kind === 'shell') return { kind: 'argv', command: file!, args: [...lower, '/bin/sh', '-c', command.script], env: {} };
  return { kind: 'argv', command: file!, args: [...lower, command.command, ...command.args], env: command.env };
}

export interface UntrustedResult extends RunResult {
  /** It ran inside the sandbox (false: bubblewrap is missing or turned off). */
  sandboxed: boolean;
  /** Stopped because it reached the process cap; `processLimit` says what the cap was. */
  processCapHit: boolean;
  processLimit: number | null;
}

export async function runUntrusted(cmd: Command, scope: UntrustedScope, options: UntrustedOptions): Promise<UntrustedResult> {
  const sandbox = detectSandbox(scope.sandbox.mode);
  const cwd = startFolder(scope);
  if (cwd === null) {
    const spawnError = `the package folder ${scope.cwd} is not a folder inside the worktree`;
    return { exitCode: null, output: '', timedOut: false, spawnError, sandboxed: sandbox.available, processCapHit: false, processLimit: null };
  }
  const cap = sandbox.available ? sandbox.processCap : null;
  let slot: CgroupSlot | null = null;
  let command = cmd;
  if (sandbox.available) {
    command = sandboxCommand(cmd, {
      worktree: scope.worktree,
      hide: [...scope.sandbox.hide],
      readOnly: scope.project?.readOnly ?? [],
      network: scope.network,
      git: scope.git,
      frozen: scope.frozen ?? [],
      processCap: cap,
      cwd,
    });
    if (cap?.mode === 'cgroup' && cap.cgroupParent && command.kind === 'argv') {
      try {
        slot = new CgroupSlot(cap.cgroupParent, cap.limit);
        const [file, ...prefix] = slot.joinPrefix();
        command = { kind: 'argv', command: file!, args: [...prefix, command.command, ...command.args], env: command.env };
      } catch {
        slot = null; // the watchdog still counts the namespace's processes
      }
    }
  }
  if (options.background) command = niced(command);
  let processCapHit = false;
  try {
    const result = await runBounded(command, {
      cwd,
      timeoutMs: options.timeoutMs,
      env: { ...goEnv(sandbox.available, scope.network), ...cargoEnv(sandbox.available, scope.network), ...scope.project?.env, ...options.env },
      scrubSecrets: true,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onOutput ? { onOutput: options.onOutput } : {}),
      ...(cap
        ? {
            watch: (pid: number, stop: () => void) =>
              watchProcessCap(pid, cap, slot, () => {
                processCapHit = true;
                stop();
              }),
          }
        : {}),
    });
    return { ...notStarted(result, sandbox.available), sandboxed: sandbox.available, processCapHit, processLimit: cap?.processes ?? null };
  } finally {
    // In the background: the killed processes may take a moment to leave the cgroup, and the
    // caller need not wait for the bookkeeping.
    void slot?.remove();
  }
}

/**
 * What the Go toolchain needs to run in the sandbox, for any project (the worker's shell may run
 * `go` in a repository whose checks do not): a build cache in the private /tmp, since the user's
 * is read-only there (and a cache the command could write would let a test poison the next run's
 * build), the installed toolchain only (never one downloaded by a `toolchain` line), and no module
 * proxy when the session has no network: modules come from the user's module cache or `vendor/`.
 */
export function goEnv(sandboxed: boolean, network: boolean): Record<string, string> {
  return {
    GOTOOLCHAIN: 'local',
    ...(sandboxed ? { GOCACHE: '/tmp/tilth-go-build' } : {}),
    ...(network ? {} : { GOPROXY: 'off', GOSUMDB: 'off' }),
  };
}

/**
 * What cargo needs, likewise. Its build output in the private /tmp, not the worktree's `target/`:
 * a folder the worker's commands can write would let them leave a forged test binary, with the
 * fingerprint cargo checks, for the next check to run (and `target/` in the worktree would reach
 * the task's commit where the repository does not ignore it). Offline without network: crates
 * come from the user's registry cache, read-only. Colour off, so the report reads plainly.
 */
export function cargoEnv(sandboxed: boolean, network: boolean): Record<string, string> {
  return {
    CARGO_TERM_COLOR: 'never',
    ...(sandboxed ? { CARGO_TARGET_DIR: '/tmp/tilth-cargo-target' } : {}),
    ...(network ? {} : { CARGO_NET_OFFLINE: 'true' }),
  };
}

/**
 * In the sandbox the command is started by bwrap, so a program that is not installed is not a
 * spawn error but bwrap's own `execvp` message and exit 1. Said the same way either way, so the
 * callers' "install it" advice works with and without the sandbox.
 */
/** Where the command starts: the worktree, or `scope.cwd` in it when that is a real folder of the worktree (null when it is not). */
function startFolder(scope: UntrustedScope): string | null {
  if (!scope.cwd) return scope.worktree;
  const folder = path.join(scope.worktree, scope.cwd);
  try {
    const real = fs.realpathSync(folder);
    const rel = path.relative(fs.realpathSync(scope.worktree), real);
    return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel) && fs.statSync(real).isDirectory() ? real : null;
  } catch {
    return null;
  }
}

function notStarted(result: RunResult, sandboxed: boolean): RunResult {
  if (!sandboxed || result.exitCode !== 1) return result;
  const failed = /^bwrap: execvp (.+?): (.+)$/m.exec(result.output);
  if (!failed || result.output.trim() !== failed[0].trim()) return result;
  const code = failed[2] === 'No such file or directory' ? 'ENOENT' : failed[2] === 'Permission denied' ? 'EACCES' : failed[2];
  return { ...result, exitCode: null, spawnError: `spawn ${failed[1]} ${code}` };
}

/** What a tool or check says when the process cap stopped the command (null when it did not). */
export function processCapNote(result: UntrustedResult): string | null {
  return result.processCapHit ? `stopped: the command reached the sandbox's cap of ${result.processLimit} processes; everything it started was killed` : null;
}
