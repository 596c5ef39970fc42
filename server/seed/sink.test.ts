import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SeedMetaSchema } from '../../shared/files.ts';
import type { ChecksPreset } from '../../shared/seed.ts';
import type { SessionHandle } from '../store/session-handle.ts';
import { SessionStore } from '../store/session-store.ts';
import { changedLockedTests, hashTestFiles, SeedWriteError, validateSeedBundle, writeSeed, type SeedMetaInput, type ValidSeed } from './sink.ts';

const PY_TEST = 'from todo import set_due\n\ndef test_due():\n    assert set_due([], 0, "2026-01-01")[0].due\n';
const JS_TEST = "import { test } from 'node:test';\ntest('test_due', () => {});\n";
const RS_TEST = '#[test]\nfn test_due() {\n    assert!(true);\n}\n';

function bundle(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    prd_entries: [
      {
        id: 'T-001',
        title: 'Due dates',
        description: 'Todos carry a due date.',
        acceptance_criteria: ['set_due stores the date'],
        criteria_tests: [['test_due']],
      },
      {
        id: 'T-002',
        title: 'Overdue',
        description: 'List overdue todos.',
        acceptance_criteria: ['overdue lists past-due open todos'],
        criteria_tests: [['test_due']],
      },
    ],
    test_files: { 'tests/test_t001_due_dates.py': PY_TEST, 'tests/test_t002_overdue.py': PY_TEST },
    tldr: '- **T-001:** Due dates\n- **T-002:** Overdue',
    open_questions: ['Time zones?'],
    blockers: [],
    scope_notes: 'No reminders.',
    ...overrides,
  };
}

function entry(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'T-001',
    title: 'Due dates',
    description: 'Todos carry a due date.',
    acceptance_criteria: ['set_due stores the date'],
    criteria_tests: [['test_due']],
    ...overrides,
  };
}

/** The problems of a bundle that must be rejected. */
function problems(input: unknown, ctx: { preset?: ChecksPreset; existingIds?: string[] } = {}): string[] {
  const result = validateSeedBundle(input, { preset: ctx.preset ?? 'pytest', ...(ctx.existingIds ? { existingIds: ctx.existingIds } : {}) });
  if (result.ok) throw new Error('expected the bundle to be rejected, but it was accepted');
  return result.problems;
}

function accepted(input: unknown, preset: ChecksPreset = 'pytest'): ValidSeed {
  const result = validateSeedBundle(input, { preset });
  if (!result.ok) throw new Error(`expected the bundle to be accepted:\n${result.problems.join('\n')}`);
  return result.seed;
}

