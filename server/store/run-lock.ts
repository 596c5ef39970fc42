/**
 * One job per session, across processes: `tilth serve` and a headless `tilth run` take
 * the session's run lock for as long as they drive the session, and so does adding a task (in the
 * server or `tilth add-task`). The other process refuses to run it, to write to it, or to call it
 * crashed; a lock left by a dead process is taken over.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Tree } from '../fs/tree.ts';
import { AppError } from '../errors/app-error.ts';
import { acquirePidLock, liveOwner, type PidLockOwner } from './pid-lock.ts';

export class SessionLockedError extends AppError {
  constructor(message: string) {
    super('session_locked', message);
  }
}

/** Who holds a run lock: `tilth serve`, a headless `tilth run`, or a queue worker (`tilth worker`, `serve --worker-slots`). */
export type LockKind = 'serve' | 'cli' | 'worker';

/** What the holder does with the session: a run (the default, and every lock from before there was a choice) or adding a task. */
export type LockJob = 'run' | 'add_task';

/** Who holds the session and how to end their hold, in one sentence. */
function heldBy(sessionId: string, owner: PidLockOwner): string {
  if (owner.job === 'add_task') {
    return owner.kind === 'cli'
      ? `A task is being added to session ${sessionId} by \`tilth add-task\` (pid ${owner.pid}); wait for it, or cancel it in its terminal with Ctrl+C.`
      : `A task is being added to session ${sessionId} by \`tilth serve\` (pid ${owner.pid}); wait for it, or cancel it with Cancel in the add-task form of the session review.`;
  }
  if (owner.kind === 'cli') return `Session ${sessionId} is being run by a headless \`tilth run\` (pid ${owner.pid}); stop it in its terminal with Ctrl+C.`;
  if (owner.kind === 'worker') return `Session ${sessionId} is being run by a queue worker (pid ${owner.pid}); stop it from the dashboard.`;
  return `Session ${sessionId} is being run by another tilth process (pid ${owner.pid}).`;
}

/**
 * `lease` names a queue worker's hold on the run (its job and lock token): the worker writes only
 * while the lock still carries it (holdsLease), so once the server gives the run up (revoke) and
 * another worker takes it, whatever the old one still tries to write is refused.
 */
export function acquireRunLock(lockFile: string, sessionId: string, kind: LockKind, hold: { lease?: string; job?: LockJob } = {}): () => void {
  const { lease, job } = hold;
  return acquirePidLock(lockFile, { kind, ...(lease ? { lease } : {}), ...(job === 'add_task' ? { job } : {}) }, (owner) => {
    if (owner.pid < 0) throw new SessionLockedError(`Could not take the run lock of ${sessionId}; another process may be starting it.`);
    throw new SessionLockedError(heldBy(sessionId, owner));
  });
}

/** Throws when another live process holds the session (for anything that would write to it). */
export function assertNotLockedElsewhere(lockFile: string, sessionId: string): void {
  const owner = liveOwner(lockFile);
  if (owner) throw new SessionLockedError(heldBy(sessionId, owner));
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
