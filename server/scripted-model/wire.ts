/**
 * The fake model's wire format: turning a scripted reply into an OpenAI chat completion (JSON or
 * SSE chunks), and checking a request against a reply's expectations.
 */
import { z } from 'zod';
import { truncate, type ReplyExpectation, type ScriptedReply } from './script.ts';

/** The arguments string of a `malformed_tool_args` fault: JSON cut off mid-string. */
export const MALFORMED_TOOL_ARGUMENTS = '{"path": "notes.txt", "content": "unterminated';

type PlannedToolCall = { id: string; name: string; arguments: string };

/** A reply in the shape both the JSON and the SSE renderers need. */
export type PlannedMessage = {
  content: string | null;
  toolCalls: PlannedToolCall[];
  reasoning: string | undefined;
  reasoningDetails: unknown[] | undefined;
  finishReason: string;
};

export type WireUsage = { prompt_tokens: number; completion_tokens: number; total_tokens: number; cost?: number };

export const ChatRequestSchema = z.looseObject({
  model: z.string().min(1, 'model must be a non-empty string'),
  messages: z.array(z.unknown()).min(1, 'messages must not be empty'),
  tools: z.array(z.unknown()).optional(),
  stream: z.boolean().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
});
export type ChatRequest = z.infer<typeof ChatRequestSchema>;

export function planMessage(reply: ScriptedReply, request: ChatRequest, seq: number): PlannedMessage {
  const callId = (i: number, id: string | undefined) => id ?? `call_${seq}_${i + 1}`;
  let toolCalls: PlannedToolCall[];
  let content = reply.content ?? null;
  switch (reply.fault) {
    case 'empty':
      content = null;
      toolCalls = [];
      break;
    case 'malformed_tool_args': {
      const first = reply.tool_calls?.[0];
      toolCalls = [{ id: callId(0, first?.id), name: first?.name ?? toolNames(request.tools ?? [])[0] ?? 'unknown_tool', arguments: MALFORMED_TOOL_ARGUMENTS }];
      break;
    }
    default:
      toolCalls = (reply.tool_calls ?? []).map((c, i) => ({
        id: callId(i, c.id),
        name: c.name,
        arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
      }));
  }
  const finishReason = reply.fault === 'finish_error' ? 'error' : (reply.finish_reason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'));
  return { content, toolCalls, reasoning: reply.reasoning, reasoningDetails: reply.reasoning_details, finishReason };
}

/** Scripted usage, or a rough estimate (four characters a token) so demo runs show real-looking counts. */
export function wireUsage(reply: ScriptedReply, request: ChatRequest): WireUsage {
  if (reply.usage) {
    const { prompt_tokens, completion_tokens, cost } = reply.usage;
    return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens, ...(cost === undefined ? {} : { cost }) };
  }
  const prompt = Math.ceil(JSON.stringify(request.messages).length / 4);
  const out = [reply.content ?? '', reply.reasoning ?? '', ...(reply.tool_calls ?? []).map((c) => JSON.stringify(c.arguments))].join('');
  const completion = reply.fault === 'empty' ? 0 : Math.ceil(out.length / 4);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

function wireMessage(plan: PlannedMessage): Record<string, unknown> {
  const message: Record<string, unknown> = { role: 'assistant', content: plan.content, refusal: null };
  if (plan.toolCalls.length > 0) {
    message.tool_calls = plan.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
  }
  if (plan.reasoning !== undefined) message.reasoning = plan.reasoning;
  if (plan.reasoningDetails !== undefined) message.reasoning_details = plan.reasoningDetails;
  return message;
}

export type Meta = { id: string; created: number; model: string };

export function completionBody(plan: PlannedMessage, meta: Meta, usage: WireUsage): unknown {
  return {
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, message: wireMessage(plan), finish_reason: plan.finishReason, logprobs: null }],
    usage,
  };
}

/** The OpenAI chunk sequence: role, reasoning, content pieces, tool-call deltas by index, finish, usage. */
export function streamChunks(plan: PlannedMessage, meta: Meta, usage: WireUsage, includeUsage: boolean): unknown[] {
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    id: meta.id,
    object: 'chat.completion.chunk',
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
  });
  const chunks: unknown[] = [chunk({ role: 'assistant', content: plan.content === null ? null : '' })];
  if (plan.reasoning !== undefined) chunks.push(chunk({ reasoning: plan.reasoning }));
  if (plan.reasoningDetails !== undefined) chunks.push(chunk({ reasoning_details: plan.reasoningDetails }));
  for (const piece of pieces(plan.content ?? '')) chunks.push(chunk({ content: piece }));
  plan.toolCalls.forEach((call, index) => {
    chunks.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (const piece of pieces(call.arguments)) chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  chunks.push(chunk({}, plan.finishReason));
  if (includeUsage) chunks.push({ id: meta.id, object: 'chat.completion.chunk', created: meta.created, model: meta.model, choices: [], usage });
  return chunks;
}

/** Splits text into a few pieces so clients really have to join deltas. */
function pieces(text: string, size = 16): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

export function checkExpectation(expect: ReplyExpectation, request: ChatRequest): string[] {
  const problems: string[] = [];
  if (expect.model !== undefined && request.model !== expect.model) {
    problems.push(`expected model "${expect.model}", got "${request.model}"`);
  }
  if (expect.tools_include) {
    const names = toolNames(request.tools ?? []);
    const missing = expect.tools_include.filter((n) => !names.includes(n));
    if (missing.length > 0) problems.push(`expected tools to include ${missing.join(', ')}; the request offered [${names.join(', ')}]`);
  }
  if (expect.last_message_contains !== undefined) {
    const last = messageText(request.messages.at(-1));
    if (!last.includes(expect.last_message_contains)) {
      problems.push(`expected the last message to contain "${expect.last_message_contains}"; it was "${truncate(last, 200)}"`);
    }
  }
  if (expect.system_contains !== undefined) {
    const needle = expect.system_contains;
    const system = request.messages.filter((m) => isRecord(m) && (m.role === 'system' || m.role === 'developer')).map(messageText);
    if (!system.some((text) => text.includes(needle))) {
      problems.push(
        system.length === 0
          ? `expected a system message containing "${needle}"; the request has no system message`
          : `expected a system message containing "${needle}"; it was "${truncate(system.join('\n'), 200)}"`,
      );
    }
  }
  return problems;
}

function toolNames(tools: unknown[]): string[] {
  return tools.flatMap((t) => {
    if (!isRecord(t)) return [];
    if (isRecord(t.function) && typeof t.function.name === 'string') return [t.function.name];
    return typeof t.name === 'string' ? [t.name] : [];
  });
}

function messageText(message: unknown): string {
  if (!isRecord(message)) return '';
  const content = message.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (isRecord(p) && typeof p.text === 'string' ? p.text : '')).join('');
  return '';
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
