/**
 * The agent runtime: one model turn for the interviewer, the worker, the evaluator and the
 * learnings step. It owns everything those loops used to repeat: the call (with a `model_retry`
 * report per retry), normalisation (llm/reply.ts), tool calls written as text, the empty streak
 * with backoff, usage estimated when the provider sends none, the history it sends back (each
 * turn's reasoning to the endpoint that wrote it only), and the answers to unknown, non-function
 * or malformed tool calls. What a turn *means* stays with the caller: it gets the calls, checks
 * each with `check()`, runs what it owns and answers with `answer()`.
 */
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { ChatResult, ModelClient, RetryNotice } from '../llm/client.ts';
import { assistantHistoryMessage, newToolCallId, reasoningText } from '../llm/reply.ts';
import { abortableSleep } from '../llm/retry.ts';
import type { Role } from '../llm/types.ts';
import { estimateCostUsd, type Price } from '../../shared/price.ts';
import { CHARS_PER_TOKEN, elideForWindow, estimateTokens, TruncationWatch, type Message } from './context.ts';
import { endpointTag, messagesFor, type HistoryMessage } from './history.ts';
import { parseTextToolCalls } from './text-tool-calls.ts';
import { argsFit, runToolCall, shownArgs, type ArgsCheck, type ToolAnswer, type ToolSpec } from './tools.ts';

/** Empty replies in a row before a loop gives up (the Python edition's 3). */
export const MAX_EMPTY_STREAK = 3;
/** Heads the user message that carries the results of tool calls written as text. */
export const TEXT_RESULTS_HEADER = 'Results of the tool calls you wrote as text (send structured tool calls if you can):';

export type AgentCall = {
  id: string;
  name: string;
  /** The arguments as sent, always a string (object arguments are serialised by normalisation). */
  rawArgs: string;
  /** Parsed from the reply's text: answered in a user message, since the provider knows no id. */
  fromText: boolean;
  /** False for a call whose `type` is not `function` (answered with an error). */
  isFunction: boolean;
};

/** Extra `model_call` fields the runtime knows and the caller's event should carry. */
export type CallInfo = {
  usage_estimated?: true;
  prompt_estimate: number;
  context_window?: number;
  text_tool_calls?: number;
};

export type NoticeKind = 'usage_missing' | 'price_missing' | 'text_tool_calls' | 'content_filter' | 'truncation_suspected';

/** Old tool output left out of the conversation to fit the window (the `context_elided` event). */
export type Elision = { window_tokens: number; estimated_before: number; estimated_after: number; dropped_messages: number; dropped_chars: number };

export interface AgentHooks {
  /** Before every model call; may throw to stop (the run's spend caps). */
  beforeCall?(): void;
  /** After every model call that returned a reply (empty ones included), with usage made whole. */
  onModelCall?(result: ChatResult, info: CallInfo): void;
  onRetry?(notice: RetryNotice): void;
  onEmpty?(streak: number, result: ChatResult): void;
  /** Something to tell the user once per `notices` set (see AgentOptions.notices). */
  onNotice?(kind: NoticeKind, message: string): void;
  onElided?(elision: Elision): void;
}

export interface AgentOptions<C = unknown> {
  llm: ModelClient;
  role: Role;
  /** The conversation, mutated in place (the interview persists the same array). */
  messages: HistoryMessage[];
  /** The turn's tools; those with `run` run with the context `dispatch` is given. */
  tools: readonly ToolSpec<unknown, C>[];
  signal?: AbortSignal;
  hooks?: AgentHooks;
  maxEmptyStreak?: number;
  /** Backoff after an empty reply (default 2 s × streak); tests make it instant. */
  emptyBackoffMs?: (streak: number) => number;
  /** The role's context window in tokens, when known; recorded on each call. */
  contextWindow?: number | null;
  /**
   * The window is a default Tilth assumes, not one the server reported (Ollama before the model
   * is loaded): nothing is refused before the call, but a reply whose prompt count shows the
   * provider cut the request to that window stops the turn with ContextOverflowError.
   */
  windowAssumed?: boolean;
  /**
   * Near the window, leave old tool output out of the conversation (the worker's long tasks).
   * Without it, a request that does not fit stops the turn with ContextOverflowError.
   */
  elide?: boolean;
  /** Per-million-token prices, used when the provider reports no cost. */
  price?: Price | null;
  /** Whether a dollar cap is set (a missing price is then worth a notice). */
  dollarCapSet?: boolean;
  /** Notice kinds already given in this session: each is said once. */
  notices?: Set<string>;
}

