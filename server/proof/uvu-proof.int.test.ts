/**
 * The red and green proofs and the contract check on a uvu project (issue 29), installed from its
 * lockfile, through Tilth's own uvu runner in the sandbox: each named case runs alone by its full
 * name (`suite › title`) and is read from the runner's JSON report. Red before the work: a call of
 * what the task adds, a named import not exported yet, a module the task creates. Not red: a case
 * skipped, or left out by a sibling's `only`, a name the file lacks, a file that registers no test
 * or does not parse.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectSandbox } from '../proc/sandbox.ts';
import { exampleSeeder, proofTask, sourceLines } from '../testing/proof-seed.ts';
import { checkContract } from './contract-check.ts';
import { proveCases } from './red-proof.ts';

const SLOW = 240_000;

const js = sourceLines;
const task = proofTask;

/** uvu-todo with `files` written in, as seed review checks and proves them. */
const { seed, dir } = exampleSeeder('uvu-todo', 'uvu');

const MIXED = js(
  "import { suite, test } from 'uvu';",
  "import * as assert from 'uvu/assert';",
  "import { addTodo, pending } from '../src/todo.js';",
  '',
  "const Pending = suite('pending', { seen: [] });",
  'Pending.before.each((state) => { state.seen.push(state.__test__); });',
  "Pending('passes already', () => { assert.equal(pending([]), []); });",
  "Pending('fails an assertion', () => { assert.is(pending(addTodo([], 'a')).length, 2); });",
  "Pending.skip('is skipped', () => { assert.unreachable(); });",
  "Pending('sees its own name', (state) => { assert.equal(state.seen, ['sees its own name']); });",
  'Pending.run();',
  '',
  "const Only = suite('only');",
  "Only.only('runs', () => { assert.ok(true); });",
  "Only('is left out', () => { assert.unreachable(); });",
  'Only.run();',
  '',
  "test('stands alone', () => { assert.is(pending([]).length, 0); });",
  'test.run();',
);

const sandboxed = detectSandbox('auto').available;

