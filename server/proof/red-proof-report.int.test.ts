/**
 * The red and green proofs read from the runner's own report (issue 28): the two normal red
 * shapes that were refused (pytest's exit 4 on a test importing what the task adds, vitest's
 * "Tests no tests" on an import of a module the task creates), a runner refusing the file, a
 * skipped case, and a case that both passes and fails over the repeats. The repeats after each
 * case's run alone run a task's named cases together, the runner's filter selecting exactly them
 * (issue 32).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CaseProof, EnvPlan, PrdEntry } from '../../shared/files.ts';
import type { ChecksPreset } from '../../shared/seed.ts';
import { makeExampleRepo, type ExampleName, type ExampleRepo } from '../demo/example-repo.ts';
import { linkNodeModules, projectScope } from '../env/provision.ts';
import { PACKAGE_ROOT } from '../config/package-root.ts';
import type { UntrustedScope } from '../proc/untrusted.ts';
import { turnIntoJestProject } from '../testing/example-installs.ts';
import { blocksRun, checkContract, type ContractCheckInput } from './contract-check.ts';
import { proveCases } from './red-proof.ts';
import { TEST_SANDBOX } from '../testing/sandbox.ts';

function task(id: string, description: string, tests: string[][]): PrdEntry {
  return { id, title: `Task ${id}`, description, acceptance_criteria: tests.map((_, i) => `criterion ${i + 1}`), criteria_tests: tests, status: 'pending' };
}

let repos: ExampleRepo[] = [];
afterEach(async () => {
  for (const r of repos) await r.cleanup();
  repos = [];
});

type SeedOptions = { env?: Record<string, string>; vitest?: boolean; jest?: boolean; repeats?: number };

async function prove(
  name: ExampleName,
  preset: ChecksPreset,
  prd: PrdEntry[],
  files: Record<string, string>,
  options: SeedOptions = {},
): Promise<Record<string, CaseProof[]>> {
  return proveCases(await seedIn(name, preset, prd, files, options), prd);
}

/** The example with the seed's test files written in, as the seed review checks and proves them. */
async function seedIn(
  name: ExampleName,
  preset: ChecksPreset,
  prd: PrdEntry[],
  files: Record<string, string>,
  options: SeedOptions,
): Promise<ContractCheckInput> {
  const repo = await makeExampleRepo(name);
  repos.push(repo);
  if (options.jest) await turnIntoJestProject(repo.dir);
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(repo.dir, file)), { recursive: true });
    fs.writeFileSync(path.join(repo.dir, file), content);
  }
  let deps: UntrustedScope['project'];
  if (options.jest) {
    const plan: EnvPlan = { node_modules_from: path.join(repo.dir, 'node_modules'), install: null, venv: null, python_path: [], setup: null };
    deps = projectScope(plan, repo.dir);
  }
  if (options.vitest) {
    // This checkout's vitest plays the user's, linked into the example as a session's worktree gets it.
    const installed = path.join(PACKAGE_ROOT, 'node_modules');
    linkNodeModules(installed, repo.dir);
    const plan: EnvPlan = { node_modules_from: installed, install: null, venv: null, python_path: [], setup: null };
    deps = projectScope(plan, repo.dir);
  }
  const scope: UntrustedScope = { sandbox: TEST_SANDBOX, worktree: repo.dir, git: null, network: false, project: deps };
  return { prd, testFiles: files, preset, scope, env: options.env ?? {}, ...(options.repeats ? { repeats: options.repeats } : {}) };
}

/** A test for node's own runner, the task's module not there yet: what an interview might write for the wrong runner. */
const NODE_TEST_DIVIDE =
  "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { divide } from '../src/divide.js';\ntest('divides', () => { assert.equal(divide(4, 2), 2); });\n";
const NODE_TEST_DIVIDE_CJS =
  "const { test } = require('node:test');\nconst assert = require('node:assert/strict');\nconst { divide } = require('../src/divide.js');\ntest('divides', () => { assert.equal(divide(4, 2), 2); });\n";

