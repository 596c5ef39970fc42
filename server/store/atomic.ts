/**
 * Atomic file writes: write a sibling temp file, fsync it, rename it over the target, then fsync
 * the directory. A crash at any moment leaves either the old file or the new one, never a mix.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

export interface AtomicWriteOptions {
  /** The file's mode, e.g. 0o600 for the config file: set exactly, whatever the umask. */
  mode?: number;
  /** fsync the file and its directory (default true). Turn off only for derived, rebuildable files. */
  durable?: boolean;
}

export function writeFileAtomic(file: string, content: string, options: AtomicWriteOptions = {}): void {
  const dir = path.dirname(file);
  const tmp = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const durable = options.durable ?? true;
  const fd = fs.openSync(tmp, 'wx', options.mode ?? 0o644);
  try {
    // Before any byte of content: a secret is never readable by others, not even briefly.
    if (options.mode !== undefined) fs.fchmodSync(fd, options.mode);
    writeAll(fd, Buffer.from(content, 'utf8'));
    if (durable) fs.fsyncSync(fd);
  } catch (err) {
    fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  fs.closeSync(fd);
  try {
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  if (durable) fsyncDir(dir);
}

export function writeJsonAtomic(file: string, data: unknown, options: AtomicWriteOptions = {}): void {
  writeFileAtomic(file, `${JSON.stringify(data, null, 2)}\n`, options);
}

/** fsync a folder so a rename in it survives power loss; best effort where unsupported. */
export function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Some filesystems refuse fsync on a directory; the rename is still atomic there.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** writeSync may write less than asked (a full disk, a signal); keep going until all is out. */
export function writeAll(fd: number, buf: Buffer): void {
  let offset = 0;
  while (offset < buf.length) offset += fs.writeSync(fd, buf, offset, buf.length - offset);
}
