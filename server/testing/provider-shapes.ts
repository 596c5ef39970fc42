/**
 * The catalogue of real provider reply shapes the replay server speaks (docs/provider-shapes.md
 * has the prose and every source). One model name per shape: the replay takes what the scripted
 * demo model means to say (a canonical reply: text and tool calls) and writes it the way that
 * provider would, and refuses a history the provider would refuse, in the provider's own error
 * body. Error shapes (an HTML page, a server started without a flag, a transient 400) are shapes
 * too.
 *
 * Everything a shape checks is derived from the request alone (ids and thought signatures are
 * hashes of what the conversation holds), so the replay keeps no state per conversation except
 * "has the conversation been at this point before", which is how transient faults pass on a retry.
 */
import { createHash } from 'node:crypto';

export type Json = Record<string, unknown>;

/** One tool call the scripted model means to make; `key` is unique within its conversation. */
export type CanonicalCall = { name: string; args: Record<string, unknown>; key: string };

/** What the scripted model means to say, before any provider's wire shape. */
export type CanonicalReply = {
  text: string | null;
  calls: CanonicalCall[];
  usage: { prompt_tokens: number; completion_tokens: number };
};

/** An HTTP answer: JSON (`json`) or raw text (`text` with its content type). */
export type WireAnswer = { status: number; json?: unknown; text?: string; contentType?: string; headers?: Record<string, string> };

export type ShapeContext = {
  model: string;
  messages: Json[];
  tools: unknown[];
  /**
   * The first time the conversation reaches this point (its opening and tool results so far);
   * a retry of the step is not, with or without a nudge appended.
   */
  firstSight: boolean;
  /** Tool calls already made in the conversation (Kimi numbers its ids over all of them). */
  priorCalls: number;
  /** The prompt's size at four characters a token, the way the fake model estimates it. */
  promptTokens: number;
  /** Per-model request number, 1-based. */
  seq: number;
  /** The scripted model's reply to this request (computed on first use). */
  reply(): CanonicalReply;
};

export type ProviderShape = {
  name: string;
  provider: string;
  /** One line: what is special about it. */
  special: string;
  sources: readonly string[];
  /** `all_done`: Tilth can normalise it; `stop`: it must stop with a sentence naming the problem. */
  expected: 'all_done' | 'stop';
  /** For `stop` shapes: what the stop sentence must mention. */
  stopNames?: RegExp;
  /** Nothing listens: the test points the session at a closed port and the replay never sees it. */
  unreachable?: true;
  /** llama.cpp takes object arguments in the history; strict providers want JSON text. */
  objectArgumentsOk?: true;
  /** Mistral's schema has `type` optional on tool calls. */
  typeOptional?: true;
  /** Ollama shapes: the body of `POST /api/show` for this model (its Modelfile parameters). */
  ollamaShow?: Record<string, unknown>;
  /** A refusal in this provider's error body. */
  refuse(message: string, status?: number): WireAnswer;
  /** What this provider refuses in the history, beyond the common rules. */
  history?(ctx: ShapeContext): WireAnswer | null;
  /** The answer to a history it accepts: a completion in its wire shape, or an error. */
  answer(ctx: ShapeContext): WireAnswer;
};

// ── Small pieces ────────────────────────────────────────────────────────────────────────────────

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** A stable id drawn from `alphabet`, so a restart or a retry sees the same ids. */
function stableId(key: string, length: number, alphabet = ALNUM): string {
  const bytes = digest(key);
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[bytes[i % bytes.length]! % alphabet.length];
  return out;
}

/** The opaque "signature" a provider hands out for a tool call and wants back unchanged. */
export function signatureFor(id: string): string {
  return `Cs${digest(`thought:${id}`).toString('base64').slice(0, 40)}`;
}

const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function toolCallsOf(message: Json): Json[] {
  return Array.isArray(message.tool_calls) ? message.tool_calls.filter(isRecord) : [];
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((c) => (isRecord(c) && c.type === 'text' && typeof c.text === 'string' ? c.text : '')).join('');
  return '';
}

/** A short chain of thought, so reasoning fields are never blank when they should not be. */
function thinking(reply: CanonicalReply): string {
  return reply.calls.length > 0
    ? `The next step is ${reply.calls.map((c) => c.name).join(' and ')}; the conversation so far says so.`
    : 'I have what I need; writing the answer.';
}

type Usage = { prompt_tokens: number; completion_tokens: number; total_tokens: number; [k: string]: unknown };

function usageOf(reply: CanonicalReply, extra: Json = {}): Usage {
  const { prompt_tokens, completion_tokens } = reply.usage;
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens, ...extra };
}

type CompletionOptions = {
  /** `null`: no top-level id (Gemini's compat layer, 2025). */
  id?: string | null;
  /** `null`: no usage object at all. */
  usage?: Usage | null;
  model?: string;
  /** Extra top-level fields (Azure's prompt_filter_results, system_fingerprint). */
  extra?: Json;
  /** Extra fields on the choice (Azure's content_filter_results). */
  choice?: Json;
};

function completion(ctx: ShapeContext, message: Json, finishReason: string, options: CompletionOptions = {}): WireAnswer {
  const body: Json = {};
  if (options.id !== null) body.id = options.id ?? `chatcmpl-replay-${ctx.seq}`;
  Object.assign(body, { object: 'chat.completion', created: 1_780_000_000 + ctx.seq, model: options.model ?? ctx.model });
  body.choices = [{ index: 0, message, finish_reason: finishReason, logprobs: null, ...options.choice }];
  const usage = options.usage === undefined ? usageOf(ctx.reply()) : options.usage;
  if (usage !== null) body.usage = usage;
  Object.assign(body, options.extra);
  return { status: 200, json: body };
}

type CallStyle = {
  /** The id of call `i`; undefined leaves the key out. */
  id: (call: CanonicalCall, i: number) => string | undefined;
  /** false: no `type` key (Mistral). */
  type?: boolean;
  /** `object`: arguments as a JSON object (llama.cpp 2026). */
  args?: 'string' | 'object';
  /** Extra fields per call (Gemini's extra_content, Kimi's index). */
  extra?: (call: CanonicalCall, i: number, id: string | undefined) => Json;
};

function wireCalls(reply: CanonicalReply, style: CallStyle): Json[] {
  return reply.calls.map((call, i) => {
    const id = style.id(call, i);
    const out: Json = {};
    if (id !== undefined) out.id = id;
    if (style.type !== false) out.type = 'function';
    out.function = { name: call.name, arguments: style.args === 'object' ? call.args : JSON.stringify(call.args) };
    Object.assign(out, style.extra?.(call, i, id));
    return out;
  });
}

