/**
 * The runners' own reports on real projects installed as their users install them: pytest and
 * unittest on the py-todo example, node --test on js-todo, vitest (this checkout's, linked in as a
 * session's worktree gets it), mocha from the cjs-mocha example's lockfile, AVA from ava-todo's, node-tap from tap-todo's, uvu from uvu-todo's (through Tilth's own uvu runner),
 * jest 29 from the npm registry into a copy of it; and, through a custom command with {junit},
 * bun (bun-todo's lockfile) and node's junit. Each project gets a file with a case that passes,
 * one that fails and one that is skipped, and a file that does not load; the check names a case
 * that does not exist.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CustomChecks, EnvPlan } from '../../shared/files.ts';
import { makeExampleRepo, type ExampleName, type ExampleRepo } from '../demo/example-repo.ts';
import { testCommand } from '../env/presets.ts';
import { linkNodeModules, projectScope } from '../env/provision.ts';
import { PACKAGE_ROOT } from '../config/package-root.ts';
import type { UntrustedScope } from '../proc/untrusted.ts';
import { installExample, turnIntoJestProject } from '../testing/example-installs.ts';
import { RUNNER, type ReportPreset } from './report-parsers.ts';
import { acceptanceVerdict, runWithReport, withReport } from './runner-report.ts';
import { TEST_SANDBOX } from '../testing/sandbox.ts';

const repos: ExampleRepo[] = [];
afterAll(async () => {
  for (const r of repos) await r.cleanup();
});

const JS_CASES = (head: string, skip: string) =>
  `${head}\ndescribe('cases', () => {\n  it('passes', () => { assert.equal(1 + 1, 2); });\n  it('fails', () => { assert.equal(1 + 1, 3); });\n  ${skip}('is skipped', () => { assert.equal(1, 2); });\n});\n`;

/** js-todo with node:test files, for node's own preset and for its junit through a custom command. */
const NODE_PROJECT = {
  example: 'js-todo' as const,
  cases: 'tests/t001_cases.test.js',
  broken: 'tests/t002_broken.test.js',
  files: {
    'tests/t001_cases.test.js': JS_CASES("import { describe, it } from 'node:test';\nimport assert from 'node:assert/strict';", 'it.skip'),
    'tests/t002_broken.test.js': "import { it } from 'node:test';\nimport { divide } from '../src/divide.js';\nit('divides', () => divide(4, 2));\n",
  },
  named: 'nowhere',
};

/** The example installed from its lockfile, as its README says; nothing more for the scope. */
const installed = (name: ExampleName) => async (repo: ExampleRepo) => {
  await installExample(repo.dir, name);
  return undefined;
};

interface Setup {
  preset: ReportPreset;
  /** The custom preset's commands, for `junit`. */
  custom?: CustomChecks;
  example: ExampleName;
  cases: string;
  broken: string;
  files: Record<string, string>;
  named: string;
  install?: (repo: ExampleRepo) => Promise<UntrustedScope['project']>;
}

