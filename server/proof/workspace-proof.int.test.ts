/**
 * Workspaces beyond JavaScript (issue 29, step 4), with the real toolchains in the sandbox: a
 * Cargo workspace whose crate lives in `crates/todo` and a go.work whose module lives in `svc/`.
 * Each test runs from its package's folder (cargo finds the workspace above it, go its go.work),
 * each named case is proved alone, and the acceptance check reads the package's report back under
 * the root's paths.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { PrdEntry } from '../../shared/files.ts';
import { makeExampleRepo, type ExampleRepo } from '../demo/example-repo.ts';
import { runChecks } from './checks.ts';
import { detectProjectEnv } from '../env/detect.ts';
import { detectSandbox } from '../proc/sandbox.ts';
import { proofTask, sourceLines } from '../testing/proof-seed.ts';
import { checkContract, type ContractCheckInput } from './contract-check.ts';
import { proveCases } from './red-proof.ts';
import { TEST_SANDBOX } from '../testing/sandbox.ts';

const SLOW = 240_000;
let repo: ExampleRepo | null = null;
afterEach(async () => {
  await repo?.cleanup();
  repo = null;
});

/** An example moved into `dir` of a workspace whose root is `root` (files written at the top). */
async function workspaceOf(
  example: 'rust-todo' | 'go-todo',
  dir: string,
  root: Record<string, string>,
  files: Record<string, string>,
): Promise<ContractCheckInput> {
  repo = await makeExampleRepo(example);
  const moved = path.join(repo.dir, dir);
  fs.mkdirSync(moved, { recursive: true });
  for (const name of fs.readdirSync(repo.dir))
    if (name !== '.git' && name !== dir.split('/')[0]) fs.renameSync(path.join(repo.dir, name), path.join(moved, name));
  for (const [file, content] of Object.entries({ ...root, ...files })) {
    fs.mkdirSync(path.dirname(path.join(repo.dir, file)), { recursive: true });
    fs.writeFileSync(path.join(repo.dir, file), content);
  }
  const project = await detectProjectEnv(repo.dir);
  return {
    prd: [],
    testFiles: files,
    preset: project.test_runner!,
    project,
    scope: { sandbox: TEST_SANDBOX, worktree: repo.dir, git: null, network: false },
    env: {},
    repeats: 1,
  };
}

const sandboxed = detectSandbox('auto').available;