/** The usual OpenAI message: content `null` beside tool calls, text otherwise. */
function openaiMessage(reply: CanonicalReply, style: CallStyle, extra: Json = {}): Json {
  const message: Json = { role: 'assistant', content: reply.calls.length > 0 ? (reply.text ?? null) : (reply.text ?? '') };
  if (reply.calls.length > 0) message.tool_calls = wireCalls(reply, style);
  return { ...message, ...extra };
}

const finishOf = (reply: CanonicalReply) => (reply.calls.length > 0 ? 'tool_calls' : 'stop');

const openaiIds: CallStyle = { id: (call) => `call_${stableId(call.key, 24)}` };

/** OpenAI's error body, which most providers copy. */
function openaiError(message: string, status = 400, type = 'invalid_request_error', code: unknown = null, param: unknown = null): WireAnswer {
  return { status, json: { error: { message, type, param, code } } };
}

/** vLLM (older) and Mistral: the error fields at the top level, `object: "error"`. */
function topLevelError(message: string, status = 400, type = 'invalid_request_error', code: unknown = null): WireAnswer {
  return { status, json: { object: 'error', message, type, param: null, code } };
}

/** Gemini's compat layer answers errors as a JSON array of one error. */
function geminiError(message: string, status = 400): WireAnswer {
  return { status, json: [{ error: { code: status, message, status: 'INVALID_ARGUMENT' } }] };
}

/** OpenRouter's wrapper around an upstream provider's refusal. */
function openRouterWrapped(status: number, raw: string, provider: string): WireAnswer {
  return { status, json: { error: { message: 'Provider returned error', code: status, metadata: { raw, provider_name: provider } }, user_id: 'user_replay' } };
}

const hasTools = (ctx: ShapeContext) => ctx.tools.length > 0;

// ── History rules shared by several providers ───────────────────────────────────────────────────

/** DeepSeek and Kimi (thinking): each assistant tool-call turn must bring its reasoning_content back. */
function missingReasoningContent(ctx: ShapeContext): number | null {
  for (const [i, m] of ctx.messages.entries()) {
    if (m.role === 'assistant' && toolCallsOf(m).length > 0 && typeof m.reasoning_content !== 'string') return i;
  }
  return null;
}

const MISTRAL_KEYS: Record<string, readonly string[]> = {
  system: ['role', 'content'],
  user: ['role', 'content'],
  assistant: ['role', 'content', 'tool_calls', 'prefix'],
  tool: ['role', 'content', 'tool_call_id', 'name'],
};
const MISTRAL_CALL_KEYS = ['id', 'type', 'function', 'index'];
const MISTRAL_FUNCTION_KEYS = ['name', 'arguments'];

/**
 * Mistral validates messages with a closed schema: any key it does not know is a 422
 * `extra_forbidden` (its 2025 body lists the problems in both `detail` and `message`).
 */
function mistralExtraFields(ctx: ShapeContext): WireAnswer | null {
  const detail: Json[] = [];
  for (const [i, m] of ctx.messages.entries()) {
    const role = typeof m.role === 'string' ? m.role : '?';
    const allowed = MISTRAL_KEYS[role] ?? [];
    for (const key of Object.keys(m))
      if (!allowed.includes(key))
        detail.push({ type: 'extra_forbidden', loc: ['body', 'messages', i, role, key], msg: 'Extra inputs are not permitted', input: m[key] ?? null });
    for (const [j, call] of toolCallsOf(m).entries()) {
      for (const key of Object.keys(call))
        if (!MISTRAL_CALL_KEYS.includes(key))
          detail.push({
            type: 'extra_forbidden',
            loc: ['body', 'messages', i, role, 'tool_calls', j, key],
            msg: 'Extra inputs are not permitted',
            input: call[key] ?? null,
          });
      const fn = isRecord(call.function) ? call.function : {};
      for (const key of Object.keys(fn))
        if (!MISTRAL_FUNCTION_KEYS.includes(key))
          detail.push({
            type: 'extra_forbidden',
            loc: ['body', 'messages', i, role, 'tool_calls', j, 'function', key],
            msg: 'Extra inputs are not permitted',
            input: fn[key] ?? null,
          });
    }
  }
  if (detail.length === 0) return null;
  return { status: 422, json: { object: 'Error', detail, message: detail, type: 'invalid_request_error', code: 3001 } };
}

/** Mistral's other history rules: 9-character ids, text or tool calls, and role order. */
function mistralHistory(ctx: ShapeContext): WireAnswer | null {
  const extra = mistralExtraFields(ctx);
  if (extra) return extra;
  let previous = '';
  for (const m of ctx.messages) {
    const role = typeof m.role === 'string' ? m.role : '';
    if (previous === 'tool' && role !== 'tool' && role !== 'assistant') {
      return topLevelError(`Unexpected role '${role}' after role 'tool'`, 400, 'invalid_request_message_order', '3230');
    }
    previous = role;
    if (role !== 'assistant') continue;
    const calls = toolCallsOf(m);
    for (const call of calls) {
      if (typeof call.id !== 'string' || !/^[a-zA-Z0-9]{9}$/.test(call.id)) {
        return topLevelError(`Tool call id was ${String(call.id ?? '')} but must be a-z, A-Z, 0-9, with a length of 9.`);
      }
    }
    // Magistral's thinking chunks are not "content" here: only the text is.
    const text = textOf(m.content).trim();
    if (calls.length > 0 && text !== '') return topLevelError('Assistant message must have either content or tool_calls, but not both.');
    if (calls.length === 0 && text === '' && !Array.isArray(m.content))
      return topLevelError('Assistant message must have either content or tool_calls, but not none.');
  }
  return null;
}

/** Mistral tool calls: 9 alphanumerics, no `type`, an `index`. */
const mistralCalls: CallStyle = { id: (call) => stableId(`mistral:${call.key}`, 9), type: false, extra: (_c, i) => ({ index: i }) };

/** OpenRouter and Gemini 3 want their opaque reasoning back on the tool-call turn it came with. */
function firstCallIdWithout(ctx: ShapeContext, carries: (message: Json, firstId: string) => boolean): { index: number; name: string } | null {
  for (const [i, m] of ctx.messages.entries()) {
    const calls = toolCallsOf(m);
    if (m.role !== 'assistant' || calls.length === 0) continue;
    const first = calls[0]!;
    const id = typeof first.id === 'string' ? first.id : '';
    if (!carries(m, id)) return { index: i, name: isRecord(first.function) ? String(first.function.name) : '?' };
  }
  return null;
}

