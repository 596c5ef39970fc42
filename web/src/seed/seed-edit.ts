/**
 * Seed review's edit mode as data: a draft made from the seed, the `PUT /seed` body built from
 * the draft, and what the edit changes. Test files are paired with their tasks by the number in
 * the file name (`tests/test_t001_x.py` belongs to T-001), as the sink requires.
 */
import { testFileRule, type ChecksPreset, type SeedEdit, type SeedView } from '../../../shared/seed.ts';
import { detectedCustomCommand } from './presets.ts';

export interface DraftTask {
  id: string;
  title: string;
  description: string;
  criteria: string[];
  /** Per criterion (same order), the names of the test cases that check it. */
  tests: string[][];
  /** Its acceptance test file (a key of `SeedDraft.files`); null when the seed has none for it. */
  testPath: string | null;
  /** Added in this edit: its test file's path may still be changed. */
  added?: true;
  /** Test machinery paths (conftest.py, a runner config…) the task may change, one per line as typed. */
  testSetup?: string;
}

/** The paths typed one per line (commas too), blanks dropped. */
export function testSetupPaths(text: string | undefined): string[] {
  return [
    ...new Set(
      (text ?? '')
        .split(/[\n,]/)
        .map((p) => p.trim())
        .filter((p) => p !== ''),
    ),
  ];
}

export interface SeedDraft {
  tasks: DraftTask[];
  /** Test file path → content; paths are not renamed in the browser. */
  files: Record<string, string>;
  /**
   * How the tests run; `customTest`/`customLint` matter only for the custom preset. `setup`: a
   * command run in the worktree before the worker (blank: none).
   */
  checks: { preset: ChecksPreset; customTest: string; customLint: string; customCase: string; setup: string };
}

const ANY_TEST_NUMBER = /(?:^|\/)(?:test_)?t(\d{3,})_[^/]*$/;

function taskNumber(taskId: string): number | null {
  const match = /^T-(\d+)$/.exec(taskId);
  return match?.[1] === undefined ? null : Number(match[1]);
}

/** The test file of each task (by id), and the files that belong to no task. */
export function pairTestFiles(seed: Pick<SeedView, 'prd' | 'test_files' | 'meta'>): {
  byTask: Map<string, string>;
  unpaired: string[];
} {
  const preset = testFileRule(seed.meta.checks_preset, seed.meta.project_env ?? null).regex;
  const numberOf = (path: string): number | null => {
    const digits = preset.exec(path)?.[1] ?? ANY_TEST_NUMBER.exec(path)?.[1];
    return digits === undefined ? null : Number(digits);
  };
  const byTask = new Map<string, string>();
  const paths = Object.keys(seed.test_files).sort();
  const used = new Set<string>();
  for (const task of seed.prd) {
    const n = taskNumber(task.id);
    const path = paths.find((p) => !used.has(p) && n !== null && numberOf(p) === n);
    if (path === undefined) continue;
    byTask.set(task.id, path);
    used.add(path);
  }
  return { byTask, unpaired: paths.filter((p) => !used.has(p)) };
}

export function draftFromSeed(seed: Pick<SeedView, 'prd' | 'test_files' | 'meta'>): SeedDraft {
  const { byTask } = pairTestFiles(seed);
  return {
    tasks: seed.prd.map((t) => ({
      id: t.id,
      title: t.title,
      description: t.description,
      criteria: [...t.acceptance_criteria],
      tests: t.acceptance_criteria.map((_, i) => [...(t.criteria_tests?.[i] ?? [])]),
      testPath: byTask.get(t.id) ?? null,
      ...(t.may_change_test_setup?.length ? { testSetup: t.may_change_test_setup.join('\n') } : {}),
    })),
    files: { ...seed.test_files },
    checks: {
      preset: seed.meta.checks_preset,
      // A project whose runner Tilth does not drive gets that runner's command to start from.
      customTest: seed.meta.custom_checks?.test ?? (seed.meta.checks_preset === 'custom' ? detectedCustomCommand(seed.meta.project_env ?? null) : ''),
      customLint: seed.meta.custom_checks?.lint ?? '',
      customCase: seed.meta.custom_checks?.case ?? '',
      setup: seed.meta.setup_command ?? '',
    },
  };
}

