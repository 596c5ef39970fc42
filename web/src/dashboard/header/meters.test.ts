import { describe, expect, it } from 'vitest';
import { addToSummary, emptySummary, type Summary } from '../../../../shared/summary.ts';
import { attemptMeters, latestAttempt, meterLevel, runElapsedMs, sessionMeters } from './meters.ts';
import { CAPS, RunLog, twoTaskRun } from '../test-run.ts';

function summaryOf(log: RunLog): Summary {
  const s = emptySummary('s');
  for (const e of log.events) addToSummary(s, e);
  return s;
}

describe('meterLevel', () => {
  it('turns amber at 75% and red at 90% of the cap', () => {
    expect(meterLevel(74.9, 100)).toBe('ok');
    expect(meterLevel(75, 100)).toBe('amber');
    expect(meterLevel(89.9, 100)).toBe('amber');
    expect(meterLevel(90, 100)).toBe('red');
    expect(meterLevel(150, 100)).toBe('red');
  });

  it('is off when the cap is 0', () => {
    expect(meterLevel(1_000_000, 0)).toBe('off');
  });
});

describe('sessionMeters', () => {
  it('measures the run’s cost and tokens against the caps, without the interview’s', () => {
    const log = twoTaskRun();
    log.add({ type: 'model_call', data: { phase: 'interview', role: 'prep', prompt_tokens: 50_000, eval_tokens: 0, tokens_used_total: 50_000, cost_usd: 5 } });
    const meters = sessionMeters(summaryOf(log), { ...CAPS, max_dollars: 0.1 }, 45 * 60_000);
    const byKey = Object.fromEntries(meters.map((m) => [m.key, m]));
    // 4 worker calls at $0.01 and 3 evaluator calls at $0.02.
    expect(byKey.cost!.value).toBeCloseTo(0.1);
    expect(byKey.cost!.level).toBe('red');
    expect(byKey.cost!.text).toBe('$0.10 of $0.10');
    expect(byKey.wall_clock!.level).toBe('amber');
    expect(byKey.wall_clock!.text).toBe('45 min 00 s of 1 h 00 min');
    expect(byKey.tokens!.value).toBe(5400 + 400 + 6150);
  });

  it('shows a figure with no cap when the cap is off', () => {
    const [cost] = sessionMeters(summaryOf(twoTaskRun()), { ...CAPS, max_dollars: 0 }, 0);
    expect(cost!.level).toBe('off');
    expect(cost!.fraction).toBe(0);
    expect(cost!.text).toBe('$0.10 (no cap)');
  });
});

describe('latestAttempt', () => {
  it('counts iterations and evaluator calls from the newest attempt only, as the caps do', () => {
    const log = new RunLog().start().task('T-001');
    for (let i = 1; i <= 8; i++) log.workerCall('T-001', i);
    log.verdict('T-001', 8, 'reject', 'weak_test').failed('T-001', 'iter_cap').stop('iter_cap');
    const before = latestAttempt(summaryOf(log));
    expect(before).toMatchObject({ taskId: 'T-001', iterations: 8, evaluatorCalls: 1, open: false });
    expect(attemptMeters(before!, CAPS).map((m) => [m.key, m.level])).toEqual([
      ['iterations', 'amber'],
      ['evaluator_calls', 'ok'],
    ]);
    // Resumed: a fresh budget.
    log.start().task('T-001').workerCall('T-001', 1).workerCall('T-001', 2);
    expect(latestAttempt(summaryOf(log))).toMatchObject({ iterations: 2, evaluatorCalls: 0, open: true });
  });
});

describe('runElapsedMs', () => {
  it('runs from the run start to now while running, and to the stop once stopped', () => {
    const s = summaryOf(twoTaskRun());
    const start = Date.parse(s.started_at!);
    const stop = Date.parse(s.stop!.ts);
    expect(runElapsedMs(s, false, stop + 999_999)).toBe(stop - start);
    expect(runElapsedMs(s, true, start + 5_000)).toBe(5_000);
    expect(runElapsedMs(emptySummary('s'), true, 1)).toBe(0);
    // A later stop without a run (a send-back minutes after) names its reason but does not lengthen the run.
    const later = { ...s, stop: { reason: 'sent_back' as const, ts: new Date(stop + 120_000).toISOString() } };
    expect(runElapsedMs(later, false, stop + 999_999)).toBe(stop - start);
  });
});