/** Tokens kept free for the reply: a quarter of the window, at most 4,096. */
export function replyReserve(windowTokens: number): number {
  return Math.min(4_096, Math.floor(windowTokens / 4));
}

/** How to make the window larger, by server (said with every overflow). */
export const RAISE_WINDOW_FIX =
  "Raise the model server's context length (Ollama: OLLAMA_CONTEXT_LENGTH=32768 on the server, or PARAMETER num_ctx 32768 in a Modelfile; llama.cpp: -c 32768; vLLM: --max-model-len; LM Studio: the model's context length when loading it), or pick a model with a larger window, and set the role's context window in Settings to match.";

/** A request that cannot fit the role's context window, even after what could be left out was. */
export class ContextOverflowError extends Error {
  constructor(
    readonly role: Role,
    readonly estimated: number,
    readonly windowTokens: number,
    /** Set when the provider took the request and cut it: the prompt tokens it counted. */
    readonly reported?: number,
  ) {
    super(
      reported === undefined
        ? `the ${role} model's next request is about ${estimated} tokens, more than its context window of ${windowTokens} tokens leaves room for (${windowTokens - replyReserve(windowTokens)} with ${replyReserve(windowTokens)} kept for the reply). ${RAISE_WINDOW_FIX}`
        : `the ${role} model's provider counted ${reported} prompt tokens for a request of about ${estimated}: it silently cut the conversation to its context window (${windowTokens} tokens), so the model no longer saw its instructions. ${RAISE_WINDOW_FIX}`,
    );
    this.name = 'ContextOverflowError';
  }
}

export type TurnOutcome =
  | { kind: 'reply'; text: string; calls: AgentCall[]; result: ChatResult }
  | { kind: 'empty'; streak: number; detail: string; result: ChatResult };

/** How a loop reports the calls `dispatch` runs (its events carry the loop's own fields). */
export interface CallReport {
  /** Before a call runs: its arguments as read, or as sent when they do not fit (`fit` false). */
  called?(call: AgentCall, args: unknown, fit: boolean): void;
  /** After it was answered: the answer and how long the run took. */
  answered?(call: AgentCall, answer: ToolAnswer, durationMs: number, fit: boolean): void;
}

/**
 * A call to a final tool, given to its loop in the order the model sent it; the loop reads,
 * reports and answers it. True stops the dispatch: the calls after it are the loop's to answer.
 */
export type FinalCall = (call: AgentCall, index: number) => Promise<boolean> | boolean;

export class Agent<C = unknown> {
  readonly messages: HistoryMessage[];
  readonly #o: AgentOptions<C>;
  #emptyStreak = 0;
  readonly #truncation = new TruncationWatch();

  constructor(options: AgentOptions<C>) {
    this.#o = options;
    this.messages = options.messages;
  }

  get toolNames(): string[] {
    return this.#o.tools.map((t) => t.name);
  }

