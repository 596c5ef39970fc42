/**
 * Reading a chat request the way a scripted model does (the demo's, and the journeys' in tests):
 * which role asks, its prompt, and every tool call so far with what it got back. Scripted replies
 * are keyed by what the conversation holds, not queued, so a repeated or cut-short call still
 * lands on a reply that fits.
 */
import { z } from 'zod';
import { textResults } from '../agent/runtime.ts';
import { parseTextToolCalls } from '../agent/text-tool-calls.ts';
import type { ChatRequest, ScriptedReplyInput } from '../scripted-model/model-server.ts';

const ToolCallSchema = z.looseObject({ id: z.string(), function: z.looseObject({ name: z.string(), arguments: z.string() }) });
const MessageSchema = z.looseObject({
  role: z.string(),
  content: z.unknown().optional(),
  tool_calls: z.array(ToolCallSchema).nullable().optional(),
  tool_call_id: z.string().optional(),
});
const ToolSchema = z.looseObject({ function: z.looseObject({ name: z.string() }) });

/** One tool call of an earlier turn and what it got back (null: no result yet). */
export type Step = { name: string; args: Record<string, unknown>; result: string | null };

/** What a request says: its system message, its first user message (the prompt), and every tool call so far. */
export type Conversation = { system: string; prompt: string; steps: Step[] };

/**
 * Who asks, from the tools offered: `submit_verdict` is the evaluator's, `submit_case` the
 * worker's, `ask_user`/`write_seed` the interviewer's, `write_task_test` the add-task step's, and no
 * tools at all the learnings step.
 */
export type Role = 'evaluator' | 'worker' | 'interview' | 'add_task' | 'learnings' | 'unknown';

export type Call = { name: string; arguments: Record<string, unknown> };
export type Usage = { prompt_tokens: number; completion_tokens: number; cost: number };

export const usage = (prompt_tokens: number, completion_tokens: number): Usage => ({ prompt_tokens, completion_tokens, cost: 0 });
export const call = (name: string, args: Record<string, unknown>): Call => ({ name, arguments: args });
export const turn = (...calls: Call[]): ScriptedReplyInput => ({ tool_calls: calls, usage: usage(900, 60) });

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part === 'object' && part !== null && 'text' in part ? String(part.text) : '')).join('');
  return '';
}

function parseArgs(raw: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export function toolsOffered(request: ChatRequest): Set<string> {
  return new Set(
    (request.tools ?? []).flatMap((t) => {
      const parsed = ToolSchema.safeParse(t);
      return parsed.success ? [parsed.data.function.name] : [];
    }),
  );
}

export function roleOf(tools: ReadonlySet<string>): Role {
  if (tools.has('submit_verdict')) return 'evaluator';
  if (tools.has('submit_case')) return 'worker';
  if (tools.has('ask_user') || tools.has('write_seed')) return 'interview';
  if (tools.has('write_task_test')) return 'add_task';
  return tools.size === 0 ? 'learnings' : 'unknown';
}

/**
 * The steps so far. A model whose server did not parse its tool calls wrote them as text; Tilth
 * answered those in one user message after the turn (agent/runtime.ts), which is read here too.
 */
export function readConversation(messages: unknown[], tools: readonly string[]): Conversation {
  const parsed = messages.map((m) => MessageSchema.safeParse(m)).flatMap((r) => (r.success ? [r.data] : []));
  const results = new Map<string, string>();
  for (const m of parsed) if (m.role === 'tool' && m.tool_call_id !== undefined) results.set(m.tool_call_id, textOf(m.content));
  const steps: Step[] = [];
  parsed.forEach((m, i) => {
    if (m.role !== 'assistant') return;
    for (const c of m.tool_calls ?? []) steps.push({ name: c.function.name, args: parseArgs(c.function.arguments), result: results.get(c.id) ?? null });
    if ((m.tool_calls ?? []).length > 0) return;
    const written = parseTextToolCalls(textOf(m.content), tools);
    const next = parsed[i + 1];
    const answered = next?.role === 'user' ? textResults(textOf(next.content)) : [];
    for (const [k, c] of written.entries()) steps.push({ name: c.name, args: parseArgs(c.arguments), result: answered[k] ?? null });
  });
  const first = (role: string) => textOf(parsed.find((m) => m.role === role)?.content);
  return { system: first('system'), prompt: first('user'), steps };
}

/**
 * Ids unique within the conversation and the same after a restart: the turn's place in it.
 */
export function withCallIds(request: ChatRequest, reply: ScriptedReplyInput, prefix: string): ScriptedReplyInput {
  const turnNo = request.messages.length;
  return reply.tool_calls ? { ...reply, tool_calls: reply.tool_calls.map((c, i) => ({ ...c, id: `${prefix}_${turnNo}_${i + 1}` })) } : reply;
}

/** The part of `text` under `header`, up to the next `## ` heading. */
export function section(text: string, header: string): string {
  const at = text.indexOf(header);
  if (at < 0) return '';
  const rest = text.slice(at + header.length);
  const next = rest.search(/\n## /);
  return next < 0 ? rest : rest.slice(0, next);
}

export const succeeded = (step: Step) => step.result !== null && !step.result.startsWith('ERROR');
