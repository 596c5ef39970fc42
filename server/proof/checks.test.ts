import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeExampleRepo } from '../demo/example-repo.ts';
import { runChecks } from './checks.ts';
import { NO_SANDBOX, TEST_SANDBOX } from '../testing/sandbox.ts';

let repo: { dir: string; cleanup: () => Promise<void> | void };
beforeEach(async () => {
  repo = await makeExampleRepo('js-todo');
});
afterEach(() => repo.cleanup());

const head = "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { addTodo } from '../src/todo.js';\n";
const PASS = `${head}test('adds', () => { assert.equal(addTodo([], 'a').length, 1); });\n`;
const FAIL = `${head}test('has due', () => { assert.equal(addTodo([], 'a')[0].due, '2026-01-01'); });\n`;
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

function write(files: Record<string, string>) {
  for (const [rel, content] of Object.entries(files)) fs.writeFileSync(path.join(repo.dir, rel), content);
}

describe('runChecks', () => {
  it('passes when the task test and the done tasks tests pass', async () => {
    write({ 'tests/t001_a.test.js': PASS, 'tests/t002_b.test.js': PASS });
    const r = await runChecks({
      scope: { sandbox: TEST_SANDBOX, worktree: repo.dir, git: null, network: false },
      preset: 'node',
      testFiles: ['tests/t002_b.test.js', 'tests/t001_a.test.js'],
      changedFiles: ['src/todo.js'],
      lockedTests: { 'tests/t001_a.test.js': sha(PASS) },
    });
    expect(r.passed).toBe(true);
    expect(r.results.map((x) => [x.name, x.passed])).toEqual([['acceptance', true]]);
  });

  it('fails with the test output when a test fails', async () => {
    write({ 'tests/t001_a.test.js': FAIL });
    const r = await runChecks({
      scope: { sandbox: TEST_SANDBOX, worktree: repo.dir, git: null, network: false },
      preset: 'node',
      testFiles: ['tests/t001_a.test.js'],
      changedFiles: [],
      lockedTests: {},
    });
    expect(r.passed).toBe(false);
    expect(r.results[0]).toMatchObject({ name: 'acceptance', passed: false, exit_code: 1 });
    expect(r.results[0]!.output).toMatch(/2026-01-01/);
  });

  it('fails at once, naming the files and how to restore them, when locked acceptance tests were changed', async () => {
    write({ 'tests/t001_a.test.js': PASS, 'tests/t002_b.test.js': PASS });
    const r = await runChecks({
      scope: { sandbox: TEST_SANDBOX, worktree: repo.dir, git: null, network: false },
      preset: 'node',
      testFiles: ['tests/t001_a.test.js', 'tests/t002_b.test.js'],
      changedFiles: [],
      lockedTests: { 'tests/t001_a.test.js': sha(FAIL), 'tests/t002_b.test.js': sha(FAIL) },
    });
    expect(r.passed).toBe(false);
    expect(r.results).toEqual([expect.objectContaining({ name: 'locked_tests', passed: false })]);
    expect(r.results[0]!.output).toContain('only the user may change them: tests/t001_a.test.js, tests/t002_b.test.js.');
    expect(r.results[0]!.output).toContain(
      '(git show HEAD:tests/t001_a.test.js > tests/t001_a.test.js; git show HEAD:tests/t002_b.test.js > tests/t002_b.test.js)',
    );
  });

  it('runs no acceptance check when there is no test file to run', async () => {
    const r = await runChecks({
      scope: { sandbox: TEST_SANDBOX, worktree: repo.dir, git: null, network: false },
      preset: 'node',
      testFiles: [],
      changedFiles: [],
      lockedTests: {},
    });
    expect(r.results.map((x) => x.name)).not.toContain('acceptance');
  });

  it('fails on changed test machinery before any test runs, and keeps a passing machinery result last', async () => {
    const baseSha = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo.dir, encoding: 'utf8' }).trim();
    const machinery = { source: repo.dir, baseSha, allowed: [] };
    write({ 'tests/t001_a.test.js': PASS });
    const input = {
      scope: { sandbox: TEST_SANDBOX, worktree: repo.dir, git: null, network: false },
      preset: 'node' as const,
      testFiles: ['tests/t001_a.test.js'],
      changedFiles: [],
      lockedTests: { 'tests/t001_a.test.js': sha(PASS) },
      machinery,
    };
    const kept = await runChecks(input);
    expect(kept.passed).toBe(true);
    expect(kept.results.map((x) => [x.name, x.passed])).toEqual([
      ['acceptance', true],
      ['test_machinery', true],
    ]);
    expect(kept.results[1]!.output).toContain(baseSha.slice(0, 12));

    const pkg = JSON.parse(fs.readFileSync(path.join(repo.dir, 'package.json'), 'utf8'));
    write({ 'package.json': JSON.stringify({ ...pkg, scripts: { test: 'true' } }) });
    const changed = await runChecks(input);
    expect(changed.passed).toBe(false);
    expect(changed.results).toEqual([expect.objectContaining({ name: 'test_machinery', passed: false, output: expect.stringContaining('package.json') })]);
    // The seed lets the task change it: then it is not machinery the worker changed.
    const allowed = await runChecks({ ...input, machinery: { ...machinery, allowed: ['package.json'] } });
    expect(allowed.results.map((x) => [x.name, x.passed])).toEqual([
      ['acceptance', true],
      ['test_machinery', true],
    ]);
  });

  it('fails, naming the file, when a locked test changed while the checks ran it (no sandbox froze it)', async () => {
    // The second test rewrites the first as it runs: what ran is no longer the seed's test.
    const rewriter = `import { test } from 'node:test';\nimport fs from 'node:fs';\ntest('rewrites', () => { fs.appendFileSync('tests/t001_a.test.js', '// changed\\n'); });\n`;
    write({ 'tests/t001_a.test.js': PASS, 'tests/t002_b.test.js': rewriter });
    const r = await runChecks({
      scope: { sandbox: NO_SANDBOX, worktree: repo.dir, git: null, network: false },
      preset: 'node',
      testFiles: ['tests/t001_a.test.js', 'tests/t002_b.test.js'],
      changedFiles: [],
      lockedTests: { 'tests/t001_a.test.js': sha(PASS) },
    });
    expect(r.passed).toBe(false);
    expect(r.results.map((x) => [x.name, x.passed])).toEqual([
      ['locked_tests', false],
      ['acceptance', true],
    ]);
    expect(r.results[0]!.output).toMatch(/changed while the checks ran them, so what ran is not the seed's test: tests\/t001_a\.test\.js\./);
  });

  it('vets the Go packages the task changed, and fails on what go vet finds', async () => {
    const go = await makeExampleRepo('go-todo');
    try {
      const TEST =
        'package todo\n\nimport "testing"\n\nfunc TestAddOne(t *testing.T) {\n\tif got, _ := Add(nil, "a"); len(got) != 1 {\n\t\tt.Error("want one")\n\t}\n}\n';
      fs.writeFileSync(path.join(go.dir, 'todo/t001_a_test.go'), TEST);
      const input = {
        scope: { sandbox: TEST_SANDBOX, worktree: go.dir, git: null, network: false },
        preset: 'go' as const,
        testFiles: ['todo/t001_a_test.go'],
        changedFiles: ['todo/todo.go', 'todo/testdata/x.go', 'gone/gone.go'],
        lockedTests: { 'todo/t001_a_test.go': sha(TEST) },
      };
      const clean = await runChecks(input);
      expect(clean.results.map((x) => [x.name, x.passed])).toEqual([
        ['acceptance', true],
        ['lint', true],
      ]);
      const todo = path.join(go.dir, 'todo/todo.go');
      fs.appendFileSync(todo, '\n// Shout says a todo loudly.\nfunc Shout(t Todo) string { return fmt.Sprintf("%d!", t.Title) }\n');
      const vetted = await runChecks(input);
      expect(vetted.passed).toBe(false);
      expect(vetted.results[1]).toMatchObject({ name: 'lint', passed: false });
      expect(vetted.results[1]!.output).toMatch(/Sprintf format %d has arg t\.Title of wrong type string/);
    } finally {
      await go.cleanup();
    }
  });

  it('lints only the changed files with the custom lint command', async () => {
    write({ 'tests/t001_a.test.js': PASS });
    const r = await runChecks({
      scope: { sandbox: TEST_SANDBOX, worktree: repo.dir, git: null, network: false },
      preset: 'custom',
      customChecks: { test: 'node --test {files}', lint: 'echo linting {files} && test ! -e nope' },
      testFiles: ['tests/t001_a.test.js'],
      changedFiles: ['src/todo.js', 'src/format.js'],
      lockedTests: {},
    });
    expect(r.passed).toBe(true);
    expect(r.results.map((x) => x.name)).toEqual(['acceptance', 'lint']);
    expect(r.results[1]!.output).toBe('linting src/todo.js src/format.js');
  });

  it('stops a test that runs too long and says so', async () => {
    write({ 'tests/t001_slow.test.js': `${head}test('slow', async () => { await new Promise((r) => setTimeout(r, 30_000)); });\n` });
    const r = await runChecks({
      scope: { sandbox: TEST_SANDBOX, worktree: repo.dir, git: null, network: false },
      preset: 'node',
      testFiles: ['tests/t001_slow.test.js'],
      changedFiles: [],
      lockedTests: {},
      timeoutMs: 1_000,
    });
    expect(r.results[0]).toMatchObject({ passed: false, exit_code: 124 });
    expect(r.results[0]!.output).toMatch(/timed out after 1 s/);
  });

  it('leaves the source tree of the repo clean of check byproducts for pytest', async () => {
    const py = await makeExampleRepo('py-todo');
    try {
      fs.writeFileSync(path.join(py.dir, 'tests', 'test_t001_a.py'), 'from todo import add_todo\n\ndef test_adds():\n    assert len(add_todo([], "a")) == 1\n');
      const r = await runChecks({
        scope: { sandbox: TEST_SANDBOX, worktree: py.dir, git: null, network: false },
        preset: 'pytest',
        testFiles: ['tests/test_t001_a.py'],
        changedFiles: [],
        lockedTests: {},
      });
      expect(r.passed, r.results[0]?.output).toBe(true);
      const status = execFileSync('git', ['status', '--porcelain'], { cwd: py.dir, encoding: 'utf8' });
      expect(status.trim()).toBe('?? tests/test_t001_a.py');
    } finally {
      await py.cleanup();
    }
  });
});