describe('validateSeedBundle', () => {
  it('accepts a good bundle, forcing every status to pending and dropping extra keys', () => {
    const seed = accepted(
      bundle({
        prd_entries: [
          { ...entry(), status: 'done', priority: 'high' },
          { ...entry({ id: 'T-002', title: 'Overdue' }), status: 'failed' },
        ],
      }),
    );
    expect(seed.prd).toEqual([
      { ...entry(), status: 'pending' },
      { ...entry({ id: 'T-002', title: 'Overdue' }), status: 'pending' },
    ]);
    expect(seed.testFiles).toEqual({ 'tests/test_t001_due_dates.py': PY_TEST, 'tests/test_t002_overdue.py': PY_TEST });
    expect(seed).toMatchObject({ tldr: expect.stringContaining('T-001'), openQuestions: ['Time zones?'], blockers: [], scopeNotes: 'No reminders.' });
  });

  it('keeps the test machinery a task may change, once each, and refuses a path that is not a safe relative one', () => {
    const b = bundle();
    const [first, second] = b.prd_entries as Record<string, unknown>[];
    const seed = accepted({ ...b, prd_entries: [{ ...first, may_change_test_setup: ['conftest.py', 'conftest.py', 'pytest.ini'] }, second] });
    expect(seed.prd[0]!.may_change_test_setup).toEqual(['conftest.py', 'pytest.ini']);
    expect(seed.prd[1]!.may_change_test_setup).toBeUndefined();
    expect(problems({ ...b, prd_entries: [{ ...first, may_change_test_setup: ['../outside.py'] }, second] })).toEqual([
      `prd_entries[0] (T-001): may_change_test_setup: the string "../outside.py" is not a path in the worktree ('..' is not allowed in the path)`,
    ]);
  });

  it('treats missing open_questions and blockers as [] and missing scope_notes as an empty string', () => {
    const { open_questions: _q, blockers: _b, scope_notes: _s, ...rest } = bundle();
    const seed = accepted(rest);
    expect(seed).toMatchObject({ openQuestions: [], blockers: [], scopeNotes: '' });
  });

  it('normalises a bare test file name to tests/<name>', () => {
    const seed = accepted(bundle({ test_files: { 'test_t001_due_dates.py': PY_TEST, './tests/test_t002_overdue.py': PY_TEST } }));
    expect(Object.keys(seed.testFiles)).toEqual(['tests/test_t001_due_dates.py', 'tests/test_t002_overdue.py']);
  });

  it('uses the node naming pattern for the node preset', () => {
    const seed = accepted(bundle({ test_files: { 'tests/t001_due-dates.test.js': JS_TEST, 'tests/t002_overdue.test.mjs': JS_TEST } }), 'node');
    expect(Object.keys(seed.testFiles)).toEqual(['tests/t001_due-dates.test.js', 'tests/t002_overdue.test.mjs']);
    expect(problems(bundle(), { preset: 'node' }).join('\n')).toMatch(/tests\/test_t001_due_dates\.py' doesn't match tests\/t<NNN>_<slug>\.test\.js/);
  });

  it('uses the custom naming pattern for the custom preset', () => {
    const seed = accepted(bundle({ test_files: { 'tests/t001_due.spec.ts': JS_TEST, 'tests/t002_overdue.rs': RS_TEST } }), 'custom');
    expect(Object.keys(seed.testFiles)).toHaveLength(2);
  });

  it('reports every problem at once, not just the first', () => {
    const found = problems({
      prd_entries: [entry({ id: 'T-1', title: '' }), entry({ id: 'T-002', acceptance_criteria: [] }), entry({ id: 'T-002' })],
      test_files: { 'tests/wrong.py': 42, 'tests/test_t009_orphan.py': PY_TEST },
      tldr: '',
      open_questions: 'one question',
      blockers: [1],
      scope_notes: 7,
    });
    const expected = [
      /'T-1' must match T-NNN/,
      /title must be a non-empty string/,
      /acceptance_criteria must be a non-empty list/,
      /duplicate task id T-002/,
      /'tests\/wrong\.py' doesn't match/,
      /content must be the whole test file/,
      /test_t009_orphan\.py' doesn't correspond to any task/,
      /task T-002 has no test file/,
      /tldr is required/,
      /open_questions must be a list of strings/,
      /blockers\[0\] must be a string/,
      /scope_notes must be a string/,
    ];
    for (const re of expected)
      expect(
        found.some((p) => re.test(p)),
        `${re} in:\n${found.join('\n')}`,
      ).toBe(true);
    expect(found.length).toBeGreaterThanOrEqual(expected.length);
  });

  describe('the criterion ↔ test matrix', () => {
    const PY_TWO = 'def test_stores():\n    pass\n\nclass TestDates:\n    def test_refuses(self):\n        pass\n';
    const two = (criteria_tests: unknown) =>
      bundle({
        prd_entries: [entry({ acceptance_criteria: ['stores the date', 'refuses a bad date'], criteria_tests }), entry({ id: 'T-002' })],
        test_files: { 'tests/test_t001_due_dates.py': PY_TWO, 'tests/test_t002_overdue.py': PY_TEST },
      });

    it('keeps the matrix with the names as the file declares them, a bare method name included', () => {
      const seed = accepted(two([['test_stores'], ['test_refuses', 'test_stores']]));
      expect(seed.prd[0]!.criteria_tests).toEqual([['test_stores'], ['TestDates::test_refuses', 'test_stores']]);
    });

    it('refuses a task without criteria_tests, showing the shape and the cases its file declares', () => {
      expect(problems(two(undefined))).toEqual([
        'task T-001: criteria_tests is required: a list with one list of test-case names per acceptance criterion, in order (e.g. [["test_stores"],["TestDates::test_refuses"]]), naming the test cases in tests/test_t001_due_dates.py that check each criterion; it declares: "test_stores", "TestDates::test_refuses"',
      ]);
    });

    it('refuses a list of the wrong length', () => {
      expect(problems(two([['test_stores']]))[0]).toMatch(/^task T-001: criteria_tests has 1 entries for 2 acceptance criteria/);
    });

    it('refuses a criterion that no test case checks', () => {
      expect(problems(two([['test_stores'], []]))).toEqual([
        'task T-001, criterion 2 ("refuses a bad date"): no test case checks it; name at least one test case in tests/test_t001_due_dates.py (or add one to the file); it declares: "test_stores", "TestDates::test_refuses"',
      ]);
    });

    it('refuses a JavaScript title two cases share, listing both full names', () => {
      const js =
        "import { describe, it } from 'vitest';\ndescribe('a', () => { it('refuses', () => {}); });\ndescribe('b', () => { it('refuses', () => {}); });\n";
      const got = problems(
        bundle({
          prd_entries: [entry({ acceptance_criteria: ['refuses'], criteria_tests: [['refuses']] }), entry({ id: 'T-002' })],
          test_files: { 'tests/t001_due.test.ts': js, 'tests/t002_overdue.test.ts': JS_TEST },
        }),
        { preset: 'vitest' },
      );
      expect(got).toEqual([
        'task T-001, criterion 1 ("refuses"): \'refuses\' is the title of 2 test cases in tests/t001_due.test.ts: "a › refuses", "b › refuses"; name one by its full name',
      ]);
    });

    it('refuses a name the test file does not declare', () => {
      expect(problems(two([['test_stores'], ['test_refuses_bad_dates']]))).toEqual([
        'task T-001, criterion 2 ("refuses a bad date"): \'test_refuses_bad_dates\' is not a test case in tests/test_t001_due_dates.py; it declares: "test_stores", "TestDates::test_refuses"',
      ]);
    });

    it('reads it/test titles for the JavaScript runners', () => {
      const js = "import { it } from 'vitest';\nit('stores the date', () => {});\nit(\"refuses a bad date\", () => {});\n";
      const seed = accepted(
        bundle({
          prd_entries: [
            entry({ acceptance_criteria: ['stores', 'refuses'], criteria_tests: [['stores the date'], ['refuses a bad date']] }),
            entry({ id: 'T-002' }),
          ],
          test_files: { 'tests/t001_due.test.ts': js, 'tests/t002_overdue.test.ts': JS_TEST },
        }),
        'vitest',
      );
      expect(seed.prd[0]!.criteria_tests).toEqual([['stores the date'], ['refuses a bad date']]);
    });

    it('stores a JavaScript case inside describe blocks by its full name, taking its title alone when only one case has it', () => {
      const js = [
        "import { describe, it } from 'vitest';",
        "describe('setDue', () => {",
        "  it('stores the date', () => {});",
        "  describe('with a bad date', () => { it('refuses', () => {}); });",
        '});',
        "describe('clearDue', () => { it('refuses', () => {}); });",
      ].join('\n');
      const seed = accepted(
        bundle({
          prd_entries: [
            entry({ acceptance_criteria: ['stores', 'refuses'], criteria_tests: [['stores the date'], ['setDue > with a bad date > refuses']] }),
            entry({ id: 'T-002' }),
          ],
          test_files: { 'tests/t001_due.test.ts': js, 'tests/t002_overdue.test.ts': JS_TEST },
        }),
        'vitest',
      );
      expect(seed.prd[0]!.criteria_tests).toEqual([['setDue › stores the date'], ['setDue › with a bad date › refuses']]);
    });
  });

  describe('the exact words of each problem', () => {
    const only = (overrides: Record<string, unknown>, ctx: { preset?: ChecksPreset } = {}) => problems(bundle(overrides), ctx);
    const T1 = 'tests/test_t001_due_dates.py';

    it('describes what it got instead of a list of entries', () => {
      const files = { test_files: { [T1]: PY_TEST } };
      const shape = 'prd_entries must be a list of tasks, each {id, title, description, acceptance_criteria, criteria_tests}; got';
      const orphan = `test file '${T1}' doesn't correspond to any task in prd_entries (it names T-001); rename it after its task or remove it`;
      expect(only({ prd_entries: 'T-001', ...files })).toEqual([`${shape} the string "T-001"`, orphan]);
      expect(only({ prd_entries: '  ', ...files })).toEqual([`${shape} an empty string`, orphan]);
      expect(only({ prd_entries: 'x'.repeat(61), ...files })[0]).toBe(`${shape} the string "${'x'.repeat(60)}…"`);
      expect(only({ prd_entries: 'x'.repeat(60), ...files })[0]).toBe(`${shape} the string "${'x'.repeat(60)}"`);
      expect(only({ prd_entries: { id: 'T-001' }, ...files })[0]).toBe(`${shape} an object`);
      expect(only({ prd_entries: 7, ...files })[0]).toBe(`${shape} number 7`);
      expect(only({ prd_entries: [], ...files })).toEqual(['prd_entries is empty; a seed must include at least one task', orphan]);
    });

    it('describes lists by their length', () => {
      expect(only({ tldr: [] })).toEqual([expect.stringMatching(/tldr is required: .*; got an empty list$/)]);
      expect(only({ tldr: ['a', 'b'] })).toEqual([expect.stringMatching(/; got a list of 2$/)]);
    });

    it('labels an entry by its id only when it has one', () => {
      const noId = { title: '', description: 'd', acceptance_criteria: [] };
      expect(only({ prd_entries: [noId, entry({ id: 'T-002' })] })).toEqual([
        'prd_entries[0]: id is required, a string like T-001; got nothing',
        'prd_entries[0]: title must be a non-empty string; got an empty string',
        'prd_entries[0]: acceptance_criteria must be a non-empty list of strings, one observable behaviour each; got an empty list',
        "test file 'tests/test_t001_due_dates.py' doesn't correspond to any task in prd_entries (it names T-001); rename it after its task or remove it",
      ]);
      expect(only({ prd_entries: [entry({ id: '  ' }), entry({ id: 'T-002' })] })[0]).toBe(
        'prd_entries[0]: id is required, a string like T-001; got an empty string',
      );
    });

    it('names a repeated id plainly, and the first spelling of the same number', () => {
      const files = { test_files: { [T1]: PY_TEST } };
      expect(only({ prd_entries: [entry(), entry()], ...files })).toEqual(['prd_entries[1]: duplicate task id T-001; give each task its own id']);
      expect(only({ prd_entries: [entry(), entry({ id: 'T-0001' })], ...files })).toEqual([
        'prd_entries[1]: duplicate task id T-0001 (the same number as T-001); give each task its own id',
      ]);
    });

    it('names the file each preset expects for a task without one', () => {
      expect(only({ test_files: { 'tests/t001_due.test.js': JS_TEST } }, { preset: 'node' })).toEqual([
        'task T-002 has no test file; add exactly one named tests/t002_<slug>.test.js',
      ]);
      expect(only({ test_files: { 'tests/t001_due.rs': RS_TEST } }, { preset: 'custom' })).toEqual([
        'task T-002 has no test file; add exactly one named tests/t002_<slug>.<ext>',
      ]);
    });

    it('reports a badly named file once, not also as an orphan', () => {
      expect(only({ test_files: { [T1]: PY_TEST, 'tests/overdue.py': PY_TEST, 'tests/test_t002_overdue.py': PY_TEST } })).toEqual([
        expect.stringMatching(/^test file 'tests\/overdue\.py' doesn't match/),
      ]);
    });

    it('takes null lists and null scope notes for none', () => {
      expect(accepted(bundle({ open_questions: null, blockers: null, scope_notes: null }))).toMatchObject({ openQuestions: [], blockers: [], scopeNotes: '' });
    });
  });

  describe('one test per rule', () => {
    it('rejects a bundle that is not an object', () => {
      for (const value of [null, [], 'seed', 3]) expect(problems(value)).toEqual([expect.stringMatching(/the seed must be an object with prd_entries/)]);
    });
    it('rejects prd_entries that is not a list', () => {
      expect(problems(bundle({ prd_entries: { id: 'T-001' } }))).toContainEqual(expect.stringMatching(/prd_entries must be a list of tasks/));
    });
    it('rejects empty prd_entries', () => {
      expect(problems(bundle({ prd_entries: [] }))).toContainEqual(expect.stringMatching(/prd_entries is empty/));
    });
    it('rejects test_files that is not an object', () => {
      expect(problems(bundle({ test_files: [PY_TEST] }))).toContainEqual(expect.stringMatching(/test_files must be an object mapping/));
    });
    it('rejects empty test_files', () => {
      expect(problems(bundle({ test_files: {} }))).toContainEqual(expect.stringMatching(/test_files is empty/));
    });
    it('rejects an entry that is not an object', () => {
      expect(problems(bundle({ prd_entries: [entry(), 'T-002 overdue'] }))).toContainEqual(expect.stringMatching(/prd_entries\[1\] must be an object/));
    });
    it('rejects an entry without an id, suggesting T-001', () => {
      const { id: _id, ...noId } = entry();
      expect(problems(bundle({ prd_entries: [noId, entry({ id: 'T-002' })] }))).toContainEqual(
        expect.stringMatching(/prd_entries\[0\]: id is required, a string like T-001/),
      );
    });
    it('rejects an id that is not T- and 3+ digits, suggesting where to start', () => {
      expect(problems(bundle({ prd_entries: [entry({ id: 'T-01' }), entry({ id: 'T-002' })] }))).toContainEqual(
        expect.stringMatching(/'T-01' must match T-NNN.*from T-001/),
      );
      expect(problems(bundle({ prd_entries: [entry({ id: 'task-1' }), entry({ id: 'T-006' })] }), { existingIds: ['T-004'] })).toContainEqual(
        expect.stringMatching(/'task-1' must match T-NNN.*from T-005/),
      );
    });
    it('rejects a duplicate id', () => {
      expect(problems(bundle({ prd_entries: [entry(), entry({ id: 'T-002' }), entry({ id: 'T-002' })] }))).toContainEqual(
        expect.stringMatching(/prd_entries\[2\]: duplicate task id T-002/),
      );
    });
    it('rejects two ids with the same number written differently', () => {
      expect(problems(bundle({ prd_entries: [entry(), entry({ id: 'T-002' }), entry({ id: 'T-0002' })] }))).toContainEqual(
        expect.stringMatching(/duplicate task id T-0002 \(the same number as T-002\)/),
      );
    });
    it('rejects ids that do not continue after the existing ones', () => {
      const found = problems(bundle(), { existingIds: ['T-001', 'T-002'] });
      expect(found).toContainEqual(
        expect.stringMatching(/task id T-001 does not continue after the existing tasks \(the highest is T-002\); number new tasks from T-003/),
      );
      expect(found).toContainEqual(expect.stringMatching(/task id T-002 does not continue/));
    });
    it('accepts any valid ids when there are no existing ones, and ids above the existing ones', () => {
      accepted(
        bundle({
          prd_entries: [entry({ id: 'T-005' }), entry({ id: 'T-006' })],
          test_files: { 'tests/test_t005_a.py': PY_TEST, 'tests/test_t006_b.py': PY_TEST },
        }),
      );
      expect(
        validateSeedBundle(
          bundle({
            prd_entries: [entry({ id: 'T-003' }), entry({ id: 'T-004' })],
            test_files: { 'tests/test_t003_a.py': PY_TEST, 'tests/test_t004_b.py': PY_TEST },
          }),
          { preset: 'pytest', existingIds: ['T-001', 'T-002'] },
        ).ok,
      ).toBe(true);
    });
    it('lets the tasks of a seed being edited keep their ids, in any order, while a new one must come after every id used', () => {
      const edited = (ids: string[]) =>
        validateSeedBundle(
          bundle({
            prd_entries: ids.map((id) => entry({ id })),
            test_files: Object.fromEntries(ids.map((id) => [`tests/test_t${id.slice(2)}_a.py`, PY_TEST])),
          }),
          // T-002 was removed earlier: it counts as used.
          { preset: 'pytest', existingIds: ['T-001', 'T-003', 'T-002'], keptIds: ['T-001', 'T-003'] },
        );
      expect(edited(['T-003', 'T-001', 'T-004']).ok).toBe(true);
      const reused = edited(['T-001', 'T-002']);
      expect(reused.ok ? [] : reused.problems).toContainEqual(expect.stringMatching(/task id T-002 does not continue .* number new tasks from T-004/));
    });
    it('rejects a missing or blank title', () => {
      const { title: _t, ...noTitle } = entry();
      expect(problems(bundle({ prd_entries: [noTitle, entry({ id: 'T-002' })] }))).toContainEqual(
        expect.stringMatching(/prd_entries\[0\] \(T-001\): title must be a non-empty string; got nothing/),
      );
      expect(problems(bundle({ prd_entries: [entry({ title: '  ' }), entry({ id: 'T-002' })] }))).toContainEqual(
        expect.stringMatching(/title must be a non-empty string; got an empty string/),
      );
    });
    it('rejects a missing or blank description', () => {
      expect(problems(bundle({ prd_entries: [entry({ description: '' }), entry({ id: 'T-002' })] }))).toContainEqual(
        expect.stringMatching(/\(T-001\): description must be a non-empty string/),
      );
      expect(problems(bundle({ prd_entries: [entry({ description: ['x'] }), entry({ id: 'T-002' })] }))).toContainEqual(
        expect.stringMatching(/description must be a non-empty string/),
      );
    });
    it('rejects an empty criteria list', () => {
      expect(problems(bundle({ prd_entries: [entry({ acceptance_criteria: [] }), entry({ id: 'T-002' })] }))).toContainEqual(
        expect.stringMatching(/\(T-001\): acceptance_criteria must be a non-empty list of strings/),
      );
    });
    it('rejects criteria given as a bare string', () => {
      expect(problems(bundle({ prd_entries: [entry({ acceptance_criteria: 'it works' }), entry({ id: 'T-002' })] }))).toContainEqual(
        expect.stringMatching(/acceptance_criteria must be a non-empty list.*wrap a single criterion in a list/),
      );
    });
    it('rejects a blank or non-string criterion', () => {
      const found = problems(bundle({ prd_entries: [entry({ acceptance_criteria: ['ok', ' ', 3] }), entry({ id: 'T-002' })] }));
      expect(found).toContainEqual(expect.stringMatching(/acceptance_criteria\[1\] must be a non-empty string; got an empty string/));
      expect(found).toContainEqual(expect.stringMatching(/acceptance_criteria\[2\] must be a non-empty string; got number 3/));
    });
    it("rejects a test file name that doesn't match the preset's pattern", () => {
      const found = problems(bundle({ test_files: { 'tests/test_t001_due_dates.py': PY_TEST, 'tests/test_T002_Overdue.py': PY_TEST } }));
      expect(found).toContainEqual(
        expect.stringMatching(
          /'tests\/test_T002_Overdue\.py' doesn't match tests\/test_t<NNN>_<slug>\.py \(e\.g\. tests\/test_t001_add_parser\.py; the slug uses lowercase/,
        ),
      );
    });
    it('rejects a test file outside tests/', () => {
      expect(problems(bundle({ test_files: { 'tests/test_t001_due_dates.py': PY_TEST, 'src/test_t002_overdue.py': PY_TEST } }))).toContainEqual(
        expect.stringMatching(/'src\/test_t002_overdue\.py' doesn't match/),
      );
    });
    it('rejects test paths with .., absolute paths and backslashes', () => {
      for (const bad of [
        'tests/../test_t002_overdue.py',
        '../tests/test_t002_overdue.py',
        '/tmp/tests/test_t002_overdue.py',
        'C:/tests/test_t002_overdue.py',
        'tests\\test_t002_overdue.py',
      ]) {
        const found = problems(bundle({ test_files: { 'tests/test_t001_due_dates.py': PY_TEST, [bad]: PY_TEST } }));
        expect(found, bad).toContainEqual(expect.stringMatching(/'\.\.' is not allowed|absolute paths are not allowed|backslashes are not allowed/));
      }
    });
    it.each([
      ['', 'the path is empty'],
      ['  ', 'the path is empty'],
      ['tests\\test_t002_overdue.py', 'backslashes are not allowed in the path (use /)'],
      ['/tests/test_t002_overdue.py', 'absolute paths are not allowed'],
      ['c:tests/test_t002_overdue.py', 'absolute paths are not allowed'],
      ['tests/..test_t002_overdue.py', "'..' is not allowed in the path"],
      ['tests/test_t002_overdue.py\0', 'the path contains a NUL character'],
    ])('names why the test path %j is unsafe', (bad, reason) => {
      const found = problems(bundle({ test_files: { 'tests/test_t001_due_dates.py': PY_TEST, [bad]: PY_TEST } }));
      expect(found).toContain(`test file '${bad}': ${reason}; name it tests/test_t<NNN>_<slug>.py, relative to the repository root`);
    });
    it('takes a colon inside a name for no drive letter', () => {
      const found = problems(bundle({ test_files: { 'tests/test_t001_due_dates.py': PY_TEST, 'tests/test_t002_a:b.py': PY_TEST } }));
      expect(found.join('\n')).not.toContain('absolute');
    });
    it('rejects test content that is not a non-empty string', () => {
      const found = problems(bundle({ test_files: { 'tests/test_t001_due_dates.py': { code: PY_TEST }, 'tests/test_t002_overdue.py': '  \n' } }));
      expect(found).toContainEqual(
        expect.stringMatching(/'tests\/test_t001_due_dates\.py': the content must be the whole test file as a non-empty string; got an object/),
      );
      expect(found).toContainEqual(expect.stringMatching(/'tests\/test_t002_overdue\.py': the content must be/));
    });
    it('rejects a task without a test file', () => {
      expect(problems(bundle({ test_files: { 'tests/test_t001_due_dates.py': PY_TEST } }))).toContainEqual(
        expect.stringMatching(/task T-002 has no test file; add exactly one named tests\/test_t002_<slug>\.py/),
      );
    });
    it('rejects a task with more than one test file', () => {
      const files = { 'tests/test_t001_due_dates.py': PY_TEST, 'tests/test_t002_overdue.py': PY_TEST, 'tests/test_t002_more.py': PY_TEST };
      expect(problems(bundle({ test_files: files }))).toContainEqual(
        expect.stringMatching(/task T-002 has 2 test files \(tests\/test_t002_overdue\.py, tests\/test_t002_more\.py\)/),
      );
    });
    it('rejects an orphan test file that names no task', () => {
      const files = { 'tests/test_t001_due_dates.py': PY_TEST, 'tests/test_t002_overdue.py': PY_TEST, 'tests/test_t003_extra.py': PY_TEST };
      expect(problems(bundle({ test_files: files }))).toEqual([
        expect.stringMatching(/'tests\/test_t003_extra\.py' doesn't correspond to any task in prd_entries \(it names T-003\)/),
      ]);
    });
    it('pairs files by the digits as written: T-001 is not t0001', () => {
      const files = { 'tests/test_t0001_due.py': PY_TEST, 'tests/test_t002_overdue.py': PY_TEST };
      const found = problems(bundle({ test_files: files }));
      expect(found).toContainEqual(expect.stringMatching(/test_t0001_due\.py' doesn't correspond to any task/));
      expect(found).toContainEqual(expect.stringMatching(/task T-001 has no test file/));
    });
    it('does not call a file an orphan when its task has other problems', () => {
      const found = problems(bundle({ prd_entries: [entry({ title: '' }), entry({ id: 'T-002' })] }));
      expect(found).toEqual([expect.stringMatching(/title must be a non-empty string/)]);
    });
    it('rejects the same file given twice after normalisation', () => {
      const files = { 'test_t001_due_dates.py': PY_TEST, 'tests/test_t001_due_dates.py': PY_TEST, 'tests/test_t002_overdue.py': PY_TEST };
      expect(problems(bundle({ test_files: files }))).toContainEqual(
        expect.stringMatching(/'tests\/test_t001_due_dates\.py' is given twice \('test_t001_due_dates\.py' and 'tests\/test_t001_due_dates\.py'\)/),
      );
    });
    it('requires a non-empty tldr string', () => {
      const { tldr: _t, ...noTldr } = bundle();
      expect(problems(noTldr)).toContainEqual(expect.stringMatching(/tldr is required/));
      expect(problems(bundle({ tldr: ' ' }))).toContainEqual(expect.stringMatching(/tldr is required/));
      expect(problems(bundle({ tldr: ['- T-001'] }))).toContainEqual(expect.stringMatching(/tldr is required/));
    });
    it('rejects open_questions given as a bare string instead of splitting it into characters', () => {
      expect(problems(bundle({ open_questions: 'What about time zones?' }))).toEqual([
        expect.stringMatching(/open_questions must be a list of strings.*got a single string — wrap it in a list/),
      ]);
    });
    it('rejects blockers that are not a list of strings', () => {
      expect(problems(bundle({ blockers: 'none' }))).toEqual([expect.stringMatching(/blockers must be a list of strings/)]);
      expect(problems(bundle({ blockers: { a: 1 } }))).toEqual([expect.stringMatching(/blockers must be a list of strings, or \[\] for none; got an object/)]);
      expect(problems(bundle({ blockers: ['ok', null] }))).toEqual([expect.stringMatching(/blockers\[1\] must be a string; got null/)]);
    });
    it('rejects non-string items in open_questions', () => {
      expect(problems(bundle({ open_questions: [['nested']] }))).toEqual([expect.stringMatching(/open_questions\[0\] must be a string/)]);
    });
    it('rejects scope_notes that is not a string', () => {
      expect(problems(bundle({ scope_notes: ['no reminders'] }))).toEqual([expect.stringMatching(/scope_notes must be a string/)]);
    });
  });
});

// ── writing ──────────────────────────────────────────────────────────────────────────────────

let root: string;
let store: SessionStore;
let session: SessionHandle;
let sessionDir: string;
let worktree: string;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'tilth-sink-'));
  store = new SessionStore(path.join(root, 'sessions'));
  const created = store.create({ source: '/repo', brief: 'b', baseBranch: 'main', baseSha: 'abc', status: 'interviewing' });
  session = store.session(created.session_id);
  sessionDir = store.session(created.session_id).dir;
  worktree = created.worktree;
  fs.mkdirSync(worktree, { recursive: true });
  fs.writeFileSync(path.join(worktree, 'README.md'), 'repo\n');
});
afterEach(() => {
  store.close();
  fs.rmSync(root, { recursive: true, force: true });
});

