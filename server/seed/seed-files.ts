/**
 * Writing an accepted seed all or nothing (reading it back is the session handle's `readSeed`). Validation lives in `sink.ts`, which re-exports this module so callers see one sink;
 * the test files' path rules and lock hashes, which the run needs too, in `store/seed-input.ts`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PrdSchema, SeedMetaSchema, type SeedMeta } from '../../shared/files.ts';
import { testFileRule } from '../../shared/seed.ts';
import { AppError, describeZodError } from '../errors/app-error.ts';
import { Tree, type TreeWrite } from '../fs/tree.ts';
import { resolveTestPath, sha256, type ValidSeed } from '../store/seed-input.ts';
import type { SessionHandle } from '../store/session-handle.ts';

export class SeedWriteError extends AppError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('seed_write_failed', message, options);
  }
}

// ── writing ──────────────────────────────────────────────────────────────────────────────────

/** The seed's own texts; the validated seed supplies them, whatever the caller's meta says. */
type SeedTexts = 'tldr' | 'open_questions' | 'blockers' | 'scope_notes';
export type SeedMetaInput = Omit<SeedMeta, 'locked_tests' | SeedTexts> & Partial<Pick<SeedMeta, SeedTexts>>;

export interface WriteSeedContext {
  session: SessionHandle;
  meta: SeedMetaInput;
}

/**
 * Writes an accepted seed all or nothing (the session handle's multi-file write): the test files,
 * then `seed-meta.json`, then `prd.json`. A failure removes the temps and any `tests/` folder
 * this call created, and changes nothing.
 */
export function writeSeed(seed: ValidSeed, ctx: WriteSeedContext): SeedMeta {
  const lockedTests: Record<string, string> = {};
  for (const [file, content] of Object.entries(seed.testFiles)) lockedTests[file] = sha256(content);
  const parsedMeta = SeedMetaSchema.safeParse({
    ...ctx.meta,
    tldr: seed.tldr,
    open_questions: seed.openQuestions,
    blockers: seed.blockers,
    scope_notes: seed.scopeNotes,
    locked_tests: lockedTests,
  });
  if (!parsedMeta.success) throw new SeedWriteError(`The seed metadata is invalid: ${describeZodError(parsedMeta.error)}`);
  const meta = parsedMeta.data;
  const prd = PrdSchema.parse(seed.prd.map((t) => ({ ...t, status: 'pending' })));

  // The sink checked the names; checked again here because this is where they become paths.
  const rule = testFileRule(meta.checks_preset, meta.project_env ?? null);
  const { worktree } = ctx.session.checkpoint.read();
  const tests: TreeWrite[] = [];
  const tree = Object.keys(seed.testFiles).length > 0 ? Tree.at(worktree) : null;
  for (const [file, content] of Object.entries(seed.testFiles)) {
    if (!rule.regex.test(file)) throw new AppError('unsafe_test_path', `Refusing test file '${file}': test files live in ${rule.dir}/, named ${rule.describe}`);
    tests.push({ tree: tree!, target: resolveTestPath(worktree, file), content });
  }

  // Folders this call creates for the test files (outermost first), removed again on failure.
  const created: string[] = [];
  try {
    if (tests.length > 0) {
      ensureRealDir(worktree, 'the worktree');
      for (const file of Object.keys(seed.testFiles)) makeRealDirs(tree!, path.posix.dirname(file), created);
    }
    ctx.session.writeSeedFiles({ prd, meta }, tests);
  } catch (err) {
    if (tree) removeCreated(tree, created);
    throw new SeedWriteError(`Nothing was written: ${(err as Error).message.replace(/^nothing was written: /, '')}`, { cause: err });
  }
  return meta;
}

/** Creates `dir` (relative) under the worktree as real folders, recording the ones it made. */
function makeRealDirs(tree: Tree, dir: string, created: string[]): void {
  let current = tree.root;
  for (const part of dir.split('/')) {
    current = path.join(current, part);
    if (fs.lstatSync(current, { throwIfNoEntry: false }) === undefined) {
      tree.mkdir(current);
      created.push(current);
    }
    ensureRealDir(current, `${path.relative(tree.root, current)}/ in the worktree`);
  }
}

function removeCreated(tree: Tree, created: string[]): void {
  for (const dir of [...created].reverse()) tree.remove(dir, { recursive: true });
}

/** A symlinked `tests/` (or worktree) could point anywhere; the sink writes only real folders. */
function ensureRealDir(dir: string, what: string): void {
  const stat = fs.lstatSync(dir);
  if (stat.isSymbolicLink()) throw new Error(`${what} is a symbolic link; the seed is written only into real folders`);
  if (!stat.isDirectory()) throw new Error(`${what} (${dir}) is not a folder`);
}
