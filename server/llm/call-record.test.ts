import { describe, expect, it } from 'vitest';
import { EMPTY_USAGE } from '../../shared/files.ts';
import { addCallToUsage, modelCallFields } from './call-record.ts';
import type { ChatResult } from './client.ts';

function result(overrides: Partial<ChatResult> = {}, usage: Partial<ChatResult['usage']> = {}): ChatResult {
  return {
    message: { role: 'assistant', content: 'ok', refusal: null },
    usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120, ...usage },
    finishReason: 'stop',
    health: 'ok',
    usageReported: true,
    filtered: false,
    costUsd: 0.001,
    model: 'worker-model',
    attempts: 1,
    durationMs: 250,
    ...overrides,
  };
}

describe('addCallToUsage', () => {
  it('adds the call’s tokens, cost and one call to the running totals', () => {
    const before = { prompt_tokens: 1000, completion_tokens: 300, total_tokens: 1300, cost_usd: 0.5, calls: 4 };
    expect(addCallToUsage(before, result())).toEqual({ prompt_tokens: 1100, completion_tokens: 320, total_tokens: 1420, cost_usd: 0.501, calls: 5 });
  });

  it('counts total tokens as prompt plus completion, whatever total the provider reported', () => {
    expect(addCallToUsage(EMPTY_USAGE, result({}, { total_tokens: 5 })).total_tokens).toBe(120);
  });

  it('adds nothing to the cost when the provider reported none, but still counts the call', () => {
    const after = addCallToUsage({ ...EMPTY_USAGE, cost_usd: 0.25 }, result({ costUsd: null }));
    expect(after.cost_usd).toBe(0.25);
    expect(after.calls).toBe(1);
  });
});

describe('modelCallFields', () => {
  const totals = { prompt_tokens: 500, completion_tokens: 80, total_tokens: 580, cost_usd: 0.004, calls: 3 };

  it('records the call’s own figures next to the running totals', () => {
    expect(modelCallFields(result(), totals)).toEqual({
      model: 'worker-model',
      prompt_tokens: 100,
      eval_tokens: 20,
      tokens_used_total: 580,
      cost_usd: 0.001,
      cost_total_usd: 0.004,
      duration_ms: 250,
      health: 'ok',
      finish_reason: 'stop',
    });
  });

  it('adds cached and reasoning tokens and the reasoning text only when there are some', () => {
    const fields = modelCallFields(
      result({ message: { role: 'assistant', content: null, refusal: null, reasoning: 'thought' } }, { cached_tokens: 64, reasoning_tokens: 12 }),
      totals,
    );
    expect(fields).toMatchObject({ cached_tokens: 64, reasoning_tokens: 12, reasoning: 'thought' });
    const none = modelCallFields(
      result({ message: { role: 'assistant', content: 'x', refusal: null, reasoning: '' } }, { cached_tokens: 0, reasoning_tokens: 0 }),
      totals,
    );
    expect(Object.keys(none)).not.toContain('cached_tokens');
    expect(Object.keys(none)).not.toContain('reasoning_tokens');
    expect(Object.keys(none)).not.toContain('reasoning');
  });

  it('keeps an unknown cost as null', () => {
    expect(modelCallFields(result({ costUsd: null }), totals).cost_usd).toBeNull();
  });
});
