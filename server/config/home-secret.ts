/**
 * The secrets Tilth keeps in $TILTH_HOME between launches — the access token (launch-token.ts)
 * and the run queue's signing key (jobs/queue-key.ts): one file each, readable by the user alone,
 * written whole through the home's Tree (staged with mode 0600 before any byte, then renamed or
 * linked into place, no link followed), so no reader ever sees half of one, and others cannot read
 * it even for a moment.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Tree } from '../fs/tree.ts';

export interface HomeSecret {
  file: string;
  /** The file's text, trimmed. */
  text: string;
  /** The file's permission bits. */
  mode: number;
  /** Whether anyone but its owner may read or write it (any group or other bit). */
  shared: boolean;
}

/** The secret kept as `name`, or null when there is none. */
export function readHomeSecret(home: string, name: string): HomeSecret | null {
  const file = path.join(home, name);
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    // The mode of the file read, not of whatever is at the path a moment later.
    const mode = fs.fstatSync(fd).mode & 0o777;
    return { file, text: fs.readFileSync(fd, 'utf8').trim(), mode, shared: (mode & 0o077) !== 0 };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Keeps `text` as the secret `name` (mode 0600, the home made 0700 if missing). With `replace:
 * false` it is written only when there is none yet, and false says another process made one
 * first: read that one, so every process ends up with the same secret.
 */
export function writeHomeSecret(home: string, name: string, text: string, { replace }: { replace: boolean }): boolean {
  const tree = Tree.ensure(home, 0o700);
  if (!replace) return tree.createFileAtomic(name, `${text}\n`, { mode: 0o600 });
  tree.writeFileAtomic(name, `${text}\n`, { mode: 0o600 });
  return true;
}
