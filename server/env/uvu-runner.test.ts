/**
 * Tilth's own uvu runner, run by node on small test files that import `uvu` — which the runner
 * itself stands in for, so no uvu is installed here — and check with node:assert.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../testing/temp-dir.ts';
import { UVU_REPORT_ARG, uvuArgs } from './uvu-runner.ts';

let dir = '';
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = '';
});

interface Report {
  cases: { file: string; name: string; full_title: string; outcome: string; message: string }[];
  load_errors: { file: string; message: string }[];
}

/** Writes `files` into a fresh folder (an ES module package) and runs the runner on `run` there. */
async function runUvu(files: Record<string, string>, run: string[], ...names: string[]): Promise<{ report: Report; stdout: string; exitCode: number }> {
  dir = tempDir('tilth-uvu-runner-');
  fs.writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}');
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), content);
  }
  const reportFile = path.join(dir, 'report.json');
  const result = await execa('node', uvuArgs(reportFile, run, names), { cwd: dir, reject: false, stdin: 'ignore' });
  return { report: JSON.parse(fs.readFileSync(reportFile, 'utf8')) as Report, stdout: result.stdout, exitCode: result.exitCode ?? -1 };
}

const lines = (...l: string[]) => `${l.join('\n')}\n`;

const SUITES = lines(
  "import assert from 'node:assert/strict';",
  "import { suite, test } from 'uvu';",
  "const Math = suite('math', { calls: [] });",
  "Math.before((s) => { s.calls.push('before'); });",
  "Math.before.each((s) => { s.calls.push('each:' + s.__test__); });",
  "Math.after.each((s) => { s.calls.push('after:' + s.__test__); });",
  "Math.after((s) => { s.calls.push('after all'); globalThis.mathCalls = s.calls; });",
  "Math('adds', (s) => { assert.equal(s.__suite__, 'math'); assert.equal(1 + 1, 2); });",
  "Math('fails', () => { assert.equal(1 + 1, 3); });",
  "Math.skip('later', () => {});",
  'Math.run();',
  "test('alone', () => { assert.deepEqual(globalThis.mathCalls, ['before', 'each:adds', 'after:adds', 'each:fails', 'after:fails', 'after all']); });",
  'test.run();',
);

