import { describe, expect, it } from 'vitest';
import type { CaseProof } from '../../shared/seed.ts';
import { caseOutputKey, combine } from './red-proof.ts';

const run = (result: CaseProof['result'], detail: string = result): CaseProof => ({ test: 'adds', result, detail });

describe('combine', () => {
  it('calls a case that both passed and failed flaky, with the count and the failure, proving nothing', () => {
    expect(combine('adds', [run('passed'), run('failed', 'an assertion failed'), run('passed')])).toEqual({
      test: 'adds',
      result: 'flaky',
      detail: 'it passed 2 of 3 runs and failed the others (an assertion failed), so it proves nothing either way',
      runs: ['passed', 'failed', 'passed'],
    });
    expect(combine('adds', [run('failed', 'x'), run('passed')]).detail).toBe(
      'it passed 1 of 2 runs and failed the others (x), so it proves nothing either way',
    );
  });

  it('keeps the worst run otherwise: an error over not run over passed over failed, with every run listed', () => {
    expect(combine('adds', [run('failed'), run('failed')])).toEqual({ ...run('failed'), runs: ['failed', 'failed'] });
    expect(combine('adds', [run('passed'), run('passed')])).toEqual({ ...run('passed'), runs: ['passed', 'passed'] });
    expect(combine('adds', [run('failed'), run('not_run')])).toEqual({ ...run('not_run'), runs: ['failed', 'not_run'] });
    expect(combine('adds', [run('not_run'), run('error'), run('not_run')])).toEqual({ ...run('error'), runs: ['not_run', 'error', 'not_run'] });
    expect(combine('adds', [run('error'), run('not_run')])).toEqual({ ...run('error'), runs: ['error', 'not_run'] });
    expect(combine('adds', [run('passed'), run('not_run')])).toEqual({ ...run('not_run'), runs: ['passed', 'not_run'] });
    expect(combine('adds', [run('failed', 'first'), run('failed', 'second')]).detail).toBe('first');
  });

  it('keys a kept output by task and case, so two tasks with a case of the same name do not meet', () => {
    expect(caseOutputKey('T-001', 'adds')).not.toBe(caseOutputKey('T-002', 'adds'));
    expect(caseOutputKey('T-001', 'a b')).not.toBe(caseOutputKey('T-001 a', 'b'));
  });
});
