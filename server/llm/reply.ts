/**
 * Normalisation in one place: a raw chat completion, in whatever shape the provider sent it,
 * becomes the one shape the rest of Tilth reads. Pure functions, a unit test per real shape
 * (reply.test.ts; the shapes and their sources are in docs/provider-shapes.md).
 *
 * - `content` as an array of chunks (Magistral) is joined to text; thinking chunks count as
 *   reasoning; the original array is kept for the echo.
 * - Tool calls: `function.arguments` given as an object (llama.cpp, proxies) is serialised; a
 *   missing or empty `id` gets a fresh one (9 letters and digits, the shape Mistral requires), as
 *   does a duplicate; a missing `type` is `function` (Mistral omits it); a call with no name is
 *   dropped, since nothing can run it. Provider fields on a call (Gemini's `extra_content` with
 *   its thought signature) are kept for the echo.
 * - Reasoning in every spelling (`reasoning_content`, `reasoning`, `reasoning_details`) is kept
 *   verbatim; reasoning alone is an empty turn.
 * - `finish_reason: "content_filter"` with nothing usable is an empty turn flagged `filtered`.
 * - No `usage` at all is reported as `usageReported: false`, so the caller can estimate.
 */
import { randomBytes } from 'node:crypto';
import type { ChatCompletionMessageToolCall } from 'openai/resources/chat/completions';
import type { AssistantHistoryMessage, AssistantMessage, CallUsage, ReplyHealth } from './types.ts';

export type NormalisedReply = {
  health: ReplyHealth;
  message: AssistantMessage;
  finishReason: string | null;
  usage: CallUsage;
  /** False when the body had no `usage` object: the figures are zero, not measured. */
  usageReported: boolean;
  /** USD when the provider reports `usage.cost` (OpenRouter does), else null. */
  costUsd: number | null;
  /** An empty turn the provider's content filter caused (`finish_reason: "content_filter"`). */
  filtered: boolean;
  /** What went wrong, from the provider's error object, for unhealthy replies. */
  detail: string | null;
};

export function normaliseCompletion(completion: unknown): NormalisedReply {
  const body = isRecord(completion) ? completion : {};
  const usageReported = isRecord(body.usage);
  const { usage, costUsd } = readUsage(body.usage);
  const base = { usage, costUsd, usageReported, filtered: false };
  const blank: AssistantMessage = { role: 'assistant', content: null, refusal: null };

  if (body.error !== undefined && body.error !== null) {
    return { ...base, health: 'error_body', message: blank, finishReason: null, detail: errorText(body.error) };
  }
  const choice = Array.isArray(body.choices) ? body.choices[0] : undefined;
  if (!isRecord(choice)) {
    return { ...base, health: 'no_choices', message: blank, finishReason: null, detail: null };
  }
  const message = isRecord(choice.message) ? normaliseMessage(choice.message) : blank;
  const finishReason = typeof choice.finish_reason === 'string' ? choice.finish_reason : null;
  if (finishReason === 'error' || (choice.error !== undefined && choice.error !== null)) {
    return { ...base, health: 'error_finish', message, finishReason, detail: choice.error ? errorText(choice.error) : null };
  }
  const empty = isEmptyMessage(message);
  return { ...base, health: empty ? 'empty' : 'ok', message, finishReason, filtered: empty && finishReason === 'content_filter', detail: null };
}

/** No tool calls and no non-blank content: nothing the conversation can act on. */
export function isEmptyMessage(message: AssistantMessage): boolean {
  if (message.tool_calls && message.tool_calls.length > 0) return false;
  return !(typeof message.content === 'string' && message.content.trim() !== '');
}

/** The reasoning a turn carried, as text for the event log, whatever its spelling. */
export function reasoningText(message: AssistantMessage): string {
  const parts: string[] = [];
  if (typeof message.reasoning_content === 'string') parts.push(message.reasoning_content);
  if (typeof message.reasoning === 'string' && message.reasoning !== message.reasoning_content) parts.push(message.reasoning);
  if (parts.length === 0 && Array.isArray(message.reasoning_details)) {
    for (const d of message.reasoning_details) {
      if (isRecord(d) && typeof d.text === 'string') parts.push(d.text);
      else if (isRecord(d) && typeof d.summary === 'string') parts.push(d.summary);
    }
  }
  if (parts.length === 0 && message.content_parts) parts.push(...thinkingOf(message.content_parts));
  return parts.join('\n').trim();
}

