import { describe, expect, it } from 'vitest';
import type { Caps, Checkpoint, SeedMeta, Usage } from '../../shared/files.ts';
import { EMPTY_USAGE } from '../../shared/files.ts';
import { emptySummary } from '../../shared/summary.ts';
import type { JobContext } from '../jobs/job-runner.ts';
import type { ModelClient } from '../llm/client.ts';
import { CapReached, RunContext } from './run-context.ts';

const OFF: Caps = { max_iterations_per_task: 32, max_wall_clock_minutes: 0, max_tokens: 0, max_dollars: 0, max_evaluator_calls_per_task: 0 };

/** A run context with only what the caps read: the caps, the run's usage so far and a clock. */
function context(caps: Partial<Caps>, usage: Partial<Usage> = {}, clock: { now: number } = { now: 0 }, saved: Usage[] = []): RunContext {
  // The caps never touch the rest of the job, the model, the checkpoint's other fields or the seed.
  const session = { checkpoint: { update: (patch: () => { usage: Usage }) => saved.push(patch().usage) } };
  const job = { sessionId: '20260101-120000-abcdef', session } as unknown as JobContext;
  const checkpoint = { usage: { ...EMPTY_USAGE, ...usage } } as unknown as Checkpoint;
  const deps = { llm: {} as ModelClient, caps: { ...OFF, ...caps }, contextFiles: [], now: () => clock.now };
  return new RunContext(job, deps, checkpoint, {} as SeedMeta, emptySummary(job.sessionId));
}

/** The cap a check stops at, as `reason: message`, or null when it lets the call through. */
function stop(check: () => void): string | null {
  try {
    check();
    return null;
  } catch (err) {
    if (!(err instanceof CapReached)) throw err;
    return `${err.reason}: ${err.message}`;
  }
}
const spend = (caps: Partial<Caps>, usage: Partial<Usage> = {}) => {
  const run = context(caps, usage);
  return stop(() => run.checkSpend());
};

describe('checkSpend, before every model call', () => {
  it('lets a call through while spend is under the caps, and with the caps off (0)', () => {
    expect(spend({})).toBeNull();
    expect(spend({}, { cost_usd: 1_000, total_tokens: 10_000_000 })).toBeNull();
    expect(spend({ max_dollars: 0.01, max_tokens: 1000 }, { cost_usd: 0.0099, total_tokens: 999 })).toBeNull();
  });

  it('stops once spend reaches the dollar cap, not only past it', () => {
    expect(spend({ max_dollars: 0.5 }, { cost_usd: 0.5 })).toBe('dollar_cap: dollar cap reached: $0.5000 of $0.50 (TILTH_MAX_DOLLARS)');
    expect(spend({ max_dollars: 2 }, { cost_usd: 2.34567 })).toBe('dollar_cap: dollar cap reached: $2.3457 of $2.00 (TILTH_MAX_DOLLARS)');
  });

  it('shows a cap finer than a cent as it was set, not rounded', () => {
    expect(spend({ max_dollars: 0.0015 }, { cost_usd: 0.002 })).toBe('dollar_cap: dollar cap reached: $0.0020 of $0.0015 (TILTH_MAX_DOLLARS)');
    expect(spend({ max_dollars: 0.125 }, { cost_usd: 0.125 })).toContain('of $0.125 (');
    expect(spend({ max_dollars: 1.1 }, { cost_usd: 1.1 })).toContain('of $1.10 (');
  });

  it('stops once the run’s tokens reach the token cap', () => {
    expect(spend({ max_tokens: 1000 }, { total_tokens: 1000 })).toBe('token_cap: token cap reached: 1000 of 1000 tokens (TILTH_MAX_TOKENS)');
    expect(spend({ max_tokens: 1000 }, { total_tokens: 1500, prompt_tokens: 0 })).toMatch(/^token_cap: token cap reached: 1500 of 1000/);
  });

  it('names the dollar cap when both are reached', () => {
    expect(spend({ max_dollars: 1, max_tokens: 100 }, { cost_usd: 1, total_tokens: 100 })).toMatch(/^dollar_cap/);
  });

  it('counts what account() adds, and saves it', () => {
    const saved: Usage[] = [];
    const run = context({ max_tokens: 150 }, {}, { now: 0 }, saved);
    const call = { usage: { prompt_tokens: 100, completion_tokens: 50, total_tokens: 150 }, costUsd: 0.01 } as Parameters<RunContext['account']>[0];
    expect(stop(() => run.checkSpend())).toBeNull();
    run.account(call);
    expect(stop(() => run.checkSpend())).toMatch(/^token_cap/);
    expect(saved).toEqual([{ prompt_tokens: 100, completion_tokens: 50, total_tokens: 150, cost_usd: 0.01, calls: 1 }]);
  });
});

describe('checkSessionCaps, between tasks', () => {
  const MINUTE = 60_000;
  const between = (caps: Partial<Caps>, elapsedMs: number, usage: Partial<Usage> = {}) => {
    const clock = { now: 1_000_000 };
    const run = context(caps, usage, clock);
    clock.now += elapsedMs;
    return stop(() => run.checkSessionCaps());
  };

  it('stops once the run has taken its wall-clock minutes', () => {
    expect(between({ max_wall_clock_minutes: 2 }, 2 * MINUTE - 1)).toBeNull();
    expect(between({ max_wall_clock_minutes: 2 }, 2 * MINUTE)).toBe('wall_clock: wall clock reached: 2 minutes (TILTH_MAX_WALL_CLOCK_MINUTES)');
    expect(between({ max_wall_clock_minutes: 0.5 }, 30_000)).toMatch(/^wall_clock: wall clock reached: 0.5 minutes/);
  });

  it('never stops on the clock when it is off (0)', () => {
    expect(between({}, 0)).toBeNull();
    expect(between({}, 1_000 * MINUTE)).toBeNull();
  });

  it('checks spend too, after the clock', () => {
    expect(between({ max_dollars: 1 }, 0, { cost_usd: 1 })).toMatch(/^dollar_cap/);
    expect(between({ max_tokens: 10 }, 0, { total_tokens: 10 })).toMatch(/^token_cap/);
    expect(between({ max_wall_clock_minutes: 1, max_dollars: 1 }, MINUTE, { cost_usd: 1 })).toMatch(/^wall_clock/);
  });
});