describe('the uvu runner', () => {
  it("runs each suite with uvu's hooks, order and state, and reports every case by file, title and full title", async () => {
    const { report, stdout, exitCode } = await runUvu({ 'tests/t001_math.test.js': SUITES }, ['tests/t001_math.test.js']);
    expect(report.cases.map((c) => [c.file, c.name, c.full_title, c.outcome])).toEqual([
      ['tests/t001_math.test.js', 'later', 'math > later', 'skipped'],
      ['tests/t001_math.test.js', 'adds', 'math > adds', 'passed'],
      ['tests/t001_math.test.js', 'fails', 'math > fails', 'failed'],
      ['tests/t001_math.test.js', 'alone', 'alone', 'passed'],
    ]);
    expect(report.cases[2]!.message).toMatch(/AssertionError[\s\S]*2 !== 3/);
    expect(report.load_errors).toEqual([]);
    expect(stdout).toMatch(/^- math › later \(skipped\)$/m);
    expect(stdout).toMatch(/^✔ math › adds$/m);
    expect(stdout).toMatch(/^✘ math › fails\n {4}AssertionError/m);
    expect(stdout).toMatch(/Total: {5}4\n {2}Passed: {4}2\n {2}Skipped: {3}1/);
    expect(exitCode).toBe(1);
  });

  it('runs one case alone by its full name or a bare title, its hooks with it, and passes when it does', async () => {
    const files = { 'tests/t001_math.test.js': SUITES };
    const one = await runUvu(files, ['tests/t001_math.test.js'], 'math › adds');
    expect(one.report.cases.map((c) => [c.full_title, c.outcome])).toEqual([['math > adds', 'passed']]);
    expect(one.exitCode).toBe(0);
    expect((await runUvu(files, ['tests/t001_math.test.js'], 'fails')).report.cases.map((c) => [c.full_title, c.outcome])).toEqual([
      ['math > fails', 'failed'],
    ]);
    // A full name is matched whole: a suite's title alone is not its case, nor another suite's.
    const none = await runUvu(files, ['tests/t001_math.test.js'], 'other › adds');
    expect(none.report.cases).toEqual([]);
    expect(none.exitCode).toBe(1);
    // Several cases in one run (a proof's run of a task's named cases): those, and no other.
    const two = await runUvu(files, ['tests/t001_math.test.js'], 'math › adds', 'fails');
    expect(two.report.cases.map((c) => [c.full_title, c.outcome])).toEqual([
      ['math > adds', 'passed'],
      ['math > fails', 'failed'],
    ]);
    expect(two.exitCode).toBe(1);
  });

  it("reports the cases an only leaves out as skipped, and takes CommonJS test files through require('uvu')", async () => {
    const only = lines(
      "import { suite } from 'uvu';",
      "const S = suite('s');",
      "S('left out', () => { throw new Error('ran'); });",
      "S.only('chosen', () => {});",
      'S.run();',
    );
    const cjs = lines("const { test } = require('uvu');", "test('from commonjs', () => {});", 'test.run();');
    const { report, exitCode } = await runUvu({ 'tests/t001_only.test.js': only, 'tests/t002_cjs.test.cjs': cjs }, [
      'tests/t001_only.test.js',
      'tests/t002_cjs.test.cjs',
    ]);
    expect(report.cases.map((c) => [c.file, c.full_title, c.outcome])).toEqual([
      ['tests/t001_only.test.js', 's > left out', 'skipped'],
      ['tests/t001_only.test.js', 's > chosen', 'passed'],
      ['tests/t002_cjs.test.cjs', 'from commonjs', 'passed'],
    ]);
    expect(exitCode).toBe(0);
  });

  it('makes a file that does not load, or never calls run(), a load error of that file, and still runs the others', async () => {
    const { report, stdout, exitCode } = await runUvu(
      {
        'tests/t001_missing.test.js': lines("import { test } from 'uvu';", "import { nope } from '../src/nope.js';", "test('x', () => nope());", 'test.run();'),
        'tests/t002_unrun.test.js': lines("import { test } from 'uvu';", "test('never queued', () => {});"),
        'tests/t003_fine.test.js': lines("import { test } from 'uvu';", "test('fine', () => {});", 'test.run();'),
      },
      ['tests/t001_missing.test.js', 'tests/t002_unrun.test.js', 'tests/t003_fine.test.js'],
    );
    expect(report.load_errors.map((e) => e.file)).toEqual(['tests/t001_missing.test.js', 'tests/t002_unrun.test.js']);
    expect(report.load_errors[0]!.message).toMatch(/Cannot find module '.*\/src\/nope\.js'/);
    expect(report.load_errors[1]!.message).toMatch(/^Error: it registers no uvu test: no suite of it called run\(\)/);
    expect(report.cases.map((c) => [c.full_title, c.outcome])).toEqual([['fine', 'passed']]);
    expect(stdout).toMatch(/^✘ tests\/t001_missing\.test\.js did not load$/m);
    expect(exitCode).toBe(1);
  });

  it('fails every case of a suite whose before or after hook throws, naming the hook, one result each, and fails a run where nothing passed', async () => {
    const hooks = lines(
      "import { suite } from 'uvu';",
      "const B = suite('b');",
      "B.before(() => { throw new Error('no setup'); });",
      "B('one', () => {});",
      'B.run();',
      "const A = suite('a');",
      "A.after(() => { throw new Error('no teardown'); });",
      "A('two', () => {});",
      'A.run();',
    );
    const { report, exitCode } = await runUvu({ 'tests/t001_hooks.test.js': hooks }, ['tests/t001_hooks.test.js']);
    expect(report.cases.map((c) => [c.full_title, c.outcome])).toEqual([
      ['b > one', 'failed'],
      ['a > two', 'failed'],
    ]);
    expect(report.cases[0]!.message).toMatch(/^the suite's before hook failed: Error: no setup/);
    expect(report.cases[1]!.message).toMatch(/^the suite's after hook failed: Error: no teardown/);
    expect(exitCode).toBe(1);
    const empty = await runUvu({ 'tests/t001_s.test.js': lines("import { suite } from 'uvu';", "const S = suite('s');", "S.skip('later');", 'S.run();') }, [
      'tests/t001_s.test.js',
    ]);
    expect(empty.report.cases.map((c) => c.outcome)).toEqual(['skipped']);
    expect(empty.exitCode).toBe(1);
  });

  it('writes no report when given none, and puts the report path where withReport replaces it', async () => {
    expect(uvuArgs('/r.json', ['a.js'])[UVU_REPORT_ARG]).toBe('/r.json');
    expect(uvuArgs('', ['a.js'], ['x', 'y'])).toEqual(['--input-type=module', '-e', expect.any(String), '', '--case', 'x', '--case', 'y', 'a.js']);
    dir = tempDir('tilth-uvu-runner-');
    fs.writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}');
    fs.writeFileSync(path.join(dir, 't.test.js'), lines("import { test } from 'uvu';", "test('t', () => {});", 'test.run();'));
    const result = await execa('node', uvuArgs('', ['t.test.js']), { cwd: dir, reject: false, stdin: 'ignore' });
    expect(result.exitCode).toBe(0);
    expect(fs.readdirSync(dir).sort()).toEqual(['package.json', 't.test.js']);
  });
});
