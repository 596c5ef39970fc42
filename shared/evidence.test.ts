import { describe, expect, it } from 'vitest';
import type { MutationReport } from './files.ts';
import { countByStatus, evidenceStatus, runsChangedCode, type EvidenceFacts } from './evidence.ts';

const red = (test: string, result = 'failed') => ({ test, result, detail: 'x' }) as EvidenceFacts['red'][number];
const green = (test: string, result = 'passed') => ({ test, result, detail: 'x' }) as EvidenceFacts['green'][number];

/** Two criteria, each with one case red before and green after, untouched machinery, every mutant killed. */
const SOUND: EvidenceFacts = {
  criteria: [
    { criterion: 'double(1) is 2', tests: ['one'] },
    { criterion: 'double(2) is 4', tests: ['two'] },
  ],
  commands: [
    { name: 'acceptance', passed: true, exit_code: 0, output_sha256: 'a' },
    { name: 'test_machinery', passed: true, exit_code: null, output_sha256: null },
  ],
  red: [red('one'), red('two')],
  green: [green('one'), green('two')],
  machinery: { ran: true, passed: true },
  mutation: { status: 'done', killed: 3, survived: 0, note: null },
  claims: { worker_case: null, verdict: { verdict: 'accept', concern: 'Fine.', evidence: [] } },
};

describe('the evidence status', () => {
  it('is verified when every criterion went red to green on untouched machinery and every mutant was killed', () => {
    expect(evidenceStatus(SOUND)).toEqual({ status: 'verified', gaps: [] });
  });

  it('names a criterion whose test already passed before the change as a gap', () => {
    expect(evidenceStatus({ ...SOUND, red: [red('one'), red('two', 'passed')] })).toEqual({
      status: 'with_gaps',
      gaps: ['Criterion 2 has no test that failed before the change.'],
    });
  });

  it('names one test of several that was not red, and a criterion with no test at all', () => {
    const facts: EvidenceFacts = {
      ...SOUND,
      criteria: [
        { criterion: 'a', tests: ['one', 'two'] },
        { criterion: 'b', tests: [] },
      ],
      red: [red('one'), red('two', 'error')],
    };
    expect(evidenceStatus(facts)).toEqual({
      status: 'with_gaps',
      gaps: ['Criterion 1’s test “two” failed before the change for another reason than the missing work.', 'Criterion 2 has no test that checks it.'],
    });
  });

  it('counts a flaky case neither as red nor as green', () => {
    const flakyRed = evidenceStatus({ ...SOUND, red: [red('one', 'flaky'), red('two')] });
    expect(flakyRed).toEqual({ status: 'with_gaps', gaps: ['Criterion 1 has no test that failed before the change.'] });
    const flakyGreen = evidenceStatus({ ...SOUND, green: [green('one'), green('two', 'flaky')] });
    expect(flakyGreen).toEqual({ status: 'not_verified', gaps: ['Criterion 2’s test “two” was flaky at the task’s commit (it both passed and failed).'] });
  });

  it('is not verified when a named case did not pass, a command failed, the machinery changed, or the verdict is no accept', () => {
    expect(evidenceStatus({ ...SOUND, green: [green('one'), green('two', 'not_run')] }).gaps).toEqual([
      'Criterion 2’s test “two” did not run at the task’s commit.',
    ]);
    const failed = evidenceStatus({ ...SOUND, commands: [{ name: 'acceptance', passed: false, exit_code: 1, output_sha256: 'a' }] });
    expect(failed).toEqual({ status: 'not_verified', gaps: ['The command “acceptance” failed (exit 1).'] });
    expect(evidenceStatus({ ...SOUND, machinery: { ran: true, passed: false } }).status).toBe('not_verified');
    const rejected = evidenceStatus({
      ...SOUND,
      claims: { worker_case: null, verdict: { verdict: 'reject', concern: 'x', evidence: [], parse_failed: true } },
    });
    expect(rejected).toEqual({ status: 'not_verified', gaps: ['The evaluator did not accept this work with a readable verdict.'] });
  });

  it('puts contradictions before gaps', () => {
    const both = evidenceStatus({ ...SOUND, green: [green('one', 'failed'), green('two')], machinery: { ran: false, passed: null } });
    expect(both).toEqual({
      status: 'not_verified',
      gaps: [
        'Criterion 1’s test “one” failed at the task’s commit.',
        'The test-machinery check did not run, so nothing shows the tests ran on the seed’s test setup.',
      ],
    });
  });

  it('names missing proofs: no red run, no green run, no machinery check', () => {
    const facts: EvidenceFacts = { ...SOUND, red: [], green: [], machinery: { ran: false, passed: null } };
    expect(evidenceStatus(facts)).toEqual({
      status: 'with_gaps',
      gaps: [
        'The test-machinery check did not run, so nothing shows the tests ran on the seed’s test setup.',
        'Criterion 1 has no test that was run before the change.',
        'Criterion 1’s test “one” was not run alone at the task’s commit.',
        'Criterion 2 has no test that was run before the change.',
        'Criterion 2’s test “two” was not run alone at the task’s commit.',
      ],
    });
  });

  it('asks for killed mutants: survivors, no probe, a probe turned off, running, or one that tried nothing are gaps', () => {
    const gapOf = (mutation: EvidenceFacts['mutation']) => evidenceStatus({ ...SOUND, mutation });
    expect(gapOf({ status: 'done', killed: 2, survived: 1, note: null })).toEqual({
      status: 'with_gaps',
      gaps: ['1 change to the task’s code went unnoticed by its tests (of 3 tried).'],
    });
    expect(gapOf({ status: 'done', killed: 0, survived: 0, note: 'nothing to mutate' }).gaps).toEqual([
      'The mutation probe tried no change of the task’s code, so nothing shows its tests notice one.',
    ]);
    expect(gapOf({ status: 'done', killed: 4, survived: 0, note: 'the probe was cut short by a stop or crash' }).gaps).toEqual([
      'The mutation probe did not try every change: the probe was cut short by a stop or crash.',
    ]);
    expect(gapOf({ status: 'running', killed: 0, survived: 0, note: null }).gaps).toEqual(['The mutation probe has not finished yet.']);
    expect(gapOf({ status: 'off', killed: 0, survived: 0, note: null }).status).toBe('with_gaps');
    expect(gapOf({ status: 'none', killed: 0, survived: 0, note: null }).status).toBe('with_gaps');
  });

  it('does not count a failed test-machinery check twice, as a command and as the machinery', () => {
    const facts: EvidenceFacts = {
      ...SOUND,
      commands: [SOUND.commands[0]!, { name: 'test_machinery', passed: false, exit_code: null, output_sha256: null }],
      machinery: { ran: true, passed: false },
    };
    expect(evidenceStatus(facts).gaps).toEqual(['The test-machinery check failed: the tests may not have run on the seed’s test setup.']);
  });
});

