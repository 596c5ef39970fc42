/**
 * Read-only file tools confined to one root: `read_file`, `glob`, `grep`. The interview uses them
 * on the source repo; the run's worker will use them on its worktree.
 *
 * Confinement is checked on the real path: a relative path that climbs out with `..`, an absolute
 * path, or a symlink (file or folder) that points outside the root is refused, and glob/grep never
 * list or search anything whose real path is outside. (The Python edition's glob and grep followed
 * such links out of the workspace — a bug this fixes.) glob and grep do not list symlinks at all;
 * read_file follows one only when it stays inside. `.git` is never listed, searched or read.
 */
import fs from 'node:fs';
import path from 'node:path';
import { glob as globFiles } from 'tinyglobby';
import { ToolError } from '../agent/tools.ts';
import { searchOffThread } from './grep-search.ts';

export const MAX_READ_CHARS = 50_000;
export const MAX_RESULTS = 200;
const MAX_GREP_FILE_BYTES = 1_000_000;
const MAX_LINE_CHARS = 300;
const IGNORED = ['**/.git/**', '**/node_modules/**'];

export class ConfinedRoot {
  readonly real: string;

  constructor(root: string) {
    this.real = fs.realpathSync(root);
  }

  /** The real path of `rel` if it stays inside the root; otherwise a ToolError saying why. */
  resolve(rel: string): string {
    if (typeof rel !== 'string' || rel.trim() === '') throw new ToolError('path must be a non-empty string relative to the repository root');
    if (rel.includes('\0')) throw new ToolError('path must not contain NUL bytes');
    if (path.isAbsolute(rel)) throw new ToolError(`path must be relative to the repository root, not absolute: ${rel}`);
    const joined = path.resolve(this.real, rel);
    if (!this.contains(joined)) throw new ToolError(`path is outside the repository: ${rel}`);
    let real: string;
    try {
      real = fs.realpathSync(joined);
    } catch {
      throw new ToolError(`no such file or folder: ${rel}`);
    }
    if (!this.contains(real)) throw new ToolError(`path leads outside the repository (through a symlink): ${rel}`);
    if (real.split(path.sep).includes('.git')) throw new ToolError(`the .git folder is not readable: ${rel}`);
    return real;
  }

  contains(abs: string): boolean {
    return abs === this.real || abs.startsWith(this.real + path.sep);
  }

  relative(abs: string): string {
    return path.relative(this.real, abs).split(path.sep).join('/');
  }

  /** Files matching `pattern` whose real path is inside the root, sorted, `.git` excluded. */
  async files(pattern: string): Promise<string[]> {
    checkPattern(pattern);
    const found = await globFiles(pattern, { cwd: this.real, ignore: IGNORED, dot: true, onlyFiles: true, followSymbolicLinks: false, absolute: false });
    // Asynchronous on purpose: one realpathSync per file held the event loop for ~0.5 s over a
    // few thousand files; these run on libuv's threads while the server goes on answering.
    const real = await Promise.all(found.map((rel) => fs.promises.realpath(path.join(this.real, rel)).catch(() => null)));
    // A null is a dangling link: not a file we can read.
    return found
      .filter((_, i) => {
        const at = real[i];
        return typeof at === 'string' && this.contains(at);
      })
      .sort();
  }
}

function checkPattern(pattern: unknown): asserts pattern is string {
  if (typeof pattern !== 'string' || pattern.trim() === '') throw new ToolError('pattern must be a non-empty glob such as "src/**/*.ts"');
  if (path.isAbsolute(pattern) || pattern.split('/').includes('..')) {
    throw new ToolError(`glob patterns are relative to the repository root and may not climb out: ${pattern}`);
  }
}

/** Bytes a read_file reads at most: a UTF-16 unit takes at most 3 UTF-8 bytes, so this always
 * decodes to more than MAX_READ_CHARS whole characters, and a character cut by the read's end
 * falls past the part that is kept. */
const MAX_READ_BYTES = MAX_READ_CHARS * 3 + 3;
/** The bytes binary detection looks at. */
const SNIFF_BYTES = 8000;

