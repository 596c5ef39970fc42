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

export const MAX_READ_CHARS = 50_000;
export const MAX_RESULTS = 200;
const MAX_GREP_FILE_BYTES = 1_000_000;
const MAX_LINE_CHARS = 300;
const IGNORED = ['**/.git/**', '**/node_modules/**'];

/** A tool refusal or failure whose message goes back to the model as the tool result. */
export class ToolError extends Error {
  override name = 'ToolError';
}

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
    const inside: string[] = [];
    for (const rel of found.sort()) {
      try {
        // Stryker disable next-line ConditionalExpression: unreachable with followSymbolicLinks off (no link is listed); kept in case the globber changes
        if (this.contains(fs.realpathSync(path.join(this.real, rel)))) inside.push(rel);
      } catch {
        // A dangling link: not a file we can read.
      }
    }
    return inside;
  }
}

function checkPattern(pattern: unknown): asserts pattern is string {
  if (typeof pattern !== 'string' || pattern.trim() === '') throw new ToolError('pattern must be a non-empty glob such as "src/**/*.ts"');
  if (path.isAbsolute(pattern) || pattern.split('/').includes('..')) {
    throw new ToolError(`glob patterns are relative to the repository root and may not climb out: ${pattern}`);
  }
}

export function readFile(root: ConfinedRoot, rel: string): string {
  const real = root.resolve(rel);
  const stat = fs.statSync(real);
  if (stat.isDirectory()) throw new ToolError(`${rel} is a folder; use glob to list it`);
  if (!stat.isFile()) throw new ToolError(`${rel} is not a regular file`); // a FIFO would block forever
  const buf = fs.readFileSync(real);
  if (buf.subarray(0, 8000).includes(0)) return `(${rel} is a binary file of ${buf.length} bytes)`;
  const text = buf.toString('utf8');
  return text.length > MAX_READ_CHARS ? `${text.slice(0, MAX_READ_CHARS)}\n... [truncated: ${text.length} chars in all]` : text;
}

export async function globTool(root: ConfinedRoot, pattern: string): Promise<string> {
  const files = await root.files(pattern);
  if (files.length === 0) return `(no files match ${pattern})`;
  const shown = files.slice(0, MAX_RESULTS);
  return shown.join('\n') + (files.length > MAX_RESULTS ? `\n... [${files.length - MAX_RESULTS} more not shown]` : '');
}

export async function grepTool(root: ConfinedRoot, pattern: string, pathGlob = '**/*'): Promise<string> {
  if (typeof pattern !== 'string' || pattern === '') throw new ToolError('pattern must be a non-empty regular expression');
  let regex: RegExp;
  try {
    regex = new RegExp(pattern);
  } catch (err) {
    throw new ToolError(`pattern is not a valid regular expression: ${(err as Error).message}`);
  }
  const hits: string[] = [];
  let more = 0;
  for (const rel of await root.files(pathGlob)) {
    const abs = path.join(root.real, rel);
    if (fs.statSync(abs).size > MAX_GREP_FILE_BYTES) continue;
    const buf = fs.readFileSync(abs);
    if (buf.subarray(0, 8000).includes(0)) continue;
    const lines = buf.toString('utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (!regex.test(line)) continue;
      if (hits.length >= MAX_RESULTS) {
        more++;
        continue;
      }
      hits.push(`${rel}:${i + 1}: ${line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line}`);
    }
  }
  if (hits.length === 0) return `(no matches for /${pattern}/ in ${pathGlob})`;
  return hits.join('\n') + (more > 0 ? `\n... [${more} more matches not shown]` : '');
}