describe('red from the runner’s report', () => {
  it('pytest: a test whose first line imports a symbol the task adds is red, not "pytest refused to run" (exit 4)', async () => {
    const proofs = await prove(
      'py-todo',
      'pytest',
      [task('T-001', 'Add set_due to todo.', [['test_sets_due']])],
      { 'tests/test_t001_due.py': 'from todo import set_due\n\n\ndef test_sets_due():\n    assert set_due([], 0, "x") == []\n' },
      { env: { PYTEST_DISABLE_PLUGIN_AUTOLOAD: '1' } },
    );
    expect(proofs['T-001']).toEqual([{ test: 'test_sets_due', result: 'failed', detail: 'what the task adds is missing', runs: ['failed', 'failed'] }]);
  }, 90_000);

  it('pytest: a test importing a module the task creates is red', async () => {
    const proofs = await prove(
      'py-todo',
      'pytest',
      [task('T-001', 'Add a calc module with divide.', [['test_divides']])],
      { 'tests/test_t001_calc.py': 'from calc import divide\n\n\ndef test_divides():\n    assert divide(4, 2) == 2\n' },
      { env: { PYTEST_DISABLE_PLUGIN_AUTOLOAD: '1' }, repeats: 1 },
    );
    expect(proofs['T-001']).toEqual([{ test: 'test_divides', result: 'failed', detail: 'calc does not exist yet', runs: ['failed'] }]);
  }, 90_000);

  it('unittest: a case written as a bare function is not run, and says why (the loader would call it outside any result)', async () => {
    const proofs = await prove(
      'py-todo',
      'unittest',
      [task('T-001', 'Add set_due to todo.', [['test_sets_due']])],
      { 'tests/test_t001_due.py': 'from todo import add_todo\n\n\ndef test_sets_due():\n    assert add_todo([], "a")[0].due == "x"\n' },
      { repeats: 1 },
    );
    expect(proofs['T-001']).toEqual([
      {
        test: 'test_sets_due',
        result: 'not_run',
        detail: "T-001's case `test_sets_due` was not collected by unittest: a bare function is not a TestCase method",
        runs: ['not_run'],
      },
    ]);
  }, 60_000);

  it('vitest: "Test Files 1 failed, Tests no tests" on an import of a module the task creates is red, not a missing case', async () => {
    const proofs = await prove(
      'js-todo',
      'vitest',
      [task('T-001', 'Add a divide module.', [['divides']])],
      {
        'tests/t001_divide.test.js':
          "import { describe, expect, it } from 'vitest';\nimport { divide } from '../src/divide.js';\ndescribe('divide', () => { it('divides', () => { expect(divide(4, 2)).toBe(2); }); });\n",
      },
      { vitest: true, repeats: 1 },
    );
    expect(proofs['T-001']).toEqual([{ test: 'divides', result: 'failed', detail: 'src/divide.js does not exist yet', runs: ['failed'] }]);
  }, 120_000);

  it('node --test: a file the runner refuses (what ava says when run by node) is a case error naming the cause, never red', async () => {
    const proofs = await prove('js-todo', 'node', [task('T-001', 'Add a probe.', [['probes']])], {
      'tests/t001_probe.test.js': "throw new Error('Test files must be run with the AVA CLI:\\n\\n    $ ava tests/t001_probe.test.js');\n",
    });
    expect(proofs['T-001']![0]).toMatchObject({ result: 'error', detail: expect.stringContaining('Test files must be run with the AVA CLI') });
  }, 60_000);

  // Red on the seed commit (the module is missing) and never green: the project's runner would
  // find no case of its own once the module exists. The seed review stops it before the run.
  it.each([
    { preset: 'vitest' as const, example: 'js-todo' as const, file: 'tests/t001_divide.test.js', source: NODE_TEST_DIVIDE, runner: 'Vitest' },
    { preset: 'jest' as const, example: 'cjs-mocha' as const, file: 'tests/t001_divide.test.js', source: NODE_TEST_DIVIDE_CJS, runner: 'Jest' },
  ])(
    '$preset: a test written for node --test blocks the run at the seed review, naming the runner it is for',
    async ({ preset, example, file, source, runner }) => {
      const prd = [task('T-001', 'Add a divide module.', [['divides']])];
      const input = await seedIn(example, preset, prd, { [file]: source }, preset === 'vitest' ? { vitest: true } : { jest: true });
      const warnings = await checkContract(input);
      expect(blocksRun(warnings)).toBe(true);
      expect(warnings.filter((w) => w.kind === 'environment')).toEqual([
        {
          task_id: 'T-001',
          file,
          kind: 'environment',
          message: expect.stringContaining(
            `${file} is written for node --test: it imports node:test, but this project's tests run with ${runner}, which never runs node --test's cases`,
          ),
        },
      ]);
    },
    300_000,
  );

  it('node --test: a skipped named case did not run', async () => {
    const proofs = await prove('js-todo', 'node', [task('T-001', 'Sets due.', [['sets due']])], {
      'tests/t001_due.test.js':
        "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\ntest.skip('sets due', () => { assert.equal(1, 2); });\n",
    });
    expect(proofs['T-001']).toEqual([
      {
        test: 'sets due',
        result: 'not_run',
        detail: "T-001's case `sets due` was skipped by node --test in tests/t001_due.test.js, so it proves nothing",
        runs: ['not_run'],
      },
    ]);
  }, 60_000);

  it('node --test: a case that fails on one run and passes on the next is flaky, counted as neither', async () => {
    // The case keeps a counter in the worktree (the one place the sandbox lets it write): it fails its first run only.
    const flaky = [
      "import { test } from 'node:test';",
      "import assert from 'node:assert/strict';",
      "import fs from 'node:fs';",
      "test('sometimes', () => {",
      "  const seen = fs.existsSync('.count');",
      "  fs.writeFileSync('.count', 'x');",
      '  assert.equal(seen, true);',
      '});',
      '',
    ].join('\n');
    const proofs = await prove('js-todo', 'node', [task('T-001', 'Sometimes.', [['sometimes']])], { 'tests/t001_flaky.test.js': flaky });
    expect(proofs['T-001']![0]).toMatchObject({ result: 'flaky', runs: ['failed', 'passed'], detail: expect.stringContaining('it passed 1 of 2 runs') });
  }, 60_000);

  // Each case passes only when the file's unnamed case has not run before it in the same process:
  // two passes a case means the run of the named cases together selected them, and no other.
  const SPOILED = 'the unnamed case ran before this one';
  it.each([
    {
      preset: 'node' as const,
      example: 'js-todo' as const,
      options: {},
      file: 'tests/t001_pair.test.js',
      source: [
        "import { test } from 'node:test';",
        "import assert from 'node:assert/strict';",
        "test('spoils', () => { globalThis.spoiled = true; });",
        `test('adds', () => { assert.equal(globalThis.spoiled, undefined, '${SPOILED}'); });`,
        `test('counts', () => { assert.equal(globalThis.spoiled, undefined, '${SPOILED}'); });`,
        '',
      ].join('\n'),
      names: ['adds', 'counts'],
    },
    {
      preset: 'vitest' as const,
      example: 'js-todo' as const,
      options: { vitest: true },
      file: 'tests/t001_pair.test.js',
      source: [
        "import { describe, expect, it } from 'vitest';",
        "describe('pair', () => {",
        "  it('spoils', () => { globalThis.spoiled = true; });",
        "  it('adds (1+1)', () => { expect(globalThis.spoiled).toBeUndefined(); });",
        "  it('counts', () => { expect(globalThis.spoiled).toBeUndefined(); });",
        '});',
        '',
      ].join('\n'),
      names: ['pair › adds (1+1)', 'counts'],
    },
    {
      preset: 'pytest' as const,
      example: 'py-todo' as const,
      options: { env: { PYTEST_DISABLE_PLUGIN_AUTOLOAD: '1' } },
      file: 'tests/test_t001_pair.py',
      source: [
        'import builtins',
        '',
        '',
        'def test_spoils():',
        '    builtins.spoiled = True',
        '',
        '',
        'def test_adds():',
        `    assert not hasattr(builtins, 'spoiled'), '${SPOILED}'`,
        '',
        '',
        'class TestCounts:',
        '    def test_counts(self):',
        `        assert not hasattr(builtins, 'spoiled'), '${SPOILED}'`,
        '',
      ].join('\n'),
      names: ['test_adds', 'TestCounts::test_counts'],
    },
  ])(
    '$preset: after each case alone, the named cases run together in one process, and only they',
    async ({ preset, example, options, file, source, names }) => {
      const proofs = await prove(example, preset, [task('T-001', 'A pair.', [names])], { [file]: source }, options);
      expect(proofs['T-001']!.map((p) => [p.test, p.result, p.runs])).toEqual(names.map((name) => [name, 'passed', ['passed', 'passed']]));
    },
    120_000,
  );
});