// ── The catalogue ───────────────────────────────────────────────────────────────────────────────

const openaiBaseline: ProviderShape = {
  name: 'openai-baseline',
  provider: 'OpenAI',
  special: 'the control: the shape the scripted fake model already speaks',
  sources: ['https://platform.openai.com/docs/api-reference/chat/object'],
  expected: 'all_done',
  refuse: (message, status) => openaiError(message, status),
  answer: (ctx) => completion(ctx, openaiMessage(ctx.reply(), openaiIds), finishOf(ctx.reply())),
};

function deepseek(name: string, special: string, missing: (index: number) => string, emptyOnSomeTurns: boolean, sources: string[]): ProviderShape {
  return {
    name,
    provider: 'DeepSeek (thinking mode)',
    special,
    sources,
    expected: 'all_done',
    refuse: (message, status) => openaiError(message, status, 'invalid_request_error', 'invalid_request_error'),
    history(ctx) {
      const at = missingReasoningContent(ctx);
      return at === null ? null : openaiError(missing(at), 400, 'invalid_request_error', 'invalid_request_error');
    },
    answer(ctx) {
      const reply = ctx.reply();
      // V4 sometimes thinks nothing before a call; the empty string must still come back.
      const reasoning = emptyOnSomeTurns && reply.calls.length > 0 && ctx.priorCalls % 2 === 1 ? '' : thinking(reply);
      const message = openaiMessage(reply, { id: (call) => `call_00_${stableId(call.key, 24)}` }, { reasoning_content: reasoning });
      return completion(ctx, message, finishOf(reply), { usage: usageOf(reply, { completion_tokens_details: { reasoning_tokens: 40 } }) });
    },
  };
}

const kimiError = (message: string, status?: number): WireAnswer => ({ status: status ?? 400, json: { error: { message, type: 'invalid_request_error' } } });

function kimi(name: string, contentBesideCalls: '' | null): ProviderShape {
  return {
    name,
    provider: 'Moonshot Kimi (thinking on)',
    special: 'reasoning_content must come back on tool-call turns; ids are functions.<name>:<n> over the whole conversation',
    sources: [
      'https://platform.moonshot.cn/docs/guide/use-kimi-k2-thinking-model',
      'https://github.com/continuedev/continue/issues/11527',
      'https://github.com/vybestack/llxprt-code/issues/713',
    ],
    expected: 'all_done',
    refuse: kimiError,
    history(ctx) {
      const at = missingReasoningContent(ctx);
      return at === null ? null : kimiError(`thinking is enabled but reasoning_content is missing in assistant tool call message at index ${at}`);
    },
    answer(ctx) {
      const reply = ctx.reply();
      const style: CallStyle = {
        id: (call, i) => `functions.${call.name}:${ctx.priorCalls + i}`,
        ...(contentBesideCalls === '' ? { extra: (_c: CanonicalCall, i: number) => ({ index: i }) } : {}),
      };
      const message = openaiMessage(reply, style, { reasoning_content: thinking(reply) });
      if (reply.calls.length > 0) message.content = contentBesideCalls;
      return completion(ctx, message, finishOf(reply));
    },
  };
}

const mistralSources = [
  'https://github.com/agentjido/req_llm/pull/373',
  'https://github.com/langchain-ai/langchain/pull/24668',
  'https://github.com/langchain-ai/langchain/issues/21196',
  'https://github.com/github/copilot-cli/issues/4884',
  'https://github.com/charmbracelet/crush/issues/1590',
  'https://github.com/partITech/php-mistral/issues/76',
  'https://github.com/pipecat-ai/pipecat-flows/issues/178',
];

const mistralLarge: ProviderShape = {
  name: 'mistral-large',
  provider: 'Mistral La Plateforme',
  special: 'tool calls without "type", 9-char ids; refuses unknown fields (422), text beside tool calls, user after tool',
  sources: mistralSources,
  expected: 'all_done',
  typeOptional: true,
  refuse: (message, status) => topLevelError(message, status),
  history: mistralHistory,
  answer(ctx) {
    const reply = ctx.reply();
    // Mistral models like to say what they are about to do before the call.
    const message: Json = { role: 'assistant', content: reply.calls.length > 0 ? `I'll use ${reply.calls[0]!.name} for this.` : (reply.text ?? '') };
    if (reply.calls.length > 0) message.tool_calls = wireCalls(reply, mistralCalls);
    return completion(ctx, message, finishOf(reply), { id: stableId(`mistral-completion:${ctx.seq}`, 32, 'abcdef0123456789') });
  },
};

const magistral: ProviderShape = {
  name: 'magistral-medium',
  provider: 'Mistral (Magistral reasoning)',
  special: 'content is an array of chunks (thinking, then text split in pieces); Mistral history rules',
  sources: [
    'https://github.com/mistralai/client-python/issues/252',
    'https://github.com/simonw/llm-mistral/pull/39',
    'https://github.com/spring-projects/spring-ai/pull/5020',
    ...mistralSources,
  ],
  expected: 'all_done',
  typeOptional: true,
  refuse: (message, status) => topLevelError(message, status),
  history: mistralHistory,
  answer(ctx) {
    const reply = ctx.reply();
    const thought = { type: 'thinking', thinking: [{ type: 'text', text: thinking(reply) }] };
    const content: Json[] = [thought];
    if (reply.calls.length === 0) {
      // The text comes in two pieces with an empty thinking chunk between them.
      const text = reply.text ?? '';
      const cut = Math.floor(text.length / 2);
      content.push({ type: 'text', text: text.slice(0, cut) }, { type: 'thinking', thinking: [] }, { type: 'text', text: text.slice(cut) });
    }
    const message: Json = { role: 'assistant', content };
    if (reply.calls.length > 0) message.tool_calls = wireCalls(reply, mistralCalls);
    return completion(ctx, message, finishOf(reply));
  },
};

const ollamaIds: CallStyle = { id: (call) => `call_${stableId(call.key, 8, 'abcdefghijklmnopqrstuvwxyz0123456789')}` };

