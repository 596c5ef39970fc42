import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { UntrustedResult } from '../proc/untrusted.ts';
import { namedCaseIn, notRunMessage, type ReportPreset, type RunnerReport } from './report-parsers.ts';
import { UNREAD_JUNIT, UNREAD_JUNIT_SETUP } from '../env/presets.ts';
import { Tree } from '../fs/tree.ts';
import { uvuArgs } from '../env/uvu-runner.ts';
import { tempDir } from '../testing/temp-dir.ts';
import { acceptanceVerdict, readRun, tapState, UNITTEST_RUNNER, withReport, type ReportedRun } from './runner-report.ts';

const DIR = path.join(import.meta.dirname, '../testing/runner-output/reports');
const WORKTREE: Record<string, string> = {
  py: '/tmp/cap-a/py',
  ut: '/tmp/cap-a/ut',
  nd: '/tmp/cap-a/nd',
  vt: '/tmp/cap-a/vt',
  je: '/tmp/cap-a/je',
  mo: '/tmp/cap-a/mo',
};

/** A captured run: its output, its exit code from the last line, and its report when one was written. */
function captured(preset: ReportPreset, label: string) {
  const text = fs.readFileSync(path.join(DIR, `${label}.out.txt`), 'utf8');
  const exit = /\[exit (\S+) spawnError (\S+)\]\s*$/.exec(text)!;
  const ext = preset === 'pytest' || preset === 'node' ? 'xml' : 'json';
  const reportFile = path.join(DIR, `${label}.report.${ext}`);
  const raw = fs.existsSync(reportFile) ? fs.readFileSync(reportFile, 'utf8') : null;
  const run = {
    output: text.slice(0, exit.index),
    exitCode: exit[1] === 'null' ? null : Number(exit[1]),
    spawnError: null,
    timedOut: false,
    sandboxed: true,
    processCapHit: false,
    processLimit: null,
  } as unknown as UntrustedResult; // the fields readRun reads; the rest of a RunResult plays no part
  return readRun(preset, run, raw, WORKTREE[label.slice(0, 2)]!);
}

const outcomes = (r: ReturnType<typeof captured>) => r.report?.cases.map((c) => [c.file, c.fullTitle, c.outcome]);