/**
 * The id a new task gets: one above every id the session has used — the seed's tasks, the ones
 * removed in earlier edits and the ones added in this draft — so an id never names two tasks.
 * The server checks the same rule.
 */
export function nextTaskId(seed: Pick<SeedView, 'prd' | 'meta'>, draft: SeedDraft): string {
  const used = [...seed.prd.map((t) => t.id), ...(seed.meta.removed_task_ids ?? []), ...draft.tasks.map((t) => t.id)];
  const highest = Math.max(0, ...used.map((id) => taskNumber(id) ?? 0));
  return `T-${String(highest + 1).padStart(3, '0')}`;
}

/** Where a new task's test file goes by the preset's naming rule: `tests/t003_new_task.test.js`. */
export function newTestPath(taskId: string, draft: SeedDraft, env: SeedView['meta']['project_env']): string {
  const rule = testFileRule(draft.checks.preset, env ?? null);
  const digits = taskId.slice('T-'.length);
  return `${rule.prefix(digits)}new_task${rule.endings[0] || '.test'}`;
}

/**
 * Adds an empty task at the end, with one blank criterion and an empty test file at the path the
 * naming rule gives; the user fills them in, and the sink says what is still missing.
 */
export function addTask(seed: Pick<SeedView, 'prd' | 'meta'>, draft: SeedDraft): SeedDraft {
  const id = nextTaskId(seed, draft);
  const testPath = newTestPath(id, draft, seed.meta.project_env);
  return {
    ...draft,
    tasks: [...draft.tasks, { id, title: '', description: '', criteria: [''], tests: [[]], testPath, added: true }],
    files: { ...draft.files, [testPath]: '' },
  };
}

/** Removes a task and its test file; the id is not given again (the server records it as removed). */
export function removeTask(draft: SeedDraft, taskId: string): SeedDraft {
  const task = draft.tasks.find((t) => t.id === taskId);
  if (task === undefined) return draft;
  const files = { ...draft.files };
  if (task.testPath !== null) delete files[task.testPath];
  return { ...draft, tasks: draft.tasks.filter((t) => t.id !== taskId), files };
}

/** Moves a task one place up (-1) or down (+1); the tasks run in this order. */
export function moveTask(draft: SeedDraft, taskId: string, by: -1 | 1): SeedDraft {
  const from = draft.tasks.findIndex((t) => t.id === taskId);
  const to = from + by;
  if (from < 0 || to < 0 || to >= draft.tasks.length) return draft;
  const tasks = [...draft.tasks];
  [tasks[from], tasks[to]] = [tasks[to]!, tasks[from]!];
  return { ...draft, tasks };
}

/** Renames an added task's test file, keeping its content; a task the seed had keeps its file's name. */
export function renameTestFile(draft: SeedDraft, taskId: string, path: string): SeedDraft {
  const task = draft.tasks.find((t) => t.id === taskId);
  // Another task's file is never overwritten: the name is left as it was until it is free.
  if (task?.added !== true || task.testPath === null || task.testPath === path || path in draft.files) return draft;
  const { [task.testPath]: content = '', ...files } = draft.files;
  return {
    ...draft,
    tasks: draft.tasks.map((t) => (t.id === taskId ? { ...t, testPath: path } : t)),
    files: { ...files, [path]: content },
  };
}

/**
 * The PUT body. Text is trimmed and blank criteria are dropped (an empty line added and never
 * filled is not a criterion); anything else is left for the sink to judge, so its messages are
 * the ones the user reads.
 */
export function buildSeedEdit(draft: SeedDraft): SeedEdit {
  return {
    prd_entries: draft.tasks.map((t) => {
      // A criterion left blank goes, and its tests with it.
      const kept = t.criteria
        .map((c, i) => ({ criterion: c.trim(), tests: (t.tests[i] ?? []).map((n) => n.trim()).filter((n) => n !== '') }))
        .filter((r) => r.criterion !== '');
      const setup = testSetupPaths(t.testSetup);
      return {
        id: t.id,
        title: t.title.trim(),
        description: t.description.trim(),
        acceptance_criteria: kept.map((r) => r.criterion),
        criteria_tests: kept.map((r) => r.tests),
        // Absent is none: the sink keeps a task's list only when the edit sends one.
        ...(setup.length > 0 ? { may_change_test_setup: setup } : {}),
      };
    }),
    test_files: { ...draft.files },
    checks_preset: draft.checks.preset,
    ...(draft.checks.preset === 'custom'
      ? {
          custom_checks: {
            test: draft.checks.customTest.trim(),
            ...(draft.checks.customLint.trim() ? { lint: draft.checks.customLint.trim() } : {}),
            ...(draft.checks.customCase.trim() ? { case: draft.checks.customCase.trim() } : {}),
          },
        }
      : {}),
    setup_command: draft.checks.setup.trim() === '' ? null : draft.checks.setup.trim(),
  };
}

