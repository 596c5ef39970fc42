/**
 * The red proof on real runners: each named case runs alone in the sandbox, on an example repo
 * where the work is not done yet. node --test and pytest are the machine's; vitest is this
 * repository's own, linked into the example as its node_modules.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaseProof, PrdEntry } from '../../shared/files.ts';
import type { ChecksPreset } from '../../shared/seed.ts';
import { makeExampleRepo, type ExampleRepo } from '../demo/example-repo.ts';
import { PACKAGE_ROOT } from '../package-root.ts';
import { proveCases } from './red-proof.ts';

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

async function prove(repo: ExampleRepo, preset: ChecksPreset, prd: PrdEntry[], files: Record<string, string>, env: Record<string, string> = {}) {
  write(repo.dir, files);
  return proveCases({ prd, testFiles: files, preset, scope: { worktree: repo.dir, git: null, network: false }, env }, prd);
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

  it('calls a name that selects no case an error, naming it', () => {
    const missing = proofs['T-001']!.find((p) => p.test === 'not in the file')!;
    expect(missing).toMatchObject({ result: 'error', detail: expect.stringContaining('no test case named "not in the file" ran') });
  });

  it('calls a file that does not parse an error, not red', () => {
    expect(proofs['T-002']).toEqual([{ test: 'broken', result: 'error', detail: expect.stringMatching(/SyntaxError/) }]);
  });
});

describe('the red proof with pytest', () => {
  let repo: ExampleRepo;
  let proofs: Record<string, CaseProof[]>;
  const files = {
    'tests/test_t001_due.py': [
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
    ].join('\n'),
    'tests/test_t002_framework.py': 'from pytest import no_such_helper\n\n\ndef test_x():\n    assert no_such_helper\n',
  };
  const prd = [task('T-001', [['test_sets_the_due_date'], ['TestAdding::test_adds'], ['test_nowhere']]), task('T-002', [['test_x']])];

  beforeAll(async () => {
    repo = await makeExampleRepo('py-todo');
    proofs = await prove(repo, 'pytest', prd, files, { PYTEST_DISABLE_PLUGIN_AUTOLOAD: '1' });
  }, 90_000);
  afterAll(() => repo.cleanup());

  it('runs a function and a class method alone: the missing symbol is red, the existing behaviour passes', () => {
    expect(results(proofs['T-001'])).toMatchObject({ test_sets_the_due_date: 'failed', 'TestAdding::test_adds': 'passed' });
  });

  it('calls a name pytest cannot find an error', () => {
    expect(results(proofs['T-001'])).toMatchObject({ test_nowhere: 'error' });
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
    fs.symlinkSync(path.join(PACKAGE_ROOT, 'node_modules'), path.join(repo.dir, 'node_modules'));
    proofs = await prove(repo, 'vitest', prd, files);
  }, 120_000);
  afterAll(() => repo.cleanup());

  it('selects one case by its title inside a describe block', () => {
    expect(results(proofs['T-001'])).toMatchObject({ 'sets the due date': 'failed', 'keeps the title': 'passed' });
  });

  it('does not take a title that only ends another case’s as that case: "sets" selects nothing', () => {
    expect(results(proofs['T-001'])).toMatchObject({ sets: 'error' });
  });
});
