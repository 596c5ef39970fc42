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
 * - `empty`: no tool calls and no non-blank content — reasoning alone, in any spelling, is
 *   still empty, since nothing in it can be acted on (a content filter's block is empty too,
 *   flagged `filtered`) — returned, the caller decides;
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

/**
 * The assistant message after normalisation (reply.ts): `content` is text or null (chunk arrays
 * are joined), every tool call has an id, `type` and string arguments, and the reasoning fields
 * are kept exactly as the provider sent them, in whichever spelling it used.
 */
export type AssistantMessage = ChatCompletionMessage & {
  /** DeepSeek, Kimi, vLLM (older), llama.cpp. */
  reasoning_content?: string | null;
  /** OpenRouter, Groq, Ollama, vLLM (newer). */
  reasoning?: string | null;
  /** OpenRouter's structured reasoning (encrypted or summarised blocks). */
  reasoning_details?: unknown[] | null;
  /** The content as the provider sent it, when it was an array of chunks (Magistral). */
  content_parts?: unknown[];
};

/** An assistant turn as it goes back into the conversation (see `assistantHistoryMessage`). */
export type AssistantHistoryMessage = ChatCompletionAssistantMessageParam & {
  reasoning_content?: string;
  reasoning?: string;
  reasoning_details?: unknown[];
  /** Which endpoint wrote the turn: its reasoning goes back to that endpoint only (history.ts). */
  tilth_from?: string;
};
