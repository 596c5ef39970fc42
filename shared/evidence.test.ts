import { describe, expect, it } from 'vitest';
import type { MutationReport } from './files.ts';
import {
  countByStatus,
  EvidenceCommandSchema,
  EvidenceSchema,
  evidenceStatus,
  MachineryFactSchema,
  MutationFactSchema,
  runsChangedCode,
  type EvidenceFacts,
} from './evidence.ts';

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

describe('the evidence status, sentence by sentence', () => {
  const three = (results: string[]): EvidenceFacts => ({
    ...SOUND,
    criteria: [{ criterion: 'a', tests: ['one', 'two', 'three'] }],
    red: [red('one'), ...results.map((r, i) => red(['two', 'three'][i]!, r))],
    green: [green('one'), green('two'), green('three')],
  });

  it("says why each of a criterion's other cases was not red, next to one that was", () => {
    expect(evidenceStatus(three(['passed', 'flaky'])).gaps).toEqual([
      'Criterion 1’s test “two” already passed before the change.',
      'Criterion 1’s test “three” was flaky before the change (it both passed and failed).',
    ]);
    expect(evidenceStatus(three(['not_run'])).gaps).toEqual([
      'Criterion 1’s test “two” did not run before the change.',
      'Criterion 1’s test “three” was not run before the change.',
    ]);
  });

  it('tells a criterion none of whose cases ran before the change from one whose cases ran and did not fail', () => {
    const noRed = { ...SOUND, red: [red('one')] };
    expect(evidenceStatus(noRed).gaps).toEqual(['Criterion 2 has no test that was run before the change.']);
    // One case of two unrun and the other passed: not "not run", but "none failed".
    const facts = { ...SOUND, criteria: [{ criterion: 'a', tests: ['one', 'two'] }], red: [red('two', 'passed')] };
    expect(evidenceStatus(facts).gaps).toEqual(['Criterion 1 has no test that failed before the change.']);
  });

  it("says how each named case was not green at the task's commit", () => {
    const gapsOf = (result: string) => evidenceStatus({ ...SOUND, green: [green('one'), green('two', result)] });
    expect(gapsOf('failed')).toEqual({ status: 'not_verified', gaps: ['Criterion 2’s test “two” failed at the task’s commit.'] });
    expect(gapsOf('error').gaps).toEqual(['Criterion 2’s test “two” did not finish or could not run at the task’s commit.']);
    expect(gapsOf('not_run').gaps).toEqual(['Criterion 2’s test “two” did not run at the task’s commit.']);
    expect(evidenceStatus({ ...SOUND, green: [green('one')] })).toEqual({
      status: 'with_gaps',
      gaps: ['Criterion 2’s test “two” was not run alone at the task’s commit.'],
    });
  });

  it('names a failed command with its exit code when it has one, and never the machinery check as a command', () => {
    const commands = (exit: number | null | undefined) => [
      { name: 'lint', passed: false, ...(exit === undefined ? {} : { exit_code: exit }), output_sha256: null },
      { name: 'test_machinery', passed: true, exit_code: null, output_sha256: null },
    ];
    expect(evidenceStatus({ ...SOUND, commands: commands(2) }).gaps).toEqual(['The command “lint” failed (exit 2).']);
    expect(evidenceStatus({ ...SOUND, commands: commands(0) }).gaps).toEqual(['The command “lint” failed (exit 0).']);
    expect(evidenceStatus({ ...SOUND, commands: commands(null) }).gaps).toEqual(['The command “lint” failed.']);
    expect(evidenceStatus({ ...SOUND, commands: commands(undefined) }).gaps).toEqual(['The command “lint” failed.']);
    const machineryFailed = [{ name: 'test_machinery', passed: false, exit_code: null, output_sha256: null }];
    expect(evidenceStatus({ ...SOUND, commands: machineryFailed, machinery: { ran: true, passed: true } })).toEqual({ status: 'verified', gaps: [] });
  });

  it('is not verified on a reject, or on an accept whose verdict could not be read', () => {
    const verdict = (v: Partial<EvidenceFacts['claims']['verdict']>) =>
      evidenceStatus({ ...SOUND, claims: { ...SOUND.claims, verdict: { ...SOUND.claims.verdict, ...v } } });
    const sentence = 'The evaluator did not accept this work with a readable verdict.';
    expect(verdict({ verdict: 'reject' })).toEqual({ status: 'not_verified', gaps: [sentence] });
    expect(verdict({ parse_failed: true })).toEqual({ status: 'not_verified', gaps: [sentence] });
    expect(verdict({ parse_failed: false })).toEqual({ status: 'verified', gaps: [] });
  });

  it('says where the mutation probe stands: none, off, running, survivors (one or many), nothing tried, a note', () => {
    const probe = (m: Partial<EvidenceFacts['mutation']>) => evidenceStatus({ ...SOUND, mutation: { ...SOUND.mutation, ...m } }).gaps;
    expect(probe({ status: 'none' })).toEqual(['No mutation probe ran for this task, so nothing shows its tests notice a wrong change.']);
    expect(probe({ status: 'off' })).toEqual(['The mutation probe was turned off, so nothing shows the tests notice a wrong change.']);
    expect(probe({ status: 'running' })).toEqual(['The mutation probe has not finished yet.']);
    expect(probe({ survived: 1, killed: 4 })).toEqual(['1 change to the task’s code went unnoticed by its tests (of 5 tried).']);
    expect(probe({ survived: 2, killed: 0 })).toEqual(['2 changes to the task’s code went unnoticed by its tests (of 2 tried).']);
    expect(probe({ killed: 0 })).toEqual(['The mutation probe tried no change of the task’s code, so nothing shows its tests notice one.']);
    expect(probe({ note: 'stopped at its budget, 3 left untried.' })).toEqual([
      'The mutation probe did not try every change: stopped at its budget, 3 left untried.',
    ]);
    expect(probe({ note: 'v1.2 was not traced' })).toEqual(['The mutation probe did not try every change: v1.2 was not traced.']);
  });
});

