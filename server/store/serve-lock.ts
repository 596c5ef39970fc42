/**
 * One `tilth serve` per sessions folder. Its event logs have a single writer, and crash recovery
 * marks every "running" session as crashed — both are only true if no other live server is
 * using the folder. The lock is a small JSON file with the owner's pid; a lock whose process is
 * gone (a crash, a kill -9) is stale and taken over.
 */
import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../errors/app-error.ts';
import { Tree } from '../fs/tree.ts';
import { acquirePidLock, liveOwner } from './pid-lock.ts';

export const LOCK_FILE = '.tilth-serve.lock';

export class ServeLockError extends AppError {
  constructor(message: string) {
    super('sessions_dir_in_use', message);
  }
}

/** Takes the lock or throws ServeLockError naming the live owner. Returns the release function. */
export function acquireServeLock(root: string, info: { port: number }): () => void {
  const file = path.join(root, LOCK_FILE);
  return acquirePidLock(file, { port: info.port }, (owner) => {
    if (owner.pid < 0) throw new ServeLockError(`Could not take the lock ${file}; another tilth serve may be starting.`);
    throw new ServeLockError(
      `Another tilth serve (pid ${owner.pid}${typeof owner.port === 'number' ? `, port ${owner.port}` : ''}) is using ${root}. Stop it first, or pass a different --sessions-dir.`,
    );
  });
}

/**
 * Records where this server answers once it listens (with \`--port 0\` the port is known only then),
 * so \`tilth token\` can print the link to reopen it. Only while the lock is still ours.
 */
export function recordServeOrigin(root: string, origin: string): void {
  const file = path.join(root, LOCK_FILE);
  let current: Record<string, unknown>;
  try {
    current = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    return;
  }
  if (current.pid !== process.pid) return;
  const port = Number(new URL(origin).port);
  Tree.at(root).writeJsonAtomic(file, { ...current, port, origin });
}

/** Where the live \`tilth serve\` of this sessions folder answers, or null (none, or it has not said). */
export function liveServeOrigin(root: string): string | null {
  const owner = liveOwner(path.join(root, LOCK_FILE));
  return typeof owner?.origin === 'string' ? owner.origin : null;
}
