/**
 * What the sink hands the writer: the validated seed, and the rules for its test files that both
 * apply — which paths are safe, where a path lands in the worktree — with the hashes that lock
 * those files (written with the seed, compared by the run's checks). Both the interview and the
 * run need these, so they sit here, below both.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { PrdEntry, SeedMeta } from '../../shared/files.ts';
import { AppError } from '../errors/app-error.ts';

export interface ValidSeed {
  prd: PrdEntry[];
  /** Normalised path relative to the worktree (`tests/…`) → content, in task order. */
  testFiles: Record<string, string>;
  tldr: string;
  openQuestions: string[];
  blockers: string[];
  scopeNotes: string;
}

/** Why a test path is unsafe to write, or null; checked when validating and again when writing. */
export function unsafePathReason(file: string): string | null {
  if (file.trim() === '') return 'the path is empty';
  if (file.includes('\\')) return 'backslashes are not allowed in the path (use /)';
  if (path.posix.isAbsolute(file) || /^[A-Za-z]:/.test(file)) return 'absolute paths are not allowed';
  if (file.includes('..')) return "'..' is not allowed in the path";
  if (file.includes('\0')) return 'the path contains a NUL character';
  if (Buffer.byteLength(path.posix.basename(file)) > 255) return 'the file name is longer than 255 bytes';
  return null;
}

/**
 * A test path joined to the worktree, refusing anything that could land outside it or in what is
 * not the project's own: a path that climbs out, git's metadata, installed dependencies, or a
 * folder that is a symbolic link (it could point anywhere). Which folder tests go in is the naming
 * rule's to say (shared/seed.ts); the sink only writes names that match it.
 */
export function resolveTestPath(worktree: string, file: string): string {
  const unsafe = unsafePathReason(file);
  if (unsafe) throw new AppError('unsafe_test_path', `Refusing test file '${file}': ${unsafe}`);
  const root = path.resolve(worktree);
  const target = path.resolve(root, file);
  const rel = path.relative(root, target);
  const parts = rel.split(path.sep);
  if (rel.startsWith('..') || path.isAbsolute(rel) || parts.length < 2) {
    throw new AppError('unsafe_test_path', `Refusing test file '${file}': test files live in a folder of the worktree`);
  }
  if (parts.slice(0, -1).some((p) => p === '.git' || p === 'node_modules' || p.startsWith('.'))) {
    throw new AppError('unsafe_test_path', `Refusing test file '${file}': test files do not go in hidden folders or node_modules`);
  }
  for (let i = 1; i < parts.length; i++) {
    const dir = path.join(root, ...parts.slice(0, i));
    if (fs.lstatSync(dir, { throwIfNoEntry: false })?.isSymbolicLink()) {
      throw new AppError('unsafe_test_path', `Refusing test file '${file}': ${parts.slice(0, i).join('/')}/ is a symbolic link`);
    }
  }
  return target;
}

/** The hash a locked test file is recorded by at seed time and compared by in the checks. */
export function sha256(content: string | Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

/**
 * sha256 of each test file as it is now, by path relative to the worktree; null for a file that
 * is missing or is not a regular file (a symlink swapped in counts as a change, and is not
 * followed out of the worktree).
 */
export function hashTestFiles(worktree: string, paths: string[]): Record<string, string | null> {
  const hashes: Record<string, string | null> = {};
  for (const file of paths) {
    const target = resolveTestPath(worktree, file);
    const stat = fs.lstatSync(target, { throwIfNoEntry: false });
    hashes[file] = stat?.isFile() ? sha256(fs.readFileSync(target)) : null;
  }
  return hashes;
}

/** The locked test files whose content differs from the seed (changed, deleted or replaced). */
export function changedLockedTests(worktree: string, locked: Record<string, string>): string[] {
  const now = hashTestFiles(worktree, Object.keys(locked));
  return Object.keys(locked).filter((file) => now[file] !== locked[file]);
}

/** A written seed as read back: the task list, its metadata, and the locked test files' contents by path. */
export interface StoredSeed {
  prd: PrdEntry[];
  meta: SeedMeta;
  testFiles: Record<string, string>;
}