describe.runIf(sandboxed)('workspaces of Rust crates and Go modules', () => {
  it(
    "a Cargo workspace: the member's test proved case by case from its folder, red on what the task adds, and the acceptance check read under the root's paths",
    async () => {
      const file = 'crates/todo/tests/t001_count.rs';
      const test = sourceLines(
        'use todo_list::{add, pending};',
        '',
        '#[test]',
        'fn adds_one() {',
        '    assert_eq!(pending(&add(&[], "a").unwrap()).len(), 1);',
        '}',
        '',
        '#[test]',
        'fn counts_done() {',
        '    assert_eq!(todo_list::count_done(&[]), 0);',
        '}',
      );
      const input = await workspaceOf('rust-todo', 'crates/todo', { 'Cargo.toml': '[workspace]\nmembers = ["crates/*"]\nresolver = "2"\n' }, { [file]: test });
      expect(input.preset).toBe('cargo');
      expect(input.project?.workspace?.packages.map((p) => [p.dir, p.test_runner, p.rust_crate])).toEqual([['crates/todo', 'cargo', 'todo_list']]);
      // The Cargo.lock belongs at the workspace's root.
      fs.renameSync(path.join(repo!.dir, 'crates/todo/Cargo.lock'), path.join(repo!.dir, 'Cargo.lock'));
      const prd: PrdEntry[] = [proofTask('T-001', 'Count done todos.', [['adds_one'], ['counts_done']])];
      const red = await proveCases({ ...input, prd }, prd);
      // count_done is not there yet: the test target does not build, which is the missing work (red) for both.
      expect(red['T-001']!.map((p) => [p.test, p.result])).toEqual([
        ['adds_one', 'failed'],
        ['counts_done', 'failed'],
      ]);
      expect(red['T-001']![1]!.detail).toMatch(/count_done/);
      expect(await checkContract({ ...input, prd })).toEqual([]);

      const checks = await runChecks({
        scope: input.scope,
        preset: input.preset,
        env: input.project,
        testFiles: [file],
        changedFiles: [],
        lockedTests: {},
        namedCases: [{ taskId: 'T-001', file, tests: ['adds_one'] }],
      });
      const acceptance = checks.results.find((r) => r.name === 'acceptance')!;
      expect(acceptance.output).toMatch(/^── crates\/todo \(cargo, run from the package's folder\) ──$/m);
      // counts_done does not compile yet: the whole target fails, and the check says so.
      expect(acceptance.passed).toBe(false);
    },
    SLOW,
  );

  it(
    "a go.work module, then the same module with no go.work: the test beside its package in the module's folder, proved by go's own names from there",
    async () => {
      const file = 'svc/todo/t001_count_test.go';
      const test = sourceLines(
        'package todo',
        '',
        'import "testing"',
        '',
        'func TestCount(t *testing.T) {',
        '\tt.Run("none pending", func(t *testing.T) {',
        '\t\tif len(Pending(nil)) != 0 {',
        '\t\t\tt.Error("nil has none")',
        '\t\t}',
        '\t})',
        '\tt.Run("done counted", func(t *testing.T) {',
        '\t\tif CountDone(nil) != 0 {',
        '\t\t\tt.Error("nil has none")',
        '\t\t}',
        '\t})',
        '}',
      );
      const input = await workspaceOf('go-todo', 'svc', { 'go.work': 'go 1.19\n\nuse ./svc\n' }, { [file]: test });
      expect(input.preset).toBe('go');
      expect(input.project?.workspace?.packages.map((p) => [p.dir, p.name, p.test_dirs])).toEqual([['svc', 'example.com/todo', ['todo']]]);
      const prd: PrdEntry[] = [proofTask('T-001', 'Count done todos.', [['TestCount/none_pending'], ['TestCount/done_counted']])];
      const red = await proveCases({ ...input, prd }, prd);
      // CountDone is not there yet: the package does not build, which is the missing work (red) for both.
      expect(red['T-001']!.map((p) => [p.test, p.result])).toEqual([
        ['TestCount/none_pending', 'failed'],
        ['TestCount/done_counted', 'failed'],
      ]);
      expect(red['T-001']![1]!.detail).toMatch(/CountDone/);

      // The work done: each subtest passes, read from go's events under the root's path.
      fs.appendFileSync(
        path.join(repo!.dir, 'svc/todo/todo.go'),
        '\n// CountDone is how many todos are done.\nfunc CountDone(todos []Todo) int {\n\tn := 0\n\tfor _, t := range todos {\n\t\tif t.Done {\n\t\t\tn++\n\t\t}\n\t}\n\treturn n\n}\n',
      );
      const green = await proveCases({ ...input, prd }, prd);
      expect(green['T-001']!.map((p) => p.result)).toEqual(['passed', 'passed']);
      const checks = await runChecks({
        scope: input.scope,
        preset: input.preset,
        env: input.project,
        testFiles: [file],
        changedFiles: ['svc/todo/todo.go'],
        lockedTests: {},
        namedCases: [{ taskId: 'T-001', file, tests: ['TestCount/none_pending', 'TestCount/done_counted'] }],
      });
      expect(checks.results.map((r) => [r.name, r.passed])).toEqual([
        ['acceptance', true],
        ['lint', true],
      ]);
      // The same module with no go.work: found in its subfolder, and proved from there all the same.
      fs.rmSync(path.join(repo!.dir, 'go.work'));
      const nested = await detectProjectEnv(repo!.dir);
      expect(nested.workspace).toMatchObject({ tool: 'go', evidence: 'go.mod files in subfolders', packages: [{ dir: 'svc' }] });
      const again = await proveCases({ ...input, project: nested, prd }, prd);
      expect(again['T-001']!.map((p) => p.result)).toEqual(['passed', 'passed']);
      // go vet too runs in the module: from the root, with no go.work, it would find no module at all.
      const nestedChecks = await runChecks({
        scope: input.scope,
        preset: 'go',
        env: nested,
        testFiles: [file],
        changedFiles: ['svc/todo/todo.go'],
        lockedTests: {},
      });
      expect(nestedChecks.results.map((r) => [r.name, r.passed, r.output])).toEqual([
        ['acceptance', true, expect.stringContaining('── svc (go, run from the package')],
        ['lint', true, ''],
      ]);
      // A vet finding in the module fails the lint check.
      fs.writeFileSync(
        path.join(repo!.dir, 'svc/todo/shout.go'),
        'package todo\n\nimport "fmt"\n\n// Shout prints a title loudly.\nfunc Shout(title string) { fmt.Printf("%d!\\n", title) }\n',
      );
      const vetted = await runChecks({
        scope: input.scope,
        preset: 'go',
        env: nested,
        testFiles: [file],
        changedFiles: ['svc/todo/shout.go'],
        lockedTests: {},
      });
      expect(vetted.results.find((r) => r.name === 'lint')).toMatchObject({
        passed: false,
        output: expect.stringMatching(/shout\.go:6:\d+: .*Printf format %d has arg title of wrong type string/),
      });
    },
    SLOW,
  );
});
