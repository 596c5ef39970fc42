/**
 * The red and green proofs and the contract check through the universal path (issue 29, step 6):
 * bun 1.4.5, installed from bun-todo's lockfile, run by a custom command that writes JUnit to
 * `{junit}`, in the sandbox. Each named case is read from the report by its title or its full
 * name; with no one-case command a case's proof runs its whole file. Red before the work: a call
 * of what the task adds, a module it creates (a file bun leaves out of its report, read from the
 * run's output). Not red: a skipped case, a name the file lacks, a file that does not parse.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CustomChecks, PrdEntry } from '../../shared/files.ts';
import type { ExampleRepo } from '../demo/example-repo.ts';
import { detectSandbox } from '../proc/sandbox.ts';
import { proofTask, seededExample, sourceLines } from '../testing/proof-seed.ts';
import { checkContract, type ContractCheckInput } from './contract-check.ts';
import { proveCases } from './red-proof.ts';

const SLOW = 240_000;
let repo: ExampleRepo | null = null;
afterEach(async () => {
  await repo?.cleanup();
  repo = null;
});

const js = sourceLines;
const task = proofTask;
const BUN = 'node_modules/.bin/bun test';
const WHOLE_FILE: CustomChecks = { test: `${BUN} {files} --reporter=junit --reporter-outfile={junit}` };
const ONE_CASE: CustomChecks = { ...WHOLE_FILE, case: `${BUN} {file} -t {case_pattern} --reporter=junit --reporter-outfile={junit}` };

/** bun-todo with `files` written in, as seed review checks and proves them with the custom commands. */
async function seed(prd: PrdEntry[], files: Record<string, string>, customChecks: CustomChecks = WHOLE_FILE): Promise<ContractCheckInput> {
  const seeded = await seededExample('bun-todo', 'custom', prd, files, { detect: true, customChecks });
  repo = seeded.repo;
  return seeded.input;
}

const MIXED = js(
  "import { describe, expect, test } from 'bun:test';",
  "import { addTodo, pending } from '../src/todo.js';",
  '',
  "test('passes already', () => { expect(pending([])).toEqual([]); });",
  "test('fails an assertion', () => { expect(pending(addTodo([], 'a')).length).toBe(2); });",
  "test.skip('is skipped', () => { expect(1).toBe(2); });",
  "describe('pending', () => {",
  "  test('leaves out done todos', () => { expect(pending([{ title: 'a', done: true }])).toEqual([]); });",
  '});',
);

const sandboxed = detectSandbox('auto').available;

describe.runIf(sandboxed)('proofs through a custom command that writes JUnit (bun)', () => {
  it(
    'proves each case from the report: passes, fails, skipped, a name the file lacks, a case inside describe by its title or its full name',
    async () => {
      const file = 'tests/t001_mixed.test.js';
      const prd = [
        task('T-001', 'Mixed cases.', [
          ['passes already'],
          ['fails an assertion'],
          ['is skipped'],
          ['not there'],
          ['leaves out done todos'],
          ['pending > leaves out done todos'],
        ]),
      ];
      const proofs = (await proveCases(await seed(prd, { [file]: MIXED }), prd))['T-001']!;
      expect(proofs.map((p) => [p.test, p.result])).toEqual([
        ['passes already', 'passed'],
        ['fails an assertion', 'failed'],
        ['is skipped', 'not_run'],
        ['not there', 'not_run'],
        ['leaves out done todos', 'passed'],
        ['pending > leaves out done todos', 'passed'],
      ]);
      expect(proofs[1]!.detail).toBe('an assertion failed');
      expect(proofs[2]!.detail).toMatch(/was skipped by the custom command in tests\/t001_mixed\.test\.js/);
      expect(proofs[3]!.detail).toMatch(/was not collected by the custom command in tests\/t001_mixed\.test\.js/);
    },
    SLOW,
  );

  it(
    'runs a case alone with the one-case command: only the named case ran, the others are filtered out',
    async () => {
      const file = 'tests/t001_mixed.test.js';
      const prd = [task('T-001', 'Mixed cases.', [['passes already'], ['fails an assertion']])];
      const proofs = (await proveCases(await seed(prd, { [file]: MIXED }, ONE_CASE), prd))['T-001']!;
      expect(proofs.map((p) => [p.test, p.result])).toEqual([
        ['passes already', 'passed'],
        ['fails an assertion', 'failed'],
      ]);
    },
    SLOW,
  );

  it(
    'is red on a call of what the task adds and on a module not there yet; green once the work is done',
    async () => {
      const calls = js(
        "import { expect, test } from 'bun:test';",
        "import * as todo from '../src/todo.js';",
        "test('archives done todos', () => { expect(todo.archive([])).toEqual([]); });",
      );
      const module = js(
        "import { expect, test } from 'bun:test';",
        "import { count } from '../src/stats.js';",
        "test('counts todos', () => { expect(count([])).toBe(0); });",
      );
      const files = { 'tests/t001_archive.test.js': calls, 'tests/t002_count.test.js': module };
      const prd = [task('T-001', 'Add archive to src/todo.js.', [['archives done todos']]), task('T-002', 'A stats module with count.', [['counts todos']])];
      const input = await seed(prd, files);
      const red = await proveCases(input, prd);
      expect(red['T-001']).toMatchObject([{ test: 'archives done todos', result: 'failed' }]);
      expect(red['T-002']).toMatchObject([{ test: 'counts todos', result: 'failed', detail: 'src/stats.js does not exist yet' }]);
      expect(await checkContract(input)).toEqual([]);

      fs.appendFileSync(path.join(repo!.dir, 'src/todo.js'), js('', 'export function archive(todos) { return todos.filter((t) => t.done); }'));
      fs.writeFileSync(path.join(repo!.dir, 'src/stats.js'), js('export function count(xs) { return xs.length; }'));
      const green = await proveCases(input, prd);
      expect([...green['T-001']!, ...green['T-002']!].map((p) => p.result)).toEqual(['passed', 'passed']);
    },
    SLOW,
  );

  it(
    'does not call a file that does not parse red',
    async () => {
      const broken = js("import { expect, test } from 'bun:test';", "test('breaks', () => { expect(1).toBe(; });");
      const prd = [task('T-001', 'Broken.', [['breaks']])];
      const proofs = await proveCases(await seed(prd, { 'tests/t001_broken.test.js': broken }), prd);
      expect(proofs['T-001']).toMatchObject([{ test: 'breaks', result: 'error' }]);
    },
    SLOW,
  );
});
