/**
 * A model's price per million tokens, as the user configures it per role (TILTH_*_PRICE_IN and
 * TILTH_*_PRICE_OUT), and the cost of a call at that price. Used when the provider reports no
 * cost of its own (everyone but OpenRouter), so the dollar cap can still work.
 */
import { z } from 'zod';

export const PriceSchema = z.object({
  /** USD per million prompt tokens. */
  input_per_million: z.number().nonnegative(),
  /** USD per million completion tokens (reasoning included: providers bill it as output). */
  output_per_million: z.number().nonnegative(),
});
export type Price = z.infer<typeof PriceSchema>;

/** The token counts a cost is reckoned from; the shape of a call's usage. */
export type PricedUsage = { prompt_tokens: number; completion_tokens: number };

/**
 * USD for one call's usage. Prompt tokens served from the provider's cache are charged at the full
 * input price: the discount differs by provider (and some charge for cache writes), so the
 * estimate errs high, which is the safe side for a spending cap.
 */
export function estimateCostUsd(usage: PricedUsage, price: Price): number {
  const prompt = Math.max(0, usage.prompt_tokens);
  const completion = Math.max(0, usage.completion_tokens);
  return (prompt * price.input_per_million + completion * price.output_per_million) / 1_000_000;
}