const META: SeedMetaInput = {
  interviewer_model: 'prep-model',
  started_at: '2026-05-25T10:00:00.000Z',
  ended_at: '2026-05-25T10:05:00.000Z',
  tokens: { prompt: 10, completion: 5, total: 15 },
  cost_usd: 0.01,
  checks_preset: 'pytest',
};

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** Every file under a folder, relative, with its content: a snapshot to compare. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rel of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const abs = path.join(dir, rel);
    if (fs.lstatSync(abs).isFile()) out[rel] = fs.readFileSync(abs, 'utf8');
  }
  return out;
}

describe('writeSeed', () => {
  it('writes prd.json, seed-meta.json with the test hashes, and the test files under tests/', () => {
    const seed = accepted(bundle());
    const meta = writeSeed(seed, { session, meta: META });

    expect(JSON.parse(fs.readFileSync(path.join(sessionDir, 'prd.json'), 'utf8'))).toEqual(seed.prd);
    const onDisk = SeedMetaSchema.parse(JSON.parse(fs.readFileSync(path.join(sessionDir, 'seed-meta.json'), 'utf8')));
    expect(onDisk).toEqual(meta);
    expect(onDisk).toMatchObject({ tldr: seed.tldr, open_questions: ['Time zones?'], blockers: [], scope_notes: 'No reminders.', checks_preset: 'pytest' });
    expect(onDisk.locked_tests).toEqual({ 'tests/test_t001_due_dates.py': sha256(PY_TEST), 'tests/test_t002_overdue.py': sha256(PY_TEST) });
    expect(fs.readFileSync(path.join(worktree, 'tests', 'test_t001_due_dates.py'), 'utf8')).toBe(PY_TEST);
    // Nothing but the seed, and no temp files left behind.
    expect(Object.keys(snapshot(sessionDir)).sort()).toEqual([
      'checkpoint.json',
      'events.jsonl',
      'prd.json',
      'seed-meta.json',
      'workspace/README.md',
      'workspace/tests/test_t001_due_dates.py',
      'workspace/tests/test_t002_overdue.py',
    ]);
  });

  it("takes the seed's texts over the caller's meta", () => {
    writeSeed(accepted(bundle()), { session, meta: { ...META, tldr: 'stale', blockers: ['stale'] } });
    expect(session.readSeed().meta).toMatchObject({ tldr: expect.stringContaining('T-001'), blockers: [] });
  });

  it('round-trips through readSeed', () => {
    const seed = accepted(bundle());
    const meta = writeSeed(seed, { session, meta: META });
    expect(session.readSeed()).toEqual({ prd: seed.prd, meta, testFiles: seed.testFiles });
  });

  it('changes nothing when staging fails (tests/ is a file in the worktree)', () => {
    fs.writeFileSync(path.join(worktree, 'tests'), 'not a folder\n');
    const before = snapshot(sessionDir);
    expect(() => writeSeed(accepted(bundle()), { session, meta: META })).toThrow(SeedWriteError);
    expect(snapshot(sessionDir)).toEqual(before);
  });

  it('changes nothing when the task list cannot be replaced (a folder in its way), removing the tests/ it created', () => {
    fs.mkdirSync(path.join(sessionDir, 'prd.json', 'inside'), { recursive: true });
    const before = snapshot(root);
    expect(() => writeSeed(accepted(bundle()), { session, meta: META })).toThrow(/Nothing was written: replacing .*prd\.json failed/);
    expect(snapshot(root)).toEqual(before);
    expect(fs.existsSync(path.join(worktree, 'tests'))).toBe(false);
  });

  it('leaves an existing tests/ folder as it was, without temp files, when a later file cannot be written', () => {
    fs.mkdirSync(path.join(worktree, 'tests'));
    fs.writeFileSync(path.join(worktree, 'tests', 'test_existing.py'), PY_TEST);
    fs.mkdirSync(path.join(sessionDir, 'seed-meta.json', 'inside'), { recursive: true });
    const before = snapshot(root);
    expect(() => writeSeed(accepted(bundle()), { session, meta: META })).toThrow(SeedWriteError);
    expect(snapshot(root)).toEqual(before);
  });

  it('puts back the files it already replaced when a later rename fails', () => {
    const first = accepted(bundle());
    writeSeed(first, { session, meta: META });
    const before = snapshot(sessionDir);

    // A folder where the second test file goes: staging its temp works, the rename cannot.
    const edited = accepted(bundle({ test_files: { 'tests/test_t001_due_dates.py': `${PY_TEST}# edited\n`, 'tests/test_t002_blocked.py': PY_TEST } }));
    fs.mkdirSync(path.join(worktree, 'tests', 'test_t002_blocked.py', 'inside'), { recursive: true });
    fs.writeFileSync(path.join(worktree, 'tests', 'test_t002_blocked.py', 'inside', 'f'), 'x');
    const withObstacle = snapshot(sessionDir);
    expect(() => writeSeed(edited, { session, meta: META })).toThrow(/Nothing was written: replacing .*test_t002_blocked\.py failed/);
    expect(snapshot(sessionDir)).toEqual(withObstacle);
    expect(snapshot(sessionDir)['workspace/tests/test_t001_due_dates.py']).toBe(before['workspace/tests/test_t001_due_dates.py']);
  });

  it('refuses a symlinked tests/ folder, so nothing is written outside the worktree', () => {
    const outside = path.join(root, 'outside');
    fs.mkdirSync(outside);
    fs.symlinkSync(outside, path.join(worktree, 'tests'));
    expect(() => writeSeed(accepted(bundle()), { session, meta: META })).toThrow(/symbolic link/);
    expect(fs.readdirSync(outside)).toEqual([]);
    expect(fs.existsSync(path.join(sessionDir, 'prd.json'))).toBe(false);
  });

  it('refuses unsafe test paths even in a seed that skipped validation', () => {
    const seed = { ...accepted(bundle()), testFiles: { 'tests/../../escape.py': PY_TEST } };
    expect(() => writeSeed(seed, { session, meta: META })).toThrow(/Refusing test file 'tests\/\.\.\/\.\.\/escape\.py'/);
    expect(fs.existsSync(path.join(sessionDir, 'escape.py'))).toBe(false);
    expect(fs.existsSync(path.join(sessionDir, 'prd.json'))).toBe(false);
  });

  it("writes test files only where the preset's naming rule puts them", () => {
    const seed = { ...accepted(bundle()), testFiles: { 'src/test_t001_x.py': PY_TEST } };
    expect(() => writeSeed(seed, { session, meta: META })).toThrow(/test files live in tests\/, named tests\/test_t<NNN>_<slug>\.py/);
    expect(fs.existsSync(path.join(worktree, 'src'))).toBe(false);
  });

  it('refuses meta that does not match the schema, before writing anything', () => {
    const before = snapshot(sessionDir);
    expect(() => writeSeed(accepted(bundle()), { session, meta: { ...META, started_at: 'yesterday' } })).toThrow(/seed metadata is invalid: started_at/);
    expect(snapshot(sessionDir)).toEqual(before);
  });
});

