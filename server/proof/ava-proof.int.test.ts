/**
 * The red and green proofs and the contract check on an AVA project (issue 29), installed from
 * its lockfile, with AVA itself in the sandbox: each named case runs alone with `--match` and is
 * read from the TAP report by its exact title. Red before the work: a call of what the task adds,
 * a named import it does not export yet, a module it creates. Not red: a test AVA never runs
 * (skipped, todo), a name the file lacks, a file that does not import AVA or does not parse.
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

/** ava-todo with `files` written in, as seed review checks and proves them. */
const { seed, dir } = exampleSeeder('ava-todo', 'ava');

const MIXED = js(
  "import test from 'ava';",
  "import { addTodo, pending } from '../src/todo.js';",
  '',
  "test('passes already', (t) => { t.deepEqual(pending([]), []); });",
  "test('fails an assertion', (t) => { t.is(pending(addTodo([], 'a')).length, 2); });",
  "test.skip('is skipped', (t) => { t.fail(); });",
  "test.todo('is a todo');",
  // AVA's --match takes `*` as a wildcard: both of these run when the first is named.
  "test('counts * todos', (t) => { t.is(pending([]).length, 1); });",
  "test('counts open todos', (t) => { t.is(pending([]).length, 0); });",
);

const sandboxed = detectSandbox('auto').available;

describe.runIf(sandboxed)('proofs on an AVA project', () => {
  it(
    'proves each case alone by its exact title: passes, fails, skipped, todo, a name the file lacks, and a title with a wildcard',
    async () => {
      const file = 'test/t001_mixed.test.js';
      const prd = [
        task('T-001', 'Mixed cases.', [['passes already'], ['fails an assertion'], ['is skipped'], ['is a todo'], ['not there'], ['counts * todos']]),
      ];
      const proofs = (await proveCases(await seed(prd, { [file]: MIXED }), prd))['T-001']!;
      expect(proofs.map((p) => [p.test, p.result])).toEqual([
        ['passes already', 'passed'],
        ['fails an assertion', 'failed'],
        ['is skipped', 'not_run'],
        ['is a todo', 'not_run'],
        ['not there', 'not_run'],
        // The case named failed; the other case AVA's pattern also ran passed, and says nothing of it.
        ['counts * todos', 'failed'],
      ]);
      expect(proofs[1]!.detail).toBe('an assertion failed');
      expect(proofs[2]!.detail).toMatch(/was skipped by AVA in test\/t001_mixed\.test\.js/);
      expect(proofs[3]!.detail).toMatch(/was skipped by AVA/);
      expect(proofs[4]!.detail).toMatch(/was not collected by AVA in test\/t001_mixed\.test\.js/);
    },
    SLOW,
  );

  it(
    'is red on a call of what the task adds, a named import not exported yet and a module not there yet; green once the work is done',
    async () => {
      const calls = js(
        "import test from 'ava';",
        "import * as todo from '../src/todo.js';",
        "test('archives done todos', (t) => { t.deepEqual(todo.archive([]), []); });",
      );
      const named = js(
        "import test from 'ava';",
        "import { rename } from '../src/todo.js';",
        "test('renames a todo', (t) => { t.is(rename({ title: 'a', done: false }, 'b').title, 'b'); });",
      );
      const module = js("import test from 'ava';", "import { count } from '../src/stats.js';", "test('counts todos', (t) => { t.is(count([]), 0); });");
      const files = { 'test/t001_archive.test.js': calls, 'test/t002_rename.test.js': named, 'test/t003_count.test.js': module };
      const prd = [
        task('T-001', 'Add archive to src/todo.js.', [['archives done todos']]),
        task('T-002', 'Add rename to src/todo.js.', [['renames a todo']]),
        task('T-003', 'A stats module with count.', [['counts todos']]),
      ];
      const input = await seed(prd, files);
      const red = await proveCases(input, prd);
      expect(red['T-001']).toMatchObject([{ test: 'archives done todos', result: 'failed' }]);
      expect(red['T-002']).toMatchObject([{ test: 'renames a todo', result: 'failed' }]);
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
    'refuses, before any work, a file that does not import AVA and one that does not parse',
    async () => {
      const bare = js("import { pending } from '../src/todo.js';", 'export const open = pending([]);');
      const broken = js("import test from 'ava';", "test('breaks', (t) => { t.is(1, ; });");
      const files = { 'test/t001_bare.test.js': bare, 'test/t002_broken.test.js': broken };
      const prd = [task('T-001', 'Bare.', [['opens']]), task('T-002', 'Broken.', [['breaks']])];
      const input = await seed(prd, files);
      const proofs = await proveCases(input, prd);
      expect(proofs['T-001']).toMatchObject([{ result: 'error', detail: expect.stringMatching(/^test\/t001_bare\.test\.js declares no AVA test/) }]);
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