const ollamaQwen3: ProviderShape = {
  ollamaShow: { parameters: 'num_ctx 32768\nstop "<|im_end|>"', model_info: { 'qwen3.context_length': 40960 } },
  name: 'ollama-qwen3',
  provider: 'Ollama /v1',
  special: 'reasoning in a field named "reasoning"; system_fingerprint fp_ollama',
  sources: ['https://github.com/anomalyco/opencode/issues/46061', 'https://github.com/ollama/ollama/issues/6027'],
  expected: 'all_done',
  refuse: (message, status) => openaiError(message, status, 'api_error'),
  answer: (ctx) =>
    completion(
      ctx,
      openaiMessage(ctx.reply(), ollamaIds, { content: ctx.reply().calls.length > 0 ? '' : (ctx.reply().text ?? ''), reasoning: thinking(ctx.reply()) }),
      finishOf(ctx.reply()),
      { extra: { system_fingerprint: 'fp_ollama' } },
    ),
};

/** A tool call written into the text by a model whose server did not turn it into `tool_calls`. */
function textTools(name: string, provider: string, special: string, write: (calls: CanonicalCall[]) => string, sources: string[]): ProviderShape {
  return {
    name,
    provider,
    special,
    sources,
    expected: 'all_done',
    refuse: (message, status) => openaiError(message, status),
    answer(ctx) {
      const reply = ctx.reply();
      const content = reply.calls.length > 0 ? write(reply.calls) : (reply.text ?? '');
      return completion(ctx, { role: 'assistant', content, tool_calls: [] }, 'stop');
    },
  };
}

const ollamaTextTools: ProviderShape = {
  ...textTools(
    'ollama-qwen-text-tools',
    'Ollama /v1 (template without tool parsing)',
    'the tool call is a bare JSON object in the content, finish_reason "stop"',
    (calls) =>
      calls.length === 1
        ? JSON.stringify({ name: calls[0]!.name, arguments: calls[0]!.args })
        : JSON.stringify(calls.map((c) => ({ name: c.name, arguments: c.args }))),
    ['https://github.com/ollama/ollama/issues/11185', 'https://github.com/ollama/ollama/issues/7572', 'https://github.com/jundot/omlx/issues/2565'],
  ),
  ollamaShow: { parameters: 'num_ctx 32768', model_info: { 'qwen2.context_length': 32768 } },
};

/** Ollama's OpenAI endpoint runs with its default window (4096 under 24 GiB of VRAM) and cuts silently. */
const OLLAMA_WINDOW = 4096;

const ollamaSmallContext: ProviderShape = {
  ollamaShow: { parameters: 'stop "<|im_end|>"', model_info: { 'qwen3.context_length': 40960 } },
  name: 'ollama-small-context',
  provider: 'Ollama /v1 (default context)',
  special: 'prompts over 4096 tokens are cut from the front without an error; the model answers without the system prompt',
  sources: [
    'https://github.com/ralphgrewe/TradingAgents/issues/168',
    'https://github.com/NousResearch/hermes-agent/issues/43900',
    'https://github.com/open-webui/docs/pull/1393',
  ],
  expected: 'stop',
  stopNames: /context|window|truncat|num_ctx|4096/i,
  refuse: (message, status) => openaiError(message, status, 'api_error'),
  answer(ctx) {
    if (ctx.promptTokens <= OLLAMA_WINDOW) return ollamaQwen3.answer(ctx);
    const text = "I'm not sure what you would like me to do here. Could you tell me more about the task?";
    const completionTokens = 25;
    return completion(ctx, { role: 'assistant', content: text }, 'stop', {
      usage: { prompt_tokens: OLLAMA_WINDOW - completionTokens, completion_tokens: completionTokens, total_tokens: OLLAMA_WINDOW },
      extra: { system_fingerprint: 'fp_ollama' },
    });
  },
};

const ollamaNoTools: ProviderShape = {
  ollamaShow: { parameters: '', model_info: { 'gemma.context_length': 8192 } },
  name: 'ollama-no-tools',
  provider: 'Ollama /v1 (model without tool support)',
  special: '400 "does not support tools" on every request that offers tools',
  sources: ['https://github.com/ollama/ollama/issues/6027', 'https://github.com/FoundationAgents/OpenManus/issues/220'],
  expected: 'stop',
  stopNames: /does not support tools/,
  refuse: (message, status) => openaiError(message, status, 'api_error'),
  answer: (ctx) => (hasTools(ctx) ? openaiError('registry.ollama.ai/library/gemma:2b does not support tools', 400, 'api_error') : ollamaQwen3.answer(ctx)),
};

const lmstudioQwen: ProviderShape = {
  name: 'lmstudio-qwen',
  provider: 'LM Studio',
  special: 'numeric-string tool call ids, reasoning_content, content "" beside tool calls',
  sources: ['https://github.com/lmstudio-ai/lmstudio-bug-tracker/issues/830', 'https://github.com/lmstudio-ai/lmstudio-bug-tracker/issues/1602'],
  expected: 'all_done',
  refuse: (message, status) => ({ status: status ?? 400, json: { error: message } }),
  answer(ctx) {
    const reply = ctx.reply();
    const message = openaiMessage(reply, { id: (call) => stableId(`lms:${call.key}`, 9, '0123456789') }, { reasoning_content: thinking(reply) });
    if (reply.calls.length > 0) message.content = '';
    return completion(ctx, message, finishOf(reply), { extra: { system_fingerprint: 'qwen3-8b' } });
  },
};

const LMSTUDIO_WINDOW = 4096;
const lmstudioError = (message: string, status?: number): WireAnswer => ({ status: status ?? 400, json: { error: message } });

const lmstudioContextOverflow: ProviderShape = {
  name: 'lmstudio-context-overflow',
  provider: 'LM Studio (model loaded with 4096 tokens)',
  special: 'the error is a plain string: {"error": "The number of tokens to keep ... (n_keep >= n_ctx) ..."}',
  sources: ['https://github.com/tinyhumansai/openhuman/issues/3550', 'https://github.com/lmstudio-ai/lmstudio-bug-tracker/issues/2205'],
  expected: 'stop',
  stopNames: /context length|n_ctx/,
  refuse: lmstudioError,
  answer(ctx) {
    if (ctx.promptTokens < LMSTUDIO_WINDOW) return lmstudioQwen.answer(ctx);
    return lmstudioError(
      `The number of tokens to keep from the initial prompt is greater than the context length (n_keep: ${ctx.promptTokens} >= n_ctx: ${LMSTUDIO_WINDOW}). Try to load the model with a larger context length, or provide a shorter prompt.`,
    );
  },
};

