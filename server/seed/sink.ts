/**
 * The sink (SPEC §5; reference §6.3): the one way a seed reaches the disk. `validateSeedBundle`
 * checks the whole bundle and lists every problem at once, each phrased so the interviewer (or
 * the user in seed review) knows what to change. `writeSeed` writes an accepted seed all or
 * nothing. Committing is the caller's job.
 *
 * The sink writes only `prd.json` and `seed-meta.json` in the session folder and the test files
 * in the preset's test folder of the worktree (`tests/` unless the project's runner looks
 * elsewhere); every test path is checked again before it is joined to the worktree.
 */
import type { CustomChecks, PrdEntry } from '../../shared/files.ts';
import type { ProjectEnv } from '../../shared/project-env.ts';
import type { ChecksPreset, TestFileRule } from '../../shared/seed.ts';
import { canReadTestCases, casesTitled, collectTestCases, findTestCase } from '../../shared/test-cases.ts';
import { taskDigits, taskIdOfTestFile, testFilePattern } from '../env/presets.ts';
import { unsafePathReason, type ValidSeed } from '../store/seed-input.ts';

export interface SinkContext {
  preset: ChecksPreset;
  /** Accepted for symmetry with the rest of the preset context; naming does not depend on it. */
  customChecks?: CustomChecks;
  /** The project's environment: with the preset it decides the test folder and the name's ending. */
  env?: ProjectEnv | null;
  /** Task ids already in the session; new ids must be higher than all of them. */
  existingIds?: string[];
  /** Ids of the seed being edited in seed review: they keep their place, whatever `existingIds` holds. */
  keptIds?: string[];
}

export type SeedValidation = { ok: true; seed: ValidSeed } | { ok: false; problems: string[] };

const ENTRY_SHAPE = '{id, title, description, acceptance_criteria, criteria_tests}';