  /**
   * One model turn: calls until a reply that is not empty (backing off between empty ones), or
   * until the empty streak reaches its limit. A usable reply is pushed onto the conversation
   * before it is returned; an empty one never enters it.
   */
  async turn(): Promise<TurnOutcome> {
    const { llm, role, signal, hooks } = this.#o;
    const maxEmpty = this.#o.maxEmptyStreak ?? MAX_EMPTY_STREAK;
    const tag = endpointTag(llm.describeEndpoint(role));
    for (;;) {
      signal?.throwIfAborted();
      hooks?.beforeCall?.();
      const tools = this.#o.tools.map((t) => t.schema);
      const window = this.#o.contextWindow;
      if (window && this.#o.elide) this.#elide(window, tools);
      const messages: ChatCompletionMessageParam[] = messagesFor(this.messages, tag);
      const promptEstimate = estimateTokens(messages, tools);
      if (window && !this.#o.windowAssumed && promptEstimate > window - replyReserve(window)) throw new ContextOverflowError(role, promptEstimate, window);
      const raw = await llm.chat(role, {
        messages,
        contextWindow: window ?? null,
        ...(tools.length > 0 ? { tools } : {}),
        ...(signal ? { signal } : {}),
        ...(hooks?.onRetry ? { onRetry: hooks.onRetry } : {}),
      });
      const result = this.#accounted(raw, promptEstimate);
      const calls = structuredCalls(result);
      let textCalls = 0;
      if (calls.length === 0 && this.#o.tools.length > 0 && typeof result.message.content === 'string') {
        for (const c of parseTextToolCalls(result.message.content, this.toolNames, (name, args) => argsFit(this.#o.tools, name, args))) {
          calls.push({ id: newToolCallId(), name: c.name, rawArgs: c.arguments, fromText: true, isFunction: true });
          textCalls++;
        }
      }
      const info: CallInfo = {
        prompt_estimate: promptEstimate,
        ...(raw.usageReported ? {} : { usage_estimated: true as const }),
        ...(this.#o.contextWindow ? { context_window: this.#o.contextWindow } : {}),
        ...(textCalls > 0 ? { text_tool_calls: textCalls } : {}),
      };
      hooks?.onModelCall?.(result, info);
      // A provider that cut the prompt to the window it runs with, without an error (Ollama):
      // whatever the model answered, it answered without its instructions.
      if (window && this.#o.windowAssumed && raw.usageReported && promptEstimate > window && raw.usage.prompt_tokens <= window) {
        throw new ContextOverflowError(role, promptEstimate, window, raw.usage.prompt_tokens);
      }
      this.#noticeOnce(raw, textCalls);
      const truncated = this.#truncation.observe(promptEstimate, raw.usageReported ? raw.usage.prompt_tokens : null);
      if (truncated.suspected) this.#say('truncation_suspected', truncated.message);

      if (result.health === 'empty') {
        this.#emptyStreak++;
        hooks?.onEmpty?.(this.#emptyStreak, result);
        if (this.#emptyStreak >= maxEmpty) return { kind: 'empty', streak: this.#emptyStreak, detail: this.#emptyDetail(result), result };
        await abortableSleep(this.#o.emptyBackoffMs?.(this.#emptyStreak) ?? 2_000 * this.#emptyStreak, signal);
        continue;
      }
      this.#emptyStreak = 0;
      const history = assistantHistoryMessage(result.message, tag);
      if (textCalls > 0) delete history.tool_calls;
      // Mistral refuses an assistant turn with both text and tool calls; the text is not needed.
      else if (history.tool_calls && isMistral(llm.describeEndpoint(role))) history.content = '';
      this.messages.push(history as unknown as HistoryMessage);
      return { kind: 'reply', text: typeof result.message.content === 'string' ? result.message.content : '', calls, result };
    }
  }

  /** Is this a call to one of the turn's tools, with arguments that fit? Else the message for the model. */
  check<A = Record<string, unknown>>(call: AgentCall): ArgsCheck<A> {
    if (!call.isFunction) return { ok: false, message: 'ERROR: only function tools are available.' };
    const tool = this.#tool(call);
    if (!tool) return { ok: false, message: `ERROR: unknown tool '${call.name}'. Available: ${this.toolNames.join(', ')}.` };
    return tool.read(call.rawArgs) as ArgsCheck<A>;
  }

  #tool(call: AgentCall): ToolSpec<unknown, C> | undefined {
    return this.#o.tools.find((t) => t.name === call.name) as ToolSpec<unknown, C> | undefined;
  }

  /**
   * Runs a turn's calls in the order the model sent them, each through its declaration: a call to
   * a tool that runs itself is read, reported, run with `ctx`, answered and reported; a call that
   * does not fit (or names no tool) is reported and answered with what is wrong. A call to a final
   * tool goes to `final`, which may stop the dispatch. Checks the abort signal before each call.
   * What a run throws is answered as an error: a tool's failure is the model's to read.
   */
  async dispatch(calls: readonly AgentCall[], ctx: C, report: CallReport, final: FinalCall): Promise<void> {
    for (const [index, call] of calls.entries()) {
      this.#o.signal?.throwIfAborted();
      const tool = call.isFunction ? this.#tool(call) : undefined;
      if (tool && !tool.run) {
        if (await final(call, index)) return;
        continue;
      }
      const checked = this.check<unknown>(call);
      report.called?.(call, checked.ok ? checked.args : shownArgs(call.rawArgs), checked.ok);
      const started = performance.now();
      // Arguments that were read belong to a tool, and one that runs itself (finals went above).
      const answer: ToolAnswer = checked.ok ? await runToolCall(tool!, checked.args, ctx) : { output: checked.message };
      const durationMs = Math.round(performance.now() - started);
      this.answer(call, answer.output);
      report.answered?.(call, answer, durationMs, checked.ok);
    }
  }

  /** Answers a call: a tool message, or for a call written as text, a line in the results message. */
  answer(call: AgentCall, content: string): void {
    answerCall(this.messages, call, content);
  }

  /**
   * A user message (a nudge, a steering note, a retry hint). Right after tool results it joins
   * the last tool message instead: Mistral refuses a user message after a tool message
   * ("Unexpected role 'user' after role 'tool'"), and every provider reads it there as well.
   */
  say(content: string): void {
    const last = this.messages[this.messages.length - 1];
    if (last && last.role === 'tool' && typeof last.content === 'string') last.content = `${last.content}\n\n${content}`;
    else this.messages.push({ role: 'user', content });
  }

  #accounted(result: ChatResult, promptEstimate: number): ChatResult {
    let { usage, costUsd } = result;
    if (!result.usageReported) {
      const reply =
        (typeof result.message.content === 'string' ? result.message.content.length : 0) +
        JSON.stringify(result.message.tool_calls ?? []).length +
        reasoningText(result.message).length;
      const completion = Math.ceil(reply / CHARS_PER_TOKEN);
      usage = { prompt_tokens: promptEstimate, completion_tokens: completion, total_tokens: promptEstimate + completion };
    }
    const price = this.#o.price;
    if (costUsd === null && price) costUsd = estimateCostUsd(usage, price);
    return usage === result.usage && costUsd === result.costUsd ? result : { ...result, usage, costUsd };
  }

  /** Leaves old tool output out, in place, when the conversation nears the window. */
  #elide(window: number, tools: ChatCompletionTool[]): void {
    const result = elideForWindow(this.messages as unknown as Message[], { windowTokens: window, reserveTokens: replyReserve(window), tools });
    if (result.dropped.messages === 0) return;
    this.messages.splice(0, this.messages.length, ...(result.messages as unknown as HistoryMessage[]));
    this.#o.hooks?.onElided?.({
      window_tokens: window,
      estimated_before: result.estimatedBefore,
      estimated_after: result.estimatedAfter,
      dropped_messages: result.dropped.messages,
      dropped_chars: result.dropped.chars,
    });
  }

  /** Tells the user something once per session (per role and kind). */
  #say(kind: NoticeKind, message: string): void {
    const { hooks, notices, role } = this.#o;
    if (!hooks?.onNotice) return;
    const key = `${role}:${kind}`;
    if (notices?.has(key)) return;
    notices?.add(key);
    hooks.onNotice(kind, message);
  }

  #noticeOnce(raw: ChatResult, textCalls: number): void {
    const { role } = this.#o;
    const say = (kind: NoticeKind, message: string) => this.#say(kind, message);
    if (!raw.usageReported) say('usage_missing', `the ${role} model's provider reports no token usage; token figures are estimated from characters`);
    if (raw.costUsd === null && !this.#o.price && this.#o.dollarCapSet) {
      say(
        'price_missing',
        `the ${role} model's provider reports no cost, so the dollar cap cannot count it; set the ${role} role's prices per million tokens in Settings`,
      );
    }
    if (textCalls > 0)
      say(
        'text_tool_calls',
        `the ${role} model wrote its tool calls as text; Tilth reads them, but structured tool calls are more reliable (enable the server's tool parser, or pick a model with tool support)`,
      );
    if (raw.filtered) say('content_filter', `the ${role} model's provider blocked a reply with its content filter (finish_reason "content_filter")`);
  }

  #emptyDetail(last: ChatResult): string {
    const who = `the ${this.#o.role} model returned ${this.#emptyStreak} empty replies in a row`;
    if (last.filtered) return `${who}: the provider's content filter blocked them (finish_reason "content_filter")`;
    if (reasoningText(last.message) !== '') return `${who}: it sent only reasoning, with no answer and no tool call`;
    if (last.finishReason === 'length') return `${who}: each reply hit its length limit before any answer (finish_reason "length")`;
    return who;
  }
}

