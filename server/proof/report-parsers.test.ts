/**
 * The report parsers on small reports written by hand, each shaped as its runner writes it, for
 * the rules the captured real runs (runner-report.test.ts) do not reach one by one.
 */
import { describe, expect, it } from 'vitest';
import {
  isNamedCase,
  mochaLoadFile,
  mochaSummary,
  namedCaseIn,
  notRunMessage,
  parseJestJson,
  parseMochaJson,
  parseNodeJunit,
  parsePytestJunit,
  parseReport,
  reportPresetOf,
  parseUnittestJson,
  type ReportCase,
} from './report-parsers.ts';

const W = '/w';
const aCase = (fullTitle: string, over: Partial<ReportCase> = {}): ReportCase => ({
  file: 't.py',
  name: fullTitle,
  fullTitle,
  outcome: 'passed',
  message: '',
  ...over,
});

describe('pytest junit (xunit1)', () => {
  it('names each case by its classes and name, reads failures, errors and skips, and a collection error as a load error', () => {
    const raw = `<?xml version="1.0"?><testsuites><testsuite name="pytest">
      <testcase classname="tests.test_x.TestA.TestB" name="test_one" file="tests/test_x.py"/>
      <testcase classname="tests.test_x" name="test_two" file="tests/test_x.py"><failure message="assert 1 == 2">long text
      </failure></testcase>
      <testcase classname="tests.test_x" name="test_three" file="tests/test_x.py"><error>  boom  </error></testcase>
      <testcase classname="tests.test_x" name="test_four" file="tests/test_x.py"><skipped message="later"/></testcase>
      <testcase classname="other.mod" name="test_five" file="tests/test_x.py"/>
      <testcase classname="" name="tests.test_broken" file="tests/test_broken.py"><error message="collection failure">ImportError</error></testcase>
      <testcase classname="" name="tests.test_gone"><error message="gone"/></testcase>
      <testcase classname="" name="test_ok"/>
    </testsuite></testsuites>`;
    expect(parsePytestJunit(raw)).toEqual({
      cases: [
        { file: 'tests/test_x.py', name: 'test_one', fullTitle: 'TestA::TestB::test_one', outcome: 'passed', message: '' },
        { file: 'tests/test_x.py', name: 'test_two', fullTitle: 'test_two', outcome: 'failed', message: 'assert 1 == 2\nlong text' },
        { file: 'tests/test_x.py', name: 'test_three', fullTitle: 'test_three', outcome: 'failed', message: 'boom' },
        { file: 'tests/test_x.py', name: 'test_four', fullTitle: 'test_four', outcome: 'skipped', message: 'later' },
        { file: 'tests/test_x.py', name: 'test_five', fullTitle: 'test_five', outcome: 'passed', message: '' },
        { file: null, name: 'test_ok', fullTitle: 'test_ok', outcome: 'passed', message: '' },
      ],
      loadErrors: [
        { file: 'tests/test_broken.py', message: 'collection failure\nImportError' },
        { file: 'tests/test_gone.py', message: 'gone' },
      ],
    });
  });

  it('reads an empty run, nested suites, and refuses a document that is not junit', () => {
    expect(parsePytestJunit('<testsuites></testsuites>')).toEqual({ cases: [], loadErrors: [] });
    const nested = '<testsuites><testsuite><testsuite><testcase classname="m" name="t" file="m.py"/></testsuite></testsuite></testsuites>';
    expect(parsePytestJunit(nested).cases).toEqual([{ file: 'm.py', name: 't', fullTitle: 't', outcome: 'passed', message: '' }]);
    expect(() => parsePytestJunit('<testsuite/>')).toThrow('no <testsuites> element');
    // A message of digits stays text.
    const digits = '<testsuites><testsuite><testcase classname="m" name="t" file="m.py"><failure message="0042"/></testcase></testsuite></testsuites>';
    expect(parsePytestJunit(digits).cases[0]!.message).toBe('0042');
  });
});

