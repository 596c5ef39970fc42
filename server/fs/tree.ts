/**
 * The one way the server writes files in folders other code can also write (issue 27): a session's
 * worktree and the scratch worktrees made from it, the sessions folder, a repository's git
 * metadata, `TILTH_HOME`. A worker, a repository's committed setup script or a test run can plant
 * a symbolic link in any of them; a write that followed it would land wherever the link points,
 * with the server user's rights (the mutation probe rewrote a line of a linked file that way).
 *
 * A `Tree` is one such folder. Every write, rename, truncate and delete it makes:
 * - resolves the path's parent to its real path and refuses it unless that lies inside the tree's
 *   own real path: a parent that is a link leading outside is refused, by name;
 * - opens the last component with `O_NOFOLLOW` (a link there is refused, never followed) and
 *   `O_NONBLOCK` (a FIFO planted there fails instead of blocking the server), without `O_TRUNC`;
 * - checks the file it opened is the one it meant before it changes a byte: `fstat` of the
 *   descriptor against `lstat` of the path, and the parent's real path unchanged. Only then does it
 *   truncate and write. A write whose target is swapped under it in between is refused;
 * - replaces by rename (atomic writes), which swaps the directory entry itself: a link at the
 *   target is replaced, not followed.
 *
 * Node has no `openat`, so a parent swapped between the check and the open is caught by the checks
 * after the open rather than prevented; nothing has been written by then. In Tilth the writers a
 * tree guards against (the worker's commands, a setup script, a test run) have all ended before
 * the server writes in their tree: each runs to completion in its own process group.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { AppError } from '../errors/app-error.ts';

/** 0 where the platform has no such flag (Windows); Tilth's sandboxed runs need Linux anyway. */
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0;
const { O_WRONLY, O_RDONLY, O_RDWR, O_CREAT, O_EXCL, O_APPEND } = fs.constants;
/** How opening with O_NOFOLLOW answers a link at the last component. */
const LINK_REFUSED = new Set<string | undefined>([
  'ELOOP',
  // Stryker disable next-line StringLiteral: FreeBSD's answer; Linux, where the tests run, answers ELOOP
  'EMLINK',
]);

/** A write the server refused because it would go through a link, or leave its tree. */
export class LinkRefusedError extends AppError {
  constructor(message: string) {
    super('link_refused', message);
  }
}

export interface WriteOptions {
  /** Set exactly, whatever the umask (a secret's 0600). */
  mode?: number;
}

export interface AtomicWriteOptions extends WriteOptions {
  /** fsync the file and its folder (default true). Off only for derived, rebuildable files. */
  durable?: boolean;
}

/** One file of an all-or-nothing write, each in its own tree (a seed writes the worktree and the session folder together). */
export interface TreeWrite {
  tree: Tree;
  target: string;
  content: string;
}

interface Located {
  /** The path to use: the parent's real path joined with the last component. */
  abs: string;
  /** As given, relative to the tree, for messages. */
  rel: string;
  /** The parent's real path when located. */
  realParent: string;
}

/** The names atomic writes give their temp files: `.<name>.<12 hex>.tmp`. */
export const ATOMIC_TEMP = /^\..+\.[0-9a-f]{12}\.tmp$/;

export class Tree {
  /** The tree's folder as given (resolved), and its real path, which every write must stay inside. */
  readonly root: string;
  private readonly realRoot: string;

  private constructor(root: string, realRoot: string) {
    this.root = root;
    this.realRoot = realRoot;
  }

  /** A tree at an existing folder. The folder itself may be reached through links (`/tmp` on macOS); what is under it may not leave it. */
  static at(root: string): Tree {
    const resolved = path.resolve(root);
    return new Tree(resolved, fs.realpathSync(resolved));
  }

  /**
   * A tree at a folder of the user's choosing (the sessions folder, `TILTH_HOME`), made with its
   * parents when missing. Those parents are the user's own, not something a worker can plant.
   */
  static ensure(root: string, mode?: number): Tree {
    fs.mkdirSync(root, { recursive: true, mode });
    return Tree.at(root);
  }

  /** Whether `p` (absolute, or relative to the root) names something strictly inside the tree, by its path alone. */
  contains(p: string): boolean {
    return isStrictlyInside(path.resolve(this.root, p), this.root);
  }