describe('test locks', () => {
  it('hashes test files as sha256 of their bytes, null for a missing file or a symlink', () => {
    writeSeed(accepted(bundle()), { session, meta: META });
    fs.symlinkSync(path.join(worktree, 'README.md'), path.join(worktree, 'tests', 'test_t003_link.py'));
    expect(hashTestFiles(worktree, ['tests/test_t001_due_dates.py', 'tests/test_t009_gone.py', 'tests/test_t003_link.py'])).toEqual({
      'tests/test_t001_due_dates.py': sha256(PY_TEST),
      'tests/test_t009_gone.py': null,
      'tests/test_t003_link.py': null,
    });
  });

  it('lists the locked tests that were changed or deleted since the seed', () => {
    const meta = writeSeed(accepted(bundle()), { session, meta: META });
    expect(changedLockedTests(worktree, meta.locked_tests)).toEqual([]);
    fs.appendFileSync(path.join(worktree, 'tests', 'test_t001_due_dates.py'), '\n# weakened\n');
    fs.rmSync(path.join(worktree, 'tests', 'test_t002_overdue.py'));
    expect(changedLockedTests(worktree, meta.locked_tests)).toEqual(['tests/test_t001_due_dates.py', 'tests/test_t002_overdue.py']);
  });

  it('reading the seed names seed-meta.json when a locked test file is missing', () => {
    writeSeed(accepted(bundle()), { session, meta: META });
    fs.rmSync(path.join(worktree, 'tests', 'test_t002_overdue.py'));
    expect(() => session.readSeed()).toThrow(/seed-meta\.json is corrupt: it locks tests\/test_t002_overdue\.py, which is missing/);
  });

  it('reading the seed of a session without one is no_seed', () => {
    expect(() => session.readSeed()).toThrow(expect.objectContaining({ code: 'no_seed' }));
  });
});
