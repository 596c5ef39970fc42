import { describe, expect, it } from 'vitest';
import type { CaseProof, PrdEntry } from '../../shared/files.ts';
import { GREEN_CHECK_NAME, greenFailure, notGreen } from './green-gate.ts';
import { caseOutputKey, type CaseOutput } from './red-proof.ts';

const TASK: PrdEntry = {
  id: 'T-002',
  title: 'Due dates',
  description: 'Todos get due dates.',
  acceptance_criteria: ['sets a due date', 'keeps the title', 'refuses a bad date'],
  criteria_tests: [['sets due'], ['sets due', 'keeps title'], []],
  status: 'pending',
};
const FILES = { 'tests/t002_due.test.js': '// the cases' };
const GATE = { task: TASK, testFiles: FILES, preset: 'node' as const, project: null };

describe('notGreen', () => {
  it('keeps every case that did not pass, whatever else it did', () => {
    const proofs: CaseProof[] = (['passed', 'failed', 'error', 'not_run', 'flaky'] as const).map((result) => ({ test: result, result, detail: '' }));
    expect(notGreen(proofs).map((p) => p.test)).toEqual(['failed', 'error', 'not_run', 'flaky']);
  });
});

describe('greenFailure', () => {
  it("names each case with its file, its criteria and the proof's reason, with what it printed run alone", () => {
    const outputs = new Map<string, CaseOutput>([[caseOutputKey('T-002', 'sets due'), { output: '  not ok 1 - sets due\n', exitCode: 1, timedOut: false }]]);
    const failing: CaseProof[] = [
      { test: 'sets due', result: 'failed', detail: 'an assertion failed' },
      { test: 'keeps title', result: 'not_run', detail: 'no case by that name ran' },
    ];
    const check = greenFailure(GATE, failing, outputs);
    expect(check).toMatchObject({ name: GREEN_CHECK_NAME, passed: false, exit_code: null, duration_ms: 0 });
    expect(check.output).toBe(
      [
        'Each test case named for an acceptance criterion was run by itself on this workspace, and these 2 did not pass. A case must pass on its own, not only when the whole file runs: no state left by another case, no skip, no run that executes nothing.',
        '',
        '- `sets due` in tests/t002_due.test.js (criterion 1, 2): failed — an assertion failed',
        '  Its output, run alone (exit 1):',
        '```',
        'not ok 1 - sets due',
        '```',
        '',
        '- `keeps title` in tests/t002_due.test.js (criterion 2): not_run — no case by that name ran',
      ].join('\n'),
    );
  });

  it('says "this one" for one case, "timeout" for a run that timed out, "(no output)" for a silent one, and omits what it does not know', () => {
    const outputs = new Map<string, CaseOutput>([
      [caseOutputKey('T-002', 'sets due'), { output: '', exitCode: null, timedOut: true }],
      // Another task's case by the same name is not this one's.
      [caseOutputKey('T-009', 'ghost'), { output: 'elsewhere', exitCode: 1, timedOut: false }],
    ]);
    const timedOut = greenFailure(GATE, [{ test: 'sets due', result: 'error', detail: 'it did not finish' }], outputs).output!;
    expect(timedOut).toContain('and this one did not pass.');
    expect(timedOut).toContain('  Its output, run alone (exit timeout):\n```\n(no output)\n```');
    const unknown = greenFailure({ ...GATE, testFiles: {} }, [{ test: 'ghost', result: 'not_run', detail: 'gone' }], outputs).output!;
    expect(unknown.split('\n').at(-1)).toBe('- `ghost`: not_run — gone');
  });

  it('keeps the start and the end of a long output, where the runner names the case and the failure', () => {
    const long = `${'a'.repeat(3_000)}${'b'.repeat(3_000)}`;
    const outputs = new Map<string, CaseOutput>([[caseOutputKey('T-002', 'sets due'), { output: long, exitCode: 1, timedOut: false }]]);
    const text = greenFailure(GATE, [{ test: 'sets due', result: 'failed', detail: 'x' }], outputs).output!;
    expect(text).toContain(`\`\`\`\n${'a'.repeat(2_000)}\n...\n${'b'.repeat(2_000)}\n\`\`\``);
    expect(text).not.toContain('a'.repeat(2_001));
  });
});
