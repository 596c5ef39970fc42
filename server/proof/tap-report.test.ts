import { describe, expect, it } from 'vitest';
import { parseTap } from './tap-report.ts';

// Captured from tap 21.8.0 (`tap --reporter=tap --disable-coverage …`), the YAML blocks shortened.
const FILES = ['test/t001_double.test.js', 'test/t002_missing.test.js'];
const TWO_FILES = `TAP version 14
1..2
# Subtest: test/t001_double.test.js
    # Subtest: double
        # Subtest: doubles two
            not ok 1 - should be equal
              ---
              compare: ===
              at:
                fileName: test/t001_double.test.js
                lineNumber: 4
              diff: |
                -4
                +3
              ...
            
            1..1
        not ok 1 - doubles two # time=24.316ms
          ---
          at:
            fileName: test/t001_double.test.js
          ...
        
        # Subtest: doubles zero
            ok 1 - should be equal
            1..1
        ok 2 - doubles zero # time=5.184ms
        
        ok 3 - skipped one # SKIP later
        ok 4 - todo one # TODO
        1..4
    not ok 1 - double # time=48.637ms
    
    # Subtest: top level
        ok 1 - should be equal
    printed by the test
        1..1
    ok 2 - top level # time=2.783ms
    
    1..2
    # time=64.083ms
not ok 1 - test/t001_double.test.js # time=64.083ms
  ---
  stdio: inherit
  exitCode: 1
  signal: null
  ...

# Subtest: test/t002_missing.test.js
    1..0 # no tests found
not ok 2 - test/t002_missing.test.js # time=1224.175ms
  ---
  exitCode: 1
  signal: null
  ...

# No coverage generated
# { total: 6, pass: 2, fail: 2, todo: 1, skip: 1 }
# time=3794.037ms
`;

/** One file's stream around `body` (the file's own lines, one level in), its plan `count`. */
function oneFile(body: string, count: number, ok = true, file = 'test/t001_x.test.js'): string {
  const indented = body
    .split('\n')
    .map((l) => (l === '' ? l : `    ${l}`))
    .join('\n');
  return `TAP version 14\n1..1\n# Subtest: ${file}\n${indented}\n    1..${count}\n${ok ? 'ok' : 'not ok'} 1 - ${file} # time=5ms\n\n# { total: 1, pass: 1 }\n`;
}

