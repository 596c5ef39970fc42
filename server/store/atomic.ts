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
  const durable = options.durable ?? true;
  const tmp = stage(file, content, options.mode, durable);
  try {
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  if (durable) fsyncDir(path.dirname(file));
}

export interface FileWrite {
  target: string;
  content: string;
}

/**
 * Several files all or nothing: each is staged as a fsynced temp sibling first; only then are
 * they renamed into place, in the order given. A failure while staging removes the temps and
 * changes nothing. A failure while renaming — rare, e.g. a folder in the way — puts back the
 * files already replaced, from copies read before, and removes the remaining temps.
 */
export function writeFilesAtomic(writes: FileWrite[]): void {
  const staged: { target: string; tmp: string }[] = [];
  try {
    for (const { target, content } of writes) staged.push({ target, tmp: stage(target, content) });
  } catch (err) {
    for (const { tmp } of staged) fs.rmSync(tmp, { force: true });
    throw new Error(`nothing was written: staging ${writes[staged.length]?.target ?? 'a file'} failed: ${(err as Error).message}`, { cause: err });
  }
  const previous = staged.map(({ target }) => readIfFile(target));
  let done = 0;
  try {
    for (const { tmp, target } of staged) {
      fs.renameSync(tmp, target);
      done++;
    }
  } catch (err) {
    for (let i = 0; i < done; i++) restore(staged[i]!.target, previous[i]!);
    for (const { tmp } of staged.slice(done)) fs.rmSync(tmp, { force: true });
    throw new Error(`nothing was written: replacing ${staged[done]?.target ?? 'a file'} failed: ${(err as Error).message}`, { cause: err });
  }
  for (const dir of new Set(staged.map(({ target }) => path.dirname(target)))) fsyncDir(dir);
}

/** Writes `content` to a new temp sibling of `target` and returns its path. */
function stage(target: string, content: string, mode?: number, durable = true): string {
  const tmp = path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = fs.openSync(tmp, 'wx', mode ?? 0o644);
  try {
    // Before any byte of content: a secret is never readable by others, not even briefly.
    if (mode !== undefined) fs.fchmodSync(fd, mode);
    writeAll(fd, Buffer.from(content, 'utf8'));
    if (durable) fs.fsyncSync(fd);
  } catch (err) {
    fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  fs.closeSync(fd);
  return tmp;
}

function readIfFile(file: string): Buffer | null {
  try {
    return fs.readFileSync(file);
  } catch {
    return null;
  }
}

function restore(target: string, content: Buffer | null): void {
  try {
    if (content === null) fs.rmSync(target, { force: true });
    else fs.writeFileSync(target, content);
  } catch {
    // Best effort: the error being reported is the rename's, and it names the file.
  }
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
