import { describe, expect, it } from 'vitest';
import type { PrdEntry } from '../../../shared/files.ts';
import { addToSummary, emptySummary } from '../../../shared/summary.ts';
import { boardProgress, boardRows } from './board.ts';
import { CAPS, RunLog } from './test-run.ts';

const entry = (id: string, status: PrdEntry['status']): PrdEntry => ({ id, title: `Task ${id}`, description: 'd', acceptance_criteria: ['c'], status });

describe('boardRows', () => {
  it('shows each planned task with its live status, iterations against the cap, evaluator calls, cost and last verdict', () => {
    const log = new RunLog().start().task('T-001');
    for (let i = 1; i <= 9; i++) log.workerCall('T-001', i);
    log.verdict('T-001', 9, 'reject', 'acceptance_gap');
    const summary = emptySummary('s');
    for (const e of log.events) addToSummary(summary, e);
    const rows = boardRows([entry('T-001', 'in_progress'), entry('T-002', 'pending')], summary, CAPS, true);
    expect(rows[0]).toMatchObject({
      id: 'T-001',
      status: 'in_progress',
      iterations: 9,
      iterationsLevel: 'red',
      evaluatorCalls: 1,
      evaluatorLevel: 'ok',
      rejects: 1,
      lastVerdict: { verdict: 'reject', rejection_category: 'acceptance_gap', concern: 'A criterion is not met.' },
    });
    expect(rows[0]!.costUsd).toBeCloseTo(0.09 + 0.02);
    expect(rows[1]).toMatchObject({ id: 'T-002', status: 'pending', iterations: 0, lastVerdict: null });
    expect(boardProgress(rows)).toBe('0 of 2 done');
  });

  it('works before the summary has loaded', () => {
    expect(boardRows([entry('T-001', 'done')], null, null, false)[0]).toMatchObject({ status: 'done', iterationsLevel: 'off' });
  });
});