function normaliseMessage(raw: Record<string, unknown>): AssistantMessage {
  const message = { ...raw, role: 'assistant' } as unknown as AssistantMessage & Record<string, unknown>;
  if (Array.isArray(raw.content)) {
    message.content_parts = raw.content;
    message.content = textOf(raw.content);
  } else if (typeof raw.content !== 'string') {
    message.content = raw.content === undefined || raw.content === null ? null : String(raw.content);
  }
  if (message.refusal === undefined) message.refusal = null;
  const calls = Array.isArray(raw.tool_calls) ? normaliseToolCalls(raw.tool_calls) : [];
  if (calls.length > 0) message.tool_calls = calls;
  else delete message.tool_calls;
  return message;
}

/** Text chunks joined; thinking and other chunk types left out (see reasoningText). */
function textOf(parts: unknown[]): string {
  return parts
    .map((p) => (typeof p === 'string' ? p : isRecord(p) && (p.type === 'text' || p.type === undefined) && typeof p.text === 'string' ? p.text : ''))
    .join('');
}

function thinkingOf(parts: unknown[]): string[] {
  const out: string[] = [];
  for (const p of parts) {
    if (!isRecord(p) || p.type !== 'thinking') continue;
    if (typeof p.thinking === 'string') out.push(p.thinking);
    else if (Array.isArray(p.thinking)) out.push(textOf(p.thinking));
  }
  return out;
}

/** A fresh tool-call id: 9 letters and digits, which every provider accepts (Mistral requires it). */
export function newToolCallId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  return [...randomBytes(9)].map((b) => alphabet[b % alphabet.length]).join('');
}

function normaliseToolCalls(raw: unknown[]): ChatCompletionMessageToolCall[] {
  const seen = new Set<string>();
  const out: ChatCompletionMessageToolCall[] = [];
  for (const entry of raw) {
    if (!isRecord(entry)) continue;
    const fn = isRecord(entry.function) ? entry.function : entry;
    const name = typeof fn.name === 'string' ? fn.name.trim() : '';
    if (name === '') continue;
    const args = fn.arguments ?? fn.parameters;
    const argumentsText = typeof args === 'string' ? args : args === undefined || args === null ? '{}' : JSON.stringify(args);
    let id = typeof entry.id === 'string' && entry.id.trim() !== '' ? entry.id : newToolCallId();
    if (seen.has(id)) id = newToolCallId();
    seen.add(id);
    const type = typeof entry.type === 'string' && entry.type !== '' ? entry.type : 'function';
    const { function: _fn, name: _n, arguments: _a, parameters: _p, ...extra } = entry;
    out.push({ ...extra, id, type, function: { name, arguments: argumentsText } } as unknown as ChatCompletionMessageToolCall);
  }
  return out;
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
 * The assistant turn as it goes back into the conversation: role, content, tool calls (with the
 * provider's own fields on them) and reasoning in the spelling it came in — thinking models
 * answer 400 when the previous tool-call turn's reasoning is missing (DeepSeek, Kimi) and some
 * providers reject fields such as `refusal` or `annotations`. `from` names the endpoint that
 * wrote it (history.ts strips the reasoning when the conversation goes somewhere else).
 */
export function assistantHistoryMessage(message: AssistantMessage, from?: string): AssistantHistoryMessage {
  const hasCalls = Boolean(message.tool_calls && message.tool_calls.length > 0);
  const text = typeof message.content === 'string' ? message.content : null;
  // With tool calls, blank text goes back as null: some servers refuse an empty string beside calls.
  const content = hasCalls && (text === null || text.trim() === '') ? null : (text ?? '');
  const out: AssistantHistoryMessage = { role: 'assistant', content };
  if (hasCalls) out.tool_calls = message.tool_calls!.map((c) => ({ ...c }));
  if (typeof message.reasoning_content === 'string') out.reasoning_content = message.reasoning_content;
  if (typeof message.reasoning === 'string') out.reasoning = message.reasoning;
  if (Array.isArray(message.reasoning_details)) out.reasoning_details = message.reasoning_details;
  if (from !== undefined) out.tilth_from = from;
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

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
