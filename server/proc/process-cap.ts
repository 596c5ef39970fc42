/**
 * The process cap of the sandbox: how many tasks (processes and threads) one untrusted command
 * may have at once, and the watchdog that stops the command when it gets there.
 *
 * Why three mechanisms: `RLIMIT_NPROC` is the portable one, but the kernel does not apply it to
 * root, and the server often runs as root (containers, CI). So:
 * - `cgroup` (root, where a pids cgroup can be made): the command joins its own pids cgroup before
 *   anything forks (a shell writes its own pid into `cgroup.procs` and then execs bwrap), and
 *   `pids.max` refuses the fork past the cap. `pids.events` says when that happened.
 * - `rlimit` (not root): `prlimit --nproc` is set *inside* the sandbox's own user namespace. Set
 *   outside it, the kernel would count every process the user has (a desktop's browser
 *   included) against the cap; inside, it counts only the sandbox's.
 * - `watchdog` (root without a usable cgroup): nothing refuses the fork, but the watchdog still
 *   stops the command when its process count reaches the cap.
 * In every mode the watchdog samples the sandbox several times a second and stops the whole
 * command (its process group, and with it the PID namespace) the moment the cap is reached, so
 * a fork bomb ends in about a second rather than at the command's timeout.
 */
import fs from 'node:fs';
import path from 'node:path';
import { findOnPath } from './which.ts';

/**
 * Two numbers. The kernel refuses a fork past MAX_SANDBOX_TASKS tasks (processes and threads
 * count alike there, and a test run with worker threads on a many-core machine uses a few
 * hundred). The watchdog stops the command at MAX_SANDBOX_PROCESSES processes: a fork bomb makes
 * processes, test runners make threads, and a loaded machine forks slowly, so counting processes
 * is what stops a bomb within seconds without catching a busy test suite.
 */
export const MAX_SANDBOX_TASKS = 1024;
export const MAX_SANDBOX_PROCESSES = 256;
const WATCH_INTERVAL_MS = 200;

export type ProcessCapMode = 'cgroup' | 'rlimit' | 'watchdog';

export interface ProcessCapInfo {
  mode: ProcessCapMode;
  /** Tasks the kernel allows (cgroup and rlimit modes). */
  limit: number;
  /** Processes at which the watchdog stops the command. */
  processes: number;
  /** Where the per-command cgroups are made (`cgroup` mode). */
  cgroupParent: string | null;
  /** The prlimit binary (`rlimit` mode). */
  prlimit: string | null;
}

function isRoot(): boolean {
  return typeof process.geteuid === 'function' && process.geteuid() === 0;
}

/**
 * A folder under which this process may make pids cgroups, or null. cgroup v1: the `pids`
 * hierarchy at our own cgroup's path. v2: the root of the unified hierarchy (the only cgroup
 * that may both hold processes elsewhere in the tree and delegate `pids` to a child), with `pids`
 * enabled for its children. A trial child is made and removed to prove it works.
 */
function findCgroupParent(): string | null {
  let own: string[] = [];
  try {
    own = fs.readFileSync('/proc/self/cgroup', 'utf8').split('\n');
  } catch {
    return null;
  }
  const candidates: string[] = [];
  const v1 = own.map((line) => line.split(':')).find((parts) => parts[1]?.split(',').includes('pids'));
  if (v1 && fs.existsSync('/sys/fs/cgroup/pids/cgroup.procs')) candidates.push(path.join('/sys/fs/cgroup/pids', v1[2] ?? '/'));
  if (fs.existsSync('/sys/fs/cgroup/cgroup.controllers')) {
    try {
      if (fs.readFileSync('/sys/fs/cgroup/cgroup.controllers', 'utf8').split(/\s+/).includes('pids')) {
        const enabled = fs.readFileSync('/sys/fs/cgroup/cgroup.subtree_control', 'utf8').split(/\s+/);
        if (!enabled.includes('pids')) fs.writeFileSync('/sys/fs/cgroup/cgroup.subtree_control', '+pids');
        candidates.push('/sys/fs/cgroup');
      }
    } catch {
      // Not ours to change.
    }
  }
  for (const base of candidates) {
    const parent = path.join(base, 'tilth');
    try {
      fs.mkdirSync(parent, { recursive: true });
      const trial = fs.mkdtempSync(path.join(parent, 'probe-'));
      const ok = fs.existsSync(path.join(trial, 'pids.max'));
      fs.rmdirSync(trial);
      if (ok) return parent;
    } catch {
      // Read-only cgroupfs (an unprivileged container): try the next.
    }
  }
  return null;
}

