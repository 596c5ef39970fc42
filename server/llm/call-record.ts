/**
 * What a finished model call adds to a session's spend, and the `model_call` event fields that
 * record it — one place for the interview and the run.
 */
import type { Usage } from '../../shared/files.ts';
import type { ChatResult } from './client.ts';
import { reasoningText } from './reply.ts';

export function addCallToUsage(u: Usage, result: ChatResult): Usage {
  return {
    prompt_tokens: u.prompt_tokens + result.usage.prompt_tokens,
    completion_tokens: u.completion_tokens + result.usage.completion_tokens,
    total_tokens: u.total_tokens + result.usage.prompt_tokens + result.usage.completion_tokens,
    cost_usd: u.cost_usd + (result.costUsd ?? 0),
    calls: u.calls + 1,
  };
}

/** The call's own figures plus the running totals, for a `model_call` event. */
export function modelCallFields(result: ChatResult, totals: Usage) {
  const reasoning = reasoningText(result.message);
  return {
    model: result.model,
    prompt_tokens: result.usage.prompt_tokens,
    eval_tokens: result.usage.completion_tokens,
    ...(result.usage.cached_tokens ? { cached_tokens: result.usage.cached_tokens } : {}),
    ...(result.usage.reasoning_tokens ? { reasoning_tokens: result.usage.reasoning_tokens } : {}),
    tokens_used_total: totals.total_tokens,
    cost_usd: result.costUsd,
    cost_total_usd: totals.cost_usd,
    duration_ms: result.durationMs,
    health: result.filtered ? ('content_filter' as const) : result.health,
    finish_reason: result.finishReason,
    ...(reasoning ? { reasoning } : {}),
  };
}