describe('the runners’ own reports, read from real runs', () => {
  it('pytest: each case with its file and outcome, and a module that cannot be collected as a load error', () => {
    const r = captured('pytest', 'py-files');
    expect(r.problem).toBeNull();
    expect(outcomes(r)).toEqual([
      ['tests/test_calc.py', 'test_adds', 'passed'],
      ['tests/test_calc.py', 'test_fails', 'failed'],
      ['tests/test_calc.py', 'test_skipped', 'skipped'],
    ]);
    expect(r.report?.loadErrors).toEqual([{ file: 'tests/test_broken.py', message: expect.stringContaining("No module named 'divide'") }]);
    expect(r.report?.cases[1]?.message).toContain('assert 4 == 5');
  });

  it('pytest: the single case of a file that cannot be collected (exit 4) is a load error of that file, not a refusal', () => {
    const r = captured('pytest', 'py-case-load');
    expect(r.run.exitCode).toBe(4);
    expect(r.problem).toBeNull();
    expect(namedCaseIn('pytest', r.report!, 'tests/test_broken.py', 'test_divides').loadError?.message).toContain("No module named 'divide'");
  });

  it('pytest: a name the file does not have ran nothing', () => {
    const r = captured('pytest', 'py-case-nope');
    expect(r.report).toEqual({ cases: [], loadErrors: [] });
  });

  it('unittest: the small runner records each case, and a module that does not import as a load error', () => {
    const r = captured('unittest', 'ut-files');
    expect(r.problem).toBeNull();
    expect(outcomes(r)).toEqual([
      ['tests/test_calc.py', 'TestAdd.test_adds', 'passed'],
      ['tests/test_calc.py', 'TestAdd.test_fails', 'failed'],
      ['tests/test_calc.py', 'TestAdd.test_skipped', 'skipped'],
    ]);
    expect(r.report?.loadErrors).toEqual([{ file: 'tests/test_broken.py', message: expect.stringContaining("No module named 'divide'") }]);
    expect(r.output).toContain('test_fails (tests.test_calc.TestAdd.test_fails) ... FAIL');
  });

  it('unittest: a bare test function runs nothing, and the case is named as not collected for that reason', () => {
    const r = captured('unittest', 'ut-bare');
    expect(r.report?.cases).toEqual([]);
    expect(r.run.exitCode).toBe(1);
    expect(notRunMessage('unittest', r.report!, 'T-001', 'tests/test_bare.py', 'test_adds', false)).toBe(
      "T-001's case `test_adds` was not collected by unittest: a bare function is not a TestCase method",
    );
  });

  it('unittest: a name the class does not have is an unknown name, not a run', () => {
    const r = captured('unittest', 'ut-case-nope');
    expect(r.report?.cases).toEqual([]);
    expect(r.report?.unknown?.[0]?.message).toContain("has no attribute 'test_nope'");
  });

  it('node --test: the junit report nests cases under describe, and a file that does not load is a case named by its path', () => {
    const r = captured('node', 'nd-files');
    expect(r.problem).toBeNull();
    expect(outcomes(r)).toEqual([
      [null, 'add adds two numbers', 'passed'],
      [null, 'add fails on purpose', 'failed'],
      [null, 'add is skipped', 'skipped'],
    ]);
    expect(r.report?.loadErrors.map((e) => e.file)).toEqual(['tests/broken.test.js']);
  });

  it('node --test: a name pattern that matches nothing reports every case skipped', () => {
    const r = captured('node', 'nd-case-nope');
    expect(r.report?.cases.every((c) => c.outcome === 'skipped')).toBe(true);
    expect(namedCaseIn('node', r.report!, 'tests/calc.test.js', 'nope').cases).toEqual([]);
  });

  it('vitest: its json report beside the text, and a file that does not load has its message', () => {
    const r = captured('vitest', 'vt-files');
    expect(r.problem).toBeNull();
    expect(r.output).toContain('Test Files');
    expect(outcomes(r)).toEqual([
      ['tests/calc.test.js', 'add adds two numbers', 'passed'],
      ['tests/calc.test.js', 'add fails on purpose', 'failed'],
      ['tests/calc.test.js', 'add is skipped', 'skipped'],
    ]);
    expect(r.report?.loadErrors).toEqual([{ file: 'tests/broken.test.js', message: expect.stringContaining("Cannot find module '../src/divide.js'") }]);
  });

  it('vitest: "Tests no tests" on an import of a missing module is a load error of the file', () => {
    const r = captured('vitest', 'vt-case-load');
    expect(r.output).toMatch(/Tests\s+no tests/);
    expect(namedCaseIn('vitest', r.report!, 'tests/broken.test.js', 'divides').loadError?.message).toContain('../src/divide.js');
  });

  it('jest: each case with its describe titles, and a suite that failed to run as a load error', () => {
    const r = captured('jest', 'je-files');
    expect(r.problem).toBeNull();
    expect(outcomes(r)).toEqual([
      ['tests/calc.test.js', 'add adds two numbers', 'passed'],
      ['tests/calc.test.js', 'add fails on purpose', 'failed'],
      ['tests/calc.test.js', 'add is skipped', 'skipped'],
    ]);
    expect(r.report?.loadErrors[0]?.message).toContain("Cannot find module '../src/divide'");
  });

  it('jest: a -t filter that matches nothing leaves every case skipped', () => {
    const r = captured('jest', 'je-case-nope');
    expect(namedCaseIn('jest', r.report!, 'tests/calc.test.js', 'nope').cases).toEqual([]);
  });

  it('mocha: the json report is read, and the worker gets a summary of the failures since mocha prints nothing', () => {
    const r = captured('mocha', 'mo-files');
    expect(r.problem).toBeNull();
    expect(outcomes(r)).toEqual([
      ['tests/calc.test.js', 'add adds two numbers', 'passed'],
      ['tests/calc.test.js', 'add fails on purpose', 'failed'],
      ['tests/calc.test.js', 'add is skipped', 'skipped'],
    ]);
    expect(r.output).toContain('1 failing');
    expect(r.output).toContain('add fails on purpose');
  });

  it('mocha: a file that does not load writes no report, and its exception is read as a load error of that file', () => {
    const r = captured('mocha', 'mo-load');
    expect(r.problem).toBeNull();
    expect(r.report?.loadErrors).toEqual([{ file: 'tests/broken.test.js', message: expect.stringContaining("Cannot find module '../src/divide'") }]);
  });

  it('a report that says every case passed while the runner exited non-zero is a problem, and so is no report at all', () => {
    const good = captured('jest', 'je-case-nope');
    const lying = readRun(
      'jest',
      { ...good.run, exitCode: 1 },
      JSON.stringify({ testResults: [{ name: '/x/a.test.js', status: 'passed', assertionResults: [{ title: 'a', status: 'passed' }] }] }),
      '/x',
    );
    expect(lying.problem).toMatch(/exited with code 1, but its report says every case that ran passed/);
    const none = readRun('vitest', { ...good.run, exitCode: 0 }, null, '/x');
    expect(none.problem).toMatch(/wrote no report/);
    const zeroWithFailures = readRun('mocha', { ...good.run, exitCode: 0 }, fs.readFileSync(path.join(DIR, 'mo-files.report.json'), 'utf8'), '/tmp/cap-a/mo');
    expect(zeroWithFailures.problem).toMatch(/exited with code 0, but its report lists 1 failed case/);
  });
});

