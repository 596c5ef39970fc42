/**
 * A lock file owned by a live process: a small JSON file with the owner's pid. A lock whose
 * process is gone (a crash, a kill -9) is stale and taken over. Used for one `tilth serve` per
 * sessions folder and for one run per session.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Tree } from '../fs/tree.ts';

export interface PidLockOwner {
  pid: number;
  [key: string]: unknown;
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The lock's owner if that process is alive (and is not this one), else null. */
export function liveOwner(file: string): PidLockOwner | null {
  let owner: Partial<PidLockOwner> = {};
  try {
    owner = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<PidLockOwner>;
  } catch {
    return null; // missing or unreadable: nobody holds it
  }
  return typeof owner.pid === 'number' && owner.pid !== process.pid && alive(owner.pid) ? (owner as PidLockOwner) : null;
}

/**
 * Takes the lock, or calls `refuse` with the live owner (which must throw). Returns the release
 * function, which removes the file only while it is still ours.
 */
export function acquirePidLock(file: string, info: Record<string, unknown>, refuse: (owner: PidLockOwner) => never): () => void {
  const mine = JSON.stringify({ ...info, pid: process.pid, started_at: new Date().toISOString() });
  // The lock's folder is the caller's (the sessions folder, a session's); its name is never followed.
  const lockTree = Tree.at(path.dirname(file));
  // Stryker disable next-line EqualityOperator,UpdateOperator: a second attempt is for a dead owner's lock taken over; a third only matters if another process re-takes it in between, a race no test can order
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      lockTree.createExclusive(file, mine);
      return () => {
        try {
          const current = JSON.parse(fs.readFileSync(file, 'utf8')) as { pid?: unknown };
          if (current.pid === process.pid) lockTree.remove(file);
        } catch {
          // Already gone or replaced: nothing of ours to remove.
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const owner = liveOwner(file);
    if (owner) refuse(owner);
    lockTree.remove(file);
  }
  // Stryker disable next-line all: reached only when another process takes the lock between our removal and our retry (see above)
  return refuse({ pid: -1, starting: true });
}
