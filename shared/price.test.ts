import { describe, expect, it } from 'vitest';
import { estimateCostUsd, PriceSchema } from './price.ts';

describe('estimateCostUsd', () => {
  it('charges prompt tokens at the input price and completion tokens at the output price, per million', () => {
    expect(estimateCostUsd({ prompt_tokens: 1_000_000, completion_tokens: 0 }, { input_per_million: 0.27, output_per_million: 1.1 })).toBeCloseTo(0.27, 10);
    expect(estimateCostUsd({ prompt_tokens: 0, completion_tokens: 1_000_000 }, { input_per_million: 0.27, output_per_million: 1.1 })).toBeCloseTo(1.1, 10);
    expect(estimateCostUsd({ prompt_tokens: 12_000, completion_tokens: 800 }, { input_per_million: 3, output_per_million: 15 })).toBeCloseTo(0.036 + 0.012, 10);
  });

  it('is zero for a free model or an empty call', () => {
    expect(estimateCostUsd({ prompt_tokens: 50_000, completion_tokens: 9_000 }, { input_per_million: 0, output_per_million: 0 })).toBe(0);
    expect(estimateCostUsd({ prompt_tokens: 0, completion_tokens: 0 }, { input_per_million: 5, output_per_million: 5 })).toBe(0);
  });

  it('never goes negative on a nonsensical count', () => {
    expect(estimateCostUsd({ prompt_tokens: -10, completion_tokens: -5 }, { input_per_million: 1, output_per_million: 1 })).toBe(0);
  });

  it('takes only non-negative prices', () => {
    expect(PriceSchema.safeParse({ input_per_million: -1, output_per_million: 0 }).success).toBe(false);
    expect(PriceSchema.safeParse({ input_per_million: 0.5, output_per_million: 2 }).success).toBe(true);
  });
});