const vllmNoToolParser: ProviderShape = {
  name: 'vllm-no-tool-parser',
  provider: 'vLLM without --enable-auto-tool-choice',
  special: '400 with the error fields at the top level ({"object":"error",...}) on every request with tools',
  sources: ['https://github.com/vllm-project/vllm/issues/9986', 'https://github.com/vllm-project/vllm/issues/4667'],
  expected: 'stop',
  stopNames: /enable-auto-tool-choice/,
  refuse: (message, status) => topLevelError(message, status, 'BadRequestError', status ?? 400),
  answer: (ctx) =>
    hasTools(ctx)
      ? topLevelError('"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set', 400, 'BadRequestError', 400)
      : completion(ctx, openaiMessage(ctx.reply(), { id: (call) => `chatcmpl-tool-${stableId(call.key, 32, 'abcdef0123456789')}` }), finishOf(ctx.reply())),
};

const vllmHermes = textTools(
  'vllm-hermes-text-tools',
  'vLLM / Hermes-style template, no matching parser',
  'tool calls as <tool_call>{json}</tool_call> text, tool_calls: [], finish_reason "stop"',
  (calls) => calls.map((c) => `<tool_call>\n${JSON.stringify({ name: c.name, arguments: c.args })}\n</tool_call>`).join('\n'),
  ['https://github.com/aaif-goose/goose/issues/3748', 'https://github.com/jundot/omlx/issues/2565'],
);

const vllmQwen3Xml = textTools(
  'vllm-qwen3-xml',
  'vLLM / Qwen3-Coder template, parser off',
  'tool calls as <tool_call><function=name><parameter=key>value</parameter></function></tool_call> text',
  (calls) =>
    calls
      .map((c) => {
        const params = Object.entries(c.args).map(([k, v]) => `<parameter=${k}>\n${typeof v === 'string' ? v : JSON.stringify(v)}\n</parameter>`);
        return `<tool_call>\n<function=${c.name}>\n${params.join('\n')}\n</function>\n</tool_call>`;
      })
      .join('\n'),
  ['https://github.com/vllm-project/vllm/pull/34809'],
);

const llamaFunctionText = textTools(
  'llama-function-text',
  'Llama 3.x template (local servers; Groq failed_generation)',
  'tool calls as <function=name>{json}</function> text',
  (calls) => calls.map((c) => `<function=${c.name}>${JSON.stringify(c.args)}</function>`).join(''),
  ['https://github.com/langchain-ai/langchain/pull/31440', 'https://github.com/huggingface/smolagents/issues/1119'],
);

function llamacppError(message: string, status: number, type: string, extra: Json = {}): WireAnswer {
  return { status, json: { error: { code: status, message, type, ...extra } } };
}

const llamacppObjectArgs: ProviderShape = {
  name: 'llamacpp-object-args',
  provider: 'llama.cpp llama-server (2026 builds)',
  special: 'function.arguments is a JSON object, not a string',
  sources: ['https://github.com/ggml-org/llama.cpp/issues/20198', 'https://github.com/ggml-org/llama.cpp/pull/20202'],
  expected: 'all_done',
  objectArgumentsOk: true,
  refuse: (message, status) => llamacppError(message, status ?? 400, 'invalid_request_error'),
  answer: (ctx) => completion(ctx, openaiMessage(ctx.reply(), { id: (call) => stableId(`llama:${call.key}`, 32), args: 'object' }), finishOf(ctx.reply())),
};

const llamacppNoJinja: ProviderShape = {
  name: 'llamacpp-no-jinja',
  provider: 'llama.cpp llama-server without --jinja',
  special: 'HTTP 500 "tools param requires --jinja flag" on every request with tools',
  sources: ['https://github.com/defilantech/LLMKube/issues/126', 'https://github.com/containers/ramalama/issues/988'],
  expected: 'stop',
  stopNames: /--jinja/,
  objectArgumentsOk: true,
  refuse: (message, status) => llamacppError(message, status ?? 400, 'invalid_request_error'),
  answer: (ctx) => (hasTools(ctx) ? llamacppError('tools param requires --jinja flag', 500, 'server_error') : llamacppObjectArgs.answer(ctx)),
};

const llamacppContextExceeded: ProviderShape = {
  name: 'llamacpp-context-exceeded',
  provider: 'llama.cpp llama-server (-c 4096)',
  special: '400 exceed_context_size_error with n_prompt_tokens and n_ctx',
  sources: ['https://github.com/ggml-org/llama.cpp/pull/15780', 'https://github.com/llmmllab/llmmllab-api/issues/69'],
  expected: 'stop',
  stopNames: /context size/,
  objectArgumentsOk: true,
  refuse: (message, status) => llamacppError(message, status ?? 400, 'invalid_request_error'),
  answer(ctx) {
    if (ctx.promptTokens <= 4096) return llamacppObjectArgs.answer(ctx);
    return llamacppError('the request exceeds the available context size, try increasing it', 400, 'exceed_context_size_error', {
      n_prompt_tokens: ctx.promptTokens,
      n_ctx: 4096,
    });
  },
};

const ANTHROPIC_THINKING_REFUSAL =
  'messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`.';

const openrouterClaude: ProviderShape = {
  name: 'openrouter-claude-reasoning',
  provider: 'OpenRouter (Anthropic, reasoning on)',
  special: 'reasoning + reasoning_details (reasoning.text with a signature); the details must come back on tool-call turns',
  sources: [
    'https://openrouter.ai/docs/guides/best-practices/reasoning-tokens',
    'https://github.com/RooCodeInc/Roo-Code/pull/9506',
    'https://github.com/olimorris/codecompanion.nvim/issues/1752',
  ],
  expected: 'all_done',
  refuse: (message, status) => ({ status: status ?? 400, json: { error: { message, code: status ?? 400 } } }),
  history(ctx) {
    const missing = firstCallIdWithout(
      ctx,
      (m, id) =>
        Array.isArray(m.reasoning_details) && m.reasoning_details.some((d) => isRecord(d) && d.type === 'reasoning.text' && d.signature === signatureFor(id)),
    );
    if (!missing) return null;
    return openRouterWrapped(
      400,
      JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: ANTHROPIC_THINKING_REFUSAL } }),
      'Anthropic',
    );
  },
  answer(ctx) {
    const reply = ctx.reply();
    const idOf = (call: CanonicalCall) => `toolu_vrtx_${stableId(call.key, 22)}`;
    const text = thinking(reply);
    const first = reply.calls[0];
    const details = [
      { type: 'reasoning.text', text, signature: first ? signatureFor(idOf(first)) : signatureFor(`text:${ctx.seq}`), format: 'anthropic-claude-v1', index: 0 },
    ];
    const message = openaiMessage(reply, { id: idOf }, { refusal: null, reasoning: text, reasoning_details: details });
    return completion(ctx, message, finishOf(reply), {
      id: `gen-${1_780_000_000 + ctx.seq}-${stableId(`or:${ctx.seq}`, 20)}`,
      usage: usageOf(reply, { cost: 0.0012 }),
      extra: { provider: 'Anthropic' },
    });
  },
};

