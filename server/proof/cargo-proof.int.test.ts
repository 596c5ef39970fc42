/**
 * The red and green proofs and the contract check on a Rust crate (issue 29), with the real cargo
 * in the sandbox: each named case runs alone by its exact libtest name (`module::name`) and is read
 * from cargo's own lines. What a Rust seed looks like before the work: an integration test that
 * calls what the task adds does not compile (red), as does one importing a module of the crate the
 * task creates; a syntax error, a crate the package does not depend on, an ignored case or a name
 * the file lacks is not red.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { PrdEntry } from '../../shared/files.ts';
import type { ExampleRepo } from '../demo/example-repo.ts';
import { detectSandbox } from '../proc/sandbox.ts';
import { proofTask, seededExample, sourceLines } from '../testing/proof-seed.ts';
import { checkContract, type ContractCheckInput } from './contract-check.ts';
import { proveCases } from './red-proof.ts';

const SLOW = 180_000;
let repo: ExampleRepo | null = null;
afterEach(async () => {
  await repo?.cleanup();
  repo = null;
});

const rs = sourceLines;
const task = proofTask;

/** rust-todo with `files` written in, as seed review checks and proves them. */
async function seed(prd: PrdEntry[], files: Record<string, string>): Promise<ContractCheckInput> {
  const seeded = await seededExample('rust-todo', 'cargo', prd, files);
  repo = seeded.repo;
  return seeded.input;
}

/** One test file with several cases, each a different kind. */
const MIXED = rs(
  'use todo_list::{add, pending};',
  '',
  '#[test]',
  'fn passes_already() {',
  '    assert!(pending(&[]).is_empty());',
  '}',
  '',
  'mod inner {',
  '    use super::*;',
  '',
  '    #[test]',
  '    fn fails_an_assertion() {',
  '        let todos = add(&[], "a").unwrap();',
  '        assert_eq!(pending(&todos).len(), 2, "want 2 pending");',
  '    }',
  '',
  '    #[test]',
  '    #[ignore]',
  '    fn is_ignored() {}',
  '}',
);

const sandboxed = detectSandbox('auto').available;

describe.runIf(sandboxed)('proofs on a Rust crate', () => {
  it(
    'proves each case alone by its full name: passes, fails, ignored, and a name the file lacks; a bare name inside a mod is not the case',
    async () => {
      const file = 'tests/t001_mixed.rs';
      const prd = [
        task('T-001', 'Mixed cases.', [['passes_already'], ['inner::fails_an_assertion'], ['inner::is_ignored'], ['inner::not_there'], ['fails_an_assertion']]),
      ];
      const proofs = (await proveCases(await seed(prd, { [file]: MIXED }), prd))['T-001']!;
      expect(proofs.map((p) => [p.test, p.result])).toEqual([
        ['passes_already', 'passed'],
        ['inner::fails_an_assertion', 'failed'],
        ['inner::is_ignored', 'not_run'],
        ['inner::not_there', 'not_run'],
        ['fails_an_assertion', 'not_run'],
      ]);
      expect(proofs[1]!.detail).toBe('an assertion failed');
      expect(proofs[2]!.detail).toMatch(/was skipped by cargo test/);
      expect(proofs[3]!.detail).toMatch(/was not collected by cargo test in tests\/t001_mixed\.rs/);
    },
    SLOW,
  );

  it(
    'is red on a call of what the task adds and on a module of the crate not there yet; green once the work is done',
    async () => {
      const calls = rs(
        'use todo_list::{add, archive};',
        '',
        '#[test]',
        'fn archives_nothing() {',
        '    assert!(archive(&add(&[], "a").unwrap()).is_empty());',
        '}',
      );
      const module = rs('#[test]', 'fn counts() {', '    assert_eq!(todo_list::stats::count(&[]), 0);', '}');
      const files = { 'tests/t001_archive.rs': calls, 'tests/t002_count.rs': module };
      const prd = [task('T-001', 'Add archive.', [['archives_nothing']]), task('T-002', 'A stats module with count.', [['counts']])];
      const input = await seed(prd, files);
      const red = await proveCases(input, prd);
      expect(red['T-001']).toMatchObject([{ test: 'archives_nothing', result: 'failed', detail: expect.stringMatching(/archive/) }]);
      expect(red['T-002']).toMatchObject([{ test: 'counts', result: 'failed', detail: expect.stringMatching(/stats/) }]);
      expect(await checkContract(input)).toEqual([]);

      fs.appendFileSync(
        path.join(repo!.dir, 'src/lib.rs'),
        rs(
          '',
          '/// The todos done.',
          'pub fn archive(todos: &[Todo]) -> Vec<Todo> {',
          '    todos.iter().filter(|t| t.done).cloned().collect()',
          '}',
          '',
          '/// Counting todos.',
          'pub mod stats {',
          '    /// How many.',
          '    pub fn count(todos: &[super::Todo]) -> usize {',
          '        todos.len()',
          '    }',
          '}',
        ),
      );
      const green = await proveCases(input, prd);
      expect([...green['T-001']!, ...green['T-002']!].map((p) => p.result)).toEqual(['passed', 'passed']);
    },
    SLOW,
  );

  it(
    'refuses, before any work, a file that does not parse and one that uses a crate the package does not depend on',
    async () => {
      const broken = rs('#[test]', 'fn broken() {', '    assert!(todo_list::pending(&[]).is_empty()', '}');
      const foreign = rs('use serde::Serialize;', '', '#[test]', 'fn foreign() {', '    assert!(todo_list::pending(&[]).is_empty());', '}');
      const files = { 'tests/t001_broken.rs': broken, 'tests/t002_foreign.rs': foreign };
      const prd = [task('T-001', 'Broken.', [['broken']]), task('T-002', 'Foreign.', [['foreign']])];
      const input = await seed(prd, files);
      const proofs = await proveCases(input, prd);
      expect(proofs['T-001']).toMatchObject([{ result: 'error', detail: expect.stringMatching(/does not parse/) }]);
      expect(proofs['T-002']).toMatchObject([{ result: 'error', detail: expect.stringMatching(/serde/) }]);
      const warnings = await checkContract(input);
      expect(warnings.map((w) => [w.task_id, w.kind])).toEqual([
        ['T-001', 'environment'],
        ['T-002', 'does_not_load'],
      ]);
    },
    SLOW,
  );
});
