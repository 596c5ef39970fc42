/**
 * The sink (SPEC §5; reference §6.3): the one way a seed reaches the disk. `validateSeedBundle`
 * checks the whole bundle and lists every problem at once, each phrased so the interviewer (or
 * the user in seed review) knows what to change. `writeSeed` writes an accepted seed all or
 * nothing. Committing is the caller's job.
 *
 * The sink writes only `prd.json` and `seed-meta.json` in the session folder and the test files
 * under `<worktree>/tests/`; every test path is checked again before it is joined to the worktree.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PrdSchema, SeedMetaSchema, type CustomChecks, type PrdEntry, type SeedMeta } from '../../shared/files.ts';
import { TEST_DIR, type ChecksPreset } from '../../shared/seed.ts';
import { AppError, CorruptFileError, NotFoundError, describeZodError } from '../errors.ts';
import { writeAll } from '../store/atomic.ts';
import { readJsonFile } from '../store/json-file.ts';
import { FILES } from '../store/session-store.ts';
import { expectedTestPrefix, slugRule, taskDigits, taskIdOfTestFile, testFilePattern } from './presets.ts';

export interface SinkContext {
  preset: ChecksPreset;
  /** Accepted for symmetry with the rest of the preset context; naming does not depend on it. */
  customChecks?: CustomChecks;
  /** Task ids already in the session; new ids must be higher than all of them. */
  existingIds?: string[];
}

export interface ValidSeed {
  prd: PrdEntry[];
  /** Normalised path relative to the worktree (`tests/…`) → content, in task order. */
  testFiles: Record<string, string>;
  tldr: string;
  openQuestions: string[];
  blockers: string[];
  scopeNotes: string;
}

export type SeedValidation = { ok: true; seed: ValidSeed } | { ok: false; problems: string[] };

export class SeedWriteError extends AppError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('seed_write_failed', message, 500, options);
  }
}

const ENTRY_SHAPE = '{id, title, description, acceptance_criteria}';

/** Checks the bundle `write_seed` (or a seed edit) carries; never stops at the first problem. */
export function validateSeedBundle(bundle: unknown, ctx: SinkContext): SeedValidation {
  if (!isRecord(bundle)) {
    return {
      ok: false,
      problems: [`the seed must be an object with prd_entries, test_files, tldr, open_questions, blockers and scope_notes; got ${describeValue(bundle)}`],
    };
  }
  const problems: string[] = [];
  const { entries: prd, taskIds } = checkEntries(bundle.prd_entries, ctx.existingIds ?? [], problems);
  const testFiles = checkTestFiles(bundle.test_files, taskIds, ctx.preset, problems);

  let tldr = '';
  if (typeof bundle.tldr !== 'string' || bundle.tldr.trim() === '') {
    problems.push(`tldr is required: a short markdown summary of the seed, one line per task (e.g. "- **T-001:** <title> — <what it delivers>"); got ${describeValue(bundle.tldr)}`);
  } else {
    tldr = bundle.tldr;
  }
  const openQuestions = checkStringList('open_questions', bundle.open_questions, problems);
  const blockers = checkStringList('blockers', bundle.blockers, problems);
  let scopeNotes = '';
  if (bundle.scope_notes !== undefined && bundle.scope_notes !== null) {
    if (typeof bundle.scope_notes === 'string') scopeNotes = bundle.scope_notes;
    else problems.push(`scope_notes must be a string (what is out of scope, or "" for nothing); got ${describeValue(bundle.scope_notes)}`);
  }

  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, seed: { prd, testFiles, tldr, openQuestions, blockers, scopeNotes } };
}

/**
 * Returns the entries that are whole, normalised, and the ids of every entry whose id is well
 * formed whatever else is wrong with it (so its test file is not also called an orphan); pushes a
 * problem for everything else.
 */
