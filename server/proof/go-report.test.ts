/**
 * `go test -json` read case by case. The streams are shaped as Go 1.19 (Debian's) writes them,
 * taken from real runs and shortened to the fields read; the Go 1.24 build events follow its
 * documentation. go-report.int.test.ts runs the real toolchain.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { goModulePath, goText, packageDir, parseGoTestJson } from './go-report.ts';

const MOD = 'example.com/todo';
const ev = (Action: string, Package: string, Test?: string, Output?: string) =>
  JSON.stringify({ Time: '2026-11-28T18:05:51Z', Action, Package: `${MOD}${Package}`, ...(Test ? { Test } : {}), ...(Output !== undefined ? { Output } : {}) });
const stream = (...lines: string[]) => `${lines.join('\n')}\n`;

describe('parseGoTestJson', () => {
  it('reads each test and subtest as a case, with what a failure printed and nothing for a pass', () => {
    const out = stream(
      ev('run', '/calc', 'TestDouble'),
      ev('output', '/calc', 'TestDouble', '=== RUN   TestDouble\n'),
      ev('output', '/calc', 'TestDouble', '    calc_test.go:7: Double(2) = 6, want 4\n'),
      ev('output', '/calc', 'TestDouble', '--- FAIL: TestDouble (0.00s)\n'),
      ev('fail', '/calc', 'TestDouble'),
      ev('run', '/calc', 'TestSkipped'),
      ev('output', '/calc', 'TestSkipped', '    calc_test.go:13: later\n'),
      ev('output', '/calc', 'TestSkipped', '--- SKIP: TestSkipped (0.00s)\n'),
      ev('skip', '/calc', 'TestSkipped'),
      ev('run', '/calc', 'TestTable'),
      ev('run', '/calc', 'TestTable/two_words'),
      ev('output', '/calc', 'TestTable/two_words', '=== RUN   TestTable/two_words\n'),
      ev('output', '/calc', 'TestTable', '--- PASS: TestTable (0.00s)\n'),
      ev('output', '/calc', 'TestTable/two_words', '    --- PASS: TestTable/two_words (0.00s)\n'),
      ev('pass', '/calc', 'TestTable/two_words'),
      ev('pass', '/calc', 'TestTable'),
      ev('output', '/calc', undefined, 'FAIL\n'),
      ev('fail', '/calc'),
      ev('output', '', 'TestRoot', 'said\n'),
      ev('run', '', 'TestRoot'),
      ev('pass', '', 'TestRoot'),
    );
    expect(parseGoTestJson(out, '', MOD)).toEqual({
      cases: [
        { file: 'calc', name: 'TestDouble', fullTitle: 'TestDouble', outcome: 'failed', message: '    calc_test.go:7: Double(2) = 6, want 4' },
        { file: 'calc', name: 'TestSkipped', fullTitle: 'TestSkipped', outcome: 'skipped', message: '' },
        { file: 'calc', name: 'TestTable', fullTitle: 'TestTable', outcome: 'passed', message: '' },
        { file: 'calc', name: 'TestTable/two_words', fullTitle: 'TestTable/two_words', outcome: 'passed', message: '' },
        { file: '.', name: 'TestRoot', fullTitle: 'TestRoot', outcome: 'passed', message: '' },
      ],
      loadErrors: [],
    });
  });

  it('fails a test the binary ended inside (a timeout), saying so after what it printed', () => {
    const out = stream(
      ev('run', '/slow', 'TestSlow'),
      ev('output', '/slow', 'TestSlow', '=== RUN   TestSlow\n'),
      ev('output', '/slow', 'TestSlow', 'panic: test timed out after 1s\n'),
      ev('output', '/slow', 'TestSlow', '\n'),
      ev('output', '/slow', undefined, 'FAIL\texample.com/todo/slow\t1.014s\n'),
      ev('fail', '/slow'),
    );
    const report = parseGoTestJson(out, '', MOD);
    expect(report.cases).toEqual([
      {
        file: 'slow',
        name: 'TestSlow',
        fullTitle: 'TestSlow',
        outcome: 'failed',
        message: 'panic: test timed out after 1s\nThe test binary ended before this test finished.',
      },
    ]);
    expect(report.loadErrors).toEqual([]);
  });

  it('keeps the first 40 lines of a long failure, a panic’s stack cut short', () => {
    const stack = Array.from({ length: 60 }, (_, i) => ev('output', '/pan', 'TestPanics', `frame ${i}\n`));
    const report = parseGoTestJson(stream(ev('run', '/pan', 'TestPanics'), ...stack, ev('fail', '/pan', 'TestPanics'), ev('fail', '/pan')), '', MOD);
    expect(report.cases[0]!.message.split('\n')).toEqual(Array.from({ length: 40 }, (_, i) => `frame ${i}`));
    expect(report.loadErrors).toEqual([]);
  });

  it('reads a package that did not build from the plain FAIL line and the compiler’s messages on stderr (Go ≤ 1.23)', () => {
    const out = `FAIL\texample.com/todo/broken [build failed]\n${stream(ev('run', '/calc', 'TestPasses'), ev('pass', '/calc', 'TestPasses'), ev('pass', '/calc'))}`;
    const stderr =
      '# example.com/todo/broken [example.com/todo/broken.test]\nbroken/broken_test.go:5:32: undefined: Missing\n# example.com/todo/other\nother.go:1:1: x\n';
    const report = parseGoTestJson(out, stderr, MOD);
    expect(report.loadErrors).toEqual([{ file: 'broken', message: 'broken/broken_test.go:5:32: undefined: Missing' }]);
    expect(report.cases.map((c) => c.name)).toEqual(['TestPasses']);
    expect(parseGoTestJson('FAIL\texample.com/todo/x [setup failed]\n', '', MOD).loadErrors).toEqual([
      { file: 'x', message: 'example.com/todo/x did not build' },
    ]);
  });

  it('reads a package that did not build from the build events (Go 1.24)', () => {
    const build = (Action: string, Output?: string) =>
      JSON.stringify({ Action, ImportPath: `${MOD}/broken [${MOD}/broken.test]`, ...(Output ? { Output } : {}) });
    const out = stream(
      build('build-output', '# example.com/todo/broken [example.com/todo/broken.test]\n'),
      build('build-output', 'broken/broken_test.go:5:32: undefined: Missing\n'),
      build('build-fail'),
      JSON.stringify({ Action: 'fail', Package: `${MOD}/broken`, FailedBuild: `${MOD}/broken [${MOD}/broken.test]` }),
    );
    expect(parseGoTestJson(out, '', MOD)).toEqual({ cases: [], loadErrors: [{ file: 'broken', message: 'broken/broken_test.go:5:32: undefined: Missing' }] });
  });

  it('reads a package that failed with no failing test as a load error with what it printed, and passes over other lines', () => {
    const out = stream(
      'not json',
      '{"Action": 3}',
      ev('output', '/boot', undefined, 'panic: init went wrong\n'),
      ev('output', '/boot', undefined, 'FAIL\texample.com/todo/boot\t0.01s\n'),
      ev('fail', '/boot'),
      ev('output', '/quiet', undefined, 'PASS\n'),
      ev('fail', '/quiet'),
      ev('output', '/calc', undefined, 'testing: warning: no tests to run\n'),
      ev('output', '/calc', undefined, 'ok  \texample.com/todo/calc\t0.011s [no tests to run]\n'),
      ev('pass', '/calc'),
    );
    expect(parseGoTestJson(out, '', MOD)).toEqual({
      cases: [],
      loadErrors: [
        { file: 'boot', message: 'panic: init went wrong' },
        { file: 'quiet', message: 'example.com/todo/quiet failed before any test ran' },
      ],
    });
  });

  it('does not count a package failed by its own failing test as a load error', () => {
    const out = stream(ev('run', '/calc', 'TestX'), ev('fail', '/calc', 'TestX'), ev('fail', '/calc'));
    expect(parseGoTestJson(out, '', MOD).loadErrors).toEqual([]);
  });
});

describe('parseGoTestJson, line by line', () => {
  it('keeps a failure’s own lines, indented as printed, without test2json’s framing or blank lines around them', () => {
    const out = stream(
      ev('run', '/a', 'TestA'),
      ...['=== RUN   TestA\n', '  \n', '    a_test.go:3: first   \n', '\t\n', '    a_test.go:5: log says --- FAIL: x\n', ' \n'].map((o) =>
        ev('output', '/a', 'TestA', o),
      ),
      ev('output', '/a', 'TestA', '    --- FAIL: TestA/sub (0.00s)\n'),
      ev('output', '/a', 'TestA', '--- FAIL: TestA (0.00s)\n'),
      ev('fail', '/a', 'TestA'),
      ev('run', '/a', 'TestQuiet'),
      ev('fail', '/a', 'TestQuiet'),
      ev('run', '/a', 'TestCut'),
    );
    expect(parseGoTestJson(out, '', MOD).cases.map((c) => c.message)).toEqual([
      '    a_test.go:3: first\n\n    a_test.go:5: log says --- FAIL: x',
      '',
      'The test binary ended before this test finished.',
    ]);
  });

  it('reads the compiler’s messages under their package header only, without blank lines, and leaves other stderr alone', () => {
    const stderr = [
      'go: warning: ignoring something',
      '# example.com/todo/broken [example.com/todo/broken.test]',
      'broken/a_test.go:5:32: undefined: Missing',
      '  ',
      'broken/a_test.go:6:2: also',
      '\t# not a header',
      '',
    ].join('\n');
    expect(parseGoTestJson('FAIL\texample.com/todo/broken [build failed]\n', stderr, MOD).loadErrors).toEqual([
      { file: 'broken', message: 'broken/a_test.go:5:32: undefined: Missing\nbroken/a_test.go:6:2: also\n\t# not a header' },
    ]);
  });

  it('reads the build events of the packages they name, and no others', () => {
    const out = stream(
      JSON.stringify({ Action: 'build-output', ImportPath: `${MOD}/b [${MOD}/b.test]`, Output: '\n' }),
      JSON.stringify({ Action: 'build-output', ImportPath: `${MOD}/b [${MOD}/b.test]` }),
      JSON.stringify({ Action: 'build-output', ImportPath: `${MOD}/b [${MOD}/b.test]`, Output: 'b.go:1: one\n' }),
      JSON.stringify({ Action: 'build-output', ImportPath: `${MOD}/b [${MOD}/b.test]`, Output: 'b.go:2: two\n' }),
      JSON.stringify({ Action: 'build-output', Output: 'no package\n' }),
      JSON.stringify({ Action: 'build-fail' }),
      JSON.stringify({ Action: 'output', ImportPath: `${MOD}/c`, Package: `${MOD}/c`, Output: 'ok\n' }),
      JSON.stringify({ Action: 'build-fail', ImportPath: `${MOD}/b [${MOD}/b.test]` }),
    );
    expect(parseGoTestJson(out, '', MOD).loadErrors).toEqual([{ file: 'b', message: 'b.go:1: one\nb.go:2: two' }]);
  });

  it('tells a package that failed on its own (after passing tests, or silently) from one failed by a test', () => {
    const out = stream(
      ev('run', '/calc', 'TestBad'),
      ev('fail', '/calc', 'TestBad'),
      ev('fail', '/calc'),
      ev('run', '/main1', 'TestOk'),
      ev('pass', '/main1', 'TestOk'),
      ev('output', '/main1', undefined, 'panic: config not ok\n'),
      ev('fail', '/main1'),
      ev('fail', '/silent'),
      ev('output', '/fine', undefined, 'PASS\n'),
      ev('pass', '/fine'),
    );
    expect(parseGoTestJson(out, '', MOD).loadErrors).toEqual([
      { file: 'main1', message: 'panic: config not ok' },
      { file: 'silent', message: 'example.com/todo/silent failed before any test ran' },
    ]);
  });
});

describe("the go command's own complaints", () => {
  it('makes a load error of what go said when nothing ran and no package failed, and of a package with no compiler block', () => {
    expect(parseGoTestJson('', "go: go.mod file not found in current directory or any parent directory;\ngo: see 'go help modules'\n", MOD)).toEqual({
      cases: [],
      loadErrors: [{ file: null, message: "go: go.mod file not found in current directory or any parent directory;\ngo: see 'go help modules'" }],
    });
    const stderr = 'go build example.com/todo/stats: no non-test Go files in /w/stats\ngo: something else\n';
    expect(parseGoTestJson('FAIL\texample.com/todo/stats [build failed]\n', stderr, MOD).loadErrors).toEqual([
      { file: 'stats', message: 'go build example.com/todo/stats: no non-test Go files in /w/stats' },
    ]);
    // Once something ran, go's own lines are not a load error.
    expect(parseGoTestJson(stream(ev('run', '/calc', 'TestA'), ev('pass', '/calc', 'TestA')), 'go: warning: ignoring symlink\n', MOD).loadErrors).toEqual([]);
    expect(parseGoTestJson('', '\n', MOD)).toEqual({ cases: [], loadErrors: [] });
  });
});

describe('goText', () => {
  it("prints what go test -v would have: the events' output in order, lines that are not events, then stderr", () => {
    const out = stream(
      ev('run', '/calc', 'TestA'),
      ev('output', '/calc', 'TestA', '=== RUN   TestA\n'),
      ev('output', '/calc', 'TestA', '--- PASS: TestA (0.00s)\n'),
      ev('pass', '/calc', 'TestA'),
      'FAIL\texample.com/todo/broken [build failed]',
      '{"Action":"output"}',
      '{"not":"an event"}',
      ev('output', '/calc', undefined, 'ok  \texample.com/todo/calc\t0.01s\n'),
    );
    expect(goText(out, '# example.com/todo/broken\nbroken/b.go:3:1: undefined: x\n')).toBe(
      '=== RUN   TestA\n--- PASS: TestA (0.00s)\nFAIL\texample.com/todo/broken [build failed]\nok  \texample.com/todo/calc\t0.01s\n# example.com/todo/broken\nbroken/b.go:3:1: undefined: x',
    );
    expect(goText('', '')).toBe('');
    expect(goText(out.split('\n').slice(0, 3).join('\n'), '  ')).toBe('=== RUN   TestA\n--- PASS: TestA (0.00s)');
  });
});

describe('goModulePath', () => {
  it("reads go.mod's module line, quoted or not; '' without one", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tilth-go-mod-'));
    try {
      expect(goModulePath(dir)).toBe('');
      fs.writeFileSync(path.join(dir, 'go.mod'), '// module not/this\nmodule   "example.com/quoted" // why\n\ngo 1.19\n');
      expect(goModulePath(dir)).toBe('example.com/quoted');
      fs.writeFileSync(path.join(dir, 'go.mod'), 'module example.com/todo\n');
      expect(goModulePath(dir)).toBe('example.com/todo');
      fs.writeFileSync(path.join(dir, 'go.mod'), 'go 1.19\n');
      expect(goModulePath(dir)).toBe('');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('packageDir', () => {
  it.each([
    ['example.com/todo', '.'],
    ['example.com/todo/calc', 'calc'],
    ['example.com/todo/internal/calc', 'internal/calc'],
    ['example.com/todoist/calc', 'example.com/todoist/calc'],
  ])('puts %s in %s', (pkg, dir) => {
    expect(packageDir(pkg, MOD)).toBe(dir);
  });
});