describe('acceptanceVerdict', () => {
  const RUN = { output: '', exitCode: 0, spawnError: null, timedOut: false } as unknown as UntrustedResult;
  const aCase = (fullTitle: string, outcome: 'passed' | 'failed' | 'skipped', file: string | null = 'tests/t001_x.test.js') => ({
    file,
    name: fullTitle,
    fullTitle,
    outcome,
    message: '',
  });
  const reported = (report: RunnerReport | null, run: Partial<UntrustedResult> = {}, problem: string | null = null): ReportedRun => ({
    run: { ...RUN, ...run },
    output: '',
    report,
    problem,
  });
  const FILES = ['tests/t001_x.test.js'];
  const NAMED = [{ taskId: 'T-001', file: 'tests/t001_x.test.js', tests: ['adds', 'removes'] }];

  it('passes a run that exited 0 with every named case run and passed', () => {
    const report = { cases: [aCase('adds', 'passed'), aCase('removes', 'passed'), aCase('other', 'skipped')], loadErrors: [] };
    expect(acceptanceVerdict('jest', reported(report), FILES, NAMED)).toEqual({ passed: true, reasons: [] });
    expect(acceptanceVerdict('jest', reported(report), FILES)).toEqual({ passed: true, reasons: [] });
  });

  it('fails, saying nothing more, a run that timed out or did not start (its output says why)', () => {
    const report = { cases: [aCase('adds', 'passed')], loadErrors: [] };
    expect(acceptanceVerdict('jest', reported(report, { timedOut: true }), FILES)).toEqual({ passed: false, reasons: [] });
    expect(acceptanceVerdict('jest', reported(report, { spawnError: 'ENOENT' }), FILES)).toEqual({ passed: false, reasons: [] });
  });

  it("fails on the report's problem, or on no report, with the sentence", () => {
    expect(acceptanceVerdict('mocha', reported(null, {}, 'mocha exited with code 0, but it wrote no report, so what ran is unknown.'), FILES)).toEqual({
      passed: false,
      reasons: ['mocha exited with code 0, but it wrote no report, so what ran is unknown.'],
    });
    expect(acceptanceVerdict('vitest', reported(null), FILES)).toEqual({ passed: false, reasons: ['vitest wrote no report.'] });
    const report = { cases: [aCase('adds', 'passed')], loadErrors: [] };
    expect(acceptanceVerdict('vitest', reported(report, {}, 'contradicts'), FILES)).toEqual({ passed: false, reasons: ['contradicts'] });
  });

  it('never passes a run that executed nothing, and says why a unittest bare function is not a case', () => {
    const skipped = { cases: [aCase('adds', 'skipped')], loadErrors: [] };
    expect(acceptanceVerdict('node', reported(skipped), FILES)).toEqual({
      passed: false,
      reasons: ['No test case ran in tests/t001_x.test.js: a run that executes nothing is never a pass.'],
    });
    const bareOne = { cases: [], loadErrors: [], bare: [{ file: 'tests/test_t001_x.py', name: 'test_adds' }] };
    expect(acceptanceVerdict('unittest', reported(bareOne), ['tests/test_t001_x.py']).reasons).toEqual([
      'No test case ran in tests/test_t001_x.py: a run that executes nothing is never a pass. unittest collects only test_… methods of a unittest.TestCase subclass, and tests/test_t001_x.py: test_adds is a bare function.',
    ]);
    const bareTwo = { ...bareOne, bare: [...bareOne.bare, { file: 'tests/test_t001_x.py', name: 'test_b' }] };
    expect(acceptanceVerdict('unittest', reported(bareTwo), ['a.py', 'b.py']).reasons[0]).toMatch(
      /^No test case ran in a\.py, b\.py: .* and tests\/test_t001_x\.py: test_adds, tests\/test_t001_x\.py: test_b are bare functions\.$/,
    );
  });

  it('names each file that did not load, each named case that did not run, was skipped or failed', () => {
    const report = {
      cases: [aCase('adds', 'failed'), aCase('removes', 'skipped'), aCase('lists', 'passed')],
      loadErrors: [
        { file: 'tests/t002_y.test.js', message: 'boom' },
        { file: null, message: 'boom' },
      ],
    };
    const named = [...NAMED, { taskId: 'T-001', file: 'tests/t001_x.test.js', tests: ['missing'] }];
    expect(acceptanceVerdict('jest', reported(report, { exitCode: 1 }), FILES, named)).toEqual({
      passed: false,
      reasons: [
        'tests/t002_y.test.js did not load, so none of its cases ran.',
        'a test file did not load, so none of its cases ran.',
        "T-001's case `adds` failed.",
        "T-001's case `removes` was skipped by jest in tests/t001_x.test.js, so it proves nothing.",
        "T-001's case `missing` was not collected by jest in tests/t001_x.test.js: no case by that name ran; check its name in the matrix against the file.",
      ],
    });
  });

  it('fails a failed case the matrix does not name, and a non-zero exit with nothing to show for it', () => {
    const failedOther = { cases: [aCase('adds', 'passed'), aCase('removes', 'passed'), aCase('other', 'failed')], loadErrors: [] };
    expect(acceptanceVerdict('jest', reported(failedOther, { exitCode: 1 }), FILES, NAMED)).toEqual({ passed: false, reasons: [] });
    const allPassed = { cases: [aCase('adds', 'passed'), aCase('removes', 'passed')], loadErrors: [] };
    expect(acceptanceVerdict('jest', reported(allPassed, { exitCode: 2 }), FILES, NAMED)).toEqual({ passed: false, reasons: [] });
  });
});