describe('parseTap', () => {
  it('reads each subtest without subtests as a case by its chain of titles, skipped and todo ones too, and a file with no tests as a load error', () => {
    const report = parseTap(TWO_FILES, FILES);
    expect(report.cases.map((c) => [c.file, c.name, c.fullTitle, c.outcome])).toEqual([
      ['test/t001_double.test.js', 'doubles two', 'double > doubles two', 'failed'],
      ['test/t001_double.test.js', 'doubles zero', 'double > doubles zero', 'passed'],
      ['test/t001_double.test.js', 'skipped one', 'double > skipped one', 'skipped'],
      ['test/t001_double.test.js', 'todo one', 'double > todo one', 'skipped'],
      ['test/t001_double.test.js', 'top level', 'top level', 'passed'],
    ]);
    expect(report.cases[0]!.message).toBe(
      [
        'not ok - should be equal',
        '  compare: ===',
        '  at:',
        '    fileName: test/t001_double.test.js',
        '    lineNumber: 4',
        '  diff: |',
        '    -4',
        '    +3',
      ].join('\n'),
    );
    expect(report.cases[1]!.message).toBe('');
    expect(report.loadErrors).toEqual([
      { file: 'test/t002_missing.test.js', message: 'tap found no tests in it: it did not load, or declares no tap test\nexitCode: 1' },
    ]);
  });

  it('fails the cases of a group that failed around them, and keeps # and \\ in titles', () => {
    const body = [
      '# Subtest: group \\# hash \\\\ back',
      '    not ok 1 - own assertion of group',
      '      ---',
      '      found: 1',
      '      ...',
      '    # Subtest: inner ok',
      '        ok 1 - should be truthy',
      '        1..1',
      '    ok 2 - inner ok # time=1ms',
      '    # Subtest: inner skipped',
      '    ok 3 - inner skipped # SKIP',
      '    ok 4 - inner todo # TODO',
      '    1..4',
      'not ok 1 - group \\# hash \\\\ back # time=2ms',
    ].join('\n');
    const report = parseTap(oneFile(body, 1, false), ['test/t001_x.test.js']);
    expect(report.cases.map((c) => [c.fullTitle, c.outcome])).toEqual([
      ['group # hash \\ back > inner ok', 'failed'],
      ['group # hash \\ back > inner skipped', 'skipped'],
      ['group # hash \\ back > inner todo', 'skipped'],
    ]);
    expect(report.cases[0]!.message).toBe('the group `group # hash \\ back` failed around it: not ok - own assertion of group\n  found: 1');
    expect(report.loadErrors).toEqual([]);
  });

  it('makes a failing assertion outside any subtest, and an exit by signal, the file load error', () => {
    const body = ['not ok 1 - should be equal', '  ---', '  found: 2', '  ...', '# Subtest: fine', '    ok 1 - yes', '    1..1', 'ok 2 - fine'].join('\n');
    const raw = oneFile(body, 2, false).replace('# time=5ms', '# time=5ms\n  ---\n  exitCode: null\n  signal: SIGKILL\n  ...');
    const report = parseTap(raw, ['test/t001_x.test.js']);
    expect(report.cases.map((c) => [c.fullTitle, c.outcome])).toEqual([['fine', 'passed']]);
    expect(report.loadErrors).toEqual([{ file: 'test/t001_x.test.js', message: 'not ok - should be equal\n  found: 2\nsignal: SIGKILL' }]);
  });

  it('reads a failed todo as skipped and a file whose cases all passed with no load error', () => {
    const body = [
      '# Subtest: later',
      '    not ok 1 - nope',
      '    1..1',
      'not ok 1 - later # TODO not yet',
      '# Subtest: now',
      '    ok 1 - yes',
      '    1..1',
      'ok 2 - now # time=1ms',
    ].join('\n');
    const report = parseTap(oneFile(body, 2), ['test/t001_x.test.js']);
    expect(report.cases.map((c) => [c.fullTitle, c.outcome, c.message])).toEqual([
      ['later', 'skipped', ''],
      ['now', 'passed', ''],
    ]);
    expect(report.loadErrors).toEqual([]);
  });

  it('makes a file in which tap found no test a load error, though tap skips it and passes', () => {
    const raw =
      'TAP version 14\n1..1\n# Subtest: test/t001_x.test.js\n    1..0 # no tests found\nok 1 - test/t001_x.test.js # SKIP no tests found\n\n# { total: 1, pass: 0, skip: 1 }\n';
    expect(parseTap(raw, ['test/t001_x.test.js'])).toEqual({
      cases: [],
      loadErrors: [{ file: 'test/t001_x.test.js', message: 'tap found no tests in it: it did not load, or declares no tap test' }],
    });
  });

  it('passes over what a test printed that is not TAP', () => {
    const body = ['# Subtest: prints', '    ok 1 - yes', 'hello from the code', '    # a comment', 'Bail out? not this', '    1..1', 'ok 1 - prints'].join(
      '\n',
    );
    expect(parseTap(oneFile(body, 1), ['test/t001_x.test.js']).cases.map((c) => c.outcome)).toEqual(['passed']);
  });

  describe('refuses a stream that does not hold together', () => {
    const refused: [string, string, RegExp][] = [
      ['a printed point out of sequence', ['# Subtest: a', '    not ok 1 - no', '    1..1', 'not ok 1 - a', 'ok 7 - forged'].join('\n'), /numbered 7/],
      [
        'a printed point in sequence, beyond the plan',
        ['# Subtest: a', '    not ok 1 - no', '    1..1', 'not ok 1 - a', 'ok 2 - forged'].join('\n'),
        /plans 1 test points and has 2/,
      ],
      ['a subtest ending under another title', ['# Subtest: a', '    ok 1 - yes', '    1..1', 'ok 1 - b'].join('\n'), /announced as `a` ends as `b`/],
      ['a point closing lines no subtest opened', ['    ok 1 - yes', '    1..1', 'ok 1 - b'].join('\n'), /deeper than any subtest/],
      ['a level without a plan', ['# Subtest: a', '    ok 1 - yes', 'ok 1 - a'].join('\n'), /no plan/],
      [
        'a point after the plan that ended its level',
        ['# Subtest: a', '    ok 1 - yes', '    1..1', '    ok 2 - more', 'ok 1 - a'].join('\n'),
        /follows the plan/,
      ],
      ['a subtest with no result', ['# Subtest: a', '    ok 1 - yes', '    1..1'].join('\n'), /before the subtest above it closed/],
      ['two plans', ['# Subtest: a', '    1..1', '    ok 1 - yes', '    1..1', 'ok 1 - a'].join('\n'), /two plans/],
    ];
    for (const [what, body, message] of refused) {
      it(what, () => {
        expect(() => parseTap(oneFile(body, 1), ['test/t001_x.test.js'])).toThrow(message);
      });
    }

    it('a file the run was not given', () => {
      expect(() => parseTap(oneFile('# Subtest: a\n    ok 1 - y\n    1..1\nok 1 - a', 1, true, 'test/other.test.js'), ['test/t001_x.test.js'])).toThrow(
        /a file the run was not given: test\/other.test.js/,
      );
    });

    it("tap's count of failures where no point failed", () => {
      const raw = oneFile('# Subtest: a\n    ok 1 - y\n    1..1\nok 1 - a', 1).replace('# { total: 1, pass: 1 }', '# { total: 1, fail: 1 }');
      expect(() => parseTap(raw, ['test/t001_x.test.js'])).toThrow(/counts 1 failed/);
    });

    it('no TAP at all', () => {
      expect(() => parseTap('Error: tap crashed\n', ['test/t001_x.test.js'])).toThrow(/no TAP/);
    });

    it('an end inside a subtest', () => {
      expect(() => parseTap('TAP version 14\n1..1\n# Subtest: test/t001_x.test.js\n    # Subtest: a\n        ok 1 - y\n', ['test/t001_x.test.js'])).toThrow(
        /ends inside the subtest `a`, before its result/,
      );
    });
  });
});