const thoughtSignatureRefusal = (name: string, position: number) =>
  `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${name}\` , position ${position}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`;

const openrouterGemini3: ProviderShape = {
  name: 'openrouter-gemini-3',
  provider: 'OpenRouter (Gemini 3)',
  special: 'the thought signature travels as a reasoning.encrypted entry of reasoning_details; Google refuses a call without it',
  sources: [
    'https://github.com/RooCodeInc/Roo-Code/pull/9506',
    'https://github.com/OpenHands/software-agent-sdk/issues/1500',
    'https://github.com/theopenco/llmgateway/issues/1267',
  ],
  expected: 'all_done',
  refuse: (message, status) => ({ status: status ?? 400, json: { error: { message, code: status ?? 400 } } }),
  history(ctx) {
    const missing = firstCallIdWithout(
      ctx,
      (m, id) =>
        Array.isArray(m.reasoning_details) && m.reasoning_details.some((d) => isRecord(d) && d.type === 'reasoning.encrypted' && d.data === signatureFor(id)),
    );
    if (!missing) return null;
    const raw = JSON.stringify({ error: { code: 400, message: thoughtSignatureRefusal(missing.name, missing.index), status: 'INVALID_ARGUMENT' } });
    return openRouterWrapped(400, raw, 'Google AI Studio');
  },
  answer(ctx) {
    const reply = ctx.reply();
    const idOf = (call: CanonicalCall) => `tool_${call.name}_${stableId(call.key, 20)}`;
    const text = thinking(reply);
    const details: Json[] = [{ type: 'reasoning.text', text, format: 'google-gemini-v1', index: 0 }];
    const first = reply.calls[0];
    if (first) details.push({ type: 'reasoning.encrypted', data: signatureFor(idOf(first)), id: idOf(first), format: 'google-gemini-v1', index: 1 });
    const message = openaiMessage(reply, { id: idOf }, { reasoning: text, reasoning_details: details });
    return completion(ctx, message, finishOf(reply), { usage: usageOf(reply, { cost: 0.0004 }) });
  },
};

const openrouterError200: ProviderShape = {
  name: 'openrouter-error-200',
  provider: 'OpenRouter (error after the model started)',
  special: 'HTTP 200 with {"error": {...}} and no choices, on the first try of each step',
  sources: ['https://openrouter.ai/docs/api/reference/errors-and-debugging'],
  expected: 'all_done',
  refuse: (message, status) => ({ status: status ?? 400, json: { error: { message, code: status ?? 400 } } }),
  answer: (ctx) =>
    ctx.firstSight
      ? {
          status: 200,
          json: { error: { code: 502, message: 'Upstream provider disconnected before the completion finished', metadata: { provider_name: 'Chutes' } } },
        }
      : openaiBaseline.answer(ctx),
};

const openrouterUpstream429: ProviderShape = {
  name: 'openrouter-upstream-429',
  provider: 'OpenRouter (upstream rate limit)',
  special: '429 "Provider returned error", the real reason only in metadata.raw; once per step',
  sources: ['https://github.com/open-webui/computer/issues/293', 'https://github.com/reVrost/go-openrouter/pull/21'],
  expected: 'all_done',
  refuse: (message, status) => ({ status: status ?? 400, json: { error: { message, code: status ?? 400 } } }),
  answer: (ctx) =>
    ctx.firstSight
      ? openRouterWrapped(
          429,
          'z-ai/glm-5.3-flash is temporarily rate-limited upstream. Please retry shortly, or add your own key to accumulate your rate limits.',
          'BaseTen',
        )
      : openaiBaseline.answer(ctx),
};

const openrouterUpstream400: ProviderShape = {
  name: 'openrouter-upstream-400',
  provider: 'OpenRouter (upstream refusal)',
  special: '400 "Provider returned error": the reason (Anthropic\'s "prompt is too long") only in metadata.raw, as JSON text',
  sources: [
    'https://github.com/diegosouzapw/OmniRoute/issues/3044',
    'https://github.com/prism-php/prism/pull/813',
    'https://github.com/RooCodeInc/Roo-Code/pull/10073',
  ],
  expected: 'stop',
  stopNames: /prompt is too long/,
  refuse: (message, status) => ({ status: status ?? 400, json: { error: { message, code: status ?? 400 } } }),
  answer: () =>
    openRouterWrapped(
      400,
      JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 208764 tokens > 200000 maximum' } }),
      'Anthropic',
    ),
};

const openrouterNoToolEndpoints: ProviderShape = {
  name: 'openrouter-no-tool-endpoints',
  provider: 'OpenRouter (model without tool-capable providers)',
  special: '404 "No endpoints found that support tool use" on every request with tools',
  sources: ['https://github.com/evalstate/fast-agent/issues/122', 'https://github.com/bobrware/bobrchat/issues/60'],
  expected: 'stop',
  stopNames: /No endpoints found that support tool use/,
  refuse: (message, status) => ({ status: status ?? 400, json: { error: { message, code: status ?? 400 } } }),
  answer: (ctx) =>
    hasTools(ctx)
      ? {
          status: 404,
          json: {
            error: {
              message:
                'No endpoints found that support tool use. To learn more about provider routing, visit: https://openrouter.ai/docs/guides/routing/provider-selection',
              code: 404,
            },
          },
        }
      : openaiBaseline.answer(ctx),
};

const gemini25: ProviderShape = {
  name: 'gemini-2.5-flash',
  provider: "Gemini's OpenAI endpoint",
  special: 'tool call ids are "" and the completion has no top-level id; errors are a JSON array',
  sources: [
    'https://github.com/openai/openai-dotnet/issues/428',
    'https://github.com/camel-ai/camel/issues/3027',
    'https://github.com/softwaremill/sttp-ai/issues/338',
  ],
  expected: 'all_done',
  refuse: (message, status) => geminiError(message, status),
  answer: (ctx) => completion(ctx, openaiMessage(ctx.reply(), { id: () => '' }), finishOf(ctx.reply()), { id: null, model: `models/${ctx.model}` }),
};