/** What the edit changes, in words ("T-001 title", "tests/t001_x.test.js"); empty when nothing. */
export function seedEditChanges(seed: Pick<SeedView, 'prd' | 'test_files' | 'meta'>, edit: SeedEdit): string[] {
  const changes: string[] = [];
  if (edit.checks_preset !== undefined && edit.checks_preset !== seed.meta.checks_preset) changes.push(`checks: ${edit.checks_preset}`);
  else if (edit.custom_checks !== undefined && JSON.stringify(edit.custom_checks) !== JSON.stringify(seed.meta.custom_checks ?? null))
    changes.push('custom checks');
  if (edit.setup_command !== undefined && (edit.setup_command ?? null) !== (seed.meta.setup_command ?? null)) changes.push('setup command');
  const before = new Map(seed.prd.map((t) => [t.id, t]));
  for (const task of edit.prd_entries) {
    const old = before.get(task.id);
    if (old === undefined) {
      changes.push(`${task.id} added`);
      continue;
    }
    if (old.title !== task.title) changes.push(`${task.id} title`);
    if (old.description !== task.description) changes.push(`${task.id} description`);
    const same =
      old.acceptance_criteria.length === task.acceptance_criteria.length && old.acceptance_criteria.every((c, i) => c === task.acceptance_criteria[i]);
    if (!same) changes.push(`${task.id} criteria`);
    else if (JSON.stringify(old.criteria_tests ?? null) !== JSON.stringify(task.criteria_tests ?? null)) changes.push(`${task.id} tests of its criteria`);
    if (JSON.stringify(old.may_change_test_setup ?? []) !== JSON.stringify(task.may_change_test_setup ?? []))
      changes.push(`${task.id} test setup it may change`);
  }
  const kept = new Set(edit.prd_entries.map((t) => t.id));
  for (const id of before.keys()) if (!kept.has(id)) changes.push(`${id} removed`);
  // The tasks run in their order. Removing a task or adding one at the end leaves the rest in
  // place; anything else — a task moved, a new one put before others — is a change of order.
  const unmoved = [...seed.prd.filter((t) => kept.has(t.id)).map((t) => t.id), ...edit.prd_entries.filter((t) => !before.has(t.id)).map((t) => t.id)];
  if (unmoved.join() !== edit.prd_entries.map((t) => t.id).join()) changes.push('order');
  for (const [path, content] of Object.entries(edit.test_files)) {
    if (seed.test_files[path] !== content) changes.push(path);
  }
  for (const path of Object.keys(seed.test_files)) if (!(path in edit.test_files)) changes.push(`${path} removed`);
  return changes;
}

/** `seed_invalid` lists one problem per line. */
/**
 * What the draft lacks, in the words of the form it is written in, before anything is sent: the
 * sink would refuse it too, but in the words of the seed file (`prd_entries[1] (T-003):
 * acceptance_criteria must be…`), which name no field the user sees.
 */
export function draftProblems(draft: SeedDraft): string[] {
  const problems: string[] = [];
  for (const t of draft.tasks) {
    if (t.title.trim() === '') problems.push(`${t.id} has no title: give it one.`);
    if (t.description.trim() === '') problems.push(`${t.id} has no description: say what the task does.`);
    if (t.criteria.every((c) => c.trim() === '')) {
      problems.push(`${t.id} has no acceptance criterion: write at least one thing that is true when the task is done.`);
    }
  }
  return problems;
}

export function problemLines(message: string): string[] {
  return message
    .split('\n')
    .map((line) => line.replace(/^\s*[-*]\s+/, '').trim())
    .filter((line) => line !== '');
}
