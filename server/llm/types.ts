/** Role routing types, shared by the config loader and the model client. */
import type { ChatCompletionAssistantMessageParam, ChatCompletionMessage } from 'openai/resources/chat/completions';

export type Role = 'worker' | 'evaluator' | 'prep';
export const ROLES: readonly Role[] = ['worker', 'evaluator', 'prep'];
export type RoleEndpoint = { baseUrl: string; apiKey: string; model: string };
/** A role may be unconfigured: the server starts without a provider. */
export type RoleEndpoints = Partial<Record<Role, RoleEndpoint>>;

/**
 * How a 200 reply looks:
 * - `ok`: something to work with;
 * - `empty`: no tool calls, no non-blank content and no reasoning (the Python edition's empty
 *   turn) — returned, the caller decides;
 * - `error_finish`: `finish_reason: "error"` or an error inside the choice;
 * - `no_choices`: `choices` missing or empty;
 * - `error_body`: an `error` object in a 200 body (OpenRouter does this for upstream failures).
 */
export type ReplyHealth = 'ok' | 'empty' | 'error_finish' | 'no_choices' | 'error_body';

export type CallUsage = {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Of the prompt, served from the provider's cache (`prompt_tokens_details.cached_tokens`). */
  cached_tokens?: number;
  /** Of the completion, spent reasoning (`completion_tokens_details.reasoning_tokens`). */
  reasoning_tokens?: number;
};

/** The SDK's assistant message plus the reasoning fields OpenRouter and thinking models add. */
export type AssistantMessage = ChatCompletionMessage & {
  reasoning?: string | null;
  reasoning_details?: unknown[] | null;
};

/** An assistant turn as it goes back into the conversation (see `assistantHistoryMessage`). */
export type AssistantHistoryMessage = ChatCompletionAssistantMessageParam & {
  reasoning?: string;
  reasoning_details?: unknown[];
};
