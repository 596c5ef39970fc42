import { describe, expect, it } from 'vitest';
import { parseJunit, withUnloadedFiles } from './junit-report.ts';

// Captured from bun 1.4.5 (`bun test --reporter=junit`): suites nest by describe, each with the file.
const BUN = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="bun test" tests="4" assertions="3" failures="1" skipped="1" time="0.007">
  <testsuite name="t/a.test.ts" file="t/a.test.ts" tests="4" failures="1" skipped="1" time="0.001" hostname="vm">
    <testsuite name="outer" file="t/a.test.ts" line="2" tests="3" failures="1" skipped="1" time="0" hostname="vm">
      <testsuite name="inner" file="t/a.test.ts" line="3" tests="1" failures="0" skipped="0" time="0" hostname="vm">
        <testcase name="adds one" classname="inner &gt; outer" time="0.000025" file="t/a.test.ts" line="4" assertions="1" />
      </testsuite>
      <testcase name="fails &lt;here&gt; &amp; &quot;q&quot;" classname="outer" time="0.000153" file="t/a.test.ts" line="6" assertions="1">
        <failure type="AssertionError" message="expect(received).toBe(expected)">AssertionError: Expected: 2&#10;Received: 1</failure>
      </testcase>
      <testcase name="skipped one" classname="outer" time="0" file="t/a.test.ts" line="7" assertions="0">
        <skipped />
      </testcase>
    </testsuite>
    <testcase name="top level" classname="" time="0.000054" file="t/a.test.ts" line="9" assertions="1" />
  </testsuite>
</testsuites>`;

// Captured from deno 2.9.6 (`deno test --junit-path`): one suite per file named `./…`, steps as `test > step`.
const DENO = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="deno test" tests="4" failures="2" errors="0" time="0.031">
    <testsuite name="./d/a_test.ts" tests="4" disabled="0" errors="0" failures="2">
        <testcase name="adds one" classname="./d/a_test.ts" time="0.019" line="1" col="6">
        </testcase>
        <testcase name="outer" classname="./d/a_test.ts" time="0.002" line="4" col="6">
            <failure message="1 test step failed">1 test step failed.</failure>
        </testcase>
        <testcase name="outer &gt; inner step" classname="./d/a_test.ts" time="0.000" line="5" col="11">
        </testcase>
        <testcase name="outer &gt; bad step" classname="./d/a_test.ts" time="0.001" line="6" col="11">
            <failure message="Uncaught Error: step broke">Error: step broke</failure>
        </testcase>
    </testsuite>
</testsuites>`;

