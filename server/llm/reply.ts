/**
 * Turning a raw chat completion into what the client and the harness need: the message, usage,
 * cost and a health verdict. Pure functions, so every odd provider reply can be unit-tested.
 */
import type { AssistantHistoryMessage, AssistantMessage, CallUsage, ReplyHealth } from './types.ts';

export type NormalisedReply = {
  health: ReplyHealth;
  message: AssistantMessage;
  finishReason: string | null;
  usage: CallUsage;
  /** USD when the provider reports `usage.cost` (OpenRouter does), else null. */
  costUsd: number | null;
  /** What went wrong, from the provider's error object, for unhealthy replies. */
  detail: string | null;
};

export function normaliseCompletion(completion: unknown): NormalisedReply {
  const body = isRecord(completion) ? completion : {};
  const { usage, costUsd } = readUsage(body.usage);
  const base = { usage, costUsd };
  const blank: AssistantMessage = { role: 'assistant', content: null, refusal: null };

  if (body.error !== undefined && body.error !== null) {
    return { ...base, health: 'error_body', message: blank, finishReason: null, detail: errorText(body.error) };
  }
  const choice = Array.isArray(body.choices) ? body.choices[0] : undefined;
  if (!isRecord(choice)) {
    return { ...base, health: 'no_choices', message: blank, finishReason: null, detail: null };
  }
  const message = isRecord(choice.message) ? (choice.message as unknown as AssistantMessage) : blank;
  const finishReason = typeof choice.finish_reason === 'string' ? choice.finish_reason : null;
  if (finishReason === 'error' || (choice.error !== undefined && choice.error !== null)) {
    return { ...base, health: 'error_finish', message, finishReason, detail: choice.error ? errorText(choice.error) : null };
  }
  return { ...base, health: isEmptyMessage(message) ? 'empty' : 'ok', message, finishReason, detail: null };
}

/** No tool calls, no non-blank content, no reasoning: nothing the conversation can use. */
export function isEmptyMessage(message: AssistantMessage): boolean {
  if (message.tool_calls && message.tool_calls.length > 0) return false;
  if (typeof message.content === 'string' && message.content.trim() !== '') return false;
  if (Array.isArray(message.reasoning_details) && message.reasoning_details.length > 0) return false;
  if (typeof message.reasoning === 'string' && message.reasoning.trim() !== '') return false;
  return true;
}

function readUsage(raw: unknown): { usage: CallUsage; costUsd: number | null } {
  const u = isRecord(raw) ? raw : {};
  const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v) : 0);
  const prompt = count(u.prompt_tokens);
  const completion = count(u.completion_tokens);
  const cost = typeof u.cost === 'number' && Number.isFinite(u.cost) && u.cost >= 0 ? u.cost : null;
  // The cap counts prompt + completion, as the Python edition did; a provider's own total may
  // include other things (cached or reasoning tokens reported twice).
  const details = (v: unknown, key: string) => (isRecord(v) ? count(v[key]) : 0);
  const cached = details(u.prompt_tokens_details, 'cached_tokens');
  const reasoning = details(u.completion_tokens_details, 'reasoning_tokens');
  return {
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      ...(cached > 0 ? { cached_tokens: cached } : {}),
      ...(reasoning > 0 ? { reasoning_tokens: reasoning } : {}),
    },
    costUsd: cost,
  };
}

function errorText(error: unknown): string {
  if (typeof error === 'string') return error;
  if (isRecord(error) && typeof error.message === 'string') {
    return error.code !== undefined ? `${error.message} (code ${String(error.code)})` : error.message;
  }
  return JSON.stringify(error);
}

/**
 * The assistant turn as it goes back into the conversation: role, content, tool_calls,
 * reasoning and reasoning_details only. Thinking models answer 400 when the previous turn's
 * reasoning is missing, and some providers reject fields such as `refusal` or `annotations`.
 */
export function assistantHistoryMessage(message: AssistantMessage): AssistantHistoryMessage {
  const out: AssistantHistoryMessage = { role: 'assistant', content: message.content ?? null };
  if (message.tool_calls && message.tool_calls.length > 0) out.tool_calls = message.tool_calls;
  if (typeof message.reasoning === 'string') out.reasoning = message.reasoning;
  if (Array.isArray(message.reasoning_details)) out.reasoning_details = message.reasoning_details;
  return out;
}

export function addUsage(a: CallUsage, b: CallUsage): CallUsage {
  const cached = (a.cached_tokens ?? 0) + (b.cached_tokens ?? 0);
  const reasoning = (a.reasoning_tokens ?? 0) + (b.reasoning_tokens ?? 0);
  return {
    prompt_tokens: a.prompt_tokens + b.prompt_tokens,
    completion_tokens: a.completion_tokens + b.completion_tokens,
    total_tokens: a.total_tokens + b.total_tokens,
    ...(cached > 0 ? { cached_tokens: cached } : {}),
    ...(reasoning > 0 ? { reasoning_tokens: reasoning } : {}),
  };
}

export const ZERO_USAGE: CallUsage = Object.freeze({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
