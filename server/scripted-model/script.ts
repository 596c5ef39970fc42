/**
 * The script format of the fake model server: per-model queues of replies, validated with zod so
 * a typo in a JSON script fails with the path of the bad field instead of a confusing test.
 *
 * ```json
 * {
 *   "models": {
 *     "worker-model": [
 *       { "content": "Reading the file first.",
 *         "tool_calls": [{ "name": "read_file", "arguments": { "path": "README.md" } }],
 *         "usage": { "prompt_tokens": 120, "completion_tokens": 30, "cost": 0.0004 },
 *         "expect": { "tools_include": ["read_file"], "last_message_contains": "T-001" } },
 *       { "fault": "rate_limit", "retry_after": 2 },
 *       { "content": "Done.", "reasoning": "The test passes now." }
 *     ],
 *     "*": [{ "content": "served to any model whose own queue is empty" }]
 *   }
 * }
 * ```
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { AppError, describeZodError } from '../errors/app-error.ts';

/** The queue key that serves any model whose own queue is empty. */
export const ANY_MODEL = '*';

/**
 * - `rate_limit`: HTTP 429 with `retry-after` (`retry_after` seconds, default 1; `retry_after_ms`
 *   adds `retry-after-ms`);
 * - `server_error`: HTTP 500, or `status` (5xx);
 * - `hang`: no answer at all until the client disconnects or the server closes;
 * - `stall`: headers and the start of the body, then nothing (catches header-only timeouts);
 * - `empty`: 200, a message with no content and no tool calls;
 * - `malformed_tool_args`: a tool call (named by `tool_calls[0].name`, else the request's first
 *   tool) whose arguments are cut-off JSON;
 * - `finish_error`: the reply as scripted, with `finish_reason: "error"`;
 * - `no_choices`: 200 with `choices: []`;
 * - `error_body`: 200 with `{error: {...}}` and no choices, as OpenRouter does for upstream errors;
 * - `endless`: 200 and a reply that never ends (its content, or stream chunks, again and again, as
 *   fast as the client reads) until the client goes away: catches a client without a size bound.
 */
export const FAKE_FAULTS = [
  'rate_limit',
  'server_error',
  'hang',
  'stall',
  'empty',
  'malformed_tool_args',
  'finish_error',
  'no_choices',
  'error_body',
  'endless',
] as const;
export const FakeFaultSchema = z.enum(FAKE_FAULTS);
export type FakeFault = z.infer<typeof FakeFaultSchema>;

export const ScriptedToolCallSchema = z.strictObject({
  id: z.string().min(1).optional(),
  name: z.string().min(1),
  /** A string is sent as is (even if it is not JSON); an object is JSON-stringified. */
  arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).default({}),
});

export const ScriptedUsageSchema = z.strictObject({
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
  /** USD, reported as `usage.cost` the way OpenRouter does. */
  cost: z.number().nonnegative().optional(),
});

export const ReplyExpectationSchema = z.strictObject({
  model: z.string().min(1).optional(),
  tools_include: z.array(z.string().min(1)).optional(),
  last_message_contains: z.string().optional(),
  system_contains: z.string().optional(),
});
export type ReplyExpectation = z.infer<typeof ReplyExpectationSchema>;

/** Faults that answer without a normal message, so content and tool calls would be ignored. */
const FAULTS_WITHOUT_MESSAGE: readonly FakeFault[] = ['rate_limit', 'server_error', 'hang', 'stall', 'empty', 'no_choices', 'error_body', 'endless'];