describe('parseJunit', () => {
  it("reads bun's nested suites into full names below the file, with each case's file and outcome", () => {
    const report = parseJunit(BUN, '/w', ['t/a.test.ts']);
    expect(report.loadErrors).toEqual([]);
    // A suite's own cases come before its nested suites'.
    expect(report.cases.map((c) => [c.file, c.name, c.fullTitle, c.outcome])).toEqual([
      ['t/a.test.ts', 'top level', 'top level', 'passed'],
      ['t/a.test.ts', 'fails <here> & "q"', 'outer > fails <here> & "q"', 'failed'],
      ['t/a.test.ts', 'skipped one', 'outer > skipped one', 'skipped'],
      ['t/a.test.ts', 'adds one', 'outer > inner > adds one', 'passed'],
    ]);
    expect(report.cases[1]!.message).toBe('expect(received).toBe(expected)\nAssertionError: Expected: 2\nReceived: 1');
  });

  it("takes deno's file from the suite named `./…` and keeps a step's name as deno writes it", () => {
    const report = parseJunit(DENO, '/w', ['d/a_test.ts']);
    expect(report.cases.map((c) => [c.file, c.fullTitle, c.outcome])).toEqual([
      ['d/a_test.ts', 'adds one', 'passed'],
      ['d/a_test.ts', 'outer', 'failed'],
      ['d/a_test.ts', 'outer > inner step', 'passed'],
      ['d/a_test.ts', 'outer > bad step', 'failed'],
    ]);
  });

  it('finds a file by a case classname only when it names a file of the run, and leaves the file unknown otherwise', () => {
    const raw = `<testsuites><testsuite name="pytest"><testcase classname="./tests/a.py" name="x"/><testcase classname="tests.b" name="y"/></testsuite></testsuites>`;
    const report = parseJunit(raw, '/w', ['tests/a.py']);
    expect(report.cases.map((c) => [c.file, c.fullTitle])).toEqual([
      ['tests/a.py', 'x'],
      [null, 'y'],
    ]);
  });

  it('keeps suite names below the first level as titles, leaves a suite named as its file out at any depth, and takes an absolute file relative to the worktree', () => {
    const raw = `<testsuites><testsuite name="root"><testsuite name="/w/t/b.test.js"><testsuite name="group"><testcase name="c" file="/w/t/b.test.js"/></testsuite></testsuite></testsuite></testsuites>`;
    const report = parseJunit(raw, '/w', ['t/b.test.js']);
    expect(report.cases).toEqual([{ file: 't/b.test.js', name: 'c', fullTitle: 'group > c', outcome: 'passed', message: '' }]);
  });

  it("takes a suite's file attribute over its name, gives it to the suite's cases, and keeps an unnamed suite as an empty title", () => {
    const raw = `<testsuites><testsuite name="runner">
      <testsuite name="t/named.test.js" file="././t/real.test.js">
        <testcase name="a"/>
        <testsuite name="t/real.test.js"><testsuite><testcase name="b"/></testsuite></testsuite>
        <testsuite name="t/other.test.js"><testcase name="c"/></testsuite>
      </testsuite>
    </testsuite></testsuites>`;
    const report = parseJunit(raw, '/w', ['./t/real.test.js', 't/named.test.js', 't/other.test.js']);
    expect(report.cases.map((c) => [c.file, c.fullTitle])).toEqual([
      ['t/real.test.js', 'a'],
      // The suite named as its file is left out, the unnamed one kept as an empty title; a suite
      // named as another file of the run is that file's, and not a title.
      ['t/real.test.js', ' > b'],
      ['t/other.test.js', 'c'],
    ]);
  });

  it('reads a module path without its extension only: a dot inside a folder name stays', () => {
    const raw = `<testsuites><testsuite name="s"><testcase name="pkg.v2.tests.test_a"><error message="e"/></testcase></testsuite></testsuites>`;
    expect(parseJunit(raw, '/w', ['pkg.v2/tests/test_a.py']).loadErrors).toEqual([{ file: 'pkg.v2/tests/test_a.py', message: 'e' }]);
  });

  it('reads a lone <testsuite> root, and an empty one as no cases', () => {
    expect(parseJunit('<testsuite name="x"><testcase name="a"><error message="boom"/></testcase><testcase/></testsuite>', '/w', []).cases).toEqual([
      { file: null, name: 'a', fullTitle: 'a', outcome: 'failed', message: 'boom' },
      { file: null, name: '', fullTitle: '', outcome: 'passed', message: '' },
    ]);
    expect(parseJunit('<testsuite/>', '/w', []).cases).toEqual([]);
    expect(() => parseJunit('<nothing/>', '/w', [])).toThrow('no <testsuites> or <testsuite> element');
  });

  it("reads a failed case named as a file of the run, by its path (node) or its module path (pytest), as that file's load error", () => {
    const raw = `<testsuites><testsuite name="s">
      <testcase name="/w/tests/t002.test.js"><failure message="test failed">Cannot find module '../src/divide.js'</failure></testcase>
      <testcase classname="" name="tests.test_t003"><error message="collection failure">ModuleNotFoundError: No module named 'calc'</error></testcase>
      <testcase name="tests.test_t004"><error message="e"/></testcase>
      <testcase name="tests/t005.test.js"/>
    </testsuite></testsuites>`;
    const report = parseJunit(raw, '/w', ['tests/t002.test.js', 'tests/test_t003.py', 'tests/t005.test.js']);
    expect(report.loadErrors).toEqual([
      { file: 'tests/t002.test.js', message: "test failed\nCannot find module '../src/divide.js'" },
      { file: 'tests/test_t003.py', message: "collection failure\nModuleNotFoundError: No module named 'calc'" },
    ]);
    // Not a file of the run, or a case that passed: a case like any other.
    expect(report.cases.map((c) => [c.name, c.outcome])).toEqual([
      ['tests.test_t004', 'failed'],
      ['tests/t005.test.js', 'passed'],
    ]);
  });
});

describe('withUnloadedFiles', () => {
  const report = { cases: [{ file: 't/a.test.ts', name: 'a', fullTitle: 'a', outcome: 'passed' as const, message: '' }], loadErrors: [] };

  it('adds each file of a failed run with no case in the report as a load error', () => {
    const read = withUnloadedFiles(report, ['t/a.test.ts', 't/b.test.ts'], 1);
    expect(read!.cases).toBe(report.cases);
    expect(read!.loadErrors).toEqual([
      { file: 't/b.test.ts', message: 'The custom command exited with code 1 and its JUnit report has no case of this file.' },
    ]);
  });

  it('makes every file of a failed run that wrote no report a load error, and keeps a missing report missing when no file is given', () => {
    expect(withUnloadedFiles(null, ['d/a_test.ts'], 1)).toEqual({
      cases: [],
      loadErrors: [{ file: 'd/a_test.ts', message: 'The custom command exited with code 1 and wrote no JUnit report.' }],
    });
    expect(withUnloadedFiles(null, [], 1)).toBeNull();
  });

  it('adds nothing to a run that passed or did not end, nor for a file already named by a load error or by a case without a file', () => {
    expect(withUnloadedFiles(report, ['t/b.test.ts'], 0)).toBe(report);
    expect(withUnloadedFiles(null, ['t/b.test.ts'], null)).toBeNull();
    const loaded = { cases: [], loadErrors: [{ file: 't/b.test.ts', message: 'x' }] };
    expect(withUnloadedFiles(loaded, ['t/b.test.ts'], 1)!.loadErrors).toEqual([{ file: 't/b.test.ts', message: 'x' }]);
    const unnamed = { cases: [{ file: null, name: 'a', fullTitle: 'a', outcome: 'failed' as const, message: '' }], loadErrors: [] };
    expect(withUnloadedFiles(unnamed, ['t/b.test.ts'], 1)!.loadErrors).toEqual([]);
  });
});
