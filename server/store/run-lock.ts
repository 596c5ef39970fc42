/**
 * One run per session, across processes: `tilth serve` and a headless `tilth run` take
 * the session's run lock for as long as they drive the session. The other process refuses to run it,
 * to write to it, or to call it crashed; a lock left by a dead process is taken over.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Tree } from '../fs/tree.ts';
import { AppError } from '../errors.ts';
import { acquirePidLock, liveOwner, type PidLockOwner } from './pid-lock.ts';

export class SessionLockedError extends AppError {
  constructor(message: string) {
    super('session_locked', message);
  }
}

/** Who holds a run lock: `tilth serve`, a headless `tilth run`, or a queue worker (`tilth worker`, `serve --worker-slots`). */
export type LockKind = 'serve' | 'cli' | 'worker';

function describeOwner(owner: PidLockOwner): string {
  if (owner.kind === 'cli') return `a headless \`tilth run\` (pid ${owner.pid}); stop it in its terminal with Ctrl+C`;
  if (owner.kind === 'worker') return `a queue worker (pid ${owner.pid}); stop it from the dashboard`;
  return `another tilth process (pid ${owner.pid})`;
}

/**
 * `lease` names a queue worker's hold on the run (its job and lock token): the worker writes only
 * while the lock still carries it (holdsLease), so once the server gives the run up (revoke) and
 * another worker takes it, whatever the old one still tries to write is refused.
 */
export function acquireRunLock(lockFile: string, sessionId: string, kind: LockKind, lease?: string): () => void {
  return acquirePidLock(lockFile, { kind, ...(lease ? { lease } : {}) }, (owner) => {
    if (owner.pid < 0) throw new SessionLockedError(`Could not take the run lock of ${sessionId}; another process may be starting it.`);
    throw new SessionLockedError(`Session ${sessionId} is being run by ${describeOwner(owner)}.`);
  });
}

/** Throws when another live process holds the session (for anything that would write to it). */
export function assertNotLockedElsewhere(lockFile: string, sessionId: string): void {
  const owner = liveOwner(lockFile);
  if (owner) throw new SessionLockedError(`Session ${sessionId} is being run by ${describeOwner(owner)}.`);
}

export function lockedElsewhere(lockFile: string): boolean {
  return liveOwner(lockFile) !== null;
}

/** The live process (other than this one) holding the lock, with what it recorded; null if none. */
export function lockOwner(lockFile: string): PidLockOwner | null {
  return liveOwner(lockFile);
}

/** True while this process holds the lock under `lease`. */
export function holdsLease(lockFile: string, lease: string): boolean {
  try {
    const owner = JSON.parse(fs.readFileSync(lockFile, 'utf8')) as { pid?: unknown; lease?: unknown };
    return owner.pid === process.pid && owner.lease === lease;
  } catch {
    return false;
  }
}

/** Takes the lock away from whoever holds it (a worker whose lease is over); it may be taken again. */
export function revokeRunLock(lockFile: string): void {
  Tree.at(path.dirname(lockFile)).remove(lockFile);
}
