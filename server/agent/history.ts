/**
 * The conversation as it is sent. Each assistant turn remembers which endpoint wrote it
 * (`tilth_from`); its reasoning — in whatever spelling — and the provider's own fields on its tool
 * calls (Gemini's thought signatures) go back to that endpoint only. A conversation that moves to
 * another provider (the interview retried after the settings changed) sends plain turns, which
 * every provider accepts, instead of fields the new one may refuse. The marker itself is never sent.
 */
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';

const REASONING_KEYS = ['reasoning_content', 'reasoning', 'reasoning_details'] as const;

export type HistoryMessage = Record<string, unknown> & { role: string };

/** The endpoint tag a turn carries: where it was answered, without credentials. */
export function endpointTag(endpoint: { baseUrl: string; model: string } | null): string {
  return endpoint ? `${endpoint.baseUrl}#${endpoint.model}` : 'unknown';
}

export function messagesFor(messages: readonly HistoryMessage[], tag: string): ChatCompletionMessageParam[] {
  return messages.map((m) => {
    if (m.role !== 'assistant' || !('tilth_from' in m)) return m as unknown as ChatCompletionMessageParam;
    const { tilth_from: from, ...rest } = m;
    if (from === tag) return rest as unknown as ChatCompletionMessageParam;
    for (const key of REASONING_KEYS) delete rest[key];
    if (Array.isArray(rest.tool_calls)) {
      rest.tool_calls = rest.tool_calls.map((c: unknown) => {
        const call = c as { id: string; type?: string; function: unknown };
        return { id: call.id, type: call.type ?? 'function', function: call.function };
      });
    }
    return rest as unknown as ChatCompletionMessageParam;
  });
}