describe('criteria whose tests never run the changed code', () => {
  const probe = (criteria: NonNullable<MutationReport['coverage']>['criteria'], mutated: Record<string, number[]>): MutationReport => ({
    status: 'done',
    killed: 1,
    survived: 0,
    survivors: [],
    note: null,
    duration_ms: 1,
    coverage: { method: 'v8', criteria, mutated, note: null },
  });

  it('says a criterion runs the changed code when its cases ran a mutated line, and not when they ran only others', () => {
    const report = probe([{ 'src/a.js': [3, 4] }, { 'src/a.js': [9] }, null], { 'src/a.js': [4] });
    expect(runsChangedCode(report, 0)).toBe(true);
    expect(runsChangedCode(report, 1)).toBe(false);
    expect(runsChangedCode(report, 2)).toBeNull();
  });

  it('says nothing of files the probe did not trace, of a probe that is not done, or of one without coverage', () => {
    expect(runsChangedCode(probe([{ 'src/a.js': [1] }], { 'src/b.py': [2] }), 0)).toBeNull();
    expect(runsChangedCode(probe([{ 'src/a.js': [1] }], { 'src/a.js': [] }), 0)).toBeNull();
    expect(runsChangedCode({ ...probe([{ 'src/a.js': [1] }], { 'src/a.js': [2] }), status: 'running' }, 0)).toBeNull();
    expect(runsChangedCode({ ...probe([], {}), coverage: null }, 0)).toBeNull();
    expect(runsChangedCode(null, 0)).toBeNull();
  });

  it('names each such criterion as a gap of the receipt', () => {
    const facts: EvidenceFacts = { ...SOUND, mutation: { ...SOUND.mutation, changed_code_not_run: [2] } };
    expect(evidenceStatus(facts)).toEqual({
      status: 'with_gaps',
      gaps: ['Criterion 2’s tests never run the lines of the task’s code that the probe changed.'],
    });
  });
});

describe('counting tasks per status', () => {
  it('counts each status, and done tasks without a receipt apart', () => {
    expect(countByStatus(['verified', 'with_gaps', 'with_gaps', null])).toEqual({ verified: 1, with_gaps: 2, not_verified: 0, none: 1 });
  });
});