export function readFile(root: ConfinedRoot, rel: string): string {
  const real = root.resolve(rel);
  const stat = fs.statSync(real);
  if (stat.isDirectory()) throw new ToolError(`${rel} is a folder; use glob to list it`);
  if (!stat.isFile()) throw new ToolError(`${rel} is not a regular file`); // a FIFO would block forever
  // Only the head is read: a model's read of a 1.5 GB file must not put 1.5 GB in server memory.
  const { head, size, whole } = readHead(real, MAX_READ_BYTES);
  if (head.subarray(0, SNIFF_BYTES).includes(0)) return `(${rel} is a binary file of ${size} bytes)`;
  const text = head.toString('utf8');
  if (text.length <= MAX_READ_CHARS && whole) return text;
  let cut = MAX_READ_CHARS;
  const last = text.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut--; // never split a surrogate pair
  return `${text.slice(0, cut)}\n... [truncated: ${whole ? `${text.length} chars` : `${size} bytes`} in all]`;
}

/**
 * At most `maxBytes` from the start of a file, its size, and whether that is all of it — never
 * more in memory, however large the file is. Size and bytes come from the same open file, and it
 * is opened non-blocking, so a FIFO swapped in after the caller's stat cannot hang the server.
 */
export function readHead(abs: string, maxBytes: number): { head: Buffer; size: number; whole: boolean } {
  const fd = fs.openSync(abs, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new ToolError('not a regular file');
    // One byte past the limit tells "exactly maxBytes" from "more than maxBytes" (the file may grow).
    const buf = Buffer.alloc(Math.min(stat.size, maxBytes) + 1);
    let length = 0;
    let whole = false;
    while (length < buf.length) {
      const n = fs.readSync(fd, buf, length, buf.length - length, length);
      if (n === 0) {
        whole = true;
        break;
      }
      length += n;
    }
    return { head: buf.subarray(0, Math.min(length, maxBytes)), size: Math.max(stat.size, length), whole };
  } finally {
    fs.closeSync(fd);
  }
}

export async function globTool(root: ConfinedRoot, pattern: string): Promise<string> {
  const files = await root.files(pattern);
  if (files.length === 0) return `(no files match ${pattern})`;
  const shown = files.slice(0, MAX_RESULTS);
  return shown.join('\n') + (files.length > MAX_RESULTS ? `\n... [${files.length - MAX_RESULTS} more not shown]` : '');
}

/** How long one grep may search before it is stopped (grep-search.ts). */
export const GREP_TIMEOUT_MS = 10_000;

/**
 * The regex search runs in a worker thread with a deadline (grep-search.ts): the pattern is the
 * model's, and a backtracking one must not stall the server. Listing and confinement stay here.
 */
export async function grepTool(root: ConfinedRoot, pattern: string, pathGlob = '**/*', options: { timeoutMs?: number } = {}): Promise<string> {
  if (typeof pattern !== 'string' || pattern === '') throw new ToolError('pattern must be a non-empty regular expression');
  try {
    new RegExp(pattern);
  } catch (err) {
    throw new ToolError(`pattern is not a valid regular expression: ${(err as Error).message}`);
  }
  const files = await root.files(pathGlob);
  const timeoutMs = options.timeoutMs ?? GREP_TIMEOUT_MS;
  const result = await searchOffThread(
    {
      pattern,
      files: files.map((rel) => path.join(root.real, rel)),
      maxFileBytes: MAX_GREP_FILE_BYTES,
      sniffBytes: SNIFF_BYTES,
      maxResults: MAX_RESULTS,
      maxLineChars: MAX_LINE_CHARS,
    },
    timeoutMs,
  );
  if (result.timedOut) {
    throw new ToolError(
      `the pattern took longer than ${timeoutMs / 1000} s over ${files.length} files and was stopped; simplify it (avoid nested quantifiers like (a+)+) or narrow path_glob`,
    );
  }
  if (result.hits.length === 0) return `(no matches for /${pattern}/ in ${pathGlob})`;
  const hits = result.hits.map(([f, n, line]) => `${files[f]}:${n}: ${line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line}`);
  return hits.join('\n') + (result.more > 0 ? `\n... [${result.more} more matches not shown]` : '');
}
