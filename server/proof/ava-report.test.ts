import { describe, expect, it } from 'vitest';
import { parseAvaTap, prefixTitle } from './ava-report.ts';
import { tapText } from './tap-report.ts';

// Captured from AVA 6.4.1 (`ava --tap --no-worker-threads …`), the paths shortened.
const FOUR_FILES = ['tests/t001_a.test.js', 'tests/t002_b.test.js', 'tests/t003_c.test.js', 'tests/t004_d.test.js'];
const FOUR_FILES_TAP = `TAP version 13
not ok 1 - t001_a › later # TODO
ok 2 - t001_a › serial one
ok 3 - t001_a › adds
#   a log line
ok 4 - t001_a › known bug
not ok 5 - t002_b › before hook
  ---
    name: AssertionError
    details:
      'Error thrown in test:': |-
        Error {
          message: 'hook boom',
        }
    message: Error thrown in test
    at: 'file:///w/tests/t002_b.test.js:2:27'
  ...
# 1 test remaining in tests/t002_b.test.js
not ok 6 - No tests found in tests/t003_c.test.js, make sure to import "ava" at the top of your test file
ok 7 - t004_d › d
not ok 8 - Error: late boom
  ---
    name: Error
    message: late boom
    at: 'Timeout._onTimeout (file:///w/tests/t004_d.test.js:3:26)'
  ...
not ok 9 - tests/t004_d.test.js exited with a non-zero exit code: 1

1..6
# tests 5
# pass 4
# fail 5
`;

const TWO_FILES = ['tests/t001_a.test.js', 'tests/t002_b.test.js'];
const MISSING_MODULE_TAP = `TAP version 13
not ok 1 - Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/w/src/missing.js' imported from /w/tests/t002_b.test.js
  ---
    name: Error
    message: >-
      Cannot find module '/w/src/missing.js' imported from
      /w/tests/t002_b.test.js
    at: 'finalizeResolution (node:internal/modules/esm/resolve:283:11)'
  ...
ok 2 - t001_a › skipped one # SKIP
ok 3 - t001_a › adds
not ok 4 - t001_a › fails here
  ---
    name: AssertionError
    assertion: t.is()
    details:
      'Difference (- actual, + expected):': |-
        - 2
        + 3
    message: ''
  ...
ok 5 - t001_a › has ❯ odd # chars
not ok 6 - tests/t002_b.test.js exited with a non-zero exit code: 1

1..4
# tests 4
# pass 2
# skip 1
# fail 3
`;

const ONE_CASE_TAP = `TAP version 13
ok 1 - adds

1..1
# tests 1
# pass 1
# fail 0
`;

describe('prefixTitle', () => {
  it('is empty for one file, and otherwise the path below the common folder without test markers', () => {
    expect(prefixTitle('tests/t001_a.test.js', ['tests/t001_a.test.js'])).toBe('');
    expect(prefixTitle('tests/t001_a.test.js', ['tests/t001_a.test.js', 'tests/t001_a.test.js'])).toBe('');
    // Seen from AVA itself for these three files: `y › y1`, `sub › x › x1`, `t004_d › d`.
    const files = ['tests/sub/test-x.spec.js', 'tests/__tests__/y.cjs', 'tests/t004_d.test.js'];
    expect(files.map((f) => prefixTitle(f, files))).toEqual(['sub › x', 'y', 't004_d']);
    expect(prefixTitle('a/b/t1.test.mjs', ['a/b/t1.test.mjs', 'a/c/t2.test.mjs'])).toBe('b › t1');
    expect(prefixTitle('x.test.ts', ['x.test.ts', 'y.test.ts'])).toBe('x');
    // The common folder only shrinks: a/ for these three, whatever their order.
    const three = ['a/b/x.test.js', 'a/c/y.test.js', 'a/b/z.test.js'];
    expect(three.map((f) => prefixTitle(f, three))).toEqual(['b › x', 'c › y', 'b › z']);
    // Only the extension at the end goes, and only the first test marker.
    expect(prefixTitle('t/x.jsdom.test.js', ['t/x.jsdom.test.js', 't/y.js'])).toBe('x.jsdom');
  });
});