  /** The tree for a folder inside this one, checked like a write's parent. */
  sub(p: string): Tree {
    const located = this.locate(p);
    const st = fs.lstatSync(located.abs);
    if (st.isSymbolicLink()) throw new LinkRefusedError(`${located.rel} in ${this.root} is a symbolic link; Tilth does not write through links.`);
    return new Tree(path.resolve(this.root, p), located.abs);
  }

  // ── Writes ────────────────────────────────────────────────────────────────────────────────

  /** Creates or overwrites `p` in place. Refuses a link, a FIFO or a folder there. */
  writeFile(p: string, content: string | Uint8Array, options: WriteOptions = {}): void {
    const located = this.locate(p);
    const fd = this.open(located, O_WRONLY | O_CREAT, options.mode ?? 0o644);
    try {
      fs.ftruncateSync(fd, 0);
      if (options.mode !== undefined) fs.fchmodSync(fd, options.mode);
      writeAll(fd, bytes(content));
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Creates `p` with `content`, failing with EEXIST when anything (a link included) is there: a lock file. */
  createExclusive(p: string, content: string, mode = 0o644): void {
    const located = this.locate(p);
    const fd = fs.openSync(located.abs, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
    try {
      writeAll(fd, bytes(content));
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Appends to `p`, creating it. */
  appendFile(p: string, content: string): void {
    const fd = this.openAppend(p);
    try {
      writeAll(fd, bytes(content));
    } finally {
      fs.closeSync(fd);
    }
  }

  /**
   * A descriptor that appends to `p` (created when missing), checked like every write; the caller
   * closes it. `readable` opens it for reading too (to repair a torn last line).
   */
  openAppend(p: string, options: { readable?: boolean; mode?: number } = {}): number {
    return this.open(this.locate(p), (options.readable ? O_RDWR : O_WRONLY) | O_APPEND | O_CREAT, options.mode ?? 0o644);
  }

  /** Cuts `p` to `length` bytes. */
  truncate(p: string, length: number): void {
    const fd = this.open(this.locate(p), O_WRONLY, 0o644);
    try {
      fs.ftruncateSync(fd, length);
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Sets `p`'s mode, on the file itself (a link there is refused). */
  chmod(p: string, mode: number): void {
    const fd = this.open(this.locate(p), O_RDONLY, 0);
    try {
      fs.fchmodSync(fd, mode);
    } finally {
      fs.closeSync(fd);
    }
  }

  /**
   * Replaces `p` atomically: a fsynced temp sibling, renamed over it, then the folder fsynced. A
   * crash at any moment leaves the old file or the new one. A link at `p` is replaced, not followed.
   */
  writeFileAtomic(p: string, content: string | Uint8Array, options: AtomicWriteOptions = {}): void {
    const durable = options.durable ?? true;
    const located = this.locate(p);
    const tmp = this.stage(located, content, options.mode, durable);
    try {
      this.checkParent(located);
      fs.renameSync(tmp, located.abs);
    } catch (err) {
      fs.rmSync(tmp, { force: true });
      throw err;
    }
    if (durable) fsyncDir(located.realParent);
  }

  /**
   * Like `writeFileAtomic`, but never replaces: a hard link from the staged temp appears whole or
   * not at all, and fails if anything (a link included) is at `p`. False when someone else made it
   * first — for a file that processes starting together must agree on (the queue key).
   */
  createFileAtomic(p: string, content: string | Uint8Array, options: AtomicWriteOptions = {}): boolean {
    const durable = options.durable ?? true;
    const located = this.locate(p);
    const tmp = this.stage(located, content, options.mode, durable);
    try {
      this.checkParent(located);
      fs.linkSync(tmp, located.abs);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw err;
    } finally {
      fs.rmSync(tmp, { force: true });
    }
    if (durable) fsyncDir(located.realParent);
    return true;
  }

  /** `writeFileAtomic` off the event loop, for large derived files (an event log's index); never fsynced. */
  async writeFileAtomicAsync(p: string, content: Uint8Array): Promise<void> {
    const located = this.locate(p);
    const tmp = tempSibling(located);
    const handle = await fs.promises.open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o644);
    try {
      await handle.writeFile(content);
    } catch (err) {
      await handle.close();
      await fs.promises.rm(tmp, { force: true });
      throw err;
    }
    await handle.close();
    try {
      this.checkParent(located);
      await fs.promises.rename(tmp, located.abs);
    } catch (err) {
      await fs.promises.rm(tmp, { force: true });
      throw err;
    }
  }

  writeJsonAtomic(p: string, data: unknown, options: AtomicWriteOptions = {}): void {
    this.writeFileAtomic(p, `${JSON.stringify(data, null, 2)}\n`, options);
  }

  /**
   * Several files all or nothing: each is staged as a fsynced temp sibling first; only then are
   * they renamed into place, in the order given. A failure while staging removes the temps and
   * changes nothing. A failure while renaming — rare, e.g. a folder in the way — puts back the
   * files already replaced, from copies read before, and removes the remaining temps.
   */
  static writeFilesAtomic(writes: TreeWrite[]): void {
    const staged: { tree: Tree; located: Located; tmp: string }[] = [];
    try {
      for (const { tree, target, content } of writes) {
        const located = tree.locate(target);
        staged.push({ tree, located, tmp: tree.stage(located, content, undefined, true) });
      }
    } catch (err) {
      for (const { tmp } of staged) fs.rmSync(tmp, { force: true });
      throw new Error(`nothing was written: staging ${writes[staged.length]!.target} failed: ${(err as Error).message}`, { cause: err });
    }
    const previous = staged.map(({ tree, located }) => tree.readIfFile(located));
    let done = 0;
    try {
      for (const { tree, tmp, located } of staged) {
        tree.checkParent(located);
        fs.renameSync(tmp, located.abs);
        done++;
      }
    } catch (err) {
      for (let i = 0; i < done; i++) staged[i]!.tree.restore(staged[i]!.located, previous[i]!);
      // Those renamed are gone already; force passes over them.
      for (const { tmp } of staged) fs.rmSync(tmp, { force: true });
      throw new Error(`nothing was written: replacing ${staged[done]!.located.rel} failed: ${(err as Error).message}`, { cause: err });
    }
    for (const dir of new Set(staged.map(({ located }) => located.realParent))) fsyncDir(dir);
  }

  /** Makes folder `p` (and, with `recursive`, its missing parents), none of them through a link leading outside. */
  mkdir(p: string, options: { recursive?: boolean; mode?: number } = {}): void {
    const target = path.resolve(this.root, p);
    if (target === this.root) {
      if (options.recursive) return; // the tree's own folder is there
      throw errno('EEXIST', 'file already exists', target);
    }
    if (!isStrictlyInside(target, this.root)) throw this.outside(p);
    const parts = path.relative(this.root, target).split(path.sep);
    let real = this.realRoot;
    for (let i = 0; i < parts.length; i++) {
      const next = path.join(real, parts[i]!);
      const st = fs.lstatSync(next, { throwIfNoEntry: false });
      const last = i === parts.length - 1;
      if (st === undefined) {
        if (!last && !options.recursive) throw errno('ENOENT', 'no such file or directory', target);
        fs.mkdirSync(next, { mode: options.mode });
        // Made where meant: no folder on the way was swapped for a link meanwhile.
        if (realpathOrNull(next) !== next) throw new LinkRefusedError(`${parts.slice(0, i + 1).join('/')} in ${this.root} changed while Tilth made it.`);
        real = next;
        continue;
      }
      // `real` is a real path: only a link here makes `next`'s differ.
      const resolved = realpathOrNull(next);
      if (resolved === null || !isInsideOrSame(resolved, this.realRoot)) {
        throw new LinkRefusedError(
          `${parts.slice(0, i + 1).join('/')} in ${this.root} is a symbolic link leading outside it; Tilth does not write through it.`,
        );
      }
      real = resolved;
      if (!fs.statSync(real).isDirectory()) throw errno(last ? 'EEXIST' : 'ENOTDIR', last ? 'file already exists' : 'not a directory', target);
      if (last && !options.recursive) throw errno('EEXIST', 'file already exists', target);
    }
  }

  /** Removes `p` (a folder only with `recursive`); a link there is removed itself, and nothing is followed inside a folder. Missing is fine. */
  remove(p: string, options: { recursive?: boolean } = {}): void {
    let located: Located;
    try {
      located = this.locate(p);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    fs.rmSync(located.abs, { force: true, recursive: options.recursive ?? false });
  }

  /** Renames `from` to `to`, both inside the tree; the entry itself moves (a link is moved, not followed). */
  rename(from: string, to: string): void {
    const a = this.locate(from);
    const b = this.locate(to);
    fs.renameSync(a.abs, b.abs);
  }

  /** Makes a symbolic link at `p` pointing at `target` (the link may point anywhere; writes never follow it). */
  symlink(target: string, p: string): void {
    fs.symlinkSync(target, this.locate(p).abs);
  }

  // ── Reads that must not follow a link (a file the server is about to rewrite) ─────────────

  /** `p`'s content, or null when `p` is a link, not a regular file, or missing. */
  readFileNoFollow(p: string): Buffer | null {
    let located: Located;
    try {
      located = this.locate(p);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    let fd: number;
    try {
      fd = fs.openSync(located.abs, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    } catch {
      return null;
    }
    try {
      if (!fs.fstatSync(fd).isFile()) return null;
      return fs.readFileSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Whether `p` is a real folder of the tree: not a link, not a file, and reached through no link leading outside. */
  isRealDirectory(p: string): boolean {
    let located: Located;
    try {
      located = this.locate(p);
    } catch {
      return false;
    }
    return fs.lstatSync(located.abs, { throwIfNoEntry: false })?.isDirectory() === true;
  }

  /**
   * Removes the temp files atomic writes left in `dir` (a crash between staging and renaming)
   * that are older than `olderThanMs`: younger ones may belong to a write in progress in another
   * process. Returns the names removed.
   */
  removeStaleTemps(dir: string, olderThanMs: number, now = Date.now()): string[] {
    if (!this.isRealDirectory(dir) && path.resolve(this.root, dir) !== this.root) return [];
    const folder = path.resolve(this.root, dir);
    const removed: string[] = [];
    let names: string[];
    try {
      names = fs.readdirSync(folder);
    } catch {
      return [];
    }
    for (const name of names) {
      if (!ATOMIC_TEMP.test(name)) continue;
      const file = path.join(folder, name);
      const st = fs.lstatSync(file, { throwIfNoEntry: false });
      if (!st?.isFile() || (olderThanMs > 0 && now - st.mtimeMs < olderThanMs)) continue;
      fs.rmSync(file, { force: true });
      removed.push(name);
    }
    return removed;
  }

  // ── Internals ─────────────────────────────────────────────────────────────────────────────

  /** Where `p` is, with its parent's real path checked to lie inside the tree. Throws ENOENT when the parent is missing. */
  private locate(p: string): Located {
    const target = path.resolve(this.root, p);
    if (!isStrictlyInside(target, this.root)) throw this.outside(p);
    const rel = path.relative(this.root, target).split(path.sep).join('/');
    const realParent = fs.realpathSync(path.dirname(target));
    if (!isInsideOrSame(realParent, this.realRoot)) {
      throw new LinkRefusedError(
        `${rel}: ${this.firstLink(target) ?? path.dirname(rel)} in ${this.root} is a symbolic link leading outside it; Tilth does not write through it.`,
      );
    }
    return { abs: path.join(realParent, path.basename(target)), rel, realParent };
  }

  /** Opens a located file without following a link, then checks it is the file meant and a regular one. */
  private open(located: Located, flags: number, mode: number): number {
    let fd: number;
    try {
      fd = fs.openSync(located.abs, flags | O_NOFOLLOW | O_NONBLOCK, mode);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (LINK_REFUSED.has(code)) {
        throw new LinkRefusedError(`${located.rel} in ${this.root} is a symbolic link; Tilth does not write through links.`);
      }
      if (code === 'ENXIO') throw new LinkRefusedError(`${located.rel} in ${this.root} is not a regular file (a FIFO or socket); Tilth does not write to it.`);
      throw err;
    }
    try {
      const opened = fs.fstatSync(fd);
      if (!opened.isFile()) throw new LinkRefusedError(`${located.rel} in ${this.root} is not a regular file; Tilth does not write to it.`);
      const there = fs.lstatSync(located.abs, { throwIfNoEntry: false });
      if (there === undefined || there.dev !== opened.dev || there.ino !== opened.ino) {
        throw new LinkRefusedError(`${located.rel} in ${this.root} changed while Tilth opened it; nothing was written.`);
      }
      this.checkParent(located);
      return fd;
    } catch (err) {
      fs.closeSync(fd);
      throw err;
    }
  }

  /** The parent's real path is still the one located (no folder on the way was swapped for a link since). */
  private checkParent(located: Located): void {
    if (realpathOrNull(located.realParent) !== located.realParent) {
      throw new LinkRefusedError(`${path.dirname(located.rel)} in ${this.root} changed while Tilth wrote ${located.rel}; nothing was written there.`);
    }
  }

  private stage(located: Located, content: string | Uint8Array, mode: number | undefined, durable: boolean): string {
    const tmp = tempSibling(located);
    // O_EXCL: a fresh file, never whatever a link of that name would lead to.
    const fd = fs.openSync(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode ?? 0o644);
    try {
      // Before any byte of content: a secret is never readable by others, not even briefly.
      if (mode !== undefined) fs.fchmodSync(fd, mode);
      writeAll(fd, bytes(content));
      if (durable) fs.fsyncSync(fd);
    } catch (err) {
      fs.closeSync(fd);
      fs.rmSync(tmp, { force: true });
      throw err;
    }
    fs.closeSync(fd);
    return tmp;
  }

  private readIfFile(located: Located): Buffer | null {
    try {
      const fd = fs.openSync(located.abs, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
      try {
        return fs.fstatSync(fd).isFile() ? fs.readFileSync(fd) : null;
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      return null;
    }
  }

  private restore(located: Located, content: Buffer | null): void {
    try {
      if (content === null) fs.rmSync(located.abs);
      else this.writeFileAtomic(located.abs, content, { durable: false });
    } catch {
      // Best effort: the error being reported is the rename's, and it names the file.
    }
  }

  /** The first component of `target`'s path under the root that is a symbolic link, for messages. */
  private firstLink(target: string): string | null {
    const parts = path.relative(this.root, target).split(path.sep);
    let at = this.root;
    for (let i = 0; i < parts.length - 1; i++) {
      at = path.join(at, parts[i]!);
      if (fs.lstatSync(at, { throwIfNoEntry: false })?.isSymbolicLink()) return parts.slice(0, i + 1).join('/');
    }
    return null;
  }

  private outside(p: string): LinkRefusedError {
    return new LinkRefusedError(`${p} is not inside ${this.root}; Tilth writes there only.`);
  }
}

/** A fresh temp name beside the target, in the form ATOMIC_TEMP matches. */
function tempSibling(located: Located): string {
  return path.join(located.realParent, `.${path.basename(located.abs)}.${randomBytes(6).toString('hex')}.tmp`);
}

function isStrictlyInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  if (rel === '' || rel === '..' || rel.startsWith(`..${path.sep}`)) return false;
  // Across drives, on Windows.
  return !path.isAbsolute(rel);
}

function isInsideOrSame(child: string, parent: string): boolean {
  return child === parent || isStrictlyInside(child, parent);
}

/** An error shaped like node's own for `code`, so callers that check `err.code` keep working. */
function errno(code: string, what: string, target: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${what}, mkdir '${target}'`), { code });
}

function realpathOrNull(p: string): string | null {
  try {
    return fs.realpathSync(p);
  } catch {
    return null;
  }
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

/** A string's UTF-8 bytes; bytes as they are. */
function bytes(content: string | Uint8Array): Uint8Array {
  // Stryker disable next-line ConditionalExpression: `true` has Buffer.from copy bytes, the same bytes; `false` hands writeAll the string, like the EqualityOperator mutant a test kills with a short write
  return typeof content === 'string' ? Buffer.from(content) : content;
}

/** writeSync may write less than asked (a full disk, a signal); keep going until all is out. */
export function writeAll(fd: number, buf: Uint8Array): void {
  let offset = 0;
  while (offset < buf.length) offset += fs.writeSync(fd, buf, offset, buf.length - offset);
}