const SETUPS: Setup[] = [
  {
    preset: 'pytest',
    example: 'py-todo',
    cases: 'tests/test_t001_cases.py',
    broken: 'tests/test_t002_broken.py',
    files: {
      'tests/test_t001_cases.py':
        'import pytest\n\n\ndef test_passes():\n    assert 1 + 1 == 2\n\n\ndef test_fails():\n    assert 1 + 1 == 3\n\n\n@pytest.mark.skip(reason="later")\ndef test_is_skipped():\n    assert False\n',
      'tests/test_t002_broken.py': 'from todo import divide\n\n\ndef test_divides():\n    assert divide(4, 2) == 2\n',
    },
    named: 'test_nowhere',
  },
  {
    preset: 'unittest',
    example: 'py-todo',
    cases: 'tests/test_t001_cases.py',
    broken: 'tests/test_t002_broken.py',
    files: {
      'tests/test_t001_cases.py':
        'import unittest\n\n\nclass TestCases(unittest.TestCase):\n    def test_passes(self):\n        self.assertEqual(1 + 1, 2)\n\n    def test_fails(self):\n        self.assertEqual(1 + 1, 3)\n\n    @unittest.skip("later")\n    def test_is_skipped(self):\n        self.fail()\n',
      'tests/test_t002_broken.py':
        'import unittest\nfrom calc import divide\n\n\nclass TestDivide(unittest.TestCase):\n    def test_divides(self):\n        self.assertEqual(divide(4, 2), 2)\n',
    },
    named: 'TestCases.test_nowhere',
  },
  {
    preset: 'node',
    ...NODE_PROJECT,
  },
  {
    preset: 'vitest',
    example: 'js-todo',
    cases: 'tests/t001_cases.test.js',
    broken: 'tests/t002_broken.test.js',
    files: {
      'tests/t001_cases.test.js': JS_CASES("import { describe, it } from 'vitest';\nimport assert from 'node:assert/strict';", 'it.skip'),
      'tests/t002_broken.test.js': "import { it } from 'vitest';\nimport { divide } from '../src/divide.js';\nit('divides', () => divide(4, 2));\n",
    },
    named: 'nowhere',
    install: async (repo) => {
      const installed = path.join(PACKAGE_ROOT, 'node_modules');
      linkNodeModules(installed, repo.dir);
      const plan: EnvPlan = { node_modules_from: installed, install: null, venv: null, python_path: [], setup: null };
      return projectScope(plan, repo.dir);
    },
  },
  {
    preset: 'mocha',
    example: 'cjs-mocha',
    cases: 'test/t001_cases.test.js',
    broken: 'test/t002_broken.test.js',
    files: {
      'test/t001_cases.test.js': JS_CASES("const assert = require('node:assert/strict');", 'it.skip'),
      'test/t002_broken.test.js': "require('../src/divide');\nit('divides', () => {});\n",
    },
    named: 'nowhere',
    install: installed('cjs-mocha'),
  },
  {
    preset: 'ava',
    example: 'ava-todo',
    cases: 'test/t001_cases.test.js',
    broken: 'test/t002_broken.test.js',
    files: {
      'test/t001_cases.test.js':
        "import test from 'ava';\ntest('passes', (t) => { t.is(1 + 1, 2); });\ntest('fails', (t) => { t.is(1 + 1, 3); });\ntest.skip('is skipped', (t) => { t.fail(); });\n",
      'test/t002_broken.test.js': "import test from 'ava';\nimport { divide } from '../src/divide.js';\ntest('divides', (t) => { t.is(divide(4, 2), 2); });\n",
    },
    named: 'nowhere',
    install: installed('ava-todo'),
  },
  {
    preset: 'tap',
    example: 'tap-todo',
    cases: 'test/t001_cases.test.js',
    broken: 'test/t002_broken.test.js',
    files: {
      'test/t001_cases.test.js':
        "const t = require('tap');\nt.test('cases', async (t) => {\n  t.test('passes', async (t) => { t.equal(1 + 1, 2); });\n  t.test('fails', async (t) => { t.equal(1 + 1, 3); });\n  t.test('is skipped', { skip: true }, async (t) => { t.fail(); });\n});\n",
      'test/t002_broken.test.js':
        "const t = require('tap');\nconst { divide } = require('../src/divide.js');\nt.test('divides', async (t) => { t.equal(divide(4, 2), 2); });\n",
    },
    named: 'nowhere',
    install: installed('tap-todo'),
  },
  {
    preset: 'uvu',
    example: 'uvu-todo',
    cases: 'tests/t001_cases.test.js',
    broken: 'tests/t002_broken.test.js',
    files: {
      'tests/t001_cases.test.js':
        "import { suite } from 'uvu';\nimport * as assert from 'uvu/assert';\nconst Cases = suite('cases');\nCases('passes', () => { assert.is(1 + 1, 2); });\nCases('fails', () => { assert.is(1 + 1, 3); });\nCases.skip('is skipped', () => { assert.unreachable(); });\nCases.run();\n",
      'tests/t002_broken.test.js':
        "import { test } from 'uvu';\nimport { divide } from '../src/divide.js';\ntest('divides', () => divide(4, 2));\ntest.run();\n",
    },
    named: 'nowhere',
    install: installed('uvu-todo'),
  },
  {
    preset: 'jest',
    example: 'cjs-mocha',
    cases: 'test/t001_cases.test.js',
    broken: 'test/t002_broken.test.js',
    files: {
      'test/t001_cases.test.js': JS_CASES("const assert = require('node:assert/strict');", 'it.skip'),
      'test/t002_broken.test.js': "require('../src/divide');\nit('divides', () => {});\n",
    },
    named: 'nowhere',
    install: async (repo) => {
      await turnIntoJestProject(repo.dir);
      return undefined;
    },
  },
  {
    // The universal path: bun test through a custom command that writes JUnit.
    preset: 'junit',
    custom: { test: 'node_modules/.bin/bun test {files} --reporter=junit --reporter-outfile={junit}' },
    example: 'bun-todo',
    cases: 'test/t001_cases.test.js',
    broken: 'test/t002_broken.test.js',
    files: {
      'test/t001_cases.test.js': JS_CASES("import { describe, it } from 'bun:test';\nimport assert from 'node:assert/strict';", 'it.skip'),
      'test/t002_broken.test.js': "import { it } from 'bun:test';\nimport { divide } from '../src/divide.js';\nit('divides', () => divide(4, 2));\n",
    },
    named: 'nowhere',
    install: installed('bun-todo'),
  },
  {
    // deno test through a custom command: it writes no report at all when a module is missing.
    preset: 'junit',
    custom: { test: 'node_modules/.bin/deno test {files} --junit-path={junit}' },
    example: 'deno-todo',
    cases: 'tests/t001_cases_test.js',
    broken: 'tests/t002_broken_test.js',
    files: {
      'tests/t001_cases_test.js':
        "Deno.test('passes', () => {});\nDeno.test('fails', () => { throw new Error('1 + 1 is not 3'); });\nDeno.test({ name: 'is skipped', ignore: true, fn() {} });\n",
      'tests/t002_broken_test.js': "import { divide } from '../src/divide.js';\nDeno.test('divides', () => divide(4, 2));\n",
    },
    named: 'nowhere',
    install: installed('deno-todo'),
  },
  {
    // node's junit through a custom command: a file that does not load is a case named by its path.
    preset: 'junit',
    custom: { test: 'node --test --test-reporter=spec --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination={junit} {files}' },
    ...NODE_PROJECT,
  },
];