const gemini3: ProviderShape = {
  name: 'gemini-3-pro',
  provider: "Gemini's OpenAI endpoint (Gemini 3)",
  special: 'extra_content.google.thought_signature on the first tool call of a turn; refused when not echoed',
  sources: [
    'https://ai.google.dev/gemini-api/docs/thought-signatures',
    'https://github.com/HKUDS/nanobot/pull/2453',
    'https://github.com/crmne/ruby_llm/pull/588',
  ],
  expected: 'all_done',
  refuse: (message, status) => geminiError(message, status),
  history(ctx) {
    const missing = firstCallIdWithout(ctx, (m, id) => {
      const first = toolCallsOf(m)[0];
      const extra = first && isRecord(first.extra_content) && isRecord(first.extra_content.google) ? first.extra_content.google : {};
      return extra.thought_signature === signatureFor(id);
    });
    return missing ? geminiError(thoughtSignatureRefusal(missing.name, missing.index)) : null;
  },
  answer(ctx) {
    const reply = ctx.reply();
    const idOf = (call: CanonicalCall) => `function-call-${stableId(call.key, 19, '0123456789')}`;
    const style: CallStyle = {
      id: idOf,
      extra: (_c, i, id) => (i === 0 && id !== undefined ? { extra_content: { google: { thought_signature: signatureFor(id) } } } : {}),
    };
    return completion(ctx, openaiMessage(reply, style), finishOf(reply), { model: `models/${ctx.model}` });
  },
};

const groqToolUseFailed: ProviderShape = {
  name: 'groq-tool-use-failed',
  provider: 'Groq',
  special: 'a 400 tool_use_failed with failed_generation on the first try of a tool call; the retry passes',
  sources: [
    'https://github.com/groq/groq-typescript/issues/28',
    'https://github.com/pipecat-ai/pipecat/issues/1168',
    'https://github.com/anomalyco/opencode/issues/1018',
  ],
  expected: 'all_done',
  refuse: (message, status) => openaiError(message, status),
  answer(ctx) {
    const reply = ctx.reply();
    if (ctx.firstSight && reply.calls.length > 0) {
      const failed = reply.calls.map((c) => `<function=${c.name}>${JSON.stringify(c.args)}</function>`).join('');
      return {
        status: 400,
        json: {
          error: {
            message: "Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details.",
            type: 'invalid_request_error',
            code: 'tool_use_failed',
            failed_generation: failed,
          },
        },
      };
    }
    return completion(ctx, openaiMessage(reply, { id: (call) => `call_${stableId(call.key, 4, 'abcdefghijklmnopqrstuvwxyz0123456789')}` }), finishOf(reply), {
      usage: usageOf(reply, { queue_time: 0.02, prompt_time: 0.01, completion_time: 0.05, total_time: 0.08 }),
      extra: { system_fingerprint: 'fp_replay', x_groq: { id: `req_${stableId(String(ctx.seq), 26)}` } },
    });
  },
};

const groqError = (message: string, status?: number): WireAnswer => ({ status: status ?? 400, json: { error: { message, type: 'invalid_request_error' } } });

const groqReasoning: ProviderShape = {
  name: 'groq-reasoning',
  provider: 'Groq (reasoning_format parsed)',
  special: 'reasoning in "reasoning"; refuses reasoning_content in the history',
  sources: ['https://github.com/tashfeenahmed/freellmapi/issues/1070', 'https://github.com/janhq/jan/issues/8136', 'https://github.com/vercel/ai/pull/8057'],
  expected: 'all_done',
  refuse: groqError,
  history(ctx) {
    for (const [i, m] of ctx.messages.entries()) {
      if (m.role === 'assistant' && 'reasoning_content' in m) {
        return groqError(
          `'messages.${i}' : for 'role:assistant' the following must be satisfied[('messages.${i}' : property 'reasoning_content' is unsupported)]`,
        );
      }
    }
    return null;
  },
  answer: (ctx) => completion(ctx, openaiMessage(ctx.reply(), openaiIds, { reasoning: thinking(ctx.reply()) }), finishOf(ctx.reply())),
};

const azureFilters = {
  hate: { filtered: false, severity: 'safe' },
  self_harm: { filtered: false, severity: 'safe' },
  sexual: { filtered: false, severity: 'safe' },
  violence: { filtered: false, severity: 'safe' },
};

const azureError = (message: string, status?: number): WireAnswer => ({
  status: status ?? 400,
  json: { error: { message, type: null, param: null, code: null, status: status ?? 400 } },
});

const azure: ProviderShape = {
  name: 'azure-gpt-4o',
  provider: 'Azure OpenAI',
  special: 'prompt_filter_results at the top, content_filter_results on the choice',
  sources: [
    'https://learn.microsoft.com/en-us/javascript/api/@azure/openai/chatchoice',
    'https://app.unpkg.com/@azure/openai@2.0.0/files/dist/commonjs/types/index.d.ts',
  ],
  expected: 'all_done',
  refuse: azureError,
  answer: (ctx) =>
    completion(ctx, openaiMessage(ctx.reply(), openaiIds, { refusal: null }), finishOf(ctx.reply()), {
      model: 'gpt-4o-2024-11-20',
      choice: { content_filter_results: azureFilters },
      extra: { prompt_filter_results: [{ prompt_index: 0, content_filter_results: azureFilters }], system_fingerprint: 'fp_replay' },
    }),
};

const azureContentFilter: ProviderShape = {
  name: 'azure-content-filter',
  provider: 'Azure OpenAI (output filtered)',
  special: 'finish_reason "content_filter", content null, a filtered category',
  sources: ['https://www.developersdigest.tech/errors/api/azure-openai/200-finish-reason-content-filter', 'https://github.com/microsoft/azurechat/issues/351'],
  expected: 'stop',
  stopNames: /content.?filter/i,
  refuse: azureError,
  answer: (ctx) =>
    completion(ctx, { role: 'assistant', content: null, refusal: null }, 'content_filter', {
      model: 'gpt-4o-2024-11-20',
      usage: { prompt_tokens: ctx.promptTokens, completion_tokens: 12, total_tokens: ctx.promptTokens + 12 },
      choice: { content_filter_results: { ...azureFilters, violence: { filtered: true, severity: 'medium' } } },
      extra: { prompt_filter_results: [{ prompt_index: 0, content_filter_results: azureFilters }] },
    }),
};

