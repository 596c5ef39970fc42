import { describe, expect, it } from 'vitest';
import { addToSummary, emptySummary } from '../../../../shared/summary.ts';
import { statBand } from './stats.ts';
import { twoTaskRun } from '../test-run.ts';

describe('statBand', () => {
  it('splits tokens, cost and calls by role, ranks the tools and counts verdicts by category', () => {
    const log = twoTaskRun();
    log.add({ type: 'model_call', data: { phase: 'interview', role: 'prep', prompt_tokens: 300, eval_tokens: 20, tokens_used_total: 320, cost_usd: 0.5 } });
    const summary = emptySummary('s');
    for (const e of log.events) addToSummary(summary, e);
    const band = statBand(summary);
    expect(band.tokens).toEqual({ prompt: 5400 + 6000, completion: 400 + 150, cached: 40, reasoning: 20 });
    expect(band.interviewTokens).toBe(320);
    expect(band.cost.worker).toBeCloseTo(0.04);
    expect(band.cost.evaluator).toBeCloseTo(0.06);
    expect(band.cost.total).toBeCloseTo(0.1);
    expect(band.calls).toEqual({ worker: 4, evaluator: 3, learnings: 0, interview: 1 });
    expect(band.tools.total).toBe(4);
    expect(band.tools.top.map(([name]) => name)).toEqual(['bash', 'read_file', 'submit_case', 'write_file']);
    expect(band.verdicts).toEqual({ accepts: 2, rejects: 1, categories: [['acceptance_gap', 1]] });
  });

  it('gives seconds per iteration as task time over worker calls', () => {
    const summary = emptySummary('s');
    for (const e of twoTaskRun().events) addToSummary(summary, e);
    const taskSeconds = Object.values(summary.tasks).reduce((n, t) => n + t.duration_ms, 0) / 1000;
    expect(taskSeconds).toBeGreaterThan(0);
    expect(statBand(summary).secondsPerIteration).toBeCloseTo(taskSeconds / 4);
    expect(statBand(emptySummary('s')).secondsPerIteration).toBeNull();
  });
});