/** Checks the bundle `write_seed` (or a seed edit) carries; never stops at the first problem. */
export function validateSeedBundle(bundle: unknown, ctx: SinkContext): SeedValidation {
  if (!isRecord(bundle)) {
    return {
      ok: false,
      problems: [`the seed must be an object with prd_entries, test_files, tldr, open_questions, blockers and scope_notes; got ${describeValue(bundle)}`],
    };
  }
  const problems: string[] = [];
  // Stryker disable next-line ArrayDeclaration: an id that is no task id counts as 0, the same as no ids
  const { entries: prd, taskIds } = checkEntries(bundle.prd_entries, ctx.existingIds ?? [], new Set(ctx.keptIds), problems);
  const testFiles = checkTestFiles(bundle.test_files, taskIds, testFilePattern(ctx.preset, ctx.env ?? null), problems);
  checkCriteriaTests(bundle.prd_entries, prd, testFiles, (file) => taskIdOfTestFile(ctx.preset, file, ctx.env ?? null), problems);

  // Stryker disable next-line StringLiteral: read only when the bundle is accepted, and then it was set below
  let tldr = '';
  if (typeof bundle.tldr !== 'string' || bundle.tldr.trim() === '') {
    problems.push(
      `tldr is required: a short markdown summary of the seed, one line per task (e.g. "- **T-001:** <title> — <what it delivers>"); got ${describeValue(bundle.tldr)}`,
    );
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
function checkEntries(raw: unknown, existingIds: string[], keptIds: ReadonlySet<string>, problems: string[]): { entries: PrdEntry[]; taskIds: string[] } {
  if (!Array.isArray(raw)) {
    problems.push(`prd_entries must be a list of tasks, each ${ENTRY_SHAPE}; got ${describeValue(raw)}`);
    // Stryker disable next-line ObjectLiteral,ArrayDeclaration: a problem is already pushed, so entries go unused, and new Set(undefined) is empty
    return { entries: [], taskIds: [] };
  }
  if (raw.length === 0) {
    problems.push('prd_entries is empty; a seed must include at least one task');
    // Stryker disable next-line ObjectLiteral,ArrayDeclaration: as above
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
      if (n <= highestExisting && !keptIds.has(id)) {
        problems.push(
          `${where}: task id ${id} does not continue after the existing tasks (the highest is ${formatTaskId(highestExisting)}); number new tasks from ${nextId}`,
        );
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
    const setup = entry.may_change_test_setup;
    if (setup !== undefined && !Array.isArray(setup)) {
      problems.push(`${label}: may_change_test_setup must be a list of paths relative to the worktree; got ${describeValue(setup)}`);
    } else if (Array.isArray(setup)) {
      for (const p of setup as unknown[]) {
        const unsafe = typeof p === 'string' ? unsafePathReason(p) : 'it is not a string';
        if (unsafe) problems.push(`${label}: may_change_test_setup: ${describeValue(p)} is not a path in the worktree (${unsafe})`);
      }
    }
    // Stryker disable next-line ConditionalExpression: with a problem the seed is refused, so the entry would go unused
    if (problems.length > before) return;
    // Extra keys and any status the model supplied are dropped: a new task is always pending.
    entries.push({
      id: id as string,
      title: entry.title as string,
      description: entry.description as string,
      acceptance_criteria: [...(criteria as string[])],
      ...(Array.isArray(setup) && setup.length > 0 ? { may_change_test_setup: [...new Set(setup as string[])] } : {}),
      status: 'pending',
    });
  });
  return { entries, taskIds };
}

/**
 * The criterion ↔ test matrix: each whole entry's `criteria_tests` names, per criterion, at least
 * one test case its task's test file declares. The names are stored as the file declares them.
 * An entry whose test file is missing or misnamed was reported already and is skipped here.
 */
function checkCriteriaTests(
  raw: unknown,
  entries: PrdEntry[],
  testFiles: Record<string, string>,
  taskIdOfFile: (file: string) => string | null,
  problems: string[],
): void {
  const rawById = new Map<string, Record<string, unknown>>();
  if (Array.isArray(raw)) for (const r of raw) if (isRecord(r) && typeof r.id === 'string') rawById.set(r.id, r);
  for (const entry of entries) {
    const file = Object.keys(testFiles).find((f) => taskIdOfFile(f) === entry.id);
    if (file === undefined) continue;
    // A file in a language whose cases cannot be read (a custom preset's) is taken at its word.
    const readable = canReadTestCases(file);
    const cases = readable ? collectTestCases(file, testFiles[file]!) : [];
    const declared = cases.length > 0 ? `it declares: ${cases.map((c) => JSON.stringify(c)).join(', ')}` : 'it declares no test case that can be read';
    const label = `task ${entry.id}`;
    const given = rawById.get(entry.id)?.criteria_tests;
    const shape = `a list with one list of test-case names per acceptance criterion, in order (e.g. ${JSON.stringify(entry.acceptance_criteria.map((_, i) => [cases[i] ?? cases[0] ?? 'test name']))})`;
    if (!Array.isArray(given)) {
      problems.push(`${label}: criteria_tests is required: ${shape}, naming the test cases in ${file} that check each criterion; ${declared}`);
      continue;
    }
    if (given.length !== entry.acceptance_criteria.length) {
      problems.push(`${label}: criteria_tests has ${given.length} entries for ${entry.acceptance_criteria.length} acceptance criteria; give ${shape}`);
      continue;
    }
    const matrix: string[][] = [];
    entry.acceptance_criteria.forEach((criterion, j) => {
      const names = given[j];
      const where = `${label}, criterion ${j + 1} (${JSON.stringify(criterion.length > 80 ? `${criterion.slice(0, 80)}…` : criterion)})`;
      if (!Array.isArray(names) || names.length === 0 || !names.every((n) => typeof n === 'string' && n.trim() !== '')) {
        problems.push(`${where}: no test case checks it; name at least one test case in ${file} (or add one to the file); ${declared}`);
        return;
      }
      const found: string[] = [];
      for (const name of names as string[]) {
        const match = readable ? findTestCase(cases, name) : name.trim();
        const shared = match === null ? casesTitled(cases, name) : [];
        if (shared.length > 1) {
          problems.push(
            `${where}: '${name}' is the title of ${shared.length} test cases in ${file}: ${shared.map((c) => JSON.stringify(c)).join(', ')}; name one by its full name`,
          );
        } else if (match === null) problems.push(`${where}: '${name}' is not a test case in ${file}; ${declared}`);
        else if (!found.includes(match)) found.push(match);
      }
      matrix.push(found);
    });
    if (matrix.length === entry.acceptance_criteria.length && matrix.every((names) => names.length > 0)) entry.criteria_tests = matrix;
  }
}

/** Checks names, contents and the one-file-per-task pairing with the tasks' ids. */
function checkTestFiles(raw: unknown, knownIds: string[], pattern: TestFileRule, problems: string[]): Record<string, string> {
  if (!isRecord(raw)) {
    problems.push(`test_files must be an object mapping each test file's path to its content, e.g. {"${pattern.example}": "..."}; got ${describeValue(raw)}`);
    return {};
  }
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
    const file = normaliseTestPath(given, pattern.dir);
    if (!pattern.regex.test(file)) {
      problems.push(
        `test file '${given}' doesn't match ${pattern.describe} (e.g. ${pattern.example}; ${pattern.slugRule}) — the checks only run files named this way`,
      );
    }
    if (typeof content !== 'string' || content.trim() === '') {
      problems.push(`test file '${given}': the content must be the whole test file as a non-empty string; got ${describeValue(content)}`);
    }
    const earlier = files.get(file);
    if (earlier) {
      problems.push(`test file '${file}' is given twice ('${earlier.given}' and '${given}'); keep one`);
      continue;
    }
    // Stryker disable next-line ConditionalExpression,StringLiteral: a content that is no string was reported above, so this one goes unused
    files.set(file, { given, content: typeof content === 'string' ? content : '' });
  }

  // Pairing, by the digits in the file name (T-001 ↔ tests/t001_…).
  const byTask = new Map<string, string[]>();
  for (const file of files.keys()) {
    const digits = pattern.regex.exec(file)?.[1];
    if (digits === undefined) continue; // already reported as a bad name
    const taskId = `T-${digits}`;
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
    const prefix = pattern.prefix(taskDigits(taskId)!);
    if (taskFiles.length === 0) {
      problems.push(`task ${taskId} has no test file; add exactly one named ${prefix}<slug>${pattern.endings[0] || '.<ext>'}`);
    } else if (taskFiles.length > 1) {
      problems.push(
        `task ${taskId} has ${taskFiles.length} test files (${taskFiles.join(', ')}); each task gets exactly one — merge them into one ${prefix}… file`,
      );
    } else {
      const file = taskFiles[0]!;
      result[file] = files.get(file)!.content;
    }
  }
  return result;
}

/** Why a path may not be joined to the worktree, or null when it is fine. */

/**
 * Models often give a bare file name (`test_t001_x.py`) or a `./tests/…` path. Both mean the file
 * in the preset's test folder, so they are normalised rather than rejected; anything else in
 * another folder still has to match the pattern and is reported if it does not.
 */
function normaliseTestPath(file: string, dir: string): string {
  const trimmed = file.startsWith('./') ? file.slice(2) : file;
  return trimmed.includes('/') ? trimmed : `${dir}/${trimmed}`;
}

/** A list of strings; missing or null means []. A bare string is an error, never split into characters. */
function checkStringList(key: string, value: unknown, problems: string[]): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') {
    problems.push(`${key} must be a list of strings, e.g. ["…"], or [] for none; got a single string — wrap it in a list`);
    // Stryker disable next-line ArrayDeclaration: after a problem the list goes unused
    return [];
  }
  if (!Array.isArray(value)) {
    problems.push(`${key} must be a list of strings, or [] for none; got ${describeValue(value)}`);
    // Stryker disable next-line ArrayDeclaration: after a problem the list goes unused
    return [];
  }
  const bad = value.map((v: unknown, i) => [v, i] as const).filter(([v]) => typeof v !== 'string');
  for (const [v, i] of bad) problems.push(`${key}[${i}] must be a string; got ${describeValue(v)}`);
  // Stryker disable next-line ConditionalExpression,ArrayDeclaration: after a problem the list goes unused
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
  if (typeof value === 'string')
    return value.trim() === '' ? 'an empty string' : `the string ${JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)}`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

export { changedLockedTests, hashTestFiles, type ValidSeed } from '../store/seed-input.ts';
export {
  SeedWriteError,
  writeSeed,
  type SeedMetaInput,
  type WriteSeedContext,
} from './seed-files.ts';
