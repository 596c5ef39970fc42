/**
 * The red and green proofs and the contract check on a node-tap project (issue 29), installed
 * from its lockfile, with tap itself in the sandbox: each named case runs alone with a `--grep`
 * per level of its full name and is read from the TAP report. Red before the work: a call of what
 * the task adds, a destructured name not exported yet, a module the task creates. Not red: a
 * subtest tap never runs (skipped, todo), a name the file lacks, a file that does not use tap or
 * does not parse.
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

/** tap-todo with `files` written in, as seed review checks and proves them. */
const { seed, dir } = exampleSeeder('tap-todo', 'tap');

const MIXED = js(
  "const t = require('tap');",
  "const { addTodo, pending } = require('../src/todo.js');",
  '',
  "t.test('pending', async (t) => {",
  "  t.test('passes already', async (t) => { t.same(pending([]), []); });",
  "  t.test('fails an assertion', async (t) => { t.equal(pending(addTodo([], 'a')).length, 2); });",
  "  t.test('is skipped', { skip: true }, async (t) => { t.fail('never'); });",
  "  t.test('is a todo', { todo: true }, async (t) => { t.fail('never'); });",
  '});',
  "t.test('stands alone (with parentheses)', async (t) => { t.equal(pending([]).length, 0); });",
);

const sandboxed = detectSandbox('auto').available;

describe.runIf(sandboxed)('proofs on a node-tap project', () => {
  it(
    'proves each subtest alone by its full name or its bare title: passes, fails, skipped, todo, a name the file lacks',
    async () => {
      const file = 'test/t001_mixed.test.js';
      const prd = [
        task('T-001', 'Mixed cases.', [
          ['pending › passes already'],
          ['fails an assertion'],
          ['pending › is skipped'],
          ['pending › is a todo'],
          ['pending › not there'],
          ['stands alone (with parentheses)'],
        ]),
      ];
      const proofs = (await proveCases(await seed(prd, { [file]: MIXED }), prd))['T-001']!;
      expect(proofs.map((p) => [p.test, p.result])).toEqual([
        ['pending › passes already', 'passed'],
        ['fails an assertion', 'failed'],
        ['pending › is skipped', 'not_run'],
        ['pending › is a todo', 'not_run'],
        ['pending › not there', 'not_run'],
        ['stands alone (with parentheses)', 'passed'],
      ]);
      expect(proofs[1]!.detail).toBe('an assertion failed');
      expect(proofs[2]!.detail).toMatch(/was skipped by node-tap in test\/t001_mixed\.test\.js/);
      expect(proofs[3]!.detail).toMatch(/was skipped by node-tap/);
      expect(proofs[4]!.detail).toMatch(/was not collected by node-tap in test\/t001_mixed\.test\.js/);
    },
    SLOW,
  );

  it(
    'is red on a call of what the task adds, a name not exported yet and a module not there yet; green once the work is done',
    async () => {
      const calls = js(
        "const t = require('tap');",
        "const todo = require('../src/todo.js');",
        "t.test('archives done todos', async (t) => { t.same(todo.archive([]), []); });",
      );
      const named = js(
        "const t = require('tap');",
        "const { rename } = require('../src/todo.js');",
        "t.test('todo', async (t) => {",
        "  t.test('renames a todo', async (t) => { t.equal(rename({ title: 'a', done: false }, 'b').title, 'b'); });",
        '});',
      );
      const module = js(
        "const t = require('tap');",
        "const { count } = require('../src/stats.js');",
        "t.test('counts todos', async (t) => { t.equal(count([]), 0); });",
      );
      const files = { 'test/t001_archive.test.js': calls, 'test/t002_rename.test.js': named, 'test/t003_count.test.js': module };
      const prd = [
        task('T-001', 'Add archive to src/todo.js.', [['archives done todos']]),
        task('T-002', 'Add rename to src/todo.js.', [['todo › renames a todo']]),
        task('T-003', 'A stats module with count.', [['counts todos']]),
      ];
      const input = await seed(prd, files);
      const red = await proveCases(input, prd);
      expect(red['T-001']).toMatchObject([{ test: 'archives done todos', result: 'failed' }]);
      expect(red['T-002']).toMatchObject([{ test: 'todo › renames a todo', result: 'failed' }]);
      expect(red['T-003']).toMatchObject([{ test: 'counts todos', result: 'failed', detail: 'src/stats.js does not exist yet' }]);
      expect(await checkContract(input)).toEqual([]);

      const source = path.join(dir(), 'src/todo.js');
      fs.writeFileSync(
        source,
        fs
          .readFileSync(source, 'utf8')
          .replace(
            'module.exports = { addTodo, completeTodo, pending };',
            js(
              'const archive = (todos) => todos.filter((t) => t.done);',
              'const rename = (todo, title) => ({ ...todo, title });',
              'module.exports = { addTodo, completeTodo, pending, archive, rename };',
            ),
          ),
      );
      fs.writeFileSync(path.join(dir(), 'src/stats.js'), js('module.exports = { count: (xs) => xs.length };'));
      const green = await proveCases(input, prd);
      expect([...green['T-001']!, ...green['T-002']!, ...green['T-003']!].map((p) => p.result)).toEqual(['passed', 'passed', 'passed']);
    },
    SLOW,
  );

  it(
    'refuses, before any work, a file that does not use tap and one that does not parse',
    async () => {
      const bare = js("const { pending } = require('../src/todo.js');", 'module.exports = { open: pending([]) };');
      const broken = js("const t = require('tap');", "t.test('breaks', async (t) => { t.equal(1, ; });");
      const files = { 'test/t001_bare.test.js': bare, 'test/t002_broken.test.js': broken };
      const prd = [task('T-001', 'Bare.', [['opens']]), task('T-002', 'Broken.', [['breaks']])];
      const input = await seed(prd, files);
      const proofs = await proveCases(input, prd);
      expect(proofs['T-001']).toMatchObject([{ result: 'error', detail: expect.stringMatching(/^test\/t001_bare\.test\.js declares no node-tap test/) }]);
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