describe('parseAvaTap', () => {
  it('reads each file’s cases by their titles, hooks as cases, todo as skipped, and every way a file did not finish', () => {
    const report = parseAvaTap(FOUR_FILES_TAP, FOUR_FILES);
    expect(report.cases.map((c) => [c.file, c.name, c.outcome])).toEqual([
      ['tests/t001_a.test.js', 'later', 'skipped'],
      ['tests/t001_a.test.js', 'serial one', 'passed'],
      ['tests/t001_a.test.js', 'adds', 'passed'],
      ['tests/t001_a.test.js', 'known bug', 'passed'],
      ['tests/t002_b.test.js', 'before hook', 'failed'],
      ['tests/t004_d.test.js', 'd', 'passed'],
    ]);
    expect(report.cases[4]!.message).toContain("message: 'hook boom'");
    expect(report.cases.every((c) => c.fullTitle === c.name)).toBe(true);
    expect(report.loadErrors.map((e) => e.file)).toEqual(['tests/t003_c.test.js', 'tests/t004_d.test.js']);
    expect(report.loadErrors[0]!.message).toMatch(/^No tests found in tests\/t003_c\.test\.js/);
    // The uncaught error before the exit line is that file's, with its message.
    expect(report.loadErrors[1]!.message).toBe(
      "Error: late boom\nname: Error\nmessage: late boom\nat: 'Timeout._onTimeout (file:///w/tests/t004_d.test.js:3:26)'\ntests/t004_d.test.js exited with a non-zero exit code: 1",
    );
  });

  it('gives a file that does not load its crash, and keeps titles with # and › inside them', () => {
    const report = parseAvaTap(MISSING_MODULE_TAP, TWO_FILES);
    expect(report.cases.map((c) => [c.name, c.outcome])).toEqual([
      ['skipped one', 'skipped'],
      ['adds', 'passed'],
      ['fails here', 'failed'],
      ['has ❯ odd # chars', 'passed'],
    ]);
    expect(report.cases[2]!.message).toContain('assertion: t.is()');
    expect(report.cases[2]!.message).toContain('  - 2\n    + 3');
    expect(report.loadErrors).toEqual([{ file: 'tests/t002_b.test.js', message: expect.stringContaining("Cannot find module '/w/src/missing.js'") }]);
  });

  it('gives one file every line, and a crash no file names a load error of no file', () => {
    expect(parseAvaTap(ONE_CASE_TAP, ['tests/t001_a.test.js']).cases).toEqual([
      { file: 'tests/t001_a.test.js', name: 'adds', fullTitle: 'adds', outcome: 'passed', message: '' },
    ]);
    const crash = 'TAP version 13\nok 1 - t001_a › adds\nnot ok 2 - Error: boom\n\n1..1\n# tests 1\n# pass 1\n# fail 1\n';
    expect(parseAvaTap(crash, TWO_FILES).loadErrors).toEqual([{ file: null, message: 'Error: boom' }]);
    // A line of neither file that passed is no case of theirs, nor a crash; an exit line that passed is no load error.
    const passing = parseAvaTap(
      'ok 1 - other › x\nok 2 - t001_a › adds\nok 3 - tests/t002_b.test.js exited with a non-zero exit code: 1\n1..3\n# pass 3\n',
      TWO_FILES,
    );
    expect(passing.cases.map((c) => c.name)).toEqual(['adds']);
    expect(passing.loadErrors).toEqual([]);
    expect(parseAvaTap(ONE_CASE_TAP, []).cases[0]).toMatchObject({ file: null, name: 'adds' });
  });

  it('takes the longest prefix that fits, so a file in a folder named like another file keeps its cases', () => {
    const files = ['tests/a.test.js', 'tests/a/b.test.js'];
    const tap = 'ok 1 - a › b › x\nok 2 - a › y\n\n1..2\n# pass 2\n';
    expect(parseAvaTap(tap, files).cases.map((c) => [c.file, c.name])).toEqual([
      ['tests/a/b.test.js', 'x'],
      ['tests/a.test.js', 'y'],
    ]);
    expect(parseAvaTap(tap, [...files].reverse()).cases.map((c) => c.file)).toEqual(['tests/a/b.test.js', 'tests/a.test.js']);
  });

  it('reads ten and more results, keeps the spacing inside a failure, and reads no summary from a log line', () => {
    const ten = Array.from({ length: 12 }, (_, i) => `ok ${i + 1} - case ${i + 1}`).join('\n');
    const report = parseAvaTap(`${ten}\n#   logged 1..3 and # pass 1\n\n1..12\n# tests 12\n# pass 12\n# fail 0\n`, ['t.test.js']);
    expect(report.cases).toHaveLength(12);
    expect(report.cases[0]!.message).toBe('');
    const spaced = parseAvaTap('not ok 1 - a\n  ---\n    got:    1\n      deeper\n  ...\n\n1..1\n# pass 0\n', ['t.test.js']);
    expect(spaced.cases[0]!.message).toBe('got:    1\n  deeper');
    // A block before any result belongs to none and is passed over.
    expect(parseAvaTap('  ---\n  x\n  ...\nok 1 - a\n\n1..1\n# pass 1\n', ['t.test.js']).cases).toHaveLength(1);
    expect(parseAvaTap('ok 1 - a # SKIP\n\n1..1\n# pass 0\n# skip 1\n', ['t.test.js']).cases).toEqual([
      { file: 't.test.js', name: 'a', fullTitle: 'a', outcome: 'skipped', message: '' },
    ]);
  });

  it('reads # TODO on a failure with an error as a failure, and # SKIP on a failure as part of its title', () => {
    const tap = 'not ok 1 - a # TODO\n  ---\n    message: boom\n  ...\nnot ok 2 - b # SKIP\nnot ok 3 - c # TODO\n\n1..3\n# pass 0\n';
    expect(parseAvaTap(tap, ['t.test.js']).cases.map((c) => [c.name, c.outcome])).toEqual([
      ['a', 'failed'],
      ['b', 'failed'],
      ['c', 'skipped'],
    ]);
  });

  it('fails a title with two results, whatever they say', () => {
    const tap = 'ok 1 - adds\nnot ok 2 - adds\nok 3 - other\n\n1..3\n# pass 2\n# fail 1\n';
    const report = parseAvaTap(tap, ['t.test.js']);
    expect(report.cases.map((c) => [c.name, c.outcome])).toEqual([
      ['adds', 'failed'],
      ['other', 'passed'],
    ]);
    expect(report.cases[0]!.message).toBe("AVA's report has 2 results for `adds`; a test has one, so what it says cannot be trusted.");
  });

  it('refuses a report whose lines do not add up to its summary, are out of order, or that has no summary', () => {
    const forged = 'ok 1 - a\nok 2 - forged\n\n1..1\n# pass 1\n# fail 0\n';
    expect(() => parseAvaTap(forged, ['t.test.js'])).toThrow('its result lines (2 passed, 0 skipped) do not add up to its summary (1 passed, 0 skipped)');
    expect(() => parseAvaTap('ok 1 - a # SKIP\n\n1..1\n# pass 0\n', ['t.test.js'])).toThrow(
      '(0 passed, 1 skipped) do not add up to its summary (0 passed, 0 skipped)',
    );
    expect(() => parseAvaTap('ok 1 - a\n\n1..2\n# pass 1\n# skip 1\n', ['t.test.js'])).toThrow(
      '(1 passed, 0 skipped) do not add up to its summary (1 passed, 1 skipped)',
    );
    expect(() => parseAvaTap('ok 1 - a\nok 3 - b\n1..2\n# pass 2\n', ['t.test.js'])).toThrow("AVA's report numbers result 2 as 3: ok 3 - b");
    expect(() => parseAvaTap('ok 1 - a\n1..1\n# pass 1\nok 2 - b\n', ['t.test.js'])).toThrow("AVA's report has a result after its summary: ok 2 - b");
    expect(() => parseAvaTap('ok 1 - a\n1..1\n# pass 1\n1..1\n# pass 1\n', ['t.test.js'])).toThrow('two summaries');
    expect(() => parseAvaTap('TAP version 13\nok 1 - a\n', ['t.test.js'])).toThrow('it stops before its summary');
    expect(() => parseAvaTap('ok 1 - a\n1..1\n', ['t.test.js'])).toThrow('it stops before its summary');
    // A count before the plan is not the summary's.
    expect(() => parseAvaTap('# pass 1\nok 1 - a\n1..1\n', ['t.test.js'])).toThrow('it stops before its summary');
  });

  it('keeps a failure’s first 40 lines', () => {
    const block = Array.from({ length: 60 }, (_, i) => `    line ${i}`).join('\n');
    const report = parseAvaTap(`not ok 1 - a\n  ---\n${block}\n  ...\n\n1..1\n# pass 0\n`, ['t.test.js']);
    expect(report.cases[0]!.message.split('\n')).toHaveLength(40);
    expect(report.cases[0]!.message.split('\n')[39]).toBe('line 39');
  });
});

describe('tapText', () => {
  it('puts what the tests printed before the report', () => {
    expect(tapText('TAP version 13\nok 1 - a\n', '  printed\n')).toBe('printed\nTAP version 13\nok 1 - a');
    expect(tapText('ok 1 - a', '')).toBe('ok 1 - a');
  });
});
