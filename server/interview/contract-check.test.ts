/**
 * The contract check against real pytest and `node --test` runs, in throwaway copies of the
 * example repositories. Each suite writes its test files once and runs one check over all of
 * them, so the processes run side by side.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrdEntry } from '../../shared/files.ts';
import type { ContractWarning } from '../../shared/seed.ts';
import { makeExampleRepo, type ExampleRepo } from '../testing/example-repo.ts';
import { setSandboxMode } from '../proc/sandbox.ts';
import { checkContract, countAssertions } from './contract-check.ts';

function task(id: string, criteria: number, description = 'A feature.'): PrdEntry {
  return { id, title: `Task ${id}`, description, acceptance_criteria: Array.from({ length: criteria }, (_, i) => `criterion ${i + 1}`), status: 'pending' };
}

function write(dir: string, files: Record<string, string>): void {
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), content);
  }
}

/** Whether a process is still running; a zombie (killed, waiting for a reaper that may not come) is not. */
async function running(pid: number): Promise<boolean> {
  for (let i = 0; i < 20; i++) {
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      return false;
    }
    if (/^\d+ \(.*\) Z/.test(stat)) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

/** The example repo needs no pytest plugins; not loading the machine's makes each run ~3× faster. */
const FAST_PYTEST = { PYTEST_DISABLE_PLUGIN_AUTOLOAD: '1' };

const of = (warnings: ContractWarning[], taskId: string) => warnings.filter((w) => w.task_id === taskId);

describe('countAssertions', () => {
  it('counts assert statements and pytest.raises in Python, not comments', () => {
    const src = ['def test_a():', '    assert 1 == 1', '    # assert 2 == 2', '    with pytest.raises(ValueError):', '        f()', '    assert(3)', '    x = "no assert here"'].join('\n');
    expect(countAssertions('pytest', src)).toBe(3);
  });

  it('counts assert(…), assert.x(…), t.assert.x(…) and expect(…) in JavaScript, not the import or comments', () => {
    const src = [
      "import assert from 'node:assert/strict';",
      "test('a', (t) => {",
      '  assert.equal(1, 1);',
      '  assert(true);',
      '  assert.strict.deepEqual([], []);',
      '  t.assert.ok(1);',
      '  expect(2).toBe(2);',
      '  // assert.equal(0, 1);',
      '  /* assert.ok(0) */',
      "  const url = 'http://x'; // assert(1)",
      '});',
    ].join('\n');
    expect(countAssertions('node', src)).toBe(5);
  });
});

describe('checkContract with pytest', () => {
  let repo: ExampleRepo;
  let warnings: ContractWarning[];
  const prd = [
    task('T-001', 2, 'Todos carry a due date.'),
    task('T-002', 1),
    task('T-003', 1),
    task('T-004', 3),
    task('T-005', 1),
    task('T-006', 1, 'Add a reminders module at the top level.'),
    task('T-007', 1),
    task('T-008', 1),
    task('T-009', 1),
  ];
  const files: Record<string, string> = {
    // The feature is missing: an ImportError of a project name, the expected failure.
    'tests/test_t001_due.py': 'from todo import add_todo, set_due\n\n\ndef test_due():\n    todos = set_due(add_todo([], "a"), 0, "2026-01-31")\n    assert todos[0].due == "2026-01-31"\n    assert todos[0].done is False\n',
    'tests/test_t002_syntax.py': 'from todo import add_todo\n\n\ndef test_broken(:\n    assert add_todo([], "a")\n',
    'tests/test_t003_no_assert.py': 'from todo import add_todo\n\n\ndef test_nothing():\n    add_todo([], "a")\n',
    'tests/test_t004_few.py': 'from todo import overdue\n\n\ndef test_overdue():\n    assert overdue([]) == []\n',
    'tests/test_t005_dep.py': 'import nosuchlib_for_tilth_tests\n\n\ndef test_dep():\n    assert nosuchlib_for_tilth_tests.x\n',
    // A new top-level module that the task says it will create: still the feature missing.
    'tests/test_t006_new_module.py': 'from reminders import remind\n\n\ndef test_remind():\n    assert remind([]) == []\n',
    'tests/test_t007_name.py': 'def test_name():\n    assert set_due([], 0, "x")\n',
    'tests/test_t008_framework.py': 'from pytest import no_such_helper\n\n\ndef test_x():\n    assert no_such_helper\n',
    'tests/test_t009_no_tests.py': 'from todo import add_todo\n\n\ndef helper():\n    assert add_todo([], "a")\n',
  };

  beforeAll(async () => {
    repo = await makeExampleRepo('py-todo');
    write(repo.dir, files);
    warnings = await checkContract({ prd, testFiles: files, preset: 'pytest', scope: { worktree: repo.dir, git: null, network: false }, env: FAST_PYTEST });
  }, 90_000); // nine pytest runs, two at a time, in the sandbox
  afterAll(() => repo.cleanup());

  it('says nothing about a test that fails only because the feature is missing', () => {
    expect(of(warnings, 'T-001')).toEqual([]);
  });

  it('reports a syntax error as does_not_load, with the first lines of output', () => {
    const [w] = of(warnings, 'T-002');
    expect(w).toMatchObject({ kind: 'does_not_load', file: 'tests/test_t002_syntax.py' });
    expect(w?.message).toMatch(/SyntaxError in tests\/test_t002_syntax\.py line 4/);
    expect(w?.output).toMatch(/SyntaxError/);
    expect(w?.output?.split('\n').length).toBeLessThanOrEqual(41);
  });

  it('reports a test without assertions as no_assertions (and nothing else)', () => {
    expect(of(warnings, 'T-003')).toEqual([expect.objectContaining({ kind: 'no_assertions', file: 'tests/test_t003_no_assert.py' })]);
  });

  it('reports fewer assertions than criteria', () => {
    expect(of(warnings, 'T-004')).toEqual([expect.objectContaining({ kind: 'criteria_vs_assertions', message: expect.stringMatching(/T-004 has 3 acceptance criteria but tests\/test_t004_few\.py has 1 assertion;/) })]);
  });

  it('reports a module that is neither installed, in the repo, nor named by a task', () => {
    expect(of(warnings, 'T-005')).toEqual([expect.objectContaining({ kind: 'does_not_load', message: expect.stringMatching(/imports 'nosuchlib_for_tilth_tests', which is not installed/) })]);
  });

  it('accepts a missing module that a task says it will create', () => {
    expect(of(warnings, 'T-006')).toEqual([]);
  });

  it('reports a NameError: a name the test never imported', () => {
    expect(of(warnings, 'T-007')).toEqual([expect.objectContaining({ kind: 'does_not_load', message: expect.stringMatching(/name that 'set_due' is not defined/) })]);
  });

  it('reports a failed import from pytest itself', () => {
    expect(of(warnings, 'T-008')).toEqual([expect.objectContaining({ kind: 'does_not_load', message: expect.stringMatching(/'no_such_helper' does not exist in the test framework module 'pytest'/) })]);
  });

  it('reports a file in which pytest collects no tests', () => {
    expect(of(warnings, 'T-009')).toEqual([expect.objectContaining({ kind: 'does_not_load', message: expect.stringMatching(/collected no tests/) })]);
  });

  it('leaves no pytest cache or bytecode in the worktree', () => {
    const found = (fs.readdirSync(repo.dir, { recursive: true }) as string[]).filter((f) => /__pycache__|\.pytest_cache/.test(f));
    expect(found).toEqual([]);
  });
});

describe('checkContract when the runner is missing', () => {
  let repo: ExampleRepo;
  let bin: string;
  const files = { 'tests/test_t001_due.py': 'def test_due():\n    assert False\n' };
  beforeAll(async () => {
    repo = await makeExampleRepo('py-todo');
    write(repo.dir, files);
    // Not under /tmp: the sandbox gives the tests a private one.
    bin = fs.mkdtempSync(path.join('/var/tmp', 'tilth-fake-bin-'));
  });
  afterAll(async () => {
    await repo.cleanup();
    fs.rmSync(bin, { recursive: true, force: true });
  });

  it('says to install pytest when python3 has no pytest module', async () => {
    fs.writeFileSync(path.join(bin, 'python3'), '#!/bin/sh\necho "/usr/bin/python3: No module named pytest" >&2\nexit 1\n', { mode: 0o755 });
    const warnings = await checkContract({ prd: [task('T-001', 1)], testFiles: files, preset: 'pytest', scope: { worktree: repo.dir, git: null, network: false }, env: { PATH: bin } });
    expect(warnings).toEqual([expect.objectContaining({ kind: 'check_failed', task_id: null, message: expect.stringMatching(/pytest is not installed for python3\. Install it with `python3 -m pip install pytest`/) })]);
    fs.rmSync(path.join(bin, 'python3'));
  });

  it('says to install Python when python3 cannot be started', async () => {
    const warnings = await checkContract({ prd: [task('T-001', 1)], testFiles: files, preset: 'pytest', scope: { worktree: repo.dir, git: null, network: false }, env: { PATH: bin } });
    expect(warnings).toEqual([expect.objectContaining({ kind: 'check_failed', message: expect.stringMatching(/python3 could not be started \(.*ENOENT.*\)\. Install Python 3 and pytest/) })]);
  });
});

describe('checkContract with node --test', () => {
  let repo: ExampleRepo;
  let warnings: ContractWarning[];
  const head = "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\n";
  const prd = [task('T-001', 1), task('T-002', 1), task('T-003', 1), task('T-004', 1), task('T-005', 1), task('T-006', 2), task('T-007', 1), task('T-008', 1), task('T-009', 1)];
  const files: Record<string, string> = {
    // Passes today: it cannot tell whether T-009 was done.
    'tests/t009_passes.test.js': `${head}import { addTodo } from '../src/todo.js';\n\ntest('adds', () => {\n  assert.equal(addTodo([], 'a').length, 1);\n});\n`,
    // The feature is missing: the export does not exist yet (a "SyntaxError" by name, but expected).
    'tests/t001_due.test.js': `${head}import { setDue } from '../src/todo.js';\n\ntest('due', () => {\n  assert.equal(setDue({ title: 'x' }, '2026-01-31').due, '2026-01-31');\n});\n`,
    // The feature is missing: a module the task will create.
    'tests/t002_new_module.test.js': `${head}import { remind } from '../src/reminders.js';\n\ntest('remind', () => {\n  assert.deepEqual(remind([]), []);\n});\n`,
    'tests/t003_syntax.test.js': `${head}\ntest('broken', () => {\n  assert.equal(1, 2;\n});\n`,
    'tests/t004_builtin.test.mjs': "import { test } from 'node:tst';\nimport assert from 'node:assert/strict';\ntest('x', () => { assert.ok(1); });\n",
    'tests/t005_no_assert.test.js': `${head}import { addTodo } from '../src/todo.js';\n\ntest('adds', () => {\n  addTodo([], 'a');\n});\n`,
    'tests/t006_few.test.js': `${head}import * as todo from '../src/todo.js';\n\ntest('overdue', () => {\n  assert.deepEqual(todo.overdue([]), []);\n});\n`,
    'tests/t007_reference.test.js': `${head}\ntest('due', () => {\n  assert.equal(setDue({}, 'x').due, 'x');\n});\n`,
    'tests/t008_package.test.js': `${head}import { parse } from 'date-fns-not-installed';\n\ntest('parse', () => {\n  assert.ok(parse);\n});\n`,
  };

  beforeAll(async () => {
    repo = await makeExampleRepo('js-todo');
    write(repo.dir, files);
    warnings = await checkContract({ prd, testFiles: files, preset: 'node', scope: { worktree: repo.dir, git: null, network: false } });
  });
  afterAll(() => repo.cleanup());

  it('says nothing about a missing export or a missing project module', () => {
    expect(of(warnings, 'T-001')).toEqual([]);
    expect(of(warnings, 'T-002')).toEqual([]);
  });

  it('reports a syntax error as does_not_load, with the output', () => {
    const [w] = of(warnings, 'T-003');
    expect(w).toMatchObject({ kind: 'does_not_load', message: expect.stringMatching(/SyntaxError: missing \) after argument list/) });
    expect(w?.output).toMatch(/SyntaxError/);
  });

  it('reports an unknown node: module', () => {
    expect(of(warnings, 'T-004')).toEqual([expect.objectContaining({ kind: 'does_not_load', message: expect.stringMatching(/node:tst, which is not a Node\.js built-in module/) })]);
  });

  it('reports a test without assertions as no_assertions', () => {
    expect(of(warnings, 'T-005')).toEqual([expect.objectContaining({ kind: 'no_assertions' })]);
  });

  it('reports fewer assertions than criteria', () => {
    expect(of(warnings, 'T-006')).toEqual([expect.objectContaining({ kind: 'criteria_vs_assertions', message: expect.stringMatching(/T-006 has 2 acceptance criteria but tests\/t006_few\.test\.js has 1 assertion/) })]);
  });

  it('reports a ReferenceError: a name the test never imports', () => {
    expect(of(warnings, 'T-007')).toEqual([expect.objectContaining({ kind: 'does_not_load', message: expect.stringMatching(/ReferenceError: setDue is not defined/) })]);
  });

  it('reports a test that already passes before the feature exists', () => {
    expect(of(warnings, 'T-009')).toEqual([expect.objectContaining({ kind: 'already_passes', file: 'tests/t009_passes.test.js' })]);
  });

  it('reports a package that is not installed', () => {
    expect(of(warnings, 'T-008')).toEqual([expect.objectContaining({ kind: 'does_not_load', message: expect.stringMatching(/'date-fns-not-installed' cannot be found — it is not a dependency/) })]);
  });

  it('stops a hanging test at the timeout, with everything it started', async () => {
    const pidFile = path.join(repo.dir, 'child.pid');
    const hang = [
      head,
      "import { spawn } from 'node:child_process';",
      "import { writeFileSync } from 'node:fs';",
      "const child = spawn('sleep', ['30'], { stdio: 'ignore' });",
      `writeFileSync(${JSON.stringify(pidFile)}, String(child.pid));`,
      "test('hangs', () => new Promise(() => { setInterval(() => {}, 1000); assert.ok(true); }));",
      '',
    ].join('\n');
    write(repo.dir, { 'tests/t009_hang.test.js': hang });
    const started = Date.now();
    // Unsandboxed, so the pid the test writes is a host pid (in the sandbox the PID namespace ends everything anyway).
    setSandboxMode('off');
    const result = await checkContract({ prd: [task('T-009', 1)], testFiles: { 'tests/t009_hang.test.js': hang }, preset: 'node', scope: { worktree: repo.dir, git: null, network: false }, timeoutMs: 1_500 }).finally(() =>
      setSandboxMode('auto'),
    );
    expect(Date.now() - started).toBeLessThan(6_000);
    expect(result).toEqual([expect.objectContaining({ kind: 'check_failed', message: expect.stringMatching(/did not finish within 2 s/) })]);
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    expect(await running(pid)).toBe(false);
  });
});

