/**
 * How the red and green proofs spend runner starts (issue 32), on node's own runner, unsandboxed
 * in a temp folder: each named case runs once alone, then each further repeat runs the task's
 * cases with a real outcome together in one process; the checks' run counts at green. Each case
 * writes its name, its process and whether node --test started it into runs.log, so the runs are
 * counted from what really ran.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { PrdEntry } from '../../shared/files.ts';
import { NO_SANDBOX } from '../testing/sandbox.ts';
import { tempDir } from '../testing/temp-dir.ts';
import type { ContractCheckInput } from './contract-check.ts';
import { caseOutputKey, proveCases, type CaseOutput } from './red-proof.ts';

const FILE = 'tests/t001_pair.test.js';
const SOURCE = [
  "import { test } from 'node:test';",
  "import assert from 'node:assert/strict';",
  "import fs from 'node:fs';",
  "const ran = (name) => fs.appendFileSync('runs.log', `${name} ${process.pid} ${process.env.NODE_TEST_CONTEXT ?? 'main'}\\n`);",
  "if (process.env.PROOF_MARK) fs.appendFileSync('marks.log', `${process.env.PROOF_MARK}\\n`);",
  "test('adds', () => { ran('adds'); assert.equal(1 + 1, 2); });",
  "test('counts', () => { ran('counts'); assert.equal(1 + 1, 3, 'counts is off'); });",
  "test('unnamed', () => { ran('unnamed'); });",
  "test.skip('later', () => { ran('later'); });",
  '',
].join('\n');
const TASK: PrdEntry = {
  id: 'T-001',
  title: 'A pair',
  description: 'A pair.',
  acceptance_criteria: ['adds', 'counts', 'later', 'gone'],
  criteria_tests: [['adds'], ['counts', 'adds'], ['later'], ['gone']],
  status: 'pending',
};

let dir = '';
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = '';
});

function input(repeats?: number): ContractCheckInput {
  dir = tempDir('tilth-proof-runs-');
  fs.mkdirSync(path.join(dir, 'tests'));
  fs.writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}');
  fs.writeFileSync(path.join(dir, FILE), SOURCE);
  const scope = { sandbox: NO_SANDBOX, worktree: dir, git: null, network: false };
  return { prd: [TASK], testFiles: { [FILE]: SOURCE }, preset: 'node', scope, ...(repeats ? { repeats } : {}) };
}

/**
 * Per process that ran cases: the cases it ran, in order, and whether node --test started it
 * (its child's NODE_TEST_CONTEXT), sorted (the alone runs go a few at a time).
 */
function processes(): { cases: string[]; context: string }[] {
  const byPid = new Map<string, { cases: string[]; context: string }>();
  for (const line of fs.readFileSync(path.join(dir, 'runs.log'), 'utf8').trim().split('\n')) {
    const [name, pid, context] = line.split(' ');
    const seen = byPid.get(pid!) ?? { cases: [], context: context! };
    seen.cases.push(name!);
    byPid.set(pid!, seen);
  }
  return [...byPid.values()].sort((a, b) => a.cases.join().localeCompare(b.cases.join()));
}

const summary = (proofs: { test: string; result: string; runs?: string[] | undefined }[]) => proofs.map((p) => [p.test, p.result, p.runs]);