describe.runIf(sandboxed)("proofs on a uvu project, through Tilth's uvu runner", () => {
  it(
    "proves each case alone by its full name or its bare title, with uvu's hooks and state: passes, fails, skipped, left out by only, a name the file lacks",
    async () => {
      const file = 'tests/t001_mixed.test.js';
      const prd = [
        task('T-001', 'Mixed cases.', [
          ['pending › passes already'],
          ['fails an assertion'],
          ['pending › is skipped'],
          ['pending › sees its own name'],
          ['only › runs'],
          ['only › is left out'],
          ['pending › not there'],
          ['stands alone'],
        ]),
      ];
      const proofs = (await proveCases(await seed(prd, { [file]: MIXED }), prd))['T-001']!;
      expect(proofs.map((p) => [p.test, p.result])).toEqual([
        ['pending › passes already', 'passed'],
        ['fails an assertion', 'failed'],
        ['pending › is skipped', 'not_run'],
        // Run alone, the before.each hook saw this case's name only.
        ['pending › sees its own name', 'passed'],
        ['only › runs', 'passed'],
        ['only › is left out', 'not_run'],
        ['pending › not there', 'not_run'],
        ['stands alone', 'passed'],
      ]);
      expect(proofs[1]!.detail).toBe('an assertion failed');
      expect(proofs[2]!.detail).toMatch(/was skipped by uvu in tests\/t001_mixed\.test\.js/);
      expect(proofs[5]!.detail).toMatch(/was skipped by uvu/);
      expect(proofs[6]!.detail).toMatch(/was not collected by uvu in tests\/t001_mixed\.test\.js/);
    },
    SLOW,
  );

  it(
    'is red on a call of what the task adds, a named import not exported yet and a module not there yet; green once the work is done',
    async () => {
      const calls = js(
        "import { test } from 'uvu';",
        "import * as assert from 'uvu/assert';",
        "import * as todo from '../src/todo.js';",
        "test('archives done todos', () => { assert.equal(todo.archive([]), []); });",
        'test.run();',
      );
      const named = js(
        "import { suite } from 'uvu';",
        "import { is } from 'uvu/assert';",
        "import { rename } from '../src/todo.js';",
        "const Todo = suite('todo');",
        "Todo('renames a todo', () => { is(rename({ title: 'a', done: false }, 'b').title, 'b'); });",
        'Todo.run();',
      );
      const module = js(
        "import { test } from 'uvu';",
        "import * as assert from 'uvu/assert';",
        "import { count } from '../src/stats.js';",
        "test('counts todos', () => { assert.is(count([]), 0); });",
        'test.run();',
      );
      const files = { 'tests/t001_archive.test.js': calls, 'tests/t002_rename.test.js': named, 'tests/t003_count.test.js': module };
      const prd = [
        task('T-001', 'Add archive to src/todo.js.', [['archives done todos']]),
        task('T-002', 'Add rename to src/todo.js.', [['todo › renames a todo']]),
        task('T-003', 'A stats module with count.', [['counts todos']]),
      ];
      const input = await seed(prd, files);
      const red = await proveCases(input, prd);
      expect(red['T-001']).toMatchObject([{ test: 'archives done todos', result: 'failed', detail: 'what the task adds is missing' }]);
      expect(red['T-002']).toMatchObject([{ test: 'todo › renames a todo', result: 'failed' }]);
      expect(red['T-003']).toMatchObject([{ test: 'counts todos', result: 'failed', detail: 'src/stats.js does not exist yet' }]);
      expect(await checkContract(input)).toEqual([]);

      fs.appendFileSync(
        path.join(dir(), 'src/todo.js'),
        js(
          '',
          '/** @param {Todo[]} todos @returns {Todo[]} */',
          'export function archive(todos) { return todos.filter((t) => t.done); }',
          '/** @param {Todo} todo @param {string} title @returns {Todo} */',
          'export function rename(todo, title) { return { ...todo, title }; }',
        ),
      );
      fs.writeFileSync(
        path.join(dir(), 'src/stats.js'),
        js('/** @param {unknown[]} xs @returns {number} */', 'export function count(xs) { return xs.length; }'),
      );
      const green = await proveCases(input, prd);
      expect([...green['T-001']!, ...green['T-002']!, ...green['T-003']!].map((p) => p.result)).toEqual(['passed', 'passed', 'passed']);
    },
    SLOW,
  );

  it(
    'refuses, before any work, a file that registers no uvu test and one that does not parse',
    async () => {
      const bare = js(
        "import { test } from 'uvu';",
        "import { pending } from '../src/todo.js';",
        "test('opens', () => {});",
        'export const open = pending([]);',
      );
      const broken = js("import { test } from 'uvu';", "import * as assert from 'uvu/assert';", "test('breaks', () => { assert.is(1, ; });", 'test.run();');
      const files = { 'tests/t001_bare.test.js': bare, 'tests/t002_broken.test.js': broken };
      const prd = [task('T-001', 'Bare.', [['opens']]), task('T-002', 'Broken.', [['breaks']])];
      const input = await seed(prd, files);
      const proofs = await proveCases(input, prd);
      expect(proofs['T-001']).toMatchObject([
        { result: 'error', detail: expect.stringMatching(/^tests\/t001_bare\.test\.js declares no uvu test: no suite of it called `\.run\(\)`/) },
      ]);
      expect(proofs['T-002']).toMatchObject([{ result: 'error', detail: expect.stringMatching(/does not parse: SyntaxError/) }]);
      const warnings = await checkContract(input);
      expect(warnings.map((w) => [w.task_id, w.kind])).toEqual([
        ['T-001', 'no_assertions'],
        ['T-001', 'does_not_load'],
        ['T-002', 'environment'],
      ]);
    },
    SLOW,
  );
});
