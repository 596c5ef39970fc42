/**
 * The seed on disk: writing an accepted seed all or nothing, and reading it back through the
 * schemas. Validation lives in `sink.ts`, which re-exports this module so callers see one sink;
 * the test files' path rules and lock hashes, which the run needs too, in `store/seed-input.ts`.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PrdSchema, SeedMetaSchema, type PrdEntry, type SeedMeta } from '../../shared/files.ts';
import { testFileRule } from '../../shared/seed.ts';
import { AppError, CorruptFileError, NotFoundError, describeZodError } from '../errors.ts';
import { fsyncDir, writeAll } from '../store/atomic.ts';
import { readJsonFile } from '../store/json-file.ts';
import { resolveTestPath, sha256, type ValidSeed } from '../store/seed-input.ts';
import { FILES } from '../store/session-store.ts';

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
  sessionDir: string;
  worktree: string;
  meta: SeedMetaInput;
}

interface Staged {
  target: string;
  tmp: string;
}

/**
 * Writes an accepted seed all or nothing: every file is staged as a temp sibling and fsynced
 * first; only then are they renamed into place. A failure while staging removes the temps (and a
 * `tests/` folder this call created) and changes nothing. A failure while renaming — rare, e.g. a
 * directory in the way — puts back the files already replaced, from copies read before.
 *
 * Renames go test files first, then `seed-meta.json`, then `prd.json`: a session "has a seed"
 * when both JSON files exist, so until the last rename a first seed is not visible at all.
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
  const writes: { target: string; content: string }[] = [];
  for (const [file, content] of Object.entries(seed.testFiles)) {
    if (!rule.regex.test(file)) throw new AppError('unsafe_test_path', `Refusing test file '${file}': test files live in ${rule.dir}/, named ${rule.describe}`);
    writes.push({ target: resolveTestPath(ctx.worktree, file), content });
  }
  writes.push({ target: path.join(ctx.sessionDir, FILES.seedMeta), content: `${JSON.stringify(meta, null, 2)}\n` });
  writes.push({ target: path.join(ctx.sessionDir, FILES.prd), content: `${JSON.stringify(prd, null, 2)}\n` });

  // Folders this call creates for the test files (outermost first), removed again on failure.
  const created: string[] = [];
  const staged: Staged[] = [];
  try {
    if (Object.keys(seed.testFiles).length > 0) {
      ensureRealDir(ctx.worktree, 'the worktree');
      for (const file of Object.keys(seed.testFiles)) makeRealDirs(ctx.worktree, path.posix.dirname(file), created);
    }
    for (const { target, content } of writes) staged.push({ target, tmp: stageFile(target, content) });
  } catch (err) {
    for (const { tmp } of staged) fs.rmSync(tmp, { force: true });
    removeCreated(created);
    throw new SeedWriteError(`Nothing was written: staging the seed failed: ${(err as Error).message}`, { cause: err });
  }

  // Copies of what is about to be replaced, so a failed rename can be undone.
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
    removeCreated(created);
    throw new SeedWriteError(`Nothing was written: replacing ${staged[done]?.target ?? 'a seed file'} failed: ${(err as Error).message}`, { cause: err });
  }
  for (const dir of new Set(staged.map(({ target }) => path.dirname(target)))) fsyncDir(dir);
  return meta;
}

/** Creates `dir` (relative) under the worktree as real folders, recording the ones it made. */
function makeRealDirs(worktree: string, dir: string, created: string[]): void {
  let current = worktree;
  for (const part of dir.split('/')) {
    current = path.join(current, part);
    if (!fs.existsSync(current) && fs.lstatSync(current, { throwIfNoEntry: false }) === undefined) {
      fs.mkdirSync(current);
      created.push(current);
    }
    ensureRealDir(current, `${path.relative(worktree, current)}/ in the worktree`);
  }
}

function removeCreated(created: string[]): void {
  for (const dir of [...created].reverse()) fs.rmSync(dir, { recursive: true, force: true });
}

/** A symlinked `tests/` (or worktree) could point anywhere; the sink writes only real folders. */
function ensureRealDir(dir: string, what: string): void {
  const stat = fs.lstatSync(dir);
  if (stat.isSymbolicLink()) throw new Error(`${what} is a symbolic link; the seed is written only into real folders`);
  if (!stat.isDirectory()) throw new Error(`${what} (${dir}) is not a folder`);
}

function stageFile(target: string, content: string): string {
  const tmp = path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = fs.openSync(tmp, 'wx', 0o644);
  try {
    writeAll(fd, Buffer.from(content, 'utf8'));
    fs.fsyncSync(fd);
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

// ── reading ──────────────────────────────────────────────────────────────────────────────────

export interface StoredSeed {
  prd: PrdEntry[];
  meta: SeedMeta;
  /** The locked test files' current contents, by path relative to the worktree. */
  testFiles: Record<string, string>;
}

/** Loads a written seed through the schemas; a missing test file is reported naming it. */
export function readSeed(sessionDir: string, worktree: string): StoredSeed {
  const prdFile = path.join(sessionDir, FILES.prd);
  const metaFile = path.join(sessionDir, FILES.seedMeta);
  const prd = readJsonFile(prdFile, PrdSchema);
  const meta = readJsonFile(metaFile, SeedMetaSchema);
  if (prd === null || meta === null)
    throw new NotFoundError('no_seed', `No seed in ${sessionDir} yet: ${prd === null ? FILES.prd : FILES.seedMeta} is missing.`);
  const testFiles: Record<string, string> = {};
  for (const file of Object.keys(meta.locked_tests)) {
    const target = resolveTestPath(worktree, file);
    const stat = fs.lstatSync(target, { throwIfNoEntry: false });
    if (!stat?.isFile()) throw new CorruptFileError(metaFile, `it locks ${file}, which is missing from the worktree (or is not a regular file)`);
    testFiles[file] = fs.readFileSync(target, 'utf8');
  }
  return { prd, meta, testFiles };
}
