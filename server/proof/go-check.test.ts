/**
 * Go's side of the contract check: assertions counted on the file's own `*testing.T` receivers,
 * and why a `go test` run failed, read from what go 1.19 prints (shapes from real runs).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { classifyGo, countGoAssertions, GO_FRAMEWORK_NAMES } from './go-check.ts';

const worktree = fs.mkdtempSync(path.join(os.tmpdir(), 'tilth-go-check-'));
fs.writeFileSync(path.join(worktree, 'go.mod'), 'module example.com/todo\n\ngo 1.19\n');
afterAll(() => fs.rmSync(worktree, { recursive: true, force: true }));

const ctx = { file: 'todo/t001_x_test.go', worktree };
const failed = (output: string, exitCode: number | null = 1) => classifyGo(output, { output, exitCode, spawnError: null }, ctx);

describe('countGoAssertions', () => {
  it("counts the failing calls of each *testing.T/B/F receiver the file declares, and testify's", () => {
    const source = [
      'func TestA(t *testing.T) {',
      '\tif x { t.Errorf("a") }',
      '\tt.Error("b"); t.Fatal("c"); t.Fatalf("d %d", 1)',
      '\tt.Run("s", func(st *testing.T) { st.Fail(); st.FailNow() })',
      '\tassert.Equal(t, 1, 2); require.NoError(t, err)',
      '}',
      'func BenchmarkB(b *testing.B) { b.Fatal("e") }',
      'func FuzzC(f *testing.F) { f.Error("f") }',
    ].join('\n');
    expect(countGoAssertions(source)).toBe(10);
  });

  it('does not count fmt.Errorf, a receiver that is not a *testing.T, comments, or a t.Log', () => {
    const source = [
      'func TestA(t *testing.T) {',
      '\terr := fmt.Errorf("x")',
      '\t// t.Errorf("commented out")',
      '\t/* t.Fatal("block") */',
      '\tt.Log("only a log")',
      '\tother.Error("not a test receiver")',
      '}',
    ].join('\n');
    expect(countGoAssertions(source)).toBe(0);
  });
});

