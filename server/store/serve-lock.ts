/**
 * One `tilth serve` per sessions folder. Its event logs have a single writer, and crash recovery
 * marks every "running" session as crashed — both are only true if no other live server is
 * using the folder. The lock is a small JSON file with the owner's pid; a lock whose process is
 * gone (a crash, a kill -9) is stale and taken over.
 */
import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../errors.ts';

export const LOCK_FILE = '.tilth-serve.lock';

export class ServeLockError extends AppError {
  constructor(message: string) {
    super('sessions_dir_in_use', message, 409);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock or throws ServeLockError naming the live owner. Returns the release function. */
export function acquireServeLock(root: string, info: { port: number }): () => void {
  const file = path.join(root, LOCK_FILE);
  const mine = JSON.stringify({ pid: process.pid, port: info.port, started_at: new Date().toISOString() });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, mine, { flag: 'wx' });
      return () => {
        try {
          const current = JSON.parse(fs.readFileSync(file, 'utf8')) as { pid?: unknown };
          if (current.pid === process.pid) fs.rmSync(file, { force: true });
        } catch {
          // Already gone or replaced: nothing of ours to remove.
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    let owner: { pid?: unknown; port?: unknown } = {};
    try {
      owner = JSON.parse(fs.readFileSync(file, 'utf8')) as typeof owner;
    } catch {
      // Unreadable lock: treat as stale.
    }
    if (typeof owner.pid === 'number' && owner.pid !== process.pid && alive(owner.pid)) {
      throw new ServeLockError(
        `Another tilth serve (pid ${owner.pid}${typeof owner.port === 'number' ? `, port ${owner.port}` : ''}) is using ${root}. Stop it first, or pass a different --sessions-dir.`,
      );
    }
    fs.rmSync(file, { force: true });
  }
  throw new ServeLockError(`Could not take the lock ${file}; another tilth serve may be starting.`);
}