describe.each(SETUPS)('the $preset report of a real project ($example)', (setup) => {
  it('names the file that does not load, lists the case that passes, the one that fails and the skipped one, and fails the check on a name that does not exist', async () => {
    const repo = await makeExampleRepo(setup.example);
    repos.push(repo);
    const deps = setup.install ? await setup.install(repo) : undefined;
    for (const [file, content] of Object.entries(setup.files)) fs.writeFileSync(path.join(repo.dir, file), content);
    const scope: UntrustedScope = { sandbox: TEST_SANDBOX, worktree: repo.dir, git: null, network: false, project: deps };
    const options = { timeoutMs: 120_000, env: setup.preset === 'pytest' ? { PYTEST_DISABLE_PLUGIN_AUTOLOAD: '1' } : {} };
    const run = (files: string[]) =>
      runWithReport(
        setup.preset,
        (file) => withReport(setup.preset, testCommand(setup.preset === 'junit' ? 'custom' : setup.preset, files, setup.custom), file, files, null),
        scope,
        options,
        files,
      );
    // Both files: the one that does not load is named (mocha then stops before any case runs).
    const both = await run([setup.cases, setup.broken]);
    expect(both.problem, both.output).toBeNull();
    expect(both.report!.loadErrors.map((e) => e.file)).toContain(setup.broken);
    const reported = await run([setup.cases]);
    expect(reported.problem, reported.output).toBeNull();
    const report = reported.report!;
    const byOutcome = Object.fromEntries(report.cases.map((c) => [c.name.replace(/^test_/, '').replaceAll('_', ' '), c.outcome]));
    expect(byOutcome).toEqual({ passes: 'passed', fails: 'failed', 'is skipped': 'skipped' });
    const verdict = acceptanceVerdict(setup.preset, reported, [setup.cases], [{ taskId: 'T-001', file: setup.cases, tests: [setup.named] }]);
    expect(verdict.passed).toBe(false);
    expect(verdict.reasons).toContain(
      `T-001's case \`${setup.named}\` was not collected by ${RUNNER[setup.preset]} in ${setup.cases}: no case by that name ran; check its name in the matrix against the file.`,
    );
    // The report folder is gone: nothing of it can reach the task's commit.
    expect(fs.readdirSync(repo.dir).filter((f) => f.startsWith('.tilth-report-'))).toEqual([]);
  }, 300_000);
});