function checkEntries(raw: unknown, existingIds: string[], problems: string[]): { entries: PrdEntry[]; taskIds: string[] } {
  if (!Array.isArray(raw)) {
    problems.push(`prd_entries must be a list of tasks, each ${ENTRY_SHAPE}; got ${describeValue(raw)}`);
    return { entries: [], taskIds: [] };
  }
  if (raw.length === 0) {
    problems.push('prd_entries is empty; a seed must include at least one task');
    return { entries: [], taskIds: [] };
  }
  const highestExisting = Math.max(0, ...existingIds.map((id) => Number(taskDigits(id) ?? 0)));
  const nextId = formatTaskId(highestExisting + 1);
  const seen = new Map<number, string>(); // task number → first id written for it
  const entries: PrdEntry[] = [];
  const taskIds: string[] = [];

  raw.forEach((entry: unknown, i) => {
    const where = `prd_entries[${i}]`;
    if (!isRecord(entry)) {
      problems.push(`${where} must be an object ${ENTRY_SHAPE}; got ${describeValue(entry)}`);
      return;
    }
    const before = problems.length;
    const id = entry.id;
    if (typeof id !== 'string' || id.trim() === '') {
      problems.push(`${where}: id is required, a string like ${nextId}; got ${describeValue(id)}`);
    } else if (taskDigits(id) === null) {
      problems.push(`${where}: task id '${id}' must match T-NNN (T-, then 3 or more digits); number the tasks from ${nextId}`);
    } else {
      const n = Number(taskDigits(id));
      const first = seen.get(n);
      if (first !== undefined) {
        problems.push(`${where}: duplicate task id ${id}${first === id ? '' : ` (the same number as ${first})`}; give each task its own id`);
      } else {
        seen.set(n, id);
        taskIds.push(id);
      }
      if (n <= highestExisting) {
        problems.push(`${where}: task id ${id} does not continue after the existing tasks (the highest is ${formatTaskId(highestExisting)}); number new tasks from ${nextId}`);
      }
    }
    for (const key of ['title', 'description'] as const) {
      const value = entry[key];
      if (typeof value !== 'string' || value.trim() === '') {
        problems.push(`${where}${typeof id === 'string' ? ` (${id})` : ''}: ${key} must be a non-empty string; got ${describeValue(value)}`);
      }
    }
    const criteria = entry.acceptance_criteria;
    const label = `${where}${typeof id === 'string' ? ` (${id})` : ''}`;
    if (!Array.isArray(criteria) || criteria.length === 0) {
      const hint = typeof criteria === 'string' ? ' — wrap a single criterion in a list' : '';
      problems.push(`${label}: acceptance_criteria must be a non-empty list of strings, one observable behaviour each; got ${describeValue(criteria)}${hint}`);
    } else {
      criteria.forEach((c: unknown, j) => {
        if (typeof c !== 'string' || c.trim() === '') {
          problems.push(`${label}: acceptance_criteria[${j}] must be a non-empty string; got ${describeValue(c)}`);
        }
      });
    }
    if (problems.length > before) return;
    // Extra keys and any status the model supplied are dropped: a new task is always pending.
    entries.push({
      id: id as string,
      title: entry.title as string,
      description: entry.description as string,
      acceptance_criteria: [...(criteria as string[])],
      status: 'pending',
    });
  });
  return { entries, taskIds };
}

/** Checks names, contents and the one-file-per-task pairing with the tasks' ids. */
function checkTestFiles(raw: unknown, knownIds: string[], preset: ChecksPreset, problems: string[]): Record<string, string> {
  if (!isRecord(raw)) {
    problems.push(`test_files must be an object mapping each test file's path to its content, e.g. {"${testFilePattern(preset).example}": "..."}; got ${describeValue(raw)}`);
    return {};
  }
  const pattern = testFilePattern(preset);
  if (Object.keys(raw).length === 0) {
    problems.push(`test_files is empty; every task needs exactly one test file named ${pattern.describe}`);
    return {};
  }
  const files = new Map<string, { given: string; content: string }>();
  for (const [given, content] of Object.entries(raw)) {
    const unsafe = unsafePathReason(given);
    if (unsafe) {
      problems.push(`test file '${given}': ${unsafe}; name it ${pattern.describe}, relative to the repository root`);
      continue;
    }
    const file = normaliseTestPath(given);
    if (!pattern.regex.test(file)) {
      problems.push(`test file '${given}' doesn't match ${pattern.describe} (e.g. ${pattern.example}; ${slugRule(preset)}) — the checks only run files named this way`);
    }
    if (typeof content !== 'string' || content.trim() === '') {
      problems.push(`test file '${given}': the content must be the whole test file as a non-empty string; got ${describeValue(content)}`);
    }
    const earlier = files.get(file);
    if (earlier) {
      problems.push(`test file '${file}' is given twice ('${earlier.given}' and '${given}'); keep one`);
      continue;
    }
    files.set(file, { given, content: typeof content === 'string' ? content : '' });
  }

  // Pairing, by the digits in the file name (T-001 ↔ tests/t001_…).
  const byTask = new Map<string, string[]>();
  for (const file of files.keys()) {
    const taskId = taskIdOfTestFile(preset, file);
    if (taskId === null) continue; // already reported as a bad name
    byTask.set(taskId, [...(byTask.get(taskId) ?? []), file]);
  }
  const taskIds = new Set(knownIds);
  for (const [taskId, taskFiles] of byTask) {
    if (!taskIds.has(taskId)) {
      for (const file of taskFiles) {
        problems.push(`test file '${file}' doesn't correspond to any task in prd_entries (it names ${taskId}); rename it after its task or remove it`);
      }
    }
  }
  const result: Record<string, string> = {};
  for (const taskId of taskIds) {
    const taskFiles = byTask.get(taskId) ?? [];
    const prefix = expectedTestPrefix(preset, taskId);
    if (taskFiles.length === 0) {
      problems.push(`task ${taskId} has no test file; add exactly one named ${prefix}<slug>${preset === 'pytest' ? '.py' : preset === 'node' ? '.test.js' : '.<ext>'}`);
    } else if (taskFiles.length > 1) {
      problems.push(`task ${taskId} has ${taskFiles.length} test files (${taskFiles.join(', ')}); each task gets exactly one — merge them into one ${prefix}… file`);
    } else {
      const file = taskFiles[0]!;
      result[file] = files.get(file)!.content;
    }
  }
  return result;
}