describe('withReport', () => {
  const argv = (command: string, ...args: string[]) => ({ kind: 'argv' as const, command, args, env: { A: '1' } });
  const R = '/w/.tilth-report-x/report';

  it("asks each runner for its own report in the file, keeping the preset's command", () => {
    expect(withReport('pytest', argv('python3', '-m', 'pytest', 't.py'), R, [], null)).toEqual(
      argv('python3', '-m', 'pytest', 't.py', '--continue-on-collection-errors', '-o', 'junit_family=xunit1', `--junit-xml=${R}`),
    );
    expect(withReport('jest', argv('jest', '--ci', 't.js'), R, [], null)).toEqual(argv('jest', '--ci', 't.js', '--json', `--outputFile=${R}`));
    expect(withReport('vitest', argv('vitest', 'run', 't.ts'), R, [], null)).toEqual(
      argv('vitest', 'run', 't.ts', '--reporter=default', '--reporter=json', `--outputFile.json=${R}`),
    );
    expect(withReport('mocha', argv('mocha', 't.js'), R, [], null)).toEqual(argv('mocha', 't.js', '--reporter', 'json', '--reporter-option', `output=${R}`));
    expect(withReport('ava', argv('ava', '--no-worker-threads', 't.js'), R, [], null)).toEqual(
      argv('/bin/sh', '-c', 'exec "$@" > "$0"', R, 'ava', '--tap', '--no-worker-threads', 't.js'),
    );
    expect(withReport('tap', argv('node_modules/.bin/tap', '--disable-coverage', 't.js'), R, [], null)).toEqual(
      argv('/bin/sh', '-c', 'exec "$@" > "$0"', R, 'node_modules/.bin/tap', '--reporter=tap', '--disable-coverage', 't.js'),
    );
    // Tilth's uvu runner takes the report as its argument, in the place uvuArgs keeps for it.
    expect(withReport('uvu', argv('node', ...uvuArgs('', ['t.js'], ['a › b'])), R, [], null)).toEqual(argv('node', ...uvuArgs(R, ['t.js'], ['a › b'])));
    // node takes what follows a file as more files: the reporters go right after --test.
    expect(withReport('node', argv('node', '--test', '--test-name-pattern=^x$', 't.js'), R, [], null)).toEqual(
      argv(
        'node',
        '--test',
        '--test-reporter=spec',
        '--test-reporter-destination=stdout',
        '--test-reporter=junit',
        `--test-reporter-destination=${R}`,
        '--test-name-pattern=^x$',
        't.js',
      ),
    );
    // A run in one process (no --test): the reporters go first.
    expect(withReport('node', argv('node', 't.js'), R, [], null)).toEqual(
      argv('node', '--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=junit', `--test-reporter-destination=${R}`, 't.js'),
    );
  });

  it('runs unittest through its own small runner with the targets, and leaves a shell command as it is', () => {
    expect(withReport('unittest', argv('python3', '-m', 'unittest', 'x'), R, ['tests/t.py', 'tests.t.T.test_a'], null)).toEqual({
      kind: 'argv',
      command: 'python3',
      args: ['-c', UNITTEST_RUNNER, R, 'tests/t.py', 'tests.t.T.test_a'],
      env: { PYTHONDONTWRITEBYTECODE: '1' },
    });
    const shell = { kind: 'shell' as const, script: 'npm test' };
    expect(withReport('jest', shell, R, [], null)).toBe(shell);
    // A custom command's {junit}, filled with the unread place, now names the report (quoted).
    expect(
      withReport('junit', { kind: 'shell', script: `${UNREAD_JUNIT_SETUP}bun test t.js --reporter-outfile=${UNREAD_JUNIT}` }, '/w/a b/report.xml', [], null),
    ).toEqual({
      kind: 'shell',
      script: "bun test t.js --reporter-outfile='/w/a b/report.xml'",
    });
    expect(withReport('junit', { kind: 'shell', script: `x ${UNREAD_JUNIT_SETUP}` }, R, [], null)).toEqual({
      kind: 'shell',
      script: `x ${UNREAD_JUNIT_SETUP}`,
    });
    expect(withReport('junit', argv('x'), R, [], null)).toEqual(argv('x'));
    // go's events are its stdout, sent to the report after -json; cargo's stdout and stderr both go there.
    expect(withReport('go', argv('go', 'test', '-count=1', './todo'), R, [], null)).toEqual(
      argv('/bin/sh', '-c', 'exec "$@" > "$0"', R, 'go', 'test', '-json', '-count=1', './todo'),
    );
    expect(withReport('cargo', argv('cargo', 'test', '--test', 't001_a'), R, [], null)).toEqual(
      argv('/bin/sh', '-c', 'exec "$@" > "$0" 2>&1', R, 'cargo', 'test', '--test', 't001_a'),
    );
  });
});

