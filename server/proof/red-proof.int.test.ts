/**
 * The red proof on real runners: each named case runs alone in the sandbox, on an example repo
 * where the work is not done yet. node --test and pytest are the machine's; vitest is this
 * repository's own, linked into the example the way a session's worktree gets its checkout's
 * packages; mocha is the cjs-mocha example's, from its lockfile; jest 29 is installed from the
 * npm registry into a copy of it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaseProof, EnvPlan, PrdEntry } from '../../shared/files.ts';
import type { ProjectEnv } from '../../shared/project-env.ts';
import type { ChecksPreset } from '../../shared/seed.ts';
import { makeExampleRepo, type ExampleRepo } from '../demo/example-repo.ts';
import { detectProjectEnv } from '../env/detect.ts';
import { linkNodeModules, projectScope } from '../env/provision.ts';
import { PACKAGE_ROOT } from '../config/package-root.ts';
import type { UntrustedScope } from '../proc/untrusted.ts';
import { installExample, turnIntoJestProject } from '../testing/example-installs.ts';
import { proveCases } from './red-proof.ts';
import { TEST_SANDBOX } from '../testing/sandbox.ts';

function task(id: string, tests: string[][]): PrdEntry {
  return {
    id,
    title: `Task ${id}`,
    description: 'A feature.',
    acceptance_criteria: tests.map((_, i) => `criterion ${i + 1}`),
    criteria_tests: tests,
    status: 'pending',
  };
}

function write(dir: string, files: Record<string, string>): void {
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), content);
  }
}

interface ProveOptions {
  /** Extra environment for the runs. */
  env?: Record<string, string>;
  /** What detection found in the repository. */
  project?: ProjectEnv | null;
  /** The dependency folders outside the worktree and their variables, as a session's worktree gets them (env/provision.ts). */
  deps?: UntrustedScope['project'];
}

async function prove(repo: ExampleRepo, preset: ChecksPreset, prd: PrdEntry[], files: Record<string, string>, options: ProveOptions = {}) {
  write(repo.dir, files);
  const scope: UntrustedScope = { sandbox: TEST_SANDBOX, worktree: repo.dir, git: null, network: false, project: options.deps };
  return proveCases({ prd, testFiles: files, preset, project: options.project ?? null, scope, env: options.env ?? {} }, prd);
}

const results = (proofs: CaseProof[] | undefined) => Object.fromEntries((proofs ?? []).map((p) => [p.test, p.result]));

describe('the red proof with node --test', () => {
  let repo: ExampleRepo;
  let proofs: Record<string, CaseProof[]>;
  const head = "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\n";
  const files = {
    'tests/t001_due.test.js': [
      head,
      "import * as todo from '../src/todo.js';",
      "import { addTodo } from '../src/todo.js';",
      "test('sets the due date', () => { assert.equal(todo.setDue({ title: 'x' }, '2026-01-31').due, '2026-01-31'); });",
      "test('adds a todo', () => { assert.equal(addTodo([], 'a').length, 1); });",
      '',
    ].join('\n'),
    'tests/t002_broken.test.js': `${head}test('broken', () => {\n  assert.equal(1, 2;\n});\n`,
  };
  const prd = [task('T-001', [['sets the due date'], ['adds a todo'], ['not in the file']]), task('T-002', [['broken']])];

  beforeAll(async () => {
    repo = await makeExampleRepo('js-todo');
    proofs = await prove(repo, 'node', prd, files);
  }, 60_000);
  afterAll(() => repo.cleanup());

  it('calls a case that fails on the missing work red, and one that passes already passed', () => {
    expect(results(proofs['T-001'])).toMatchObject({ 'sets the due date': 'failed', 'adds a todo': 'passed' });
  });

  it('calls a name that selects no case not run, naming it', () => {
    const missing = proofs['T-001']!.find((p) => p.test === 'not in the file')!;
    expect(missing).toMatchObject({
      result: 'not_run',
      detail:
        "T-001's case `not in the file` was not collected by node --test in tests/t001_due.test.js: no case by that name ran; check its name in the matrix against the file",
    });
  });

  it('calls a file that does not parse an error, not red', () => {
    expect(proofs['T-002']).toEqual([{ test: 'broken', result: 'error', detail: expect.stringMatching(/SyntaxError/), runs: ['error'] }]);
  });
});