/** Why a path may not be joined to the worktree, or null when it is fine. */
function unsafePathReason(file: string): string | null {
  if (file.trim() === '') return 'the path is empty';
  if (file.includes('\\')) return 'backslashes are not allowed in the path (use /)';
  if (path.posix.isAbsolute(file) || /^[A-Za-z]:/.test(file)) return 'absolute paths are not allowed';
  if (file.includes('..')) return "'..' is not allowed in the path";
  if (file.includes('\0')) return 'the path contains a NUL character';
  return null;
}

/**
 * Models often give a bare file name (`test_t001_x.py`) or a `./tests/…` path. Both mean the file
 * under `tests/`, so they are normalised rather than rejected; anything else in another folder
 * still has to match the pattern and is reported if it does not.
 */
function normaliseTestPath(file: string): string {
  const trimmed = file.startsWith('./') ? file.slice(2) : file;
  return trimmed.includes('/') ? trimmed : `${TEST_DIR}/${trimmed}`;
}

/** A list of strings; missing or null means []. A bare string is an error, never split into characters. */
function checkStringList(key: string, value: unknown, problems: string[]): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') {
    problems.push(`${key} must be a list of strings, e.g. ["…"], or [] for none; got a single string — wrap it in a list`);
    return [];
  }
  if (!Array.isArray(value)) {
    problems.push(`${key} must be a list of strings, or [] for none; got ${describeValue(value)}`);
    return [];
  }
  const bad = value.map((v: unknown, i) => [v, i] as const).filter(([v]) => typeof v !== 'string');
  for (const [v, i] of bad) problems.push(`${key}[${i}] must be a string; got ${describeValue(v)}`);
  return bad.length > 0 ? [] : [...(value as string[])];
}

function formatTaskId(n: number): string {
  return `T-${String(n).padStart(3, '0')}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.length === 0 ? 'an empty list' : `a list of ${value.length}`;
  if (typeof value === 'string') return value.trim() === '' ? 'an empty string' : `the string ${JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)}`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
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

  const writes: { target: string; content: string }[] = [];
  for (const [file, content] of Object.entries(seed.testFiles)) writes.push({ target: resolveTestPath(ctx.worktree, file), content });
  writes.push({ target: path.join(ctx.sessionDir, FILES.seedMeta), content: `${JSON.stringify(meta, null, 2)}\n` });
  writes.push({ target: path.join(ctx.sessionDir, FILES.prd), content: `${JSON.stringify(prd, null, 2)}\n` });

  const testsDir = path.join(ctx.worktree, TEST_DIR);
  let createdTestsDir = false;
  const staged: Staged[] = [];
  try {
    if (Object.keys(seed.testFiles).length > 0) {
      ensureRealDir(ctx.worktree, 'the worktree');
      if (!fs.existsSync(testsDir)) {
        fs.mkdirSync(testsDir);
        createdTestsDir = true;
      }
      ensureRealDir(testsDir, `${TEST_DIR}/ in the worktree`);
    }
    for (const { target, content } of writes) staged.push({ target, tmp: stageFile(target, content) });
  } catch (err) {
    for (const { tmp } of staged) fs.rmSync(tmp, { force: true });
    if (createdTestsDir) fs.rmSync(testsDir, { recursive: true, force: true });
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
    if (createdTestsDir) fs.rmSync(testsDir, { recursive: true, force: true });
    throw new SeedWriteError(`Nothing was written: replacing ${staged[done]?.target ?? 'a seed file'} failed: ${(err as Error).message}`, { cause: err });
  }
  for (const dir of new Set(staged.map(({ target }) => path.dirname(target)))) fsyncDir(dir);
  return meta;
}

/** A test path joined to the worktree, refusing anything that could land outside `tests/`. */
function resolveTestPath(worktree: string, file: string): string {
  const unsafe = unsafePathReason(file);
  if (unsafe) throw new SeedWriteError(`Refusing test file '${file}': ${unsafe}`);
  const root = path.resolve(worktree);
  const target = path.resolve(root, file);
  if (path.dirname(target) !== path.join(root, TEST_DIR)) {
    throw new SeedWriteError(`Refusing test file '${file}': test files live directly under ${TEST_DIR}/`);
  }
  return target;
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

function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Some filesystems refuse fsync on a directory; the renames are still atomic there.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

function sha256(content: string | Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

// ── reading and lock checks ──────────────────────────────────────────────────────────────────

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
  if (prd === null || meta === null) throw new NotFoundError('no_seed', `No seed in ${sessionDir} yet: ${prd === null ? FILES.prd : FILES.seedMeta} is missing.`);
  const testFiles: Record<string, string> = {};
  for (const file of Object.keys(meta.locked_tests)) {
    const target = resolveTestPath(worktree, file);
    const stat = fs.lstatSync(target, { throwIfNoEntry: false });
    if (!stat?.isFile()) throw new CorruptFileError(metaFile, `it locks ${file}, which is missing from the worktree (or is not a regular file)`);
    testFiles[file] = fs.readFileSync(target, 'utf8');
  }
  return { prd, meta, testFiles };
}