describe('the proofs’ runs', () => {
  it('runs each case alone once, then the cases with a real outcome together, one process a repeat', async () => {
    const outputs = new Map<string, CaseOutput>();
    const proofs = (await proveCases(input(3), [TASK], { outputs }))['T-001']!;
    expect(summary(proofs)).toEqual([
      ['adds', 'passed', ['passed', 'passed', 'passed']],
      ['counts', 'failed', ['failed', 'failed', 'failed']],
      ['later', 'not_run', ['not_run']],
      ['gone', 'not_run', ['not_run']],
    ]);
    // Alone: adds, counts (later and gone run nothing); then two runs of adds and counts together.
    expect(processes().map((p) => p.cases)).toEqual([['adds'], ['adds', 'counts'], ['adds', 'counts'], ['counts']]);
    expect(processes().every((p) => p.context.startsWith('child'))).toBe(true);
    // What a case that did not pass printed is kept for the worker; a passing case keeps nothing.
    expect(outputs.get(caseOutputKey('T-001', 'counts'))?.output).toContain('counts is off');
    expect(outputs.get(caseOutputKey('T-001', 'counts'))?.exitCode).toBe(1);
    expect(outputs.has(caseOutputKey('T-001', 'adds'))).toBe(false);
    expect(outputs.has(caseOutputKey('T-001', 'gone'))).toBe(true);
  });

  it('counts the runs seen before (the checks’ run at green) as repeats, first in the runs, but always runs each case alone', async () => {
    const green = (await proveCases(input(2), [TASK], { passedBefore: 1 }))['T-001']!;
    expect(summary(green).slice(0, 2)).toEqual([
      ['adds', 'passed', ['passed', 'passed']],
      ['counts', 'failed', ['passed', 'failed']],
    ]);
    expect(processes().map((p) => p.cases)).toEqual([['adds'], ['counts']]);
    fs.rmSync(dir, { recursive: true, force: true });
    // More runs seen than repeats: still one alone.
    const once = (await proveCases(input(1), [TASK], { passedBefore: 3 }))['T-001']!;
    expect(once[0]!.runs).toEqual(['passed', 'passed', 'passed', 'passed']);
    expect(processes().map((p) => p.cases)).toEqual([['adds'], ['counts']]);
  });

  it('runs one node file in the process that loads it when asked (green), reading the same outcomes', async () => {
    const proofs = (await proveCases(input(2), [TASK], { oneProcess: true }))['T-001']!;
    expect(summary(proofs).slice(0, 2)).toEqual([
      ['adds', 'passed', ['passed', 'passed']],
      ['counts', 'failed', ['failed', 'failed']],
    ]);
    expect(processes().map((p) => [p.cases, p.context])).toEqual([
      [['adds'], 'main'],
      [['adds', 'counts'], 'main'],
      [['counts'], 'main'],
    ]);
  });

  it('proves nothing for a task without a matrix or a file, nor with a custom command that writes no report', async () => {
    const { criteria_tests: _, ...bare } = TASK;
    expect(await proveCases(input(), [bare])).toEqual({});
    expect(await proveCases({ ...input(), testFiles: {} }, [TASK])).toEqual({});
    const custom = { ...input(), preset: 'custom' as const, customChecks: { test: 'node --test {files}' } };
    expect(await proveCases(custom, [TASK])).toEqual({});
    expect(fs.existsSync(path.join(dir, 'runs.log'))).toBe(false);
  });

  it('starts no run for a task none of whose cases ran alone, and passes the input environment to each run', async () => {
    const none = { ...TASK, acceptance_criteria: ['later', 'gone'], criteria_tests: [['later'], ['gone']] };
    const proofs = (await proveCases({ ...input(3), env: { PROOF_MARK: 'set' } }, [none]))['T-001']!;
    expect(summary(proofs)).toEqual([
      ['later', 'not_run', ['not_run']],
      ['gone', 'not_run', ['not_run']],
    ]);
    expect(fs.existsSync(path.join(dir, 'runs.log'))).toBe(false);
    fs.rmSync(dir, { recursive: true, force: true });
    const marked = (await proveCases({ ...input(1), env: { PROOF_MARK: 'set' } }, [TASK]))['T-001']!;
    expect(marked[0]!.result).toBe('passed');
    // Each of the four runs alone (one a case) loaded the file with the mark.
    expect(fs.readFileSync(path.join(dir, 'marks.log'), 'utf8')).toBe('set\n'.repeat(4));
  });

  it('runs unittest cases by their module paths', async () => {
    const file = 'tests/test_t001_pair.py';
    const source = ['import unittest', '', '', 'class Pair(unittest.TestCase):', '    def test_adds(self):', '        self.assertEqual(1 + 1, 2)', ''].join(
      '\n',
    );
    const task = { ...TASK, acceptance_criteria: ['adds'], criteria_tests: [['Pair.test_adds']] };
    const base = input(2);
    fs.writeFileSync(path.join(dir, 'tests', '__init__.py'), '');
    fs.writeFileSync(path.join(dir, file), source);
    const proofs = (await proveCases({ ...base, preset: 'unittest', testFiles: { [file]: source } }, [task]))['T-001']!;
    expect(summary(proofs)).toEqual([['Pair.test_adds', 'passed', ['passed', 'passed']]]);
  });

  it("lists a file's cases only once a case did not run, and names the cases it has for a name it lacks", async () => {
    const outputs = new Map<string, CaseOutput>();
    const file = 'tests/test_t001_pair.py';
    const source = ['def test_adds():', '    assert 1 + 1 == 2', '', '', 'def test_counts():', '    assert 1 + 1 == 3', ''].join('\n');
    const task = { ...TASK, acceptance_criteria: ['adds', 'gone'], criteria_tests: [['test_adds'], ['test_gone']] };
    const base = input();
    fs.writeFileSync(path.join(dir, file), source);
    const proofs = (
      await proveCases({ ...base, preset: 'pytest', testFiles: { [file]: source }, env: { PYTEST_DISABLE_PLUGIN_AUTOLOAD: '1' } }, [task], { outputs })
    )['T-001']!;
    expect(summary(proofs)).toEqual([
      ['test_adds', 'passed', ['passed', 'passed']],
      ['test_gone', 'not_run', ['not_run']],
    ]);
    expect(proofs[1]!.detail).toBe(
      `no test case named "test_gone" in ${file}: pytest collects "test_adds", "test_counts"; check its name in the matrix against the file`,
    );
    // The listing said why: the run's output (pytest's "not found") is not kept for the worker.
    expect([...outputs.keys()]).toEqual([]);
    // Without a place for outputs, the same.
    const again = await proveCases({ ...base, preset: 'pytest', testFiles: { [file]: source }, env: { PYTEST_DISABLE_PLUGIN_AUTOLOAD: '1' } }, [task]);
    expect(again['T-001']![1]!.result).toBe('not_run');
  });
});