export function detectProcessCap(): ProcessCapInfo {
  const base = { limit: MAX_SANDBOX_TASKS, processes: MAX_SANDBOX_PROCESSES, cgroupParent: null, prlimit: null };
  if (isRoot()) {
    const parent = findCgroupParent();
    if (parent) {
      removeStaleCgroups(parent);
      return { ...base, mode: 'cgroup', cgroupParent: parent };
    }
    return { ...base, mode: 'watchdog' };
  }
  const prlimit = findOnPath('prlimit');
  return prlimit ? { ...base, mode: 'rlimit', prlimit } : { ...base, mode: 'watchdog' };
}

/** Cgroups left by a server that was killed: empty ones can go (a busy one is still in use). */
function removeStaleCgroups(parent: string): void {
  for (const name of fs.readdirSync(parent)) {
    const pid = Number(/^run-(\d+)-/.exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
      continue; // its server is alive
    } catch {
      // gone
    }
    try {
      fs.rmdirSync(path.join(parent, name));
    } catch {
      // still has tasks; the next start tries again
    }
  }
}

let slotCounter = 0;

/** One command's pids cgroup (`cgroup` mode). */
export class CgroupSlot {
  readonly dir: string;

  constructor(parent: string, limit: number) {
    this.dir = path.join(parent, `run-${process.pid}-${++slotCounter}`);
    fs.mkdirSync(this.dir);
    fs.writeFileSync(path.join(this.dir, 'pids.max'), String(limit));
  }

  /** The argv prefix that joins this cgroup before exec'ing the rest. */
  joinPrefix(): string[] {
    return ['/bin/sh', '-c', 'echo $$ > "$0" && exec "$@"', path.join(this.dir, 'cgroup.procs')];
  }

  /** How many forks the cap refused so far. */
  refused(): number {
    try {
      const events = fs.readFileSync(path.join(this.dir, 'pids.events'), 'utf8');
      return Number(/^max (\d+)/m.exec(events)?.[1] ?? 0);
    } catch {
      return 0;
    }
  }

  /** Processes (not threads) in the cgroup. */
  processes(): number {
    try {
      return fs.readFileSync(path.join(this.dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).length;
    } catch {
      return 0;
    }
  }

  /** Removes the cgroup once its tasks are gone (they are being killed; give them a moment). */
  async remove(): Promise<void> {
    for (let attempt = 0; attempt < 60; attempt++) {
      try {
        fs.rmdirSync(this.dir);
        return;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
        await new Promise((r) => setTimeout(r, Math.min(10 * 2 ** attempt, 200)));
      }
    }
    // Still busy after 5 s: the next server start removes it (removeStaleCgroups).
  }
}

function readLink(p: string): string | null {
  try {
    return fs.readlinkSync(p);
  } catch {
    return null;
  }
}

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  let tasks: string[] = [];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tasks) {
    try {
      for (const c of fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/)) if (c) out.push(Number(c));
    } catch {
      // exited
    }
  }
  return out;
}

/**
 * The PID namespace of the sandbox started as process `pid` (bwrap): the first descendant whose
 * namespace differs from ours. null until bwrap has made it.
 */
function sandboxNamespace(pid: number): string | null {
  const ours = readLink('/proc/self/ns/pid');
  const queue = [pid];
  for (let seen = 0; queue.length > 0 && seen < 64; seen++) {
    const next = queue.shift()!;
    const ns = readLink(`/proc/${next}/ns/pid`);
    if (ns !== null && ns !== ours) return ns;
    queue.push(...childrenOf(next));
  }
  return null;
}

/**
 * Processes in namespace `ns`, counted up to `enough`: under a fork bomb /proc holds thousands,
 * and reading each one's namespace every tick would let the bomb outrun the watch.
 */
function processesIn(ns: string, enough: number): number {
  let count = 0;
  for (const name of fs.readdirSync('/proc')) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
    if (readLink(`/proc/${name}/ns/pid`) === ns && ++count >= enough) break;
  }
  return count;
}

/**
 * Samples the command started as `pid` and calls `onCap` once when it reaches the cap: a fork
 * refused by its cgroup, or as many processes as the cap (counted in its cgroup, or in its PID
 * namespace in the other modes). Returns the function that stops watching.
 */
export function watchProcessCap(pid: number, info: ProcessCapInfo, slot: CgroupSlot | null, onCap: () => void): () => void {
  let ns: string | null = null;
  const timer = setInterval(() => {
    let reached: boolean;
    if (slot) {
      reached = slot.refused() > 0 || slot.processes() >= info.processes;
    } else {
      ns ??= sandboxNamespace(pid);
      reached = ns !== null && processesIn(ns, info.processes) >= info.processes;
    }
    if (reached) {
      clearInterval(timer);
      onCap();
    }
  }, WATCH_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