export const ScriptedReplySchema = z
  .strictObject({
    /** Shown in request records and in `assertDone()` messages. */
    label: z.string().optional(),
    content: z.string().nullable().optional(),
    tool_calls: z.array(ScriptedToolCallSchema).optional(),
    reasoning: z.string().optional(),
    reasoning_details: z.array(z.unknown()).optional(),
    usage: ScriptedUsageSchema.optional(),
    /** Defaults to `tool_calls` when the reply has tool calls, else `stop`. */
    finish_reason: z.string().min(1).optional(),
    delay_ms: z.number().int().nonnegative().max(600_000).optional(),
    fault: FakeFaultSchema.optional(),
    /** rate_limit: the `retry-after` header in seconds (default 1). */
    retry_after: z.number().nonnegative().optional(),
    /** rate_limit: also send `retry-after-ms`. */
    retry_after_ms: z.number().nonnegative().optional(),
    /** server_error: the HTTP status (default 500). */
    status: z.number().int().min(500).max(599).optional(),
    /** rate_limit, server_error, error_body: the error message in the body. */
    error_message: z.string().optional(),
    expect: ReplyExpectationSchema.optional(),
  })
  .superRefine((reply, ctx) => {
    const fault = reply.fault;
    if ((reply.retry_after !== undefined || reply.retry_after_ms !== undefined) && fault !== 'rate_limit') {
      ctx.addIssue({ code: 'custom', path: ['retry_after'], message: 'retry_after and retry_after_ms only apply to fault "rate_limit"' });
    }
    if (reply.status !== undefined && fault !== 'server_error') {
      ctx.addIssue({ code: 'custom', path: ['status'], message: 'status only applies to fault "server_error"' });
    }
    if (reply.error_message !== undefined && fault !== 'rate_limit' && fault !== 'server_error' && fault !== 'error_body') {
      ctx.addIssue({ code: 'custom', path: ['error_message'], message: 'error_message only applies to faults rate_limit, server_error and error_body' });
    }
    if (fault && FAULTS_WITHOUT_MESSAGE.includes(fault)) {
      for (const key of ['content', 'tool_calls', 'reasoning', 'reasoning_details', 'finish_reason'] as const) {
        if (reply[key] !== undefined) {
          ctx.addIssue({ code: 'custom', path: [key], message: `${key} has no effect with fault "${fault}"; remove one of them` });
        }
      }
    }
    if (fault === 'finish_error' && reply.finish_reason !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['finish_reason'], message: 'fault "finish_error" already sets finish_reason to "error"' });
    }
    if (fault === undefined && reply.content == null && !reply.tool_calls?.length && reply.reasoning === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: 'a reply needs content, tool_calls, reasoning or a fault (use fault "empty" to script an empty reply on purpose)',
      });
    }
  });

export type ScriptedReply = z.infer<typeof ScriptedReplySchema>;
/** What tests write: `arguments` may be omitted, and so on. */
export type ScriptedReplyInput = z.input<typeof ScriptedReplySchema>;

export const ScriptSchema = z.strictObject({
  models: z.record(z.string().min(1), z.array(ScriptedReplySchema)),
});
export type Script = z.infer<typeof ScriptSchema>;
export type ScriptInput = z.input<typeof ScriptSchema>;

export class FakeScriptError extends AppError {
  constructor(message: string) {
    super('invalid_fake_script', message);
  }
}

function parseWith<S extends z.ZodType>(schema: S, value: unknown, source: string): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new FakeScriptError(`${source} is not a valid fake-model script: ${describeZodError(result.error)}`);
  }
  return result.data;
}

/** Validates a whole script; `source` names it in the error (a file path, "request body"). */
export function parseScript(value: unknown, source = 'script'): Script {
  return parseWith(ScriptSchema, value, source);
}

export function parseReply(value: unknown, source = 'reply'): ScriptedReply {
  return parseWith(ScriptedReplySchema, value, source);
}

export async function loadScriptFile(file: string): Promise<Script> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new FakeScriptError(`cannot read fake-model script ${file}: ${(err as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new FakeScriptError(`fake-model script ${file} is not valid JSON: ${(err as Error).message}`);
  }
  return parseScript(data, file);
}

/** A one-line description of a reply for failure messages: `#2 "label" (fault rate_limit)`. */
export function describeReply(reply: ScriptedReply, position: number): string {
  const parts: string[] = [];
  if (reply.fault) parts.push(`fault ${reply.fault}`);
  if (reply.tool_calls?.length) parts.push(`tool calls ${reply.tool_calls.map((c) => c.name).join(', ')}`);
  if (reply.content) parts.push(`content "${truncate(reply.content, 40)}"`);
  const label = reply.label ? ` "${reply.label}"` : '';
  return `#${position}${label}${parts.length ? ` (${parts.join('; ')})` : ''}`;
}

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