const toolCallNoId: ProviderShape = {
  name: 'tool-call-no-id',
  provider: 'several local servers; Gemini compat in 2025',
  special: 'tool calls with no "id" key at all',
  sources: ['https://github.com/google/adk-python/issues/951', 'https://github.com/ml-explore/mlx-lm/pull/1399'],
  expected: 'all_done',
  refuse: (message, status) => openaiError(message, status),
  answer: (ctx) => completion(ctx, openaiMessage(ctx.reply(), { id: () => undefined }), finishOf(ctx.reply())),
};

function reasoningOnly(ctx: ShapeContext): WireAnswer {
  const reply = ctx.reply();
  // The model wrote its whole answer as reasoning; the visible reply is empty.
  const text =
    reply.calls.length > 0 ? `I should call ${reply.calls[0]!.name} with ${JSON.stringify(reply.calls[0]!.args).slice(0, 200)}.` : (reply.text ?? '');
  return completion(ctx, { role: 'assistant', content: '', reasoning_content: text }, 'stop');
}

const reasoningOnlyOnce: ProviderShape = {
  name: 'reasoning-only-once',
  provider: 'thinking models on LM Studio, llama.cpp, OpenRouter',
  special: 'content "" and reasoning only, on the first try of each step',
  sources: ['https://github.com/lmstudio-ai/lmstudio-bug-tracker/issues/1602', 'https://github.com/OpenRouterTeam/ai-sdk-provider/issues/426'],
  expected: 'all_done',
  refuse: (message, status) => openaiError(message, status),
  answer: (ctx) => (ctx.firstSight ? reasoningOnly(ctx) : lmstudioQwen.answer(ctx)),
};

const reasoningOnlyAlways: ProviderShape = {
  name: 'reasoning-only-always',
  provider: 'a thinking model that never answers',
  special: 'every reply is reasoning only',
  sources: ['https://github.com/sipeed/picoclaw/issues/966'],
  expected: 'stop',
  stopNames: /empty|reasoning|no (content|answer)/i,
  refuse: (message, status) => openaiError(message, status),
  answer: reasoningOnly,
};

const noUsage: ProviderShape = {
  name: 'no-usage',
  provider: 'proxies and local servers',
  special: 'completions without a usage object',
  sources: ['https://platform.openai.com/docs/api-reference/chat/object'],
  expected: 'all_done',
  refuse: (message, status) => openaiError(message, status),
  answer: (ctx) => completion(ctx, openaiMessage(ctx.reply(), openaiIds), finishOf(ctx.reply()), { usage: null }),
};

/** Shaped like the Cloudflare page that proxies put in front of model servers. */
const CLOUDFLARE_502 = `<!DOCTYPE html>
<!--[if lt IE 7]> <html class="no-js ie6 oldie" lang="en-US"> <![endif]-->
<html class="no-js" lang="en-US">
<head>
<title>api.replay.example | 502: Bad gateway</title>
<meta charset="UTF-8" />
<meta http-equiv="Content-Type" content="text/html; charset=UTF-8" />
<meta name="robots" content="noindex, nofollow" />
<link rel="stylesheet" id="cf_styles-css" href="/cdn-cgi/styles/main.css" />
</head>
<body>
<div id="cf-wrapper">
${'  <div class="cf-section cf-wrapper"><span class="cf-icon-server block md:hidden h-20 bg-center bg-no-repeat"></span></div>\n'.repeat(40)}
  <h1><span class="inline-block">Bad gateway</span> <span class="code-label">Error code 502</span></h1>
  <p>The web server reported a bad gateway error.</p>
</div>
</body>
</html>
`;

const htmlErrorPage: ProviderShape = {
  name: 'html-error-page',
  provider: 'a proxy in front of the model server',
  special: 'HTTP 502 with a Cloudflare HTML page, every time',
  sources: ['https://github.com/yoheinakajima/babyagi/issues/64', 'https://github.com/smallmain/vscode-unify-chat-provider/issues/59'],
  expected: 'stop',
  stopNames: /502|bad gateway/i,
  refuse: (message, status) => openaiError(message, status),
  answer: () => ({ status: 502, text: CLOUDFLARE_502, contentType: 'text/html; charset=UTF-8' }),
};

const connectionRefused: ProviderShape = {
  name: 'connection-refused',
  provider: 'nothing listens at the base URL',
  special: 'the TCP connection is refused',
  sources: [],
  expected: 'stop',
  stopNames: /connect|refused|ECONNREFUSED|reach/i,
  unreachable: true,
  refuse: (message, status) => openaiError(message, status),
  answer: () => ({ status: 500, json: { error: { message: 'unreachable shapes are never served' } } }),
};

export const PROVIDER_SHAPES: readonly ProviderShape[] = [
  openaiBaseline,
  deepseek(
    'deepseek-reasoner',
    'reasoning_content must come back on assistant tool-call turns, else 400 "Missing `reasoning_content` field ..."',
    (i) =>
      `Missing \`reasoning_content\` field in the assistant message at message index ${i}. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls`,
    false,
    ['https://api-docs.deepseek.com/guides/thinking_mode', 'https://github.com/continuedev/continue/issues/10193'],
  ),
  deepseek(
    'deepseek-v4-pro',
    'as deepseek-reasoner with V4 wording; some tool-call turns come with reasoning_content "" which must come back too',
    () => 'The `reasoning_content` in the thinking mode must be passed back to the API.',
    true,
    [
      'https://api-docs.deepseek.com/guides/thinking_mode',
      'https://github.com/anomalyco/opencode/issues/24083',
      'https://github.com/deepseek-ai/deepseek-harness/discussions/1850',
    ],
  ),
  kimi('kimi-k2.5', null),
  kimi('kimi-k2.6', ''),
  mistralLarge,
  magistral,
  ollamaQwen3,
  ollamaTextTools,
  ollamaSmallContext,
  ollamaNoTools,
  lmstudioQwen,
  lmstudioContextOverflow,
  vllmNoToolParser,
  vllmHermes,
  vllmQwen3Xml,
  llamaFunctionText,
  llamacppObjectArgs,
  llamacppNoJinja,
  llamacppContextExceeded,
  openrouterClaude,
  openrouterGemini3,
  openrouterError200,
  openrouterUpstream429,
  openrouterUpstream400,
  openrouterNoToolEndpoints,
  gemini25,
  gemini3,
  groqToolUseFailed,
  groqReasoning,
  azure,
  azureContentFilter,
  toolCallNoId,
  reasoningOnlyOnce,
  reasoningOnlyAlways,
  noUsage,
  htmlErrorPage,
  connectionRefused,
];

export function shapeNamed(name: string): ProviderShape | undefined {
  return PROVIDER_SHAPES.find((s) => s.name === name);
}
