import { describe, expect, it } from 'vitest';
import type { SeedView } from '../../../shared/seed.ts';
import { projectEnv } from '../../../server/testing/project-env.ts';
import {
  addTask,
  buildSeedEdit,
  draftFromSeed,
  draftProblems,
  moveTask,
  nextTaskId,
  pairTestFiles,
  problemLines,
  removeTask,
  renameTestFile,
  seedEditChanges,
} from './seed-edit.ts';

const BUN_ENV = projectEnv({ undriven_runner: { runner: 'bun', evidence: 'scripts.test: bun test' }, test_dirs: ['test'] });

function seed(over: Partial<SeedView> = {}): SeedView {
  return {
    prd: [
      {
        id: 'T-001',
        title: 'Add due dates',
        description: 'setDue in src/todo.js',
        acceptance_criteria: ['stores a date', 'refuses junk'],
        criteria_tests: [['stores'], ['refuses', 'refuses again']],
        status: 'pending',
      },
      {
        id: 'T-002',
        title: 'List overdue',
        description: 'overdue()',
        acceptance_criteria: ['lists overdue todos'],
        criteria_tests: [['lists']],
        status: 'pending',
      },
    ],
    meta: {
      interviewer_model: 'm',
      started_at: '2026-05-25T10:00:00.000Z',
      ended_at: '2026-05-25T10:05:00.000Z',
      tokens: { prompt: 1, completion: 1, total: 2 },
      cost_usd: 0,
      tldr: '',
      open_questions: [],
      blockers: [],
      scope_notes: '',
      checks_preset: 'node',
      locked_tests: {},
    },
    test_files: {
      'tests/t002_overdue.test.js': 'test 2',
      'tests/t001_due_dates.test.js': 'test 1',
    },
    contract: [],
    criteria: {},
    ...over,
  };
}

describe('pairTestFiles', () => {
  it('pairs each task with the test file carrying its number', () => {
    const { byTask, unpaired } = pairTestFiles(seed());
    expect(byTask.get('T-001')).toBe('tests/t001_due_dates.test.js');
    expect(byTask.get('T-002')).toBe('tests/t002_overdue.test.js');
    expect(unpaired).toEqual([]);
  });

  it('reports files that belong to no task', () => {
    const { byTask, unpaired } = pairTestFiles(seed({ test_files: { 'tests/t001_a.test.js': '', 'tests/helper.js': '' } }));
    expect(byTask.has('T-002')).toBe(false);
    expect(unpaired).toEqual(['tests/helper.js']);
  });
});

describe('draftProblems', () => {
  it('names a task with no title, no description or only blank criteria, in the words of the form', () => {
    const draft = draftFromSeed(seed());
    expect(draftProblems(draft)).toEqual([]);
    draft.tasks[0] = { ...draft.tasks[0]!, title: ' ', description: '\n', criteria: ['', '  '] };
    expect(draftProblems(draft)).toEqual([
      'T-001 has no title: give it one.',
      'T-001 has no description: say what the task does.',
      'T-001 has no acceptance criterion: write at least one thing that is true when the task is done.',
    ]);
    // One criterion written is enough; a blank one beside it is dropped at Save.
    draft.tasks[0] = { ...draft.tasks[0]!, title: 'x', description: 'y', criteria: ['', 'it works'] };
    expect(draftProblems(draft)).toEqual([]);
  });
});

describe('building the PUT body', () => {
  it('sends back an unchanged draft as the same seed, with no changes', () => {
    const s = seed();
    const edit = buildSeedEdit(draftFromSeed(s));
    expect(edit.prd_entries).toEqual(s.prd.map(({ status: _status, ...t }) => t));
    expect(edit.test_files).toEqual(s.test_files);
    expect(seedEditChanges(s, edit)).toEqual([]);
  });

  it('does not share arrays with the seed, so editing a draft leaves the cache alone', () => {
    const s = seed();
    const draft = draftFromSeed(s);
    draft.tasks[0]?.criteria.push('new');
    draft.files['tests/t001_due_dates.test.js'] = 'changed';
    expect(s.prd[0]?.acceptance_criteria).toHaveLength(2);
    expect(s.test_files['tests/t001_due_dates.test.js']).toBe('test 1');
  });

  it('trims text and drops criteria left blank', () => {
    const draft = draftFromSeed(seed());
    draft.tasks[0] = {
      id: 'T-001',
      title: '  Add due dates ',
      description: 'setDue in src/todo.js\n',
      criteria: ['stores a date', '  ', 'refuses junk '],
      tests: [['stores '], ['dropped with its criterion'], ['refuses', '', 'refuses again']],
      testPath: 'tests/t001_due_dates.test.js',
    };
    expect(buildSeedEdit(draft).prd_entries[0]).toEqual({
      id: 'T-001',
      title: 'Add due dates',
      description: 'setDue in src/todo.js',
      acceptance_criteria: ['stores a date', 'refuses junk'],
      criteria_tests: [['stores'], ['refuses', 'refuses again']],
    });
    expect(seedEditChanges(seed(), buildSeedEdit(draft))).toEqual([]);
  });

  it('names every change: titles, descriptions, criteria and test files', () => {
    const s = seed();
    const draft = draftFromSeed(s);
    draft.tasks[0] = { ...draft.tasks[0]!, title: 'Add due dates to todos', criteria: ['stores an ISO date', 'refuses junk'] };
    draft.tasks[1] = { ...draft.tasks[1]!, description: 'overdue(todos, now)' };
    draft.files['tests/t002_overdue.test.js'] = 'test 2, stricter';
    expect(seedEditChanges(s, buildSeedEdit(draft))).toEqual(['T-001 title', 'T-001 criteria', 'T-002 description', 'tests/t002_overdue.test.js']);
  });

  it('names a change to the tests that check a criterion', () => {
    const s = seed();
    const draft = draftFromSeed(s);
    draft.tasks[1]!.tests[0] = ['lists', 'lists in order'];
    expect(seedEditChanges(s, buildSeedEdit(draft))).toEqual(['T-002 tests of its criteria']);
  });

  it('keeps a test title with commas whole, and sends a criterion whose tests were cleared with none, for the sink to refuse', () => {
    const draft = draftFromSeed(seed());
    draft.tasks[0]!.tests = [
      ['stores a date, in ISO form', ''],
      ['', '  '],
    ];
    expect(buildSeedEdit(draft).prd_entries[0]?.criteria_tests).toEqual([['stores a date, in ISO form'], []]);
  });

  it('sends an emptied field as empty, for the sink to refuse with its own words', () => {
    const draft = draftFromSeed(seed());
    draft.tasks[1] = { ...draft.tasks[1]!, title: '   ', criteria: [''] };
    expect(buildSeedEdit(draft).prd_entries[1]).toMatchObject({ title: '', acceptance_criteria: [] });
  });
});