describe('the red proof with pytest', () => {
  let repo: ExampleRepo;
  let proofs: Record<string, CaseProof[]>;
  const files = {
    'tests/test_t001_due.py': [
      'import pytest',
      'from todo import add_todo',
      '',
      '',
      'def test_sets_the_due_date():',
      '    from todo import set_due',
      '    assert set_due(add_todo([], "a"), 0, "2026-01-31")[0].due == "2026-01-31"',
      '',
      '',
      'class TestAdding:',
      '    def test_adds(self):',
      '        assert len(add_todo([], "a")) == 1',
      '',
      '',
      '@pytest.mark.parametrize("n", [1, 2])',
      'def test_counts(n):',
      '    assert len(add_todo([], "a")) == 1',
      '',
    ].join('\n'),
    'tests/test_t002_framework.py': 'from pytest import no_such_helper\n\n\ndef test_x():\n    assert no_such_helper\n',
  };
  const prd = [task('T-001', [['test_sets_the_due_date'], ['TestAdding::test_adds'], ['test_counts[1]'], ['test_nowhere']]), task('T-002', [['test_x']])];

  beforeAll(async () => {
    repo = await makeExampleRepo('py-todo');
    proofs = await prove(repo, 'pytest', prd, files, { env: { PYTEST_DISABLE_PLUGIN_AUTOLOAD: '1' } });
  }, 90_000);
  afterAll(() => repo.cleanup());

  it('runs a function and a class method alone: the missing symbol is red, the existing behaviour passes', () => {
    expect(results(proofs['T-001'])).toMatchObject({ test_sets_the_due_date: 'failed', 'TestAdding::test_adds': 'passed' });
  });

  it('finds one parameter of a parametrized case by its id in the collection, and runs it', () => {
    expect(results(proofs['T-001'])).toMatchObject({ 'test_counts[1]': 'passed' });
  });

  it('calls a name pytest does not collect not run, listing the names it does', () => {
    const missing = proofs['T-001']!.find((p) => p.test === 'test_nowhere')!;
    expect(missing.result).toBe('not_run');
    expect(missing.detail).toBe(
      'no test case named "test_nowhere" in tests/test_t001_due.py: pytest collects "test_sets_the_due_date", "TestAdding::test_adds", ' +
        '"test_counts[1]", "test_counts[2]"; check its name in the matrix against the file',
    );
  });

  it('calls a failed import from the framework an error, not red', () => {
    expect(results(proofs['T-002'])).toEqual({ test_x: 'error' });
  });
});

describe('the red proof with vitest', () => {
  let repo: ExampleRepo;
  let proofs: Record<string, CaseProof[]>;
  const files = {
    'tests/t001_due.test.js': [
      "import { describe, expect, it } from 'vitest';",
      "import * as todo from '../src/todo.js';",
      "describe('setDue', () => {",
      "  it('sets the due date', () => { expect(todo.setDue({ title: 'x' }, '2026-01-31').due).toBe('2026-01-31'); });",
      "  it('keeps the title', () => { expect(todo.addTodo([], 'a')[0].title).toBe('a'); });",
      '});',
      '',
    ].join('\n'),
  };
  const prd = [task('T-001', [['sets the due date'], ['keeps the title'], ['sets']])];

  beforeAll(async () => {
    repo = await makeExampleRepo('js-todo');
    // This checkout plays the user's, with vitest installed: its node_modules is linked into the
    // example and shown read-only in the sandbox, as a session's worktree gets them. A bare link
    // to it would lead nowhere in the sandbox when the checkout lives under /tmp, which the
    // sandbox replaces with an empty one.
    const installed = path.join(PACKAGE_ROOT, 'node_modules');
    linkNodeModules(installed, repo.dir);
    const plan: EnvPlan = { node_modules_from: installed, install: null, venv: null, python_path: [], setup: null };
    proofs = await prove(repo, 'vitest', prd, files, { deps: projectScope(plan, repo.dir) });
  }, 120_000);
  afterAll(() => repo.cleanup());

  it('selects one case by its title inside a describe block', () => {
    expect(results(proofs['T-001'])).toMatchObject({ 'sets the due date': 'failed', 'keeps the title': 'passed' });
  });

  it('does not take a title that only ends another case’s as that case: "sets" selects nothing', () => {
    // Said for the name, not for a runner that could not start (which is an error too).
    expect(proofs['T-001']!.find((p) => p.test === 'sets')).toMatchObject({ result: 'not_run', detail: expect.stringContaining('no test case named "sets"') });
  });

  it('tells a name vitest does not list, with the titles it does, without running it', () => {
    expect(proofs['T-001']!.find((p) => p.test === 'sets')?.detail).toContain('vitest collects "sets the due date", "keeps the title";');
  });
});