describe('classifyGo', () => {
  it('says go itself is missing once, for every file', () => {
    expect(classifyGo('', { output: '', exitCode: null, spawnError: 'spawn go ENOENT' }, ctx)).toMatchObject({
      kind: 'environment',
      runner: true,
      message: expect.stringMatching(/^go could not be started \(spawn go ENOENT\)\. .*apt-get install -y golang-go/),
    });
    expect(failed('sh: 1: go: not found', 127)).toMatchObject({ kind: 'environment', runner: true, message: expect.stringContaining('exit code 127') });
    expect(failed('', 126)).toMatchObject({ kind: 'environment', runner: true });
  });

  it('asks for a go.mod when there is no module', () => {
    expect(failed("go: go.mod file not found in current directory or any parent directory; see 'go help modules'")).toMatchObject({
      kind: 'environment',
      runner: true,
      message: expect.stringContaining('needs a go.mod at its root'),
    });
    expect(failed('go: cannot find main module, but found .git/config')).toMatchObject({ kind: 'environment', runner: true });
  });

  it('asks for the module cache when go.sum lacks an entry (the checks run offline)', () => {
    const out = 'todo/t001_x_test.go:6:2: missing go.sum entry for module providing package golang.org/x/text (imported by example.com/todo/todo); to add:';
    expect(failed(out)).toMatchObject({
      kind: 'environment',
      message: expect.stringMatching(/go\.sum has no entry for golang\.org\/x\/text\. Run `go mod download`/),
    });
  });

  it('refuses a syntax error with its line', () => {
    expect(
      failed(
        '# example.com/todo/todo\ntodo/t001_x_test.go:16:19: syntax error: unexpected {, expecting expression\nFAIL\texample.com/todo/todo [build failed]',
      ),
    ).toEqual({
      kind: 'environment',
      message:
        'todo/t001_x_test.go does not parse: line 16: syntax error: unexpected {, expecting expression. The test has a syntax error: fix it in seed review.',
    });
    expect(failed("todo/t001_x_test.go:6:9: expected operand, found '{'")).toMatchObject({
      kind: 'environment',
      message: expect.stringContaining("line 6: expected operand, found '{'"),
    });
  });

  it("is red on a package of the module that does not exist yet, in go's three wordings", () => {
    for (const out of [
      'todo/t001_x_test.go:6:2: no required module provides package example.com/todo/stats; to add it:',
      'go build example.com/todo/stats: no non-test Go files in /w/stats',
      'todo/t001_x_test.go:6:2: package example.com/todo/stats is not in GOROOT (/usr/lib/go-1.19/src/example.com/todo/stats)',
      'cannot find package "example.com/todo" in any of:',
    ]) {
      expect(failed(out), out).toMatchObject({
        kind: 'fails_as_expected',
        reason: expect.stringMatching(/^the package example\.com\/todo(\/stats)? does not exist yet$/),
      });
    }
  });

  it('refuses a package outside the module that the checks cannot fetch', () => {
    const out = 'todo/t001_x_test.go:6:2: no required module provides package github.com/stretchr/testify/assert; to add it:';
    expect(failed(out)).toEqual({
      kind: 'does_not_load',
      message:
        'todo/t001_x_test.go does not build: it imports github.com/stretchr/testify/assert, which the module does not require and the checks cannot fetch (they run offline). Use the standard library and what go.mod already requires.',
    });
    // A project without a module path cannot own any package.
    const bare = fs.mkdtempSync(path.join(os.tmpdir(), 'tilth-go-check-bare-'));
    try {
      expect(
        classifyGo(
          out.replace('github.com/stretchr/testify/assert', 'x/y'),
          { output: out.replace('github.com/stretchr/testify/assert', 'x/y'), exitCode: 1, spawnError: null },
          { ...ctx, worktree: bare },
        ),
      ).toMatchObject({ kind: 'does_not_load' });
    } finally {
      fs.rmSync(bare, { recursive: true, force: true });
    }
  });

  it('is red on a name or member the task adds, but not on an assertion library used without its import', () => {
    expect(failed('# example.com/todo/todo\ntodo/t001_x_test.go:8:12: undefined: SetPriority')).toEqual({
      kind: 'fails_as_expected',
      reason: 'SetPriority is not defined yet',
    });
    expect(failed('todo/t001_x_test.go:9:7: todos[0].Priority undefined (type Todo has no field or method Priority)')).toEqual({
      kind: 'fails_as_expected',
      reason: 'Priority is not defined yet',
    });
    expect(failed('todo/t001_x_test.go:9:2: undefined: assert')).toMatchObject({
      kind: 'does_not_load',
      message: expect.stringContaining('uses `assert` without importing it'),
    });
    for (const name of GO_FRAMEWORK_NAMES) expect(failed(`x_test.go:9:2: undefined: ${name}.Thing`), name).toMatchObject({ kind: 'does_not_load' });
    expect(failed('todo/t001_x_test.go:9:7: x.Archive undefined (type *List has no method Archive)')).toEqual({
      kind: 'fails_as_expected',
      reason: 'Archive is not defined yet',
    });
  });

  it('refuses a file go does not build here (a build-constraint suffix)', () => {
    const out = 'ok\ngo: package example.com/todo/todo: build constraints exclude all Go files in /w/todo';
    expect(failed(out)).toMatchObject({
      kind: 'environment',
      message: expect.stringMatching(
        /^todo\/t001_x_test\.go is not built by go here: package example\.com\/todo\/todo: build constraints exclude all Go files in \/w\/todo\. Give the file a name/,
      ),
    });
    expect(failed('# example.com/todo/x\nno Go files in /w/x')).toMatchObject({
      message: expect.stringContaining('is not built by go here: no Go files in /w/x.'),
    });
    expect(failed('FAIL\texample.com/todo/todo [setup failed]')).toMatchObject({
      kind: 'environment',
      message: expect.stringContaining('go could not set up the package'),
    });
  });

  it('passes on ok with tests run, and says so when the file named no test go could run', () => {
    expect(failed('=== RUN   TestA\n--- PASS: TestA (0.00s)\nPASS\nok  \texample.com/todo/todo\t0.01s', 0)).toEqual({ kind: 'passes' });
    expect(failed('ok  \texample.com/todo/todo\t0.01s [no tests to run]', 0)).toMatchObject({
      kind: 'does_not_load',
      message: expect.stringContaining('go ran no test from todo/t001_x_test.go'),
    });
    expect(failed('testing: warning: no tests to run\nPASS\nok  \texample.com/todo/todo\t0.01s', 0)).toMatchObject({ kind: 'does_not_load' });
    expect(failed('?   \texample.com/todo/todo\t[no test files]', 0)).toMatchObject({ kind: 'does_not_load' });
    expect(failed('', 0)).toEqual({ kind: 'passes' });
  });

  it('refuses any other build failure with its first compiler line, and reads a failing run as red', () => {
    expect(failed('# example.com/todo/todo\ntodo/todo.go:13:11: imported and not used: "os"\nFAIL\texample.com/todo/todo [build failed]')).toEqual({
      kind: 'does_not_load',
      message: 'todo/t001_x_test.go does not build, for a reason other than the missing work: todo/todo.go:13:11: imported and not used: "os"',
    });
    expect(failed('FAIL\texample.com/todo/todo [build failed]')).toMatchObject({ message: expect.stringContaining('the package does not compile') });
    expect(failed('--- FAIL: TestA (0.00s)\n    x_test.go:5: want 2\nFAIL')).toEqual({ kind: 'fails_as_expected', reason: 'a test failed' });
  });
});
