/**
 * One short journey per example repository shape (issue 12), for the scripted model: the
 * interviewer looks at the code, asks one question and writes a one-task seed whose acceptance
 * test is in the project's own idiom (vitest's `expect` in TypeScript, mocha's globals with
 * `require`, a unittest class importing the installed package); the worker changes the code, runs
 * the project's own test command in the worktree and submits; the evaluator accepts once every
 * check passes. Like the demo's script, each reply is read off the conversation, not queued.
 */
import type { ChecksPreset, CustomChecks } from '../../shared/seed.ts';
import { call, readConversation, roleOf, succeeded, toolsOffered, turn, usage, withCallIds } from '../demo/conversation.ts';
import type { ExampleName } from '../demo/example-repo.ts';
import type { FakeResponder, ScriptedReplyInput } from '../scripted-model/model-server.ts';

export interface JourneyPlan {
  example: Exclude<ExampleName, 'js-todo' | 'py-todo'>;
  /** The preset detection must give the repository. */
  preset: ChecksPreset;
  /** The custom preset's commands, as the user saves them in seed review before the run. */
  customChecks?: CustomChecks;
  brief: string;
  question: { question: string; options: string[] };
  answer: string;
  task: { id: 'T-001'; title: string; description: string; acceptance_criteria: string[]; criteria_tests: string[][] };
  /** The matrix as the seed stores it, where the sink completes the names given (default: as given). */
  storedTests?: string[][];
  /** What the red proof says of the cases, where the reason is the runner's own. */
  redShows?: RegExp;
  /** Where the preset's naming rule puts T-001's test, and the test. */
  testFile: string;
  test: string;
  /** The file the worker changes, and the change. */
  source: string;
  change: (original: string) => string;
  /** What the worker runs in the worktree before submitting: the command the project's README gives. */
  ownTests: string;
  /** What the harness's acceptance check output shows: the project's runner ran the test. */
  checkShows: RegExp;
  /** What it must not show: in a workspace, the tests of the packages the task does not touch. */
  checkHides?: RegExp;
  /** The naming rule the interviewer must be told. */
  rule: string;
  /** The project's own test command in the checkout after the merge, and what its output shows of the new test. */
  afterMerge: { command: [string, ...string[]]; shows: RegExp };
}

/** What the scripted model saw, for the test to check. */
export interface JourneyTrace {
  interviewPrompt: string | null;
  /** The output of the worker's run of the project's own tests in the worktree. */
  ownTestsOutput: string | null;
}

const lines = (...l: string[]) => `${l.join('\n')}\n`;

/** The due-date feature the AVA, bun and deno journeys ask for, in the same plain-JavaScript todo library. */
const DUE_DATE: Pick<JourneyPlan, 'brief' | 'question' | 'answer'> & { task: Omit<JourneyPlan['task'], 'criteria_tests'> } = {
  brief: 'Let a todo carry a due date.',
  question: { question: 'How is a due date written?', options: ['As an ISO date such as 2026-01-31', 'As a Date object'] },
  answer: 'As an ISO date such as 2026-01-31',
  task: {
    id: 'T-001',
    title: 'Todos carry a due date',
    description: 'Add setDue(todo, date) to src/todo.js: a new todo with the ISO date as its due field.',
    acceptance_criteria: [
      'setDue returns a new todo with the due date, leaving the original unchanged',
      'setDue throws a RangeError for something that is not an ISO date',
    ],
  },
};

/** The worker's change for DUE_DATE: setDue appended to src/todo.js. */
const addSetDue = (original: string) =>
  original +
  lines(
    '',
    '/**',
    ' * @param {Todo} todo',
    ' * @param {string} date an ISO 8601 date such as 2026-01-31',
    ' * @returns {Todo} a new todo due on that date',
    ' */',
    'export function setDue(todo, date) {',
    '  if (!/^\\d{4}-\\d{2}-\\d{2}$/.test(String(date))) throw new RangeError(`not an ISO date: ${date}`);',
    '  return { ...todo, due: date };',
    '}',
  );

/** addSetDue for a CommonJS module: the function, then added to what it exports. */
const addSetDueCjs = (original: string) => `${addSetDue(original).replace('export function setDue', 'function setDue')}module.exports.setDue = setDue;\n`;

