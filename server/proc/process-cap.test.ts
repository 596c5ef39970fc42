/**
 * The process cap in each of its modes, on the real kernel: the mode this machine uses is covered
 * through the worker's bash in escapes.int.test.ts; here the other two are forced, so a machine
 * that falls back to them (a user's desktop, a container without cgroups) is covered too.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { watchProcessCap, type ProcessCapInfo } from './process-cap.ts';
import { runBounded } from './runner.ts';
import { detectSandbox, sandboxCommand } from './sandbox.ts';
import { findOnPath } from './which.ts';

const sandboxed = detectSandbox('auto').available;
let worktree: string;

beforeEach(() => {
  // Not under /tmp (private in the sandbox), and open to the unprivileged user of the rlimit test.
  worktree = fs.realpathSync(fs.mkdtempSync(path.join('/var/tmp', 'tilth-cap-')));
  fs.chmodSync(worktree, 0o777);
});
afterEach(() => fs.rmSync(worktree, { recursive: true, force: true }));

const cap = (extra: Partial<ProcessCapInfo>): ProcessCapInfo => ({ mode: 'watchdog', limit: 1024, processes: 64, cgroupParent: null, prlimit: null, ...extra });

describe.skipIf(!sandboxed)('the process cap without a cgroup', () => {
  it('watchdog mode: stops a fork bomb when its PID namespace holds as many processes as the cap', async () => {
    const info = cap({});
    const cmd = sandboxCommand(
      { kind: 'argv', command: '/bin/bash', args: ['-c', 'bomb() { bomb | bomb & }; bomb; sleep 100'], env: {} },
      { worktree, hide: [], network: false, git: null, processCap: info },
    );
    let hit = false;
    const started = Date.now();
    const result = await runBounded(cmd, {
      cwd: worktree,
      timeoutMs: 100_000,
      env: {},
      watch: (pid, stop) =>
        watchProcessCap(pid, info, null, () => {
          hit = true;
          stop();
        }),
    });
    expect(hit).toBe(true);
    expect(result.timedOut).toBe(false);
    expect(Date.now() - started).toBeLessThan(95_000);
    // Stopped well before runBounded's 100 s timeout: ~5 s on this 2-core machine beside a few
    // other tests and ~40 s in a full test run, where the bomb and two test workers share the
    // cores. The watch stops counting at the cap; it used to read every process's namespace each
    // tick, which a bomb of thousands outran (past 60 s in a full run). A timed-out bomb would also
    // starve the next test of processes, so the bounds leave room.
  }, 120_000);

  const setpriv = findOnPath('setpriv');
  const prlimit = findOnPath('prlimit');
  const root = process.geteuid?.() === 0;
  it.skipIf(!root || !setpriv || !prlimit)(
    'rlimit mode: as an ordinary user, the kernel refuses forks past the cap, counting only the sandbox',
    async () => {
      const info = cap({ mode: 'rlimit', limit: 40, prlimit });
      // The forks run in a subshell: at the cap bash retries a refused fork for 15 s (1+2+4+8 s of
      // sleep) and then gives up by leaving the shell, so only the subshell ends; its long sleeps
      // stay, and the outer shell counts them with builtins only (a glob, arithmetic, echo), since
      // `$(ls /proc | …)` would itself need a fork. Short sleeps made the time depend on the load:
      // each refused fork waited for one to end, and a loaded machine ran past the time limit.
      const script = '( for i in $(seq 100); do sleep 40 & done ) 2>/dev/null; n=0; for d in /proc/[0-9]*; do n=$((n+1)); done; echo "running=$n"';
      const inner = sandboxCommand(
        { kind: 'argv', command: '/bin/bash', args: ['-c', script], env: {} },
        { worktree, hide: [], network: false, git: null, processCap: info },
      );
      if (inner.kind !== 'argv') throw new Error('expected an argv command');
      const result = await runBounded(
        { kind: 'argv', command: setpriv!, args: ['--reuid=65534', '--regid=65534', '--clear-groups', inner.command, ...inner.args], env: {} },
        { cwd: worktree, timeoutMs: 50_000, env: {} },
      );
      const running = Number(/running=(\d+)/.exec(result.output)?.[1]);
      expect(running, result.output).toBeGreaterThan(5);
      expect(running).toBeLessThanOrEqual(40);
      expect(result.timedOut).toBe(false);
    },
    60_000,
  );
});