describe('the evidence schemas', () => {
  const receipt = {
    version: 1,
    task_id: 'T-001',
    revision: 1,
    written_at: '2026-11-28T12:00:00.000Z',
    preset: 'node',
    seed_commit: 'a'.repeat(40),
    task_commit: 'b'.repeat(40),
    diff_sha256: 'c'.repeat(64),
    ...SOUND,
    status: 'verified',
    gaps: [],
  };

  it('reads a whole receipt, each status, and each probe state', () => {
    expect(EvidenceSchema.parse(receipt)).toEqual(receipt);
    for (const status of ['verified', 'with_gaps', 'not_verified']) expect(EvidenceSchema.safeParse({ ...receipt, status }).success).toBe(true);
    for (const status of ['none', 'running', 'done', 'off']) expect(MutationFactSchema.safeParse({ ...SOUND.mutation, status }).success).toBe(true);
    expect(MutationFactSchema.safeParse({ ...SOUND.mutation, status: 'maybe' }).success).toBe(false);
    expect(EvidenceSchema.safeParse({ ...receipt, status: 'fine' }).success).toBe(false);
  });

  it("keeps a command's output out of the receipt, but its hash in, and needs the machinery's two facts", () => {
    const command = { name: 'acceptance', passed: true, exit_code: 0, output: 'secret text', output_chars: 11, output_sha256: 'a' };
    expect(EvidenceCommandSchema.parse(command)).toEqual({ name: 'acceptance', passed: true, exit_code: 0, output_sha256: 'a' });
    expect(EvidenceCommandSchema.safeParse({ name: 'acceptance', passed: true }).success).toBe(false);
    expect(MachineryFactSchema.safeParse({ ran: true }).success).toBe(false);
    expect(MachineryFactSchema.safeParse({ passed: null }).success).toBe(false);
    expect(MachineryFactSchema.parse({ ran: false, passed: null })).toEqual({ ran: false, passed: null });
  });
});
