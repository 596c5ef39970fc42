import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeExampleRepo } from '../demo/example-repo.ts';
import { runChecks } from './checks.ts';
import { TEST_SANDBOX } from '../testing/sandbox.ts';

let repos: { dir: string; cleanup: () => Promise<void> | void }[] = [];
afterEach(async () => {
  for (const r of repos) await r.cleanup();
  repos = [];
});
async function example(name: 'py-todo' | 'js-todo') {
  const r = await makeExampleRepo(name);
  repos.push(r);
  return r.dir;
}

const NODE_HEAD = "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { addTodo } from '../src/todo.js';\n";

describe('the acceptance check reads what ran from the runner’s report', () => {
  it('fails a unittest run that printed "Ran 0 tests … OK" because the test is a bare function, saying so', async () => {
    const dir = await example('py-todo');
    fs.writeFileSync(path.join(dir, 'tests', 'test_t001_a.py'), 'from todo import add_todo\n\ndef test_adds():\n    assert len(add_todo([], "a")) == 1\n');
    const r = await runChecks({
      scope: { sandbox: TEST_SANDBOX, worktree: dir, git: null, network: false },
      preset: 'unittest',
      testFiles: ['tests/test_t001_a.py'],
      namedCases: [{ taskId: 'T-001', file: 'tests/test_t001_a.py', tests: ['test_adds'] }],
      changedFiles: [],
      lockedTests: {},
    });
    expect(r.passed).toBe(false);
    expect(r.results[0]).toMatchObject({ name: 'acceptance', passed: false, evidence: 'report' });
    expect(r.results[0]!.output).toContain('Ran 0 tests');
    expect(r.results[0]!.output).toContain('a run that executes nothing is never a pass');
    expect(r.results[0]!.output).toContain("T-001's case `test_adds` was not collected by unittest: a bare function is not a TestCase method");
  });

  it('passes a unittest run whose named case ran and passed, and leaves no report folder behind', async () => {
    const dir = await example('py-todo');
    fs.writeFileSync(
      path.join(dir, 'tests', 'test_t001_a.py'),
      'import unittest\nfrom todo import add_todo\n\nclass TestAdd(unittest.TestCase):\n    def test_adds(self):\n        self.assertEqual(len(add_todo([], "a")), 1)\n',
    );
    const r = await runChecks({
      scope: { sandbox: TEST_SANDBOX, worktree: dir, git: null, network: false },
      preset: 'unittest',
      testFiles: ['tests/test_t001_a.py'],
      namedCases: [{ taskId: 'T-001', file: 'tests/test_t001_a.py', tests: ['TestAdd.test_adds'] }],
      changedFiles: [],
      lockedTests: {},
    });
    expect(r.passed, r.results[0]?.output).toBe(true);
    expect(r.results[0]!.output).toContain('test_adds (tests.test_t001_a.TestAdd.test_adds) ... ok');
    const status = execFileSync('git', ['status', '--porcelain', '--ignored'], { cwd: dir, encoding: 'utf8' });
    expect(status.trim()).toBe('?? tests/test_t001_a.py');
  });

  it('fails when a case the task names did not run, though every case that ran passed', async () => {
    const dir = await example('js-todo');
    fs.writeFileSync(path.join(dir, 'tests', 't001_a.test.js'), `${NODE_HEAD}test('adds', () => { assert.equal(addTodo([], 'a').length, 1); });\n`);
    const r = await runChecks({
      scope: { sandbox: TEST_SANDBOX, worktree: dir, git: null, network: false },
      preset: 'node',
      testFiles: ['tests/t001_a.test.js'],
      namedCases: [{ taskId: 'T-001', file: 'tests/t001_a.test.js', tests: ['adds', 'keeps order'] }],
      changedFiles: [],
      lockedTests: {},
    });
    expect(r.results[0]).toMatchObject({ name: 'acceptance', passed: false, exit_code: 0 });
    expect(r.results[0]!.output).toContain("T-001's case `keeps order` was not collected by node --test in tests/t001_a.test.js");
  });

  it('fails a file whose only case is skipped: nothing executed', async () => {
    const dir = await example('js-todo');
    fs.writeFileSync(path.join(dir, 'tests', 't001_a.test.js'), `${NODE_HEAD}test.skip('adds', () => { assert.equal(addTodo([], 'a').length, 2); });\n`);
    const r = await runChecks({
      scope: { sandbox: TEST_SANDBOX, worktree: dir, git: null, network: false },
      preset: 'node',
      testFiles: ['tests/t001_a.test.js'],
      changedFiles: [],
      lockedTests: {},
    });
    expect(r.results[0]).toMatchObject({ passed: false, exit_code: 0 });
    expect(r.results[0]!.output).toContain('No test case ran in tests/t001_a.test.js');
  });

  it('marks a custom command’s result as text evidence', async () => {
    const dir = await example('js-todo');
    fs.writeFileSync(path.join(dir, 'tests', 't001_a.test.js'), `${NODE_HEAD}test('adds', () => { assert.equal(addTodo([], 'a').length, 1); });\n`);
    const r = await runChecks({
      scope: { sandbox: TEST_SANDBOX, worktree: dir, git: null, network: false },
      preset: 'custom',
      customChecks: { test: 'node --test {files}' },
      testFiles: ['tests/t001_a.test.js'],
      changedFiles: [],
      lockedTests: {},
    });
    expect(r.results[0]).toMatchObject({ passed: true, evidence: 'text' });
    expect(r.results[0]!.output).toContain('weaker evidence of what ran');
  });
});