/** Mistral's own API, or a Mistral-family model behind another server (same chat template rules). */
export function isMistral(endpoint: { baseUrl: string; model: string } | null): boolean {
  if (!endpoint) return false;
  let host = '';
  try {
    host = new URL(endpoint.baseUrl).hostname;
  } catch {
    // not a URL: decide on the model name alone
  }
  return host === 'api.mistral.ai' || /(^|[/:_-])(mistral|magistral|devstral|codestral|ministral)/i.test(endpoint.model);
}

function structuredCalls(result: ChatResult): AgentCall[] {
  return (result.message.tool_calls ?? []).map((c) => {
    const fn = (c as { function?: { name?: string; arguments?: string } }).function;
    return { id: c.id, name: fn?.name ?? '', rawArgs: fn?.arguments ?? '', fromText: false, isFunction: c.type === 'function' };
  });
}

/**
 * Adds the answer to a call to a conversation: a `tool` message for a structured call; for a call
 * written as text, a section of the one user message that follows the turn (no tool message can
 * name a call the provider never made).
 */
export function answerCall(messages: HistoryMessage[], call: Pick<AgentCall, 'id' | 'name' | 'fromText'>, content: string): void {
  if (!call.fromText) {
    messages.push({ role: 'tool', tool_call_id: call.id, content });
    return;
  }
  const last = messages[messages.length - 1];
  if (last && last.role === 'user' && typeof last.content === 'string' && last.content.startsWith(TEXT_RESULTS_HEADER)) {
    const k = last.content.match(TEXT_RESULT_HEADING)?.length ?? 0;
    last.content = `${last.content}\n\n${textResultSection(k + 1, call.name, content)}`;
  } else {
    messages.push({ role: 'user', content: `${TEXT_RESULTS_HEADER}\n\n${textResultSection(1, call.name, content)}` });
  }
}

/** Heads each result in the results message: `### Result 2: read_file`. */
export const TEXT_RESULT_HEADING = /^### Result (\d+): ([\w.-]+)$/gm;

function textResultSection(k: number, name: string, content: string): string {
  return `### Result ${k}: ${name}\n${content}`;
}

/** The results in a results message, in call order (for readers of the conversation). */
export function textResults(message: string): string[] {
  if (!message.startsWith(TEXT_RESULTS_HEADER)) return [];
  const parts = message.split(/^### Result \d+: [\w.-]+\n/m);
  return parts.slice(1).map((p) => p.replace(/\n\n$/, ''));
}