describe('readRun against the exit code', () => {
  const RUN = { output: 'printed', exitCode: 0, spawnError: null, timedOut: false } as unknown as UntrustedResult;
  const jest = (cases: [string, string][], files: { name: string; status?: string; message?: string }[] = []) =>
    JSON.stringify({
      testResults: [
        { name: '/w/t.test.js', status: 'passed', assertionResults: cases.map(([title, status]) => ({ title, status })) },
        ...files.map((f) => ({ ...f, assertionResults: [] })),
      ],
    });
  const read = (run: Partial<UntrustedResult>, raw: string | null, preset: ReportPreset = 'jest') => readRun(preset, { ...RUN, ...run }, raw, '/w');

  it('reads nothing of a run that timed out or did not start, whatever its report says', () => {
    expect(read({ timedOut: true }, jest([['a', 'passed']]))).toEqual({ run: { ...RUN, timedOut: true }, output: 'printed', report: null, problem: null });
    expect(read({ spawnError: 'ENOENT' }, null)).toMatchObject({ report: null, problem: null });
  });

  it('says why a report cannot be read', () => {
    expect(read({}, '{ not json').problem).toMatch(/^jest exited with code 0, but its report could not be read \(.+\), so what ran is unknown\.$/);
    expect(read({ exitCode: 1 }, null).problem).toBe('jest exited with code 1, but it wrote no report, so what ran is unknown.');
  });

  it("reads AVA's TAP by the files the run was given, shows the worker what the tests printed and then the report, and refuses one with no summary", () => {
    const tap = 'TAP version 13\nok 1 - t001_a › adds\nnot ok 2 - t002_b › halves\n\n1..2\n# tests 2\n# pass 1\n# fail 1\n';
    const files = ['tests/t001_a.test.js', 'tests/t002_b.test.js'];
    const reported = readRun('ava', { ...RUN, exitCode: 1, output: 'a log line\n' }, tap, '/w', files);
    expect(reported.problem).toBeNull();
    expect(reported.output).toBe(`a log line\n${tap.trim()}`);
    expect(reported.report!.cases.map((c) => [c.file, c.name, c.outcome])).toEqual([
      ['tests/t001_a.test.js', 'adds', 'passed'],
      ['tests/t002_b.test.js', 'halves', 'failed'],
    ]);
    expect(read({ exitCode: 1, output: 'TypeError: x' }, 'TAP version 13\nok 1 - a\n', 'ava')).toMatchObject({
      report: null,
      output: 'TypeError: x\nTAP version 13\nok 1 - a',
      problem:
        "AVA exited with code 1, but its report could not be read (it stops before its summary: AVA did not finish the run, as AVA 6's TAP reporter does when a test hits AVA's timeout), so what ran is unknown.",
    });
  });

  it("shows the worker go's output rendered from its events, and cargo's lines without its progress, read as their reports", () => {
    const events = [
      { Action: 'run', Package: 'example.com/todo', Test: 'TestA' },
      { Action: 'output', Package: 'example.com/todo', Test: 'TestA', Output: '--- PASS: TestA (0.00s)\n' },
      { Action: 'pass', Package: 'example.com/todo', Test: 'TestA' },
      { Action: 'pass', Package: 'example.com/todo' },
    ]
      .map((e) => JSON.stringify(e))
      .join('\n');
    const go = readRun('go', { ...RUN, output: 'compiler said' }, events, '/w');
    expect(go.problem).toBeNull();
    expect(go.output).toContain('--- PASS: TestA (0.00s)');
    expect(go.output).toContain('compiler said');
    expect(go.output).not.toContain('"Action"');
    const cargo =
      '   Compiling todo v0.1.0 (/w)\n     Running tests/t001_a.rs (target/debug/deps/t001_a-1)\n\nrunning 1 test\ntest adds ... ok\n\ntest result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\n';
    const read = readRun('cargo', { ...RUN, output: 'the raw stream' }, cargo, '/w');
    expect(read.output).not.toContain('Compiling');
    expect(read.output).toContain('test adds ... ok');
    expect(read.run.output).toBe(read.output);
    expect(read.report!.cases.map((c) => [c.fullTitle, c.outcome])).toEqual([['adds', 'passed']]);
    // Without a report cargo's own output stays the run's.
    expect(readRun('cargo', { ...RUN, exitCode: 101, output: 'error: could not compile' }, null, '/w').output).toBe('error: could not compile');
    expect(readRun('go', { ...RUN, exitCode: 1, output: 'no events' }, null, '/w').output).toBe('no events');
  });

  it("reads a custom command's JUnit, with a failed run's file that has no case, or no report at all, as not loaded", () => {
    const xml = '<testsuites><testsuite name="t/a.test.js" file="t/a.test.js"><testcase name="adds"/></testsuite></testsuites>';
    const files = ['t/a.test.js', 't/b.test.js'];
    const failed = readRun('junit', { ...RUN, exitCode: 1 }, xml, '/w', files);
    expect(failed.problem).toBeNull();
    expect(failed.report!.loadErrors).toEqual([
      { file: 't/b.test.js', message: 'The custom command exited with code 1 and its JUnit report has no case of this file.' },
    ]);
    expect(readRun('junit', { ...RUN, exitCode: 1 }, null, '/w', files)).toMatchObject({
      problem: null,
      report: { cases: [], loadErrors: [{ file: 't/a.test.js' }, { file: 't/b.test.js' }] },
    });
    // A run that passed says nothing of a file it lists no case of; a report that cannot be read is no report.
    expect(readRun('junit', RUN, xml, '/w', files).report!.loadErrors).toEqual([]);
    expect(readRun('junit', { ...RUN, exitCode: 1 }, '<nope/>', '/w', files)).toMatchObject({
      report: null,
      problem: 'the custom command exited with code 1, but its report could not be read (no <testsuites> or <testsuite> element), so what ran is unknown.',
    });
    // Another runner's missing files stay the exit code's business.
    expect(read({ exitCode: 1 }, JSON.stringify({ testResults: [] }), 'jest').report!.loadErrors).toEqual([]);
  });

  it("reads mocha's exception before any report as its file's load error, and only mocha's", () => {
    const output = "  Exception during run: Error: Cannot find module '../src/x'\nRequire stack:\n- /w/test/a.test.js\n";
    expect(read({ exitCode: 1, output }, null, 'mocha')).toMatchObject({
      report: { cases: [], loadErrors: [{ file: 'test/a.test.js', message: output.trim() }] },
      problem: null,
      output,
    });
    expect(read({ exitCode: 1, output }, null, 'jest').report).toBeNull();
    expect(read({ exitCode: 1, output: `before\n${output}` }, null, 'mocha').report).not.toBeNull();
    expect(read({ exitCode: 1, output: 'no Exception during run: here' }, null, 'mocha').report).toBeNull();
  });

  it('names how many cases failed and files did not load when the runner still exited 0', () => {
    expect(read({}, jest([['a', 'failed']], [{ name: '/w/b.test.js', status: 'failed' }])).problem).toBe(
      'jest exited with code 0, but its report lists 1 failed case and 1 file that did not load.',
    );
    expect(
      read(
        {},
        jest(
          [
            ['a', 'failed'],
            ['b', 'failed'],
          ],
          [
            { name: '/w/b.test.js', status: 'failed' },
            { name: '/w/c.test.js', status: 'failed' },
          ],
        ),
      ).problem,
    ).toBe('jest exited with code 0, but its report lists 2 failed cases and 2 files that did not load.');
    expect(
      read(
        {},
        jest([
          ['a', 'passed'],
          ['b', 'pending'],
        ]),
      ).problem,
    ).toBeNull();
  });

  it('calls a non-zero exit with only passed cases a contradiction, but not one with nothing passed or an unknown name', () => {
    expect(
      read(
        { exitCode: 1 },
        jest([
          ['a', 'passed'],
          ['b', 'pending'],
        ]),
      ).problem,
    ).toBe('jest exited with code 1, but its report says every case that ran passed and every file loaded.');
    expect(read({ exitCode: 1 }, jest([['b', 'pending']])).problem).toBeNull();
    expect(read({ exitCode: 1 }, jest([['a', 'failed']])).problem).toBeNull();
    const unknown = JSON.stringify({
      cases: [{ file: 't.py', name: 'a', full_title: 'T.a', outcome: 'passed', message: '' }],
      load_errors: [],
      unknown: [{ name: 'x', message: 'y' }],
      bare: [],
    });
    expect(read({ exitCode: 1 }, unknown, 'unittest').problem).toBeNull();
  });

  it("gives the worker mocha's summary rendered from its report, and every other runner's own text", () => {
    const mocha = JSON.stringify({
      stats: { tests: 1 },
      tests: [{ title: 'a', fullTitle: 'x a' }],
      pending: [],
      failures: [],
      passes: [{ title: 'a', fullTitle: 'x a' }],
    });
    expect(read({ output: '' }, mocha, 'mocha').output).toBe('  ✔ x a\n\n1 passing');
    expect(read({}, jest([['a', 'passed']])).output).toBe('printed');
    expect(read({ output: 'oops' }, '{', 'mocha').output).toBe('oops');
  });
});