describe('problemLines', () => {
  it('splits seed_invalid into one problem per line', () => {
    expect(problemLines('T-001: title is empty\n- tests/x.py does not match\n\n')).toEqual(['T-001: title is empty', 'tests/x.py does not match']);
  });
});

describe('seed edits', () => {
  it('carries a change of checks preset and custom commands into the PUT body and the change list', () => {
    const draft = draftFromSeed(seed());
    expect(buildSeedEdit(draft).checks_preset).toBe('node');
    expect(buildSeedEdit(draft).custom_checks).toBeUndefined();
    draft.checks = { preset: 'custom', customTest: '  npx vitest run {files} ', customLint: '', customCase: '', setup: '' };
    const edit = buildSeedEdit(draft);
    expect(edit).toMatchObject({ checks_preset: 'custom', custom_checks: { test: 'npx vitest run {files}' }, setup_command: null });
    expect(seedEditChanges(seed(), edit)).toEqual(['checks: custom']);
  });

  it("starts a custom seed without commands from the undriven runner's command, and carries a one-case command into the PUT body", () => {
    const bun = { ...seed(), meta: { ...seed().meta, checks_preset: 'custom' as const, project_env: BUN_ENV } };
    const draft = draftFromSeed(bun);
    expect(draft.checks.customTest).toBe('bun test {files} --reporter=junit --reporter-outfile={junit}');
    expect(seedEditChanges(bun, buildSeedEdit(draft))).toEqual(['custom checks']);
    draft.checks.customCase = ' bun test {file} -t {case_pattern} --reporter=junit --reporter-outfile={junit} ';
    expect(buildSeedEdit(draft).custom_checks).toEqual({
      test: 'bun test {files} --reporter=junit --reporter-outfile={junit}',
      case: 'bun test {file} -t {case_pattern} --reporter=junit --reporter-outfile={junit}',
    });
    // The user's own saved command wins; a project without an undriven runner starts empty.
    const saved = { ...bun, meta: { ...bun.meta, custom_checks: { test: 'make test FILES="{files}"' } } };
    expect(draftFromSeed(saved).checks).toMatchObject({ customTest: 'make test FILES="{files}"', customCase: '' });
    expect(draftFromSeed({ ...seed(), meta: { ...seed().meta, checks_preset: 'custom' } }).checks.customTest).toBe('');
  });

  it('carries a setup command, trimmed, and a cleared one as null; each is a change only when it differs', () => {
    const draft = draftFromSeed(seed());
    expect(draft.checks.setup).toBe('');
    draft.checks.setup = '  npm ci --offline ';
    const edit = buildSeedEdit(draft);
    expect(edit.setup_command).toBe('npm ci --offline');
    expect(seedEditChanges(seed(), edit)).toEqual(['setup command']);
    const withSetup = { ...seed(), meta: { ...seed().meta, setup_command: 'npm ci --offline' } };
    expect(draftFromSeed(withSetup).checks.setup).toBe('npm ci --offline');
    expect(seedEditChanges(withSetup, edit)).toEqual([]);
    draft.checks.setup = '   ';
    expect(buildSeedEdit(draft).setup_command).toBeNull();
    expect(seedEditChanges(withSetup, buildSeedEdit(draft))).toEqual(['setup command']);
  });
});