describe('checkContract with a custom command', () => {
  let repo: ExampleRepo;
  const files = { 'tests/t001_due.py': 'def test_due(:\n    assert 1\n' };
  beforeAll(async () => {
    repo = await makeExampleRepo('py-todo');
    write(repo.dir, files);
  });
  afterAll(() => repo.cleanup());

  it("runs the user's command on the file and reports a syntax error", async () => {
    const warnings = await checkContract({ prd: [task('T-001', 1)], testFiles: files, preset: 'custom', customChecks: { test: 'python3 -m pytest -q -p no:cacheprovider {files}' }, scope: { worktree: repo.dir, git: null, network: false }, env: { ...FAST_PYTEST, PYTHONDONTWRITEBYTECODE: '1' } });
    expect(warnings).toEqual([expect.objectContaining({ kind: 'does_not_load', file: 'tests/t001_due.py', message: expect.stringMatching(/SyntaxError/) })]);
  });

  it('reports a command that cannot run as check_failed', async () => {
    const warnings = await checkContract({ prd: [task('T-001', 1)], testFiles: files, preset: 'custom', customChecks: { test: 'no-such-test-runner-for-tilth {files}' }, scope: { worktree: repo.dir, git: null, network: false } });
    expect(warnings).toEqual([expect.objectContaining({ kind: 'check_failed', task_id: null, message: expect.stringMatching(/could not run \(exit code 127/) })]);
  });

  it('reports a missing custom command without running anything', async () => {
    const warnings = await checkContract({ prd: [task('T-001', 1)], testFiles: files, preset: 'custom', scope: { worktree: repo.dir, git: null, network: false } });
    expect(warnings).toEqual([expect.objectContaining({ kind: 'check_failed', message: expect.stringMatching(/The test files were not run: .*\{files\}/) })]);
  });
});