describe("node's junit", () => {
  it('joins describe titles, has no file, and reads a failed case named by an absolute path at the top as a file that did not load', () => {
    const raw = `<testsuites>
      <testcase name="/w/tests/t001_x.test.js"><failure type="testCodeFailure" message="test failed">Error: Cannot find module</failure></testcase>
      <testcase name="/w/tests/ok.test.js"/>
      <testsuite name="calc"><testsuite name="divide"><testcase name="/w/abs"><failure message="x"/></testcase><testcase name="by two"/></testsuite></testsuite>
      <testsuite><testcase name="untitled"/></testsuite>
    </testsuites>`;
    expect(parseNodeJunit(raw, W)).toEqual({
      cases: [
        { file: null, name: '/w/tests/ok.test.js', fullTitle: '/w/tests/ok.test.js', outcome: 'passed', message: '' },
        { file: null, name: '/w/abs', fullTitle: 'calc divide /w/abs', outcome: 'failed', message: 'x' },
        { file: null, name: 'by two', fullTitle: 'calc divide by two', outcome: 'passed', message: '' },
        { file: null, name: 'untitled', fullTitle: ' untitled', outcome: 'passed', message: '' },
      ],
      loadErrors: [{ file: 'tests/t001_x.test.js', message: 'test failed\nError: Cannot find module' }],
    });
    expect(parseReport('node', '<testsuites/>', W)).toEqual({ cases: [], loadErrors: [] });
  });
});

describe("jest's json (vitest's too)", () => {
  it('reads each case with its ancestors, a failed file without cases as a load error, and any other status as skipped', () => {
    const raw = JSON.stringify({
      testResults: [
        {
          name: '/w/tests/a.test.js',
          status: 'failed',
          assertionResults: [
            { title: 'adds', ancestorTitles: ['calc', 'add'], status: 'passed' },
            { title: 'subtracts', status: 'failed', failureMessages: ['one', 'two'] },
            { title: 'later', status: 'pending', failureMessages: null },
            { title: 'todo', status: 'todo' },
          ],
        },
        { name: '/w/tests/b.test.js', status: 'failed', message: '  Cannot find module  ', assertionResults: [] },
        { name: '/w/tests/c.test.js', status: 'failed', assertionResults: [] },
        { name: '/elsewhere/d.test.js', status: 'passed', assertionResults: [] },
      ],
    });
    for (const preset of ['jest', 'vitest'] as const) {
      expect(parseReport(preset, raw, W)).toEqual({
        cases: [
          { file: 'tests/a.test.js', name: 'adds', fullTitle: 'calc add adds', outcome: 'passed', message: '' },
          { file: 'tests/a.test.js', name: 'subtracts', fullTitle: 'subtracts', outcome: 'failed', message: 'one\ntwo' },
          { file: 'tests/a.test.js', name: 'later', fullTitle: 'later', outcome: 'skipped', message: '' },
          { file: 'tests/a.test.js', name: 'todo', fullTitle: 'todo', outcome: 'skipped', message: '' },
        ],
        loadErrors: [
          { file: 'tests/b.test.js', message: 'Cannot find module' },
          { file: 'tests/c.test.js', message: '' },
        ],
      });
    }
    expect(() => parseJestJson('{"testResults": 3}', W)).toThrow();
  });
});