/**
 * The CommonJS files of the mocha and jest blocks, in the cjs-mocha example's `test/` folder:
 * T-001's cases call a `setDue` the task adds, T-002's file does not parse.
 */
const CJS_FILES = {
  'test/t001_due.test.js': [
    "'use strict';",
    '',
    "const assert = require('node:assert/strict');",
    "const todo = require('../src/todo.js');",
    '',
    "describe('setDue', () => {",
    "  it('sets the due date', () => {",
    "    assert.equal(todo.setDue(todo.addTodo([], 'a'), 0, 5)[0].due, 5);",
    '  });',
    '',
    "  it('keeps the title', () => {",
    "    assert.equal(todo.addTodo([], 'a')[0].title, 'a');",
    '  });',
    '});',
    '',
  ].join('\n'),
  'test/t002_broken.test.js': "'use strict';\n\ndescribe('broken', () => {\n  it('does not parse', () => {\n    assert.equal(1, 2;\n  });\n});\n",
};
const CJS_PRD = [task('T-001', [['sets the due date'], ['keeps the title'], ['not in the file'], ['sets']]), task('T-002', [['does not parse']])];

/** The same expectations of mocha and jest on CJS_FILES. */
function cjsCases(proofsOf: () => Record<string, CaseProof[]>) {
  it('calls a case that fails on the missing function red, and one that passes already passed', () => {
    expect(results(proofsOf()['T-001'])).toMatchObject({ 'sets the due date': 'failed', 'keeps the title': 'passed' });
  });

  it('calls a name that selects no case not run, naming it', () => {
    const missing = proofsOf()['T-001']!.find((p) => p.test === 'not in the file')!;
    expect(missing).toMatchObject({
      result: 'not_run',
      detail: expect.stringMatching(/no test case named "not in the file"|case `not in the file` was not collected/),
    });
  });

  it('does not take a title that only ends another case’s as that case: "sets" selects nothing', () => {
    const sets = proofsOf()['T-001']!.find((p) => p.test === 'sets')!;
    expect(sets).toMatchObject({ result: 'not_run', detail: expect.stringMatching(/no test case named "sets"|case `sets` was not collected/) });
  });

  it('calls a file that does not parse an error, not red', () => {
    expect(proofsOf()['T-002']).toEqual([{ test: 'does not parse', result: 'error', detail: expect.stringMatching(/SyntaxError/), runs: ['error'] }]);
  });
}

describe('the red proof with mocha', () => {
  let repo: ExampleRepo;
  let proofs: Record<string, CaseProof[]>;

  beforeAll(async () => {
    repo = await makeExampleRepo('cjs-mocha');
    await installExample(repo.dir, 'cjs-mocha');
    proofs = await prove(repo, 'mocha', CJS_PRD, CJS_FILES, { project: await detectProjectEnv(repo.dir) });
  }, 300_000);
  afterAll(() => repo.cleanup());

  cjsCases(() => proofs);

  it('tells a name mocha does not list (--dry-run), with the titles it does', () => {
    expect(proofs['T-001']!.find((p) => p.test === 'not in the file')?.detail).toContain('mocha collects "sets the due date", "keeps the title";');
  });
});

describe('the red proof with jest', () => {
  let repo: ExampleRepo;
  let proofs: Record<string, CaseProof[]>;

  beforeAll(async () => {
    // The cjs-mocha example turned into a jest project: jest 29 instead of mocha, from the registry.
    repo = await makeExampleRepo('cjs-mocha');
    await turnIntoJestProject(repo.dir);
    const project = await detectProjectEnv(repo.dir);
    expect(project.test_runner).toBe('jest');
    proofs = await prove(repo, 'jest', CJS_PRD, CJS_FILES, { project });
  }, 300_000);
  afterAll(() => repo.cleanup());

  cjsCases(() => proofs);
});
