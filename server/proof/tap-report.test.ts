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

  it('reads a group of subtests that all ran, a skipped assertion as a skipped case, and `not ok # SKIP` as failed', () => {
    const body = [
      '# Subtest: outer',
      '    # Subtest: inner',
      '        ok 1 - should be equal',
      '        1..1',
      '    ok 1 - inner # time=1ms',
      '    1..1',
      'ok 1 - outer # time=2ms',
      '# Subtest: asserts',
      '    ok 1 - should be equal',
      '    ok 2 - later # SKIP',
      '    1..2',
      'ok 2 - asserts # time=1ms',
      'not ok 3 - skipped, yet failed # SKIP',
      '  ---',
      '  found: 3',
      '  ...',
    ].join('\n');
    const raw = oneFile(body, 3, false).replace('# { total: 1, pass: 1 }', '# { total: 3, pass: 1, fail: 1, skip: 1 }');
    const report = parseTap(raw, ['test/t001_x.test.js']);
    expect(report.cases.map((c) => [c.fullTitle, c.outcome, c.message])).toEqual([
      ['outer > inner', 'passed', ''],
      ['asserts > later', 'skipped', ''],
      ['skipped, yet failed', 'failed', 'found: 3'],
    ]);
    expect(report.loadErrors).toEqual([]);
  });

  it("fails a group's cases with the failing assertions inside a failed subtest that is not a failed case", () => {
    const body = [
      '# Subtest: group',
      '    # Subtest: later',
      '        not ok 1 - nope',
      '          ---',
      '          found: 1',
      '          ...',
      '        1..1',
      '    not ok 1 - later # TODO',
      '    # Subtest: fine',
      '        ok 1 - yes',
      '        1..1',
      '    ok 2 - fine',
      '    1..2',
      'not ok 1 - group',
    ].join('\n');
    const report = parseTap(oneFile(body, 1, false), ['test/t001_x.test.js']);
    expect(report.cases.map((c) => [c.fullTitle, c.outcome, c.message])).toEqual([
      ['group > later', 'skipped', ''],
      ['group > fine', 'failed', 'the group `group` failed around it: not ok - nope\n  found: 1'],
    ]);
  });

  it("gives a failed case with no failing assertion its own block, a line printed less indented trimmed, and its failure counted against tap's", () => {
    const body = [
      '# Subtest: times out',
      '    ok 1 - fine',
      '    1..1',
      'not ok 1 - times out # time=5ms',
      '  ---',
      '  message: |',
      '    timed out',
      'printed at the left',
      '  ...',
    ].join('\n');
    const raw = oneFile(body, 1, false).replace('# { total: 1, pass: 1 }', '# { total: 1, fail: 1 }');
    expect(parseTap(raw, ['test/t001_x.test.js'])).toEqual({
      cases: [
        {
          file: 'test/t001_x.test.js',
          name: 'times out',
          fullTitle: 'times out',
          outcome: 'failed',
          message: 'message: |\n  timed out\nprinted at the left',
        },
      ],
      loadErrors: [],
    });
  });

  it('keeps the first 40 lines of a failure', () => {
    const assertions = Array.from({ length: 25 }, (_, i) => [`    not ok ${i + 1} - check ${i + 1}`, '      ---', `      found: ${i + 1}`, '      ...']);
    const body = ['# Subtest: many', ...assertions.flat(), '    1..25', 'not ok 1 - many'].join('\n');
    const [failed] = parseTap(oneFile(body, 1, false), ['test/t001_x.test.js']).cases;
    const lines = failed!.message.split('\n');
    expect(lines).toHaveLength(40);
    expect(lines.slice(0, 2)).toEqual(['not ok - check 1', '  found: 1']);
    expect(lines.at(-1)).toBe('  found: 20');
  });

  it("reads only the first 40 lines of a block, and a file failing with no failed case, no exit code, by the block's own words", () => {
    const block = Array.from({ length: 40 }, (_, i) => `  note: ${i + 1}`);
    const raw = oneFile('# Subtest: a\n    ok 1 - y\n    1..1\nok 1 - a', 1, false).replace(
      '# time=5ms',
      `# time=5ms\n  ---\n${block.join('\n')}\n  exitCode: 1\n  ...`,
    );
    const report = parseTap(raw, ['test/t001_x.test.js']);
    expect(report.cases.map((c) => c.outcome)).toEqual(['passed']);
    expect(report.loadErrors).toEqual([{ file: 'test/t001_x.test.js', message: block.map((l) => l.trim()).join('\n') }]);
  });

  it('makes a failed file whose cases all passed a load error by its exit code alone', () => {
    const raw = oneFile('# Subtest: a\n    ok 1 - y\n    1..1\nok 1 - a', 1, false).replace(
      '# time=5ms',
      '# time=5ms\n  ---\n  stdio: inherit\n  exitCode: 1\n  signal: null\n  ...',
    );
    expect(parseTap(raw, ['test/t001_x.test.js']).loadErrors).toEqual([{ file: 'test/t001_x.test.js', message: 'exitCode: 1' }]);
  });

  it('makes a failing file point with no subtest lines a load error by its exit code, not a nested one', () => {
    const raw = 'TAP version 14\n1..1\nnot ok 1 - test/t001_x.test.js\n  ---\n  cause:\n    exitCode: 9\n  exitCode: 1\n  signal: null\n  ...\n';
    expect(parseTap(raw, ['test/t001_x.test.js'])).toEqual({ cases: [], loadErrors: [{ file: 'test/t001_x.test.js', message: 'exitCode: 1' }] });
  });

  it('reads a level of twelve points, points with no dash or no description, and a plan at the end of the top level', () => {
    const checks = Array.from({ length: 12 }, (_, i) => `        ok ${i + 1} - check ${i + 1}`);
    const raw = [
      'TAP version 14',
      '# Subtest: test/t001_x.test.js',
      '    # Subtest: many',
      ...checks,
      '        1..12',
      '    ok 1 - many',
      '    # Subtest: terse',
      '        ok 1',
      '        ok 2 no dash',
      '        1..2',
      '    ok 2 terse',
      '    1..2',
      'ok 1 - test/t001_x.test.js',
      '1..1',
      '',
    ].join('\n');
    expect(parseTap(raw, ['test/t001_x.test.js']).cases.map((c) => [c.fullTitle, c.outcome])).toEqual([
      ['many', 'passed'],
      ['terse', 'passed'],
    ]);
  });

  it('reads a directive only right after the first unescaped #, in either case, with or without a space', () => {
    const body = [
      '# Subtest: a',
      '    ok 1 - y',
      '    1..1',
      'ok 1 - a # time=1ms # TODO',
      'ok 2 - b #SKIP',
      'ok 3 - c # todo later',
      '# Subtest: d \\# skip',
      '    ok 1 - y',
      '    1..1',
      'ok 4 - d \\# skip # time=1ms',
    ].join('\n');
    expect(parseTap(oneFile(body, 4), ['test/t001_x.test.js']).cases.map((c) => [c.fullTitle, c.outcome])).toEqual([
      ['a', 'passed'],
      ['b', 'skipped'],
      ['c', 'skipped'],
      ['d # skip', 'passed'],
    ]);
  });

  it('reads a run of no files', () => {
    expect(parseTap('TAP version 14\n1..0\n', [])).toEqual({ cases: [], loadErrors: [] });
    expect(parseTap('TAP version 14\n1..0  # nothing to run\n', [])).toEqual({ cases: [], loadErrors: [] });
  });

  describe('passes over a printed line that only looks like TAP', () => {
    const printed: [string, string][] = [
      ['a line ending in ok', 'all ok'],
      ['a point after other text', 'see ok 1 - x'],
      ['a point cut by a carriage return', 'ok 1 - x\r50%'],
      ['a subtest after other text', 'see # Subtest: x'],
      ['a subtest cut by a carriage return', '# Subtest: x\r50%'],
      ['a plan after other text', 'items 1..3'],
      ['a plan with more after it', '1..1 items'],
      ['a block before any point of its level', '  ---'],
      ['a line deeper than any subtest', '    deeper'],
    ];
    for (const [what, line] of printed) {
      it(what, () => {
        const body = ['# Subtest: prints', `    ${line}`, '    ok 1 - yes', '    1..1', 'ok 1 - prints'].join('\n');
        expect(parseTap(oneFile(body, 1), ['test/t001_x.test.js'])).toEqual({
          cases: [{ file: 'test/t001_x.test.js', name: 'prints', fullTitle: 'prints', outcome: 'passed', message: '' }],
          loadErrors: [],
        });
      });
    }

    for (const line of ['note # { total: 1, fail: 1 }', '# { total: 1, fail: 1 } later']) {
      it(`a closing count with more around it: ${line}`, () => {
        const raw = `${oneFile('# Subtest: a\n    ok 1 - y\n    1..1\nok 1 - a', 1)}${line}\n`;
        expect(parseTap(raw, ['test/t001_x.test.js']).cases.map((c) => c.outcome)).toEqual(['passed']);
      });
    }

    it("tap's closing count inside a file, where tap gives none of its own", () => {
      const body = ['# Subtest: prints', '    # { total: 1, fail: 1 }', '    ok 1 - yes', '    1..1', 'ok 1 - prints'].join('\n');
      const raw = oneFile(body, 1).replace('# { total: 1, pass: 1 }\n', '');
      expect(parseTap(raw, ['test/t001_x.test.js']).cases.map((c) => c.outcome)).toEqual(['passed']);
    });

    it('a block line at the level of a subtest still running', () => {
      const body = ['ok 1 - an assertion', '# Subtest: a', '  ---', '    ok 1 - y', '    1..1', 'ok 2 - a'].join('\n');
      expect(parseTap(oneFile(body, 2), ['test/t001_x.test.js']).cases.map((c) => [c.fullTitle, c.outcome])).toEqual([['a', 'passed']]);
    });
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
      [
        'a subtest opened before the one above it closed',
        ['# Subtest: a', '    ok 1 - y', '    1..1', '# Subtest: b'].join('\n'),
        /a subtest opens before the one above it closed: # Subtest: b$/,
      ],
      [
        'a subtest closed while a subtest inside it has no result',
        ['# Subtest: a', '    # Subtest: b', '        ok 1 - y', '        1..1', 'ok 1 - a'].join('\n'),
        /the subtest `b` has no result/,
      ],
      [
        'a point with no number',
        ['# Subtest: a', '    ok 1 - y', '    ok - forged', '    1..2', 'ok 1 - a'].join('\n'),
        /test point 2 is numbered nothing: ok - forged$/,
      ],
      ['a bare result', ['# Subtest: a', '    ok 1 - y', '    not ok', '    1..2', 'ok 1 - a'].join('\n'), /test point 2 is numbered nothing: not ok$/],
      [
        'a subtest line deeper than any subtest',
        ['    # Subtest: stray', '# Subtest: a', '    ok 1 - y', '    1..1', 'ok 1 - a'].join('\n'),
        /deeper than any subtest that was opened: # Subtest: stray$/,
      ],
      [
        'a point deeper than any subtest',
        ['    ok 1 - stray', '# Subtest: a', '    ok 1 - y', '    1..1', 'ok 1 - a'].join('\n'),
        /deeper than any subtest that was opened: ok 1 - stray$/,
      ],
      [
        'a plan deeper than any subtest',
        ['    1..1', '# Subtest: a', '    ok 1 - y', '    1..1', 'ok 1 - a'].join('\n'),
        /deeper than any subtest that was opened: 1\.\.1$/,
      ],
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

    it("tap's count of more than nine failures where no point failed", () => {
      const raw = oneFile('# Subtest: a\n    ok 1 - y\n    1..1\nok 1 - a', 1).replace('# { total: 1, pass: 1 }', '# { total: 12, pass: 0, fail: 12 }');
      expect(() => parseTap(raw, ['test/t001_x.test.js'])).toThrow(/tap counts 12 failed, but none of its test points failed/);
    });

    it('a top level with no plan', () => {
      expect(() =>
        parseTap('TAP version 14\n# Subtest: test/t001_x.test.js\n    ok 1 - y\n    1..1\nok 1 - test/t001_x.test.js\n', ['test/t001_x.test.js']),
      ).toThrow(/no plan/);
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
