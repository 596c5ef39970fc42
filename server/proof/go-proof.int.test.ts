/**
 * The red and green proofs and the contract check on a Go module (issue 29), with the real
 * toolchain in the sandbox: each named case runs alone by its anchored name (`TestX/sub`) and is
 * read from `go test -json`. What a Go seed looks like before the work: a test that calls what
 * the task adds does not compile (red), as does one importing a package of the module the task
 * creates; a syntax error, a module the project does not require, a skipped subtest or a name the
 * file lacks is not red.
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

const SLOW = 120_000;
let repo: ExampleRepo | null = null;
afterEach(async () => {
  await repo?.cleanup();
  repo = null;
});

const go = sourceLines;
const task = proofTask;

/** go-todo with `files` written in, as seed review checks and proves them. */
async function seed(prd: PrdEntry[], files: Record<string, string>): Promise<ContractCheckInput> {
  const seeded = await seededExample('go-todo', 'go', prd, files);
  repo = seeded.repo;
  return seeded.input;
}

/** One test file with several subtests, each a different kind of case. */
const MIXED = go(
  'package todo',
  '',
  'import "testing"',
  '',
  'func TestMixed(t *testing.T) {',
  '\tt.Run("passes already", func(t *testing.T) {',
  '\t\tif got := Pending(nil); len(got) != 0 {',
  '\t\t\tt.Errorf("got %v", got)',
  '\t\t}',
  '\t})',
  '\tt.Run("fails an assertion", func(t *testing.T) {',
  '\t\ttodos, _ := Add(nil, "a")',
  '\t\tif len(Pending(todos)) != 2 {',
  '\t\t\tt.Errorf("want 2 pending")',
  '\t\t}',
  '\t})',
  '\tt.Run("is skipped", func(t *testing.T) {',
  '\t\tt.Skip("not yet")',
  '\t})',
  '}',
);

const sandboxed = detectSandbox('auto').available;

describe.runIf(sandboxed)('proofs on a Go module', () => {
  it(
    'proves each subtest alone by its full name: passes, fails, skipped, and a name the file lacks',
    async () => {
      const file = 'todo/t001_mixed_test.go';
      const prd = [
        task('T-001', 'Mixed cases.', [['TestMixed/passes_already'], ['TestMixed/fails_an_assertion'], ['TestMixed/is_skipped'], ['TestMixed/not_there']]),
      ];
      const proofs = (await proveCases(await seed(prd, { [file]: MIXED }), prd))['T-001']!;
      expect(proofs.map((p) => [p.test, p.result])).toEqual([
        ['TestMixed/passes_already', 'passed'],
        ['TestMixed/fails_an_assertion', 'failed'],
        ['TestMixed/is_skipped', 'not_run'],
        ['TestMixed/not_there', 'not_run'],
      ]);
      expect(proofs[1]!.detail).toBe('an assertion failed');
      expect(proofs[2]!.detail).toMatch(/was skipped by go test/);
      expect(proofs[3]!.detail).toMatch(/was not collected by go test in todo\/t001_mixed_test\.go/);
    },
    SLOW,
  );

  it(
    'is red on a call of what the task adds and on a package of the module not there yet; green once the work is done',
    async () => {
      const calls = go(
        'package todo',
        '',
        'import "testing"',
        '',
        'func TestArchive(t *testing.T) {',
        '\tif got := Archive(nil); len(got) != 0 {',
        '\t\tt.Fatalf("got %v", got)',
        '\t}',
        '}',
      );
      const imports = go(
        'package stats_test',
        '',
        'import (',
        '\t"testing"',
        '',
        '\t"example.com/todo/stats"',
        ')',
        '',
        'func TestCount(t *testing.T) {',
        '\tif stats.Count(nil) != 0 {',
        '\t\tt.Error("want 0")',
        '\t}',
        '}',
      );
      const files = { 'todo/t001_archive_test.go': calls, 'stats/t002_count_test.go': imports };
      const prd = [task('T-001', 'Add Archive.', [['TestArchive']]), task('T-002', 'A stats package with Count.', [['TestCount']])];
      const input = await seed(prd, files);
      const red = await proveCases(input, prd);
      expect(red['T-001']).toMatchObject([{ test: 'TestArchive', result: 'failed', detail: 'Archive is not defined yet' }]);
      expect(red['T-002']).toMatchObject([{ test: 'TestCount', result: 'failed', detail: 'the package example.com/todo/stats does not exist yet' }]);
      expect(await checkContract(input)).toEqual([]);

      fs.appendFileSync(path.join(repo!.dir, 'todo/todo.go'), go('', '// Archive returns the todos done.', 'func Archive(todos []Todo) []Todo { return nil }'));
      fs.writeFileSync(
        path.join(repo!.dir, 'stats/stats.go'),
        go('package stats', '', '// Count returns how many.', 'func Count(xs []string) int { return len(xs) }'),
      );
      const green = await proveCases(input, prd);
      expect([...green['T-001']!, ...green['T-002']!].map((p) => p.result)).toEqual(['passed', 'passed']);
    },
    SLOW,
  );

  it(
    'refuses, before any work, a file that does not parse and one that imports a module the project does not require',
    async () => {
      const broken = go('package todo', '', 'import "testing"', '', 'func TestBroken(t *testing.T) {', '\tif Add( {', '}');
      const foreign = go(
        'package todo',
        '',
        'import (',
        '\t"testing"',
        '',
        '\t"github.com/stretchr/testify/assert"',
        ')',
        '',
        'func TestForeign(t *testing.T) {',
        '\tassert.Equal(t, 1, len(Pending(nil)))',
        '}',
      );
      const files = { 'todo/t001_broken_test.go': broken, 'other/t002_foreign_test.go': foreign.replace('package todo', 'package other') };
      const prd = [task('T-001', 'Broken.', [['TestBroken']]), task('T-002', 'Foreign.', [['TestForeign']])];
      const input = await seed(prd, files);
      const proofs = await proveCases(input, prd);
      expect(proofs['T-001']).toMatchObject([{ result: 'error', detail: expect.stringMatching(/does not parse: line 6: expected operand/) }]);
      expect(proofs['T-002']).toMatchObject([
        { result: 'error', detail: expect.stringMatching(/imports github\.com\/stretchr\/testify\/assert, which the module does not require/) },
      ]);
      const warnings = await checkContract(input);
      expect(warnings.map((w) => [w.task_id, w.kind])).toEqual([
        ['T-001', 'no_assertions'],
        ['T-001', 'environment'],
        ['T-002', 'does_not_load'],
      ]);
    },
    SLOW,
  );
});