describe("mocha's json reporter", () => {
  const t = (title: string, over: Record<string, unknown> = {}) => ({ title, fullTitle: `calc ${title}`, file: '/w/test/a.test.js', ...over });
  it('reads each case once with how it ended, a failing hook as a case, and the stack or the message of a failure', () => {
    const raw = JSON.stringify({
      stats: { tests: 4 },
      tests: [t('adds'), t('subtracts'), t('later'), t('lost', { file: undefined }), t('quiet')],
      pending: [t('later')],
      failures: [
        t('subtracts', { err: { message: 'no', stack: 'AssertionError: no\n  at x' } }),
        t('"before all" hook', { err: { message: 'hook broke' } }),
        t('quiet', { err: {} }),
      ],
      passes: [t('adds'), t('lost', { file: undefined })],
    });
    expect(parseMochaJson(raw, W)).toEqual({
      cases: [
        { file: 'test/a.test.js', name: 'adds', fullTitle: 'calc adds', outcome: 'passed', message: '' },
        { file: 'test/a.test.js', name: 'subtracts', fullTitle: 'calc subtracts', outcome: 'failed', message: 'AssertionError: no\n  at x' },
        { file: 'test/a.test.js', name: 'later', fullTitle: 'calc later', outcome: 'skipped', message: '' },
        { file: null, name: 'lost', fullTitle: 'calc lost', outcome: 'passed', message: '' },
        { file: 'test/a.test.js', name: 'quiet', fullTitle: 'calc quiet', outcome: 'failed', message: '' },
        { file: 'test/a.test.js', name: '"before all" hook', fullTitle: 'calc "before all" hook', outcome: 'failed', message: 'hook broke' },
      ],
      loadErrors: [],
    });
  });

  it('renders what the worker reads: each case, the counts, and each failure with its file and message', () => {
    const report = {
      cases: [
        aCase('calc adds', { file: 'test/a.test.js' }),
        aCase('calc later', { outcome: 'skipped' }),
        aCase('calc subtracts', { outcome: 'failed', message: 'no\nreally', file: 'test/a.test.js' }),
        aCase('calc hook', { outcome: 'failed', message: 'x', file: null }),
      ],
      loadErrors: [],
    };
    expect(mochaSummary(report, '  warning: slow\n')).toBe(
      [
        'warning: slow',
        '  ✔ calc adds',
        '  - calc later',
        '  1) calc subtracts',
        '  2) calc hook',
        '',
        '1 passing',
        '1 pending',
        '2 failing',
        '',
        '  1) calc subtracts (test/a.test.js):',
        '     no',
        '     really',
        '',
        '  2) calc hook:',
        '     x',
        '',
      ].join('\n'),
    );
    expect(mochaSummary({ cases: [], loadErrors: [] }, '')).toBe('0 passing');
    expect(mochaSummary({ cases: [aCase('a')], loadErrors: [] }, '')).toBe('  ✔ a\n\n1 passing');
  });

  it('names the file mocha could not load from the require stack or the ES importer, relative to the worktree', () => {
    expect(mochaLoadFile("Error: Cannot find module '../src/x'\nRequire stack:\n- /w/test/a.test.js\n- /w/node_modules/mocha/x.js", W)).toBe('test/a.test.js');
    expect(mochaLoadFile("Cannot find module '/w/src/x.js' imported from /w/test/b.test.mjs", W)).toBe('test/b.test.mjs');
    expect(mochaLoadFile('imported from /elsewhere/c.mjs', W)).toBe('/elsewhere/c.mjs');
    expect(mochaLoadFile('imported from test/d.mjs', W)).toBe('test/d.mjs');
    expect(mochaLoadFile('Exception during run: SyntaxError', W)).toBeNull();
  });
});

describe("the unittest runner's json", () => {
  it('reads its cases, load errors, bare functions and unknown names as they are', () => {
    const raw = JSON.stringify({
      cases: [{ file: 'tests/t.py', name: 'test_a', full_title: 'T.test_a', outcome: 'failed', message: 'no' }],
      load_errors: [{ file: null, message: 'Failed to import' }],
      unknown: [{ name: 'tests.t.T.test_z', message: 'AttributeError' }],
      bare: [{ file: 'tests/t.py', name: 'test_b' }],
    });
    expect(parseReport('unittest', raw, W)).toEqual({
      cases: [{ file: 'tests/t.py', name: 'test_a', fullTitle: 'T.test_a', outcome: 'failed', message: 'no' }],
      loadErrors: [{ file: null, message: 'Failed to import' }],
      unknown: [{ name: 'tests.t.T.test_z', message: 'AttributeError' }],
      bare: [{ file: 'tests/t.py', name: 'test_b' }],
    });
    expect(() => parseUnittestJson('{"cases": []}')).toThrow();
  });
  it("sends go's events, cargo's lines and a custom command's JUnit each to its own reader, with the run's files", () => {
    const go = parseReport('go', '{"Action":"run","Package":"m/todo","Test":"TestA"}\n{"Action":"pass","Package":"m/todo","Test":"TestA"}\n', W);
    expect(go.cases.map((c) => [c.fullTitle, c.outcome])).toEqual([['TestA', 'passed']]);
    const cargo = parseReport(
      'cargo',
      '     Running tests/t001_a.rs (target/x)\n\nrunning 1 test\ntest adds ... ok\n\ntest result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\n',
      W,
    );
    expect(cargo.cases.map((c) => [c.file, c.fullTitle, c.outcome])).toEqual([['tests/t001_a.rs', 'adds', 'passed']]);
    const junit = parseReport('junit', '<testsuites><testsuite name="./t/a_test.js"><testcase name="adds"/></testsuite></testsuites>', W, '', ['t/a_test.js']);
    expect(junit.cases.map((c) => [c.file, c.fullTitle])).toEqual([['t/a_test.js', 'adds']]);
  });
});

