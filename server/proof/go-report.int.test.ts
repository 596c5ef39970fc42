/**
 * The real `go test -json` (Debian's Go, installed by .ci/run) on a small module whose packages
 * pass, fail, skip, run subtests, panic and do not build, read by parseGoTestJson.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../testing/temp-dir.ts';
import { parseGoTestJson } from './go-report.ts';

const FILES: Record<string, string> = {
  'go.mod': 'module example.com/todo\n\ngo 1.19\n',
  'calc/calc.go': 'package calc\n\nfunc Double(n int) int { return n * 3 }\n',
  'calc/calc_test.go': [
    'package calc',
    '',
    'import "testing"',
    '',
    'func TestDouble(t *testing.T) {',
    '\tif got := Double(2); got != 4 {',
    '\t\tt.Errorf("Double(2) = %d, want 4", got)',
    '\t}',
    '}',
    '',
    'func TestPasses(t *testing.T) {}',
    '',
    'func TestSkipped(t *testing.T) { t.Skip("later") }',
    '',
    'func TestTable(t *testing.T) {',
    '\tt.Run("two words", func(t *testing.T) {})',
    '\tt.Run("fails", func(t *testing.T) { t.Fatal("boom") })',
    '}',
    '',
  ].join('\n'),
  'pan/pan_test.go': 'package pan\n\nimport "testing"\n\nfunc TestPanics(t *testing.T) {\n\tvar m map[string]int\n\tm["x"] = 1\n}\n',
  'broken/broken_test.go': 'package broken\n\nimport "testing"\n\nfunc TestX(t *testing.T) { _ = Missing(1) }\n',
  'empty/empty.go': 'package empty\n',
};

let dir: string;
beforeAll(() => {
  dir = tempDir('tilth-go-');
  for (const [rel, content] of Object.entries(FILES)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), content);
  }
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function goTest(...args: string[]) {
  // Offline, no cached results, a build cache of its own that goes with the folder.
  const env = { ...process.env, GOFLAGS: '-mod=mod', GOPROXY: 'off', GOCACHE: path.join(dir, '.gocache'), GOTOOLCHAIN: 'local' };
  const run = spawnSync('go', ['test', '-json', '-count=1', ...args], { cwd: dir, env, encoding: 'utf8', timeout: 120_000 });
  return { ...run, report: parseGoTestJson(run.stdout, run.stderr, 'example.com/todo') };
}

describe('go test -json, for real', { timeout: 180_000 }, () => {
  it('reads every package: pass, fail, skip, subtests by their Go names, a panic, and a package that does not build', () => {
    const { status, report } = goTest('./...');
    expect(status).not.toBe(0);
    const outcome = Object.fromEntries(report.cases.map((c) => [`${c.file} ${c.name}`, c.outcome]));
    expect(outcome).toEqual({
      'calc TestDouble': 'failed',
      'calc TestPasses': 'passed',
      'calc TestSkipped': 'skipped',
      'calc TestTable': 'failed',
      'calc TestTable/two_words': 'passed',
      'calc TestTable/fails': 'failed',
      'pan TestPanics': 'failed',
    });
    expect(report.cases.find((c) => c.name === 'TestDouble')!.message).toContain('Double(2) = 6, want 4');
    expect(report.cases.find((c) => c.name === 'TestPanics')!.message).toMatch(/^panic: assignment to entry in nil map/);
    expect(report.loadErrors).toEqual([{ file: 'broken', message: expect.stringContaining('undefined: Missing') }]);
  });

  it('runs one subtest alone by its anchored name, and a name that matches nothing runs no case', () => {
    const one = goTest('-run', '^TestTable$/^two_words$', './calc');
    expect(one.status).toBe(0);
    expect(one.report.cases.map((c) => [c.name, c.outcome])).toEqual([
      ['TestTable', 'passed'],
      ['TestTable/two_words', 'passed'],
    ]);
    const none = goTest('-run', '^TestNope$', './calc');
    expect(none.status).toBe(0);
    expect(none.report).toEqual({ cases: [], loadErrors: [] });
  });
});