describe('acceptanceVerdict on a case that both failed and passed, and on failures the matrix does not name', () => {
  it('fails a named case any of whose runs failed, and a run with a failed case even when the exit code is 0', () => {
    const c = (outcome: 'passed' | 'failed') => ({ file: 't.js', name: 'adds', fullTitle: 'adds', outcome, message: '' });
    const reported = (cases: ReturnType<typeof c>[]): ReportedRun => ({
      run: { output: '', exitCode: 0, spawnError: null, timedOut: false } as unknown as UntrustedResult,
      output: '',
      report: { cases, loadErrors: [] },
      problem: null,
    });
    expect(acceptanceVerdict('jest', reported([c('passed'), c('failed')]), ['t.js'], [{ taskId: 'T-001', file: 't.js', tests: ['adds'] }])).toEqual({
      passed: false,
      reasons: ["T-001's case `adds` failed."],
    });
    expect(acceptanceVerdict('jest', reported([c('passed'), c('failed')]), ['t.js'])).toEqual({ passed: false, reasons: [] });
  });
});

describe('tapState', () => {
  it("empties node-tap's .tap folder where the run starts, keeps it out of git, and never follows a link planted there", () => {
    const root = tempDir('tilth-tap-state-');
    const outside = tempDir('tilth-tap-outside-');
    try {
      fs.mkdirSync(path.join(root, 'pkg/.tap/plugins/node_modules/evil'), { recursive: true });
      fs.writeFileSync(path.join(root, 'pkg/.tap/plugins/node_modules/evil/index.js'), 'planted');
      tapState(Tree.at(root), 'pkg');
      expect(fs.readdirSync(path.join(root, 'pkg/.tap'))).toEqual(['.gitignore']);
      expect(fs.readFileSync(path.join(root, 'pkg/.tap/.gitignore'), 'utf8')).toBe('*\n');
      // A .tap that is a link out is removed itself; what it pointed at is left alone.
      fs.writeFileSync(path.join(outside, 'keep'), 'x');
      fs.symlinkSync(outside, path.join(root, '.tap'));
      tapState(Tree.at(root), '');
      expect(fs.lstatSync(path.join(root, '.tap')).isDirectory()).toBe(true);
      expect(fs.readdirSync(path.join(root, '.tap'))).toEqual(['.gitignore']);
      expect(fs.readdirSync(outside)).toEqual(['keep']);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });
});

describe("readRun's text for a TAP report", () => {
  it('gives the worker what the tests printed, then the TAP, for AVA and node-tap alike', () => {
    const run = { output: '  printed on stderr\n', exitCode: 0, spawnError: null, timedOut: false } as unknown as UntrustedResult;
    const raw = 'TAP version 14\n1..1\n# Subtest: t.js\n    # Subtest: a\n        ok 1 - y\n        1..1\n    ok 1 - a\n    1..1\nok 1 - t.js\n';
    const read = readRun('tap', run, raw, '/w', ['t.js']);
    expect(read.output).toBe(`printed on stderr\n${raw.trim()}`);
    expect(read.report?.cases.map((c) => [c.fullTitle, c.outcome])).toEqual([['a', 'passed']]);
    expect(read.problem).toBeNull();
    // No report at all: the run's own output, and a sentence saying so.
    const none = readRun('tap', { ...run, exitCode: 1 }, null, '/w', ['t.js']);
    expect(none.output).toBe('  printed on stderr\n');
    expect(none.problem).toBe('node-tap exited with code 1, but it wrote no report, so what ran is unknown.');
  });
});