export const JOURNEYS: Record<JourneyPlan['example'], JourneyPlan> = {
  'ts-vitest': {
    example: 'ts-vitest',
    preset: 'vitest',
    brief: 'Let a todo carry a priority.',
    question: { question: 'Which priority levels should a todo accept?', options: ['low, normal and high', 'a number from 1 to 5'] },
    answer: 'low, normal and high',
    task: {
      id: 'T-001',
      title: 'Todos carry a priority',
      description: 'Add setPriority(todo, level) to src/todo.ts, with an optional readonly priority on Todo.',
      acceptance_criteria: [
        'setPriority returns a new todo with the priority set, leaving the original unchanged',
        'setPriority throws an Error for an unknown level',
      ],
      criteria_tests: [['returns a new todo with the priority set, leaving the original unchanged'], ['throws an Error for an unknown level']],
    },
    // Stored by the full name the sink reads from the file, its describe title first.
    storedTests: [
      ['setPriority › returns a new todo with the priority set, leaving the original unchanged'],
      ['setPriority › throws an Error for an unknown level'],
    ],
    testFile: 'tests/t001_priority.test.ts',
    test: lines(
      "import { describe, expect, it } from 'vitest';",
      "import { setPriority, type Todo } from '../src/todo.ts';",
      '',
      "describe('setPriority', () => {",
      "  it('returns a new todo with the priority set, leaving the original unchanged', () => {",
      "    const todo: Todo = { title: 'water plants', done: false };",
      "    expect(setPriority(todo, 'high').priority).toBe('high');",
      "    expect(todo).toEqual({ title: 'water plants', done: false });",
      '  });',
      '',
      "  it('throws an Error for an unknown level', () => {",
      "    expect(() => setPriority({ title: 'x', done: false }, 'urgent' as never)).toThrow(/unknown priority/);",
      '  });',
      '});',
    ),
    source: 'src/todo.ts',
    change: (original) =>
      original.replace(
        '  readonly done: boolean;\n}',
        "  readonly done: boolean;\n  readonly priority?: Priority;\n}\n\nexport type Priority = 'low' | 'normal' | 'high';",
      ) +
      lines(
        '',
        '/** A new todo with its priority set; an unknown level throws. */',
        'export function setPriority(todo: Todo, level: Priority): Todo {',
        "  if (!['low', 'normal', 'high'].includes(level)) throw new Error(`unknown priority: ${String(level)}`);",
        '  return { ...todo, priority: level };',
        '}',
      ),
    ownTests: 'npm test',
    checkShows: /✓ tests\/t001_priority\.test\.ts \(2 tests\)/,
    rule: 'tests/t<NNN>_<slug>.test.ts',
    afterMerge: { command: ['npm', 'test'], shows: /tests\/t001_priority\.test\.ts \(2 tests\)/ },
  },
  'cjs-mocha': {
    example: 'cjs-mocha',
    preset: 'mocha',
    brief: 'Let a user snooze a todo.',
    question: { question: 'How is a snooze given?', options: ['As a duration such as "1d"', 'As a date'] },
    answer: 'As a duration such as "1d"',
    task: {
      id: 'T-001',
      title: 'Snooze a todo',
      description: 'Add snooze(todo, duration) to src/todo.js: the due time moves later by a duration read with ms.',
      acceptance_criteria: [
        'snooze returns a new todo due later by the duration, leaving the original unchanged',
        'snooze throws an Error for something that is not a duration',
      ],
      criteria_tests: [['moves the due time later by a duration, leaving the original unchanged'], ['throws an Error for something that is not a duration']],
    },
    // Stored by the full name the sink reads from the file, its describe title first.
    storedTests: [
      ['snooze › moves the due time later by a duration, leaving the original unchanged'],
      ['snooze › throws an Error for something that is not a duration'],
    ],
    testFile: 'test/t001_snooze.test.js',
    test: lines(
      "'use strict';",
      '',
      "const assert = require('node:assert/strict');",
      "const { snooze } = require('../src/todo.js');",
      '',
      'const NOW = Date.UTC(2026, 0, 31);',
      '',
      "describe('snooze', () => {",
      "  it('moves the due time later by a duration, leaving the original unchanged', () => {",
      "    const todo = { title: 'pay rent', done: false, due: NOW };",
      "    assert.equal(snooze(todo, '1d').due, NOW + 24 * 60 * 60 * 1000);",
      '    assert.equal(todo.due, NOW);',
      '  });',
      '',
      "  it('throws an Error for something that is not a duration', () => {",
      "    assert.throws(() => snooze({ title: 'x', done: false, due: NOW }, 'soon'), /not a duration/);",
      '  });',
      '});',
    ),
    source: 'src/todo.js',
    change: (original) =>
      original.replace(
        'module.exports = { addTodo, completeTodo, overdue };',
        lines(
          '/**',
          ' * @param {Todo} todo',
          ' * @param {string} duration such as "1d" or "3h"',
          ' * @returns {Todo} a new todo due that much later (from now when it had no due time)',
          ' */',
          'function snooze(todo, duration) {',
          '  const span = ms(duration);',
          "  if (typeof span !== 'number' || !(span > 0)) throw new Error(`not a duration: ${duration}`);",
          '  return { ...todo, due: (todo.due ?? Date.now()) + span };',
          '}',
          '',
          'module.exports = { addTodo, completeTodo, overdue, snooze };',
        ).trimEnd(),
      ),
    ownTests: 'npm test',
    checkShows: /snooze[\s\S]*2 passing/,
    rule: 'test/t<NNN>_<slug>.test.js',
    afterMerge: { command: ['npm', 'test'], shows: /snooze[\s\S]*7 passing/ },
  },
  'ava-todo': {
    example: 'ava-todo',
    preset: 'ava',
    ...DUE_DATE,
    task: {
      ...DUE_DATE.task,
      criteria_tests: [['setDue sets the due date and leaves the original alone'], ['setDue refuses a date that is not ISO']],
    },
    // AVA's TypeError for the function not there yet, read as the missing work, not a failed assertion.
    redShows: /^setDue refuses a date that is not ISO: what the task adds is missing$/m,
    testFile: 'test/t001_due.test.js',
    test: lines(
      "import test from 'ava';",
      "import * as todo from '../src/todo.js';",
      '',
      "test('setDue sets the due date and leaves the original alone', (t) => {",
      "  const original = { title: 'pay rent', done: false };",
      "  t.deepEqual(todo.setDue(original, '2026-01-31'), { title: 'pay rent', done: false, due: '2026-01-31' });",
      "  t.deepEqual(original, { title: 'pay rent', done: false });",
      '});',
      '',
      "test('setDue refuses a date that is not ISO', (t) => {",
      "  t.throws(() => todo.setDue({ title: 'x', done: false }, 'soon'), { instanceOf: RangeError });",
      '});',
    ),
    source: 'src/todo.js',
    change: addSetDue,
    ownTests: 'npm test',
    checkShows: /ok 1 - setDue[\s\S]*# pass 2/,
    rule: 'test/t<NNN>_<slug>.test.js',
    afterMerge: { command: ['npm', 'test'], shows: /6 tests passed/ },
  },
  'tap-todo': {
    example: 'tap-todo',
    preset: 'tap',
    ...DUE_DATE,
    task: {
      ...DUE_DATE.task,
      criteria_tests: [['sets the due date and leaves the original alone'], ['setDue › refuses a date that is not ISO']],
    },
    // A subtest's bare title is completed to its full name, its group's title first.
    storedTests: [['setDue › sets the due date and leaves the original alone'], ['setDue › refuses a date that is not ISO']],
    redShows: /^setDue › refuses a date that is not ISO: what the task adds is missing$/m,
    testFile: 'test/t001_due.test.js',
    test: lines(
      "const t = require('tap');",
      "const todo = require('../src/todo.js');",
      '',
      "t.test('setDue', async (t) => {",
      "  t.test('sets the due date and leaves the original alone', async (t) => {",
      "    const original = { title: 'pay rent', done: false };",
      "    t.same(todo.setDue(original, '2026-01-31'), { title: 'pay rent', done: false, due: '2026-01-31' });",
      "    t.same(original, { title: 'pay rent', done: false });",
      '  });',
      '',
      "  t.test('refuses a date that is not ISO', async (t) => {",
      "    t.throws(() => todo.setDue({ title: 'x', done: false }, 'soon'), RangeError);",
      '  });',
      '});',
    ),
    source: 'src/todo.js',
    change: addSetDueCjs,
    ownTests: 'npm test',
    checkShows: /ok 1 - setDue[\s\S]*ok 1 - test\/t001_due\.test\.js/,
    rule: 'test/t<NNN>_<slug>.test.js',
    afterMerge: { command: ['npm', 'test'], shows: /ok \d - test\/t001_due\.test\.js[\s\S]*# \{ total: 10, pass: 10 \}/ },
  },
  'uvu-todo': {
    example: 'uvu-todo',
    preset: 'uvu',
    ...DUE_DATE,
    task: {
      ...DUE_DATE.task,
      criteria_tests: [['setDue › sets the due date and leaves the original alone'], ['refuses a date that is not ISO']],
    },
    // A suite's case named by its bare title is stored by its full name, the suite's name first.
    storedTests: [['setDue › sets the due date and leaves the original alone'], ['setDue › refuses a date that is not ISO']],
    // The TypeError of the call (uvu's throws with a predicate says only that it did not match).
    redShows: /^setDue › sets the due date and leaves the original alone: what the task adds is missing$/m,
    testFile: 'tests/t001_due.test.js',
    test: lines(
      "import { suite } from 'uvu';",
      "import * as assert from 'uvu/assert';",
      "import * as todo from '../src/todo.js';",
      '',
      "const SetDue = suite('setDue');",
      '',
      "SetDue('sets the due date and leaves the original alone', () => {",
      "  const original = { title: 'pay rent', done: false };",
      "  assert.equal(todo.setDue(original, '2026-01-31'), { title: 'pay rent', done: false, due: '2026-01-31' });",
      "  assert.equal(original, { title: 'pay rent', done: false });",
      '});',
      '',
      "SetDue('refuses a date that is not ISO', () => {",
      "  assert.throws(() => todo.setDue({ title: 'x', done: false }, 'soon'), (err) => err instanceof RangeError);",
      '});',
      '',
      'SetDue.run();',
    ),
    source: 'src/todo.js',
    change: addSetDue,
    ownTests: 'npm test',
    checkShows: /✔ setDue › sets the due date and leaves the original alone[\s\S]*Passed: {4}2/,
    rule: 'tests/t<NNN>_<slug>.test.js',
    afterMerge: { command: ['npm', 'test'], shows: /Total: {5}6[\s\S]*Passed: {4}6/ },
  },
  'bun-todo': {
    example: 'bun-todo',
    // bun is not driven by a preset of its own: the custom preset with the command seed review
    // starts from, whose {junit} gives the checks the runner's per-case report.
    preset: 'custom',
    customChecks: { test: 'node_modules/.bin/bun test {files} --reporter=junit --reporter-outfile={junit}' },
    ...DUE_DATE,
    task: {
      ...DUE_DATE.task,
      criteria_tests: [['sets the due date and leaves the original alone'], ['refuses a date that is not ISO']],
    },
    // Stored by the full name the sink reads from the file, its describe title first.
    storedTests: [['setDue › sets the due date and leaves the original alone'], ['setDue › refuses a date that is not ISO']],
    testFile: 'tests/t001_due.test.js',
    test: lines(
      "import { describe, expect, test } from 'bun:test';",
      "import * as todo from '../src/todo.js';",
      '',
      "describe('setDue', () => {",
      "  test('sets the due date and leaves the original alone', () => {",
      "    const original = { title: 'pay rent', done: false };",
      "    expect(todo.setDue(original, '2026-01-31')).toEqual({ title: 'pay rent', done: false, due: '2026-01-31' });",
      "    expect(original).toEqual({ title: 'pay rent', done: false });",
      '  });',
      '',
      "  test('refuses a date that is not ISO', () => {",
      "    expect(() => todo.setDue({ title: 'x', done: false }, 'soon')).toThrow(RangeError);",
      '  });',
      '});',
    ),
    source: 'src/todo.js',
    change: addSetDue,
    ownTests: 'npm test',
    checkShows: /\(pass\) setDue > sets the due date[\s\S]* 2 pass/,
    rule: 'tests/t<NNN>_<slug>.<ext>',
    afterMerge: { command: ['npm', 'test'], shows: /t001_due\.test\.js[\s\S]* 6 pass/ },
  },
  'deno-todo': {
    example: 'deno-todo',
    // deno test through the custom preset, its command writing JUnit to {junit}.
    preset: 'custom',
    customChecks: { test: 'node_modules/.bin/deno test {files} --junit-path={junit}' },
    ...DUE_DATE,
    task: {
      ...DUE_DATE.task,
      criteria_tests: [['setDue sets the due date and leaves the original alone'], ['setDue refuses a date that is not ISO']],
    },
    // deno's TypeError for the function not there yet is the missing work; the case that catches it asserts and fails.
    redShows:
      /^setDue sets the due date and leaves the original alone: what the task adds is missing\nsetDue refuses a date that is not ISO: an assertion failed$/m,
    testFile: 'tests/t001_due_test.js',
    test: lines(
      "import * as todo from '../src/todo.js';",
      '',
      'function assertEquals(actual, expected) {',
      '  if (JSON.stringify(actual) !== JSON.stringify(expected)) throw new Error(`expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);',
      '}',
      '',
      "Deno.test('setDue sets the due date and leaves the original alone', () => {",
      "  const original = { title: 'pay rent', done: false };",
      "  assertEquals(todo.setDue(original, '2026-01-31'), { title: 'pay rent', done: false, due: '2026-01-31' });",
      "  assertEquals(original, { title: 'pay rent', done: false });",
      '});',
      '',
      "Deno.test('setDue refuses a date that is not ISO', () => {",
      '  let thrown = null;',
      '  try {',
      "    todo.setDue({ title: 'x', done: false }, 'soon');",
      '  } catch (err) {',
      '    thrown = err;',
      '  }',
      '  assertEquals(thrown instanceof RangeError, true);',
      '});',
    ),
    source: 'src/todo.js',
    change: addSetDue,
    ownTests: 'npm test',
    checkShows: /setDue refuses a date that is not ISO[\s\S]*2 passed/,
    rule: 'tests/t<NNN>_<slug>.<ext>',
    afterMerge: { command: ['npm', 'test'], shows: /ok \| 5 passed \| 0 failed/ },
  },
  'py-src': {
    example: 'py-src',
    preset: 'unittest',
    brief: 'Let a todo carry a priority.',
    question: { question: 'Which priority levels should a todo accept?', options: ['low, normal and high', 'a number from 1 to 5'] },
    answer: 'low, normal and high',
    task: {
      id: 'T-001',
      title: 'Todos carry a priority',
      description: 'Todo gains a priority field (default "normal"), and set_priority(todos, index, level) in src/todo/__init__.py sets it.',
      acceptance_criteria: [
        "set_priority returns a new list with that todo's priority set, leaving the input unchanged",
        'set_priority raises ValueError for an unknown level',
      ],
      criteria_tests: [['test_set_priority_returns_a_new_list_with_the_level_set'], ['test_set_priority_refuses_an_unknown_level']],
    },
    storedTests: [
      ['SetPriorityTest::test_set_priority_returns_a_new_list_with_the_level_set'],
      ['SetPriorityTest::test_set_priority_refuses_an_unknown_level'],
    ],
    testFile: 'tests/test_t001_priority.py',
    test: lines(
      'import unittest',
      '',
      'from todo import add_todo, set_priority',
      '',
      '',
      'class SetPriorityTest(unittest.TestCase):',
      '    def test_set_priority_returns_a_new_list_with_the_level_set(self):',
      '        todos = add_todo([], "water plants")',
      '        changed = set_priority(todos, 0, "high")',
      '        self.assertEqual(changed[0].priority, "high")',
      '        self.assertEqual(todos[0].priority, "normal")',
      '',
      '    def test_set_priority_refuses_an_unknown_level(self):',
      '        with self.assertRaisesRegex(ValueError, "unknown priority"):',
      '            set_priority(add_todo([], "x"), 0, "urgent")',
      '',
      '',
      'if __name__ == "__main__":',
      '    unittest.main()',
    ),
    source: 'src/todo/__init__.py',
    change: (original) =>
      original
        .replace(
          '__all__ = ["Todo", "add_todo", "complete_todo", "pending"]',
          '__all__ = ["Todo", "add_todo", "complete_todo", "pending", "set_priority"]\n\nPRIORITIES = ("low", "normal", "high")',
        )
        .replace('    done: bool = False\n', '    done: bool = False\n    priority: str = "normal"\n') +
      lines(
        '',
        '',
        'def set_priority(todos: list[Todo], index: int, level: str) -> list[Todo]:',
        '    """A new list where the todo at `index` has priority `level`."""',
        '    if level not in PRIORITIES:',
        '        raise ValueError(f"unknown priority: {level}")',
        '    if not 0 <= index < len(todos):',
        '        raise IndexError(f"no todo at {index}")',
        '    return [replace(t, priority=level) if i == index else t for i, t in enumerate(todos)]',
      ),
    ownTests: 'python -m unittest discover -s tests -t .',
    checkShows: /Ran 2 tests[\s\S]*OK/,
    rule: 'tests/test_t<NNN>_<slug>.py',
    afterMerge: { command: ['.venv/bin/python', '-m', 'unittest', 'discover', '-s', 'tests', '-t', '.'], shows: /Ran 6 tests[\s\S]*OK/ },
  },
  'go-todo': {
    example: 'go-todo',
    preset: 'go',
    brief: 'Let a todo carry a priority.',
    question: { question: 'Which priority levels should a todo accept?', options: ['low, normal and high', 'a number from 1 to 5'] },
    answer: 'low, normal and high',
    task: {
      id: 'T-001',
      title: 'Todos carry a priority',
      description: 'Todo gains a Priority field (the zero value means "normal"), and SetPriority(todos, index, level) in todo/todo.go sets it.',
      acceptance_criteria: [
        "SetPriority returns a new list with that todo's priority set, leaving the input unchanged",
        'SetPriority returns an error for an unknown level',
      ],
      // As the interviewer may write them: a subtest by its t.Run title; the sink stores go's full name.
      criteria_tests: [['returns a copy with the level set'], ['TestSetPriority/refuses an unknown level']],
    },
    storedTests: [['TestSetPriority/returns_a_copy_with_the_level_set'], ['TestSetPriority/refuses_an_unknown_level']],
    redShows: /SetPriority is not defined yet/,
    testFile: 'todo/t001_priority_test.go',
    test: lines(
      'package todo',
      '',
      'import "testing"',
      '',
      'func TestSetPriority(t *testing.T) {',
      '\tt.Run("returns a copy with the level set", func(t *testing.T) {',
      '\t\ttodos, _ := Add(nil, "water plants")',
      '\t\tchanged, err := SetPriority(todos, 0, "high")',
      '\t\tif err != nil {',
      '\t\t\tt.Fatal(err)',
      '\t\t}',
      '\t\tif changed[0].Priority != "high" || todos[0].Priority != "" {',
      '\t\t\tt.Errorf("got %q, input now %q", changed[0].Priority, todos[0].Priority)',
      '\t\t}',
      '\t})',
      '\tt.Run("refuses an unknown level", func(t *testing.T) {',
      '\t\ttodos, _ := Add(nil, "x")',
      '\t\tif _, err := SetPriority(todos, 0, "urgent"); err == nil {',
      '\t\t\tt.Error("want an error for an unknown priority")',
      '\t\t}',
      '\t})',
      '}',
    ),
    source: 'todo/todo.go',
    change: (original) =>
      original.replace('\tDone  bool\n', '\tDone  bool\n\t// Priority is "low", "normal" or "high"; empty means normal.\n\tPriority string\n') +
      lines(
        '',
        '// SetPriority returns a new list where the todo at index has priority level.',
        'func SetPriority(todos []Todo, index int, level string) ([]Todo, error) {',
        '\tswitch level {',
        '\tcase "low", "normal", "high":',
        '\tdefault:',
        '\t\treturn nil, fmt.Errorf("unknown priority: %s", level)',
        '\t}',
        '\tif index < 0 || index >= len(todos) {',
        '\t\treturn nil, fmt.Errorf("no todo at %d", index)',
        '\t}',
        '\tout := make([]Todo, len(todos))',
        '\tcopy(out, todos)',
        '\tout[index].Priority = level',
        '\treturn out, nil',
        '}',
      ).trimEnd(),
    ownTests: 'go test ./...',
    checkShows: /--- PASS: TestSetPriority \([\s\S]*--- PASS: TestSetPriority\/refuses_an_unknown_level/,
    rule: '<package folder>/t<NNN>_<slug>_test.go',
    afterMerge: { command: ['go', 'test', '-count=1', '-v', './...'], shows: /--- PASS: TestSetPriority[\s\S]*ok\s+example\.com\/todo\/todo/ },
  },
  'rust-todo': {
    example: 'rust-todo',
    preset: 'cargo',
    brief: 'Let a todo carry a priority.',
    question: { question: 'Which priority levels should a todo accept?', options: ['low, normal and high', 'a number from 1 to 5'] },
    answer: 'low, normal and high',
    task: {
      id: 'T-001',
      title: 'Todos carry a priority',
      description: 'Todo gains a priority (a Priority enum, Normal by default), and set_priority(todos, index, level) in src/lib.rs sets it from its name.',
      acceptance_criteria: [
        "set_priority returns a new list with that todo's priority set, leaving the input unchanged",
        'set_priority returns an error for an unknown level',
      ],
      // As the interviewer may write them: a case inside a `mod` by its bare name; the sink stores libtest's full name.
      criteria_tests: [['sets_the_level_on_a_copy'], ['an_unknown_level']],
    },
    storedTests: [['sets_the_level_on_a_copy'], ['refuses::an_unknown_level']],
    redShows: /set_priority/,
    testFile: 'tests/t001_priority.rs',
    test: lines(
      'use todo_list::{add, set_priority, Priority, TodoError};',
      '',
      '#[test]',
      'fn sets_the_level_on_a_copy() {',
      '    let todos = add(&[], "water plants").unwrap();',
      '    let changed = set_priority(&todos, 0, "high").unwrap();',
      '    assert_eq!(changed[0].priority, Priority::High);',
      '    assert_eq!(todos[0].priority, Priority::Normal);',
      '}',
      '',
      'mod refuses {',
      '    use super::*;',
      '',
      '    #[test]',
      '    fn an_unknown_level() {',
      '        let todos = add(&[], "x").unwrap();',
      '        assert_eq!(',
      '            set_priority(&todos, 0, "urgent"),',
      '            Err(TodoError::UnknownPriority("urgent".to_string()))',
      '        );',
      '    }',
      '}',
    ),
    source: 'src/lib.rs',
    change: (original) =>
      original
        .replace('    pub done: bool,\n}', '    pub done: bool,\n    pub priority: Priority,\n}')
        .replace('        done: false,\n', '        done: false,\n        priority: Priority::Normal,\n')
        .replace(
          '    NoTodoAt(usize),\n}',
          '    NoTodoAt(usize),\n    /// A priority level that is not one of low, normal and high.\n    UnknownPriority(String),\n}',
        )
        .replace(
          '            TodoError::NoTodoAt(index) => write!(f, "no todo at {index}"),\n',
          '            TodoError::NoTodoAt(index) => write!(f, "no todo at {index}"),\n            TodoError::UnknownPriority(level) => write!(f, "unknown priority: {level}"),\n',
        ) +
      lines(
        '',
        '/// How urgent a todo is.',
        '#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]',
        'pub enum Priority {',
        '    Low,',
        '    #[default]',
        '    Normal,',
        '    High,',
        '}',
        '',
        '/// A new list where the todo at `index` has the priority named `level`.',
        'pub fn set_priority(todos: &[Todo], index: usize, level: &str) -> Result<Vec<Todo>, TodoError> {',
        '    let priority = match level {',
        '        "low" => Priority::Low,',
        '        "normal" => Priority::Normal,',
        '        "high" => Priority::High,',
        '        _ => return Err(TodoError::UnknownPriority(level.to_string())),',
        '    };',
        '    if index >= todos.len() {',
        '        return Err(TodoError::NoTodoAt(index));',
        '    }',
        '    let mut out = todos.to_vec();',
        '    out[index].priority = priority;',
        '    Ok(out)',
        '}',
      ),
    ownTests: 'cargo test',
    checkShows: /test refuses::an_unknown_level \.\.\. ok[\s\S]*test result: ok\. 2 passed/,
    rule: 'tests/t<NNN>_<slug>.rs',
    afterMerge: { command: ['cargo', 'test'], shows: /test sets_the_level_on_a_copy \.\.\. ok[\s\S]*test result: ok\. 2 passed/ },
  },
  'pnpm-mono': {
    example: 'pnpm-mono',
    // A pnpm workspace: the session's preset is the runner its packages use (a tie keeps the first),
    // and each test runs from its own package's folder with that package's runner.
    preset: 'node',
    brief: 'Let the command line read a list back with its done marks.',
    question: { question: 'How should a done todo be written in a list?', options: ['[x] before the title, as formatList writes it', 'A trailing ✓'] },
    answer: '[x] before the title, as formatList writes it',
    task: {
      id: 'T-001',
      title: 'parseList reads done marks',
      description: 'parseList in packages/cli/src/format.js reads `[x] title` as a done todo and `[ ] title` as an open one, using @mono/core.',
      acceptance_criteria: ['parseList reads a line starting with [x] as a done todo and [ ] as an open one', 'formatList and parseList round-trip a list'],
      criteria_tests: [['reads [x] lines as done and [ ] lines as open'], ['round-trips a formatted list']],
    },
    redShows: /an assertion failed|Expected values to be strictly deep-equal/,
    testFile: 'packages/cli/test/t001_done_marks.test.js',
    test: lines(
      "import assert from 'node:assert/strict';",
      "import { test } from 'node:test';",
      "import { formatList, parseList } from '../src/format.js';",
      '',
      "test('reads [x] lines as done and [ ] lines as open', () => {",
      "  assert.deepEqual(parseList('[x] pay rent\\n[ ] water plants'), [",
      "    { title: 'pay rent', done: true },",
      "    { title: 'water plants', done: false },",
      '  ]);',
      '});',
      '',
      "test('round-trips a formatted list', () => {",
      "  const text = '[ ] a\\n[x] b';",
      '  assert.equal(formatList(parseList(text)), text);',
      '});',
    ),
    source: 'packages/cli/src/format.js',
    change: (original) =>
      original
        .replace("import { createTodo } from '@mono/core';", "import { complete, createTodo } from '@mono/core';")
        .replace(
          '    .map((line) => createTodo(line));',
          lines(
            '    .map((line) => {',
            '      const mark = /^\\[( |x)\\] (.*)$/.exec(line.trim());',
            '      if (!mark) return createTodo(line);',
            "      const todo = createTodo(mark[2] ?? '');",
            "      return mark[1] === 'x' ? complete(todo) : todo;",
            '    });',
          ).trimEnd(),
        ),
    ownTests: 'cd packages/cli && npm test',
    checkShows: /^── packages\/cli \(node, run from the package's folder\) ──$/m,
    checkHides: /packages\/core|todo\.test\.js/,
    rule: 'packages/cli/test/t<NNN>_<slug>.test.js',
    afterMerge: {
      command: ['npx', '--yes', 'pnpm@9.15.9', '-r', 'test'],
      shows: /packages\/core test:[\s\S]*Test Files {2}1 passed[\s\S]*packages\/cli test: # pass 4/,
    },
  },
};

/** The scripted model for one journey; `trace` fills in as it is asked. */
export function journeyResponder(plan: JourneyPlan, trace: JourneyTrace): FakeResponder {
  return (request) => {
    const tools = toolsOffered(request);
    const talk = readConversation(request.messages, [...tools]);
    const role = roleOf(tools);
    let reply: ScriptedReplyInput;
    if (role === 'interview') {
      trace.interviewPrompt ??= talk.system;
      const looked = talk.steps.some((s) => s.name === 'read_file' && succeeded(s));
      const answered = talk.steps.some((s) => s.name === 'ask_user' && succeeded(s));
      reply = !looked
        ? turn(call('read_file', { path: plan.source }), call('read_file', { path: 'AGENTS.md' }))
        : !answered
          ? turn(call('ask_user', { ...plan.question }))
          : turn(
              call('write_seed', {
                prd_entries: [plan.task],
                test_files: { [plan.testFile]: plan.test },
                tldr: `- **T-001:** ${plan.task.title}`,
                open_questions: [],
                blockers: [],
                scope_notes: `The user chose: ${plan.answer}.`,
              }),
            );
    } else if (role === 'worker') {
      const read = talk.steps.find((s) => s.name === 'read_file' && s.args.path === plan.source && succeeded(s));
      const written = talk.steps.some((s) => s.name === 'write_file' && succeeded(s));
      const ran = talk.steps.find((s) => s.name === 'bash' && s.result !== null);
      if (ran) trace.ownTestsOutput = ran.result;
      reply = !read
        ? turn(call('read_file', { path: plan.source }))
        : !written
          ? turn(call('write_file', { path: plan.source, content: plan.change(read.result!) }))
          : !ran
            ? turn(call('bash', { command: plan.ownTests }))
            : turn(
                call('submit_case', {
                  summary: `${plan.task.title}: done.`,
                  ac_coverage: plan.task.acceptance_criteria.map((c) => ({ criterion: c, addressed_by: plan.source, evidence: plan.testFile })),
                }),
              );
    } else if (role === 'evaluator') {
      const failing = /^### .+ — FAIL$/m.test(talk.prompt);
      reply = turn(
        call(
          'submit_verdict',
          failing
            ? {
                verdict: 'reject',
                rejection_category: 'half_finished',
                concern: 'A check fails.',
                next_step: 'Make every check pass.',
                evidence: [plan.testFile],
              }
            : { verdict: 'accept', concern: 'The checks pass and the change does what the task asks.', evidence: [plan.testFile] },
        ),
      );
    } else {
      reply = { content: '{"learning": null}', usage: usage(300, 8) };
    }
    return withCallIds(request, reply, 'journey');
  };
}