describe('a named case in a report', () => {
  it('is selected the way each runner selects one case', () => {
    // pytest: the node id's tail, a class's cases, a parametrized case.
    expect(isNamedCase('pytest', aCase('TestA::test_x'), 'TestA::test_x')).toBe(true);
    expect(isNamedCase('pytest', aCase('TestA::test_x'), 'TestA')).toBe(true);
    expect(isNamedCase('pytest', aCase('test_x[1-2]'), 'test_x')).toBe(true);
    expect(isNamedCase('pytest', aCase('test_x[1-2'), 'test_x')).toBe(false);
    expect(isNamedCase('pytest', aCase('test_xy'), 'test_x')).toBe(false);
    expect(isNamedCase('pytest', aCase('A::test_x'), 'test_x')).toBe(false);
    // unittest: dotted, with pytest's separator read as a dot, or the bare method.
    expect(isNamedCase('unittest', aCase('T.test_x'), 'T::test_x')).toBe(true);
    expect(isNamedCase('unittest', aCase('T.test_x'), 'T')).toBe(true);
    expect(isNamedCase('unittest', aCase('T.test_x', { name: 'test_x' }), 'test_x')).toBe(true);
    expect(isNamedCase('unittest', aCase('Tx.test_x', { name: 'test_x' }), 'T')).toBe(false);
    // node: the case's own name only.
    expect(isNamedCase('node', aCase('calc adds', { name: 'adds' }), 'adds')).toBe(true);
    expect(isNamedCase('node', aCase('calc adds', { name: 'adds' }), 'calc adds')).toBe(false);
    // jest, vitest, mocha: the full title, or its end.
    expect(isNamedCase('jest', aCase('calc adds'), 'calc adds')).toBe(true);
    expect(isNamedCase('vitest', aCase('calc adds', { name: 'adds' }), 'adds')).toBe(true);
    // A title that only ends with the name is another case.
    expect(isNamedCase('vitest', aCase('calc readds', { name: 'readds' }), 'adds')).toBe(false);
    // A full name (describe titles › own title) is the whole full title: spaces for jest, vitest,
    // mocha and node, ` > ` for a JUnit writer (bun, deno); never a case of the same title elsewhere.
    const nested = aCase('calc sum adds', { name: 'adds' });
    for (const p of ['jest', 'vitest', 'mocha', 'node'] as const) {
      expect(isNamedCase(p, nested, 'calc › sum › adds')).toBe(true);
      expect(isNamedCase(p, nested, 'sum › adds')).toBe(false);
      expect(isNamedCase(p, aCase('other sum adds', { name: 'adds' }), 'calc › sum › adds')).toBe(false);
    }
    expect(isNamedCase('junit', aCase('calc > sum > adds', { name: 'adds' }), 'calc › sum › adds')).toBe(true);
    expect(isNamedCase('junit', aCase('calc sum adds', { name: 'adds' }), 'calc › sum › adds')).toBe(true);
    expect(isNamedCase('junit', aCase('calc > adds', { name: 'adds' }), 'adds')).toBe(true);
    expect(isNamedCase('junit', aCase('calc > adds', { name: 'adds' }), 'calc › sum › adds')).toBe(false);
    // cargo: libtest's full name, whole.
    expect(isNamedCase('cargo', aCase('refuses::unknown'), 'refuses::unknown')).toBe(true);
    expect(isNamedCase('cargo', aCase('refuses::unknown'), 'unknown')).toBe(false);
    expect(isNamedCase('jest', aCase('calc re adds', { name: 're adds' }), 'adds')).toBe(false);
    expect(isNamedCase('ava', aCase('adds'), 'adds')).toBe(true);
    expect(isNamedCase('mocha', aCase('calc adds'), 'calc')).toBe(false);
    // go: the full name, a test with its subtests, and a subtest's spaces as go writes them.
    expect(isNamedCase('go', aCase('TestSet/returns_a_copy'), 'TestSet/returns a copy')).toBe(true);
    expect(isNamedCase('go', aCase('TestSet/returns_a_copy'), 'TestSet')).toBe(true);
    expect(isNamedCase('go', aCase('TestSet'), 'TestSet')).toBe(true);
    expect(isNamedCase('go', aCase('TestSetAll'), 'TestSet')).toBe(false);
    expect(isNamedCase('go', aCase('TestSet/returns_a_copy'), 'returns a copy')).toBe(false);
  });

  it("finds a go case by its package's folder, which holds the file", () => {
    const report = {
      cases: [aCase('TestA', { file: 'todo' }), aCase('TestA', { file: '.' }), aCase('TestA', { file: 'todo/sub' })],
      loadErrors: [{ file: 'stats', message: 'no build' }],
    };
    expect(namedCaseIn('go', report, 'todo/t001_a_test.go', 'TestA').cases.map((c) => c.file)).toEqual(['todo']);
    expect(namedCaseIn('go', report, 't001_a_test.go', 'TestA').cases.map((c) => c.file)).toEqual(['.']);
    expect(namedCaseIn('go', report, 'stats/t002_b_test.go', 'TestB').loadError?.message).toBe('no build');
    expect(namedCaseIn('go', report, 'todo/t001_a_test.go', 'TestB').loadError).toBeNull();
  });

  it("is looked for in its own file (or a case with no file), with that file's load error", () => {
    const report = {
      cases: [
        aCase('adds', { file: 'tests/a.test.js' }),
        aCase('adds', { file: 'tests/b.test.js' }),
        aCase('adds', { file: null }),
        aCase('adds', { file: '/w/tests/a.test.js' }),
      ],
      loadErrors: [{ file: 'tests/b.test.js', message: 'b broke' }],
    };
    const inA = namedCaseIn('jest', report, 'tests/a.test.js', 'adds');
    expect(inA.cases.map((c) => c.file)).toEqual(['tests/a.test.js', null, '/w/tests/a.test.js']);
    expect(inA.loadError).toBeNull();
    expect(namedCaseIn('jest', report, 'tests/b.test.js', 'adds').loadError).toEqual({ file: 'tests/b.test.js', message: 'b broke' });
    expect(namedCaseIn('jest', { cases: [aCase('x', { file: 'a.test.js' })], loadErrors: [] }, 'tests/a.test.js', 'x').cases).toHaveLength(1);
    expect(namedCaseIn('jest', { cases: [aCase('x', { file: 'xa.test.js' })], loadErrors: [] }, 'a.test.js', 'x').cases).toHaveLength(0);
    expect(namedCaseIn('jest', { cases: [], loadErrors: [{ file: null, message: 'all broke' }] }, 'a.test.js', 'x').loadError?.message).toBe('all broke');
  });

  it('says why it did not run: skipped, a unittest bare function, or no case by that name', () => {
    const report = { cases: [], loadErrors: [], bare: [{ file: 'tests/t.py', name: 'test_b' }] };
    expect(notRunMessage('node', report, 'T-001', 'tests/t.js', 'adds', true)).toBe(
      "T-001's case `adds` was skipped by node --test in tests/t.js, so it proves nothing",
    );
    for (const name of ['test_b', 'T.test_b', 'T::test_b']) {
      expect(notRunMessage('unittest', report, 'T-001', 'tests/t.py', name, false)).toBe(
        `T-001's case \`${name}\` was not collected by unittest: a bare function is not a TestCase method`,
      );
    }
    expect(notRunMessage('unittest', report, 'T-001', 'tests/t.py', 'test_bx', false)).toBe(
      "T-001's case `test_bx` was not collected by unittest in tests/t.py: no case by that name ran; check its name in the matrix against the file",
    );
    expect(notRunMessage('unittest', report, 'T-001', 'tests/other.py', 'test_b', false)).toContain('no case by that name ran');
  });

  it("is the runner's own for every preset, JUnit for a custom command with {junit}, and none for one without", () => {
    for (const p of ['pytest', 'unittest', 'node', 'vitest', 'jest', 'mocha', 'ava', 'go', 'cargo'] as const) expect(reportPresetOf(p, null)).toBe(p);
    expect(reportPresetOf('custom', { test: 'bun test {files} --reporter=junit --reporter-outfile={junit}' })).toBe('junit');
    expect(reportPresetOf('custom', { test: 'bun test {files}' })).toBeNull();
    expect(reportPresetOf('custom', null)).toBeNull();
  });
});