describe('adding, removing and moving tasks', () => {
  it('gives a new task the id after every id used, removed ones included, and a test file named by the preset', () => {
    const s = seed();
    let draft = addTask(s, draftFromSeed(s));
    expect(draft.tasks.map((t) => t.id)).toEqual(['T-001', 'T-002', 'T-003']);
    expect(draft.tasks[2]).toMatchObject({ title: '', criteria: [''], tests: [[]], testPath: 'tests/t003_new_task.test.js', added: true });
    expect(draft.files['tests/t003_new_task.test.js']).toBe('');
    draft = addTask(s, draft);
    expect(draft.tasks.at(-1)?.id).toBe('T-004');

    const afterRemoval = { ...s, prd: s.prd.slice(0, 1), meta: { ...s.meta, removed_task_ids: ['T-002', 'T-007'] } };
    expect(nextTaskId(afterRemoval, draftFromSeed(afterRemoval))).toBe('T-008');
    const pytest = { ...s, meta: { ...s.meta, checks_preset: 'pytest' as const } };
    expect(addTask(pytest, draftFromSeed(pytest)).tasks.at(-1)?.testPath).toBe('tests/test_t003_new_task.py');
  });

  it('sends a new task with its file and matrix, and names it as added', () => {
    const s = seed();
    let draft = addTask(s, draftFromSeed(s));
    draft = renameTestFile(draft, 'T-003', 'tests/t003_export.test.js');
    draft.tasks[2] = { ...draft.tasks[2]!, title: 'Export', description: 'toCsv()', criteria: ['writes csv'], tests: [['writes']] };
    draft.files['tests/t003_export.test.js'] = 'test 3';
    const edit = buildSeedEdit(draft);
    expect(edit.prd_entries[2]).toEqual({
      id: 'T-003',
      title: 'Export',
      description: 'toCsv()',
      acceptance_criteria: ['writes csv'],
      criteria_tests: [['writes']],
    });
    expect(edit.test_files).toEqual({ ...s.test_files, 'tests/t003_export.test.js': 'test 3' });
    expect(seedEditChanges(s, edit)).toEqual(['T-003 added', 'tests/t003_export.test.js']);
  });

  it('never renames a new test file over another file', () => {
    const s = seed();
    const draft = addTask(s, draftFromSeed(s));
    expect(renameTestFile(draft, 'T-003', 'tests/t001_due_dates.test.js')).toBe(draft);
    expect(renameTestFile(draft, 'T-001', 'tests/t001_other.test.js').files).toEqual(draft.files);
  });

  it('removes a task with its test file', () => {
    const s = seed();
    const edit = buildSeedEdit(removeTask(draftFromSeed(s), 'T-001'));
    expect(edit.prd_entries.map((t) => t.id)).toEqual(['T-002']);
    expect(Object.keys(edit.test_files)).toEqual(['tests/t002_overdue.test.js']);
    expect(seedEditChanges(s, edit)).toEqual(['T-001 removed', 'tests/t001_due_dates.test.js removed']);
  });

  it('moves a task up or down, not past either end, and names the new order', () => {
    const s = seed();
    const draft = draftFromSeed(s);
    expect(moveTask(draft, 'T-001', -1)).toBe(draft);
    expect(moveTask(draft, 'T-002', 1)).toBe(draft);
    const moved = moveTask(draft, 'T-002', -1);
    expect(moved.tasks.map((t) => t.id)).toEqual(['T-002', 'T-001']);
    expect(moveTask(moved, 'T-002', 1).tasks.map((t) => t.id)).toEqual(['T-001', 'T-002']);
    expect(seedEditChanges(s, buildSeedEdit(moved))).toEqual(['order']);
    // A removal, or a task added at the end, is no change of order; a new task moved up is.
    expect(seedEditChanges(s, buildSeedEdit(removeTask(draft, 'T-001')))).not.toContain('order');
    const added = addTask(s, draft);
    expect(seedEditChanges(s, buildSeedEdit(added))).not.toContain('order');
    expect(seedEditChanges(s, buildSeedEdit(moveTask(added, 'T-003', -1)))).toContain('order');
  });
});

describe('the test setup a task may change', () => {
  it('is typed one path per line, sent as a list, and counted as a change of that task', () => {
    const s = seed();
    const draft = draftFromSeed(s);
    expect(buildSeedEdit(draft).prd_entries[0]!.may_change_test_setup).toBeUndefined();
    const edited = { ...draft, tasks: draft.tasks.map((t, i) => (i === 0 ? { ...t, testSetup: ' conftest.py\n\n.mocharc.json, conftest.py ' } : t)) };
    const edit = buildSeedEdit(edited);
    expect(edit.prd_entries[0]!.may_change_test_setup).toEqual(['conftest.py', '.mocharc.json']);
    expect(seedEditChanges(s, edit)).toEqual(['T-001 test setup it may change']);
    // A seed that has it comes back into the draft as it was.
    const withSetup = seed({ prd: s.prd.map((t, i) => (i === 0 ? { ...t, may_change_test_setup: ['conftest.py'] } : t)) });
    expect(seedEditChanges(withSetup, buildSeedEdit(draftFromSeed(withSetup)))).toEqual([]);
  });
});
