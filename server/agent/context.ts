/**
 * The context budget of one conversation, as pure functions: how many tokens a request will
 * take (estimated, before it is sent), how to make an over-long conversation fit its model's
 * window by leaving out old tool output, and how to notice a provider that silently cuts the
 * prompt instead of refusing it.
 *
 * Nothing here calls a model or knows a tokenizer: the runtime feeds in what it is about to send
 * and what the provider reported, and decides what to do with the answers.
 */
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';

/**
 * Characters per token for the estimate. OpenAI's rule of thumb is about 4 characters of English
 * prose per token for its tokenizers; source code, JSON and paths split into more pieces (nearer
 * 3), and a coding agent's conversation is mostly those. 3.5 sits between, so the estimate runs
 * a little high on prose and a little low on dense code — it is for budgeting, never billing.
 * Text in scripts without spaces (Chinese, Japanese) tokenizes far denser and is underestimated;
 * the truncation watch below does not rely on this figure being close.
 */
export const CHARS_PER_TOKEN = 3.5;

/** What each message costs beyond its text: the role and separators a chat template adds. */
export const MESSAGE_OVERHEAD_TOKENS = 4;

/** The newest messages elision never touches: the worker's current line of work. */
export const KEEP_RECENT_MESSAGES = 6;

/**
 * Once over the budget, elide down to this share of it rather than to just under it. Each
 * elision rewrites the middle of the conversation, which voids the provider's prompt cache from
 * that message on; freeing a margin at once makes that happen every few turns, not every turn.
 */
export const ELISION_TARGET_RATIO = 0.8;

export type Message = ChatCompletionMessageParam;

/**
 * How the run's answer to a `submit_case` whose checks failed begins. It is the worker's words, but
 * it lives here, below the engine that sends it, because elision keeps such answers (see
 * elideForWindow).
 */
export const CHECKS_FAILED_PREFIX =
  'The checks failed: the workspace does not pass yet, so the case cannot be reviewed.\nRead the report below, fix the problems, and call `submit_case` again once the checks will pass.';

/** Text of a content field: a string, an array of parts (text and refusal parts count), or nothing. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let out = '';
  for (const part of content) {
    if (typeof part !== 'object' || part === null) continue;
    const p = part as { text?: unknown; refusal?: unknown };
    if (typeof p.text === 'string') out += p.text;
    else if (typeof p.refusal === 'string') out += p.refusal;
  }
  return out;
}

/**
 * Characters a message puts on the wire that the model reads: its content, a tool call's name
 * and arguments, and the reasoning a provider wants echoed back (`reasoning`, `reasoning_content`,
 * `reasoning_details`), which counts against the window like any other input.
 */
function messageChars(message: Message): number {
  const m = message as Message & { tool_calls?: unknown; reasoning?: unknown; reasoning_content?: unknown; reasoning_details?: unknown; name?: unknown };
  let chars = contentText(m.content).length;
  if (typeof m.name === 'string') chars += m.name.length;
  if (Array.isArray(m.tool_calls)) {
    for (const call of m.tool_calls as { id?: unknown; function?: { name?: unknown; arguments?: unknown }; custom?: { name?: unknown; input?: unknown } }[]) {
      if (typeof call.id === 'string') chars += call.id.length;
      const fn = call.function ?? call.custom;
      if (fn === undefined) continue;
      if (typeof fn.name === 'string') chars += fn.name.length;
      const args = (fn as { arguments?: unknown }).arguments ?? (fn as { input?: unknown }).input;
      // Some providers hand arguments back as an object; it goes out again as JSON.
      if (typeof args === 'string') chars += args.length;
      else if (args !== undefined && args !== null) chars += JSON.stringify(args).length;
    }
  }
  if (typeof m.reasoning === 'string') chars += m.reasoning.length;
  if (typeof m.reasoning_content === 'string') chars += m.reasoning_content.length;
  if (Array.isArray(m.reasoning_details)) chars += JSON.stringify(m.reasoning_details).length;
  return chars;
}

function tokensOfChars(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** Estimated tokens of one message, overhead included. */
export function estimateMessageTokens(message: Message): number {
  return tokensOfChars(messageChars(message)) + MESSAGE_OVERHEAD_TOKENS;
}

/** Estimated tokens of the tool declarations: the provider renders their JSON schemas into the prompt. */
export function estimateToolTokens(tools: readonly ChatCompletionTool[] | undefined): number {
  if (tools === undefined || tools.length === 0) return 0;
  return tokensOfChars(JSON.stringify(tools).length);
}

/**
 * Estimated prompt tokens of a request: every message (content, tool-call arguments, echoed
 * reasoning, plus a small per-message overhead) and the tool schemas, at CHARS_PER_TOKEN.
 */
export function estimateTokens(messages: readonly Message[], tools?: readonly ChatCompletionTool[]): number {
  let total = estimateToolTokens(tools);
  for (const message of messages) total += estimateMessageTokens(message);
  return total;
}

/** What stands in for a tool's output once it is left out. */
export function elisionPlaceholder(toolName: string | null): string {
  return toolName === null ? '[tool output elided to fit the context window]' : `[output of ${toolName} elided to fit the context window]`;
}

export type ElideOptions = {
  /** The model's context window, in tokens. */
  windowTokens: number;
  /** Kept free for the reply (and the estimate's error): the prompt must fit in window − reserve. */
  reserveTokens: number;
  /** Counted as part of the request, like estimateTokens. */
  tools?: readonly ChatCompletionTool[];
  /** Newest messages never elided (default KEEP_RECENT_MESSAGES). */
  keepRecent?: number;
  /** Share of the budget to come down to once elision starts (default ELISION_TARGET_RATIO). */
  targetRatio?: number;
};

export type ElisionResult = {
  /** The conversation to send: the same array when nothing was elided, else a copy. */
  messages: Message[];
  /** Tool outputs replaced by a placeholder in this call, and their characters. */
  dropped: { messages: number; chars: number };
  estimatedBefore: number;
  estimatedAfter: number;
  /** The result fits in window − reserve. False: even with every elidable output gone it does not. */
  fits: boolean;
};

/**
 * Makes a conversation fit its window by replacing the content of old tool results with a short
 * placeholder, oldest first, until the estimate is under the target — or nothing more may go.
 *
 * Kept whole, always:
 * - every non-tool message: the system prompt and the task (the first user message), the
 *   guidance notes, and every assistant message — an assistant turn with tool calls must stay
 *   followed by one tool message per call, so messages are never removed, only emptied;
 * - the newest `keepRecent` messages, the work in progress;
 * - tool results that report failed checks (they start with CHECKS_FAILED_PREFIX): they say what
 *   is still wrong, which the worker needs until it is fixed.
 *
 * A result elided before (its content already a placeholder) counts as gone. The input is not
 * changed; untouched messages are the same objects.
 */
export function elideForWindow(messages: readonly Message[], options: ElideOptions): ElisionResult {
  const budget = options.windowTokens - options.reserveTokens;
  const perMessage = messages.map(estimateMessageTokens);
  const toolTokens = estimateToolTokens(options.tools);
  const estimatedBefore = perMessage.reduce((a, b) => a + b, toolTokens);
  if (estimatedBefore <= budget) {
    return { messages: messages as Message[], dropped: { messages: 0, chars: 0 }, estimatedBefore, estimatedAfter: estimatedBefore, fits: true };
  }

  const target = Math.floor(budget * (options.targetRatio ?? ELISION_TARGET_RATIO));
  const keepFrom = Math.max(0, messages.length - (options.keepRecent ?? KEEP_RECENT_MESSAGES));
  const toolNames = toolNamesById(messages);
  const out = messages.slice();
  let estimate = estimatedBefore;
  let droppedMessages = 0;
  let droppedChars = 0;

  for (let i = 0; i < keepFrom && estimate > target; i++) {
    const message = out[i]!;
    if (message.role !== 'tool') continue;
    const text = contentText(message.content);
    if (text.startsWith(CHECKS_FAILED_PREFIX) || isPlaceholder(text)) continue;
    const replaced: Message = { ...message, content: elisionPlaceholder(toolNames.get(message.tool_call_id) ?? null) };
    const tokens = estimateMessageTokens(replaced);
    if (tokens >= perMessage[i]!) continue; // a tiny output: the placeholder would not save anything
    out[i] = replaced;
    estimate += tokens - perMessage[i]!;
    droppedMessages++;
    droppedChars += text.length;
  }

  if (droppedMessages === 0) {
    return { messages: messages as Message[], dropped: { messages: 0, chars: 0 }, estimatedBefore, estimatedAfter: estimatedBefore, fits: false };
  }
  return { messages: out, dropped: { messages: droppedMessages, chars: droppedChars }, estimatedBefore, estimatedAfter: estimate, fits: estimate <= budget };
}

const PLACEHOLDER = /^\[(?:output of .+|tool output) elided to fit the context window\]$/;

function isPlaceholder(text: string): boolean {
  return PLACEHOLDER.test(text);
}

/** tool_call_id → the tool's name, from the assistant turns that made the calls. */
function toolNamesById(messages: readonly Message[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of messages) {
    if (message.role !== 'assistant' || !Array.isArray(message.tool_calls)) continue;
    for (const call of message.tool_calls) {
      const name = call.type === 'custom' ? call.custom.name : call.function.name;
      names.set(call.id, name);
    }
  }
  return names;
}

/** Calls in a row whose reported prompt tokens must stay flat while the estimate grows. */
export const STUCK_CALLS = 3;
/** Reported prompt tokens "stuck": grown by at most this share over those calls. */
export const STUCK_GROWTH = 0.02;
/** …while the estimate grew by more than this share. */
export const ESTIMATE_GROWTH = 0.25;
/** Reported below this share of the estimate is suspicious on its own… */
export const UNDERCOUNT_RATIO = 0.4;
/** …on a request at least this large (small requests are dominated by template overhead). */
export const UNDERCOUNT_MIN_ESTIMATE = 2_000;

export type TruncationVerdict =
  | { suspected: false }
  | {
      suspected: true;
      /** `stuck`: the provider's count stopped growing while the conversation grew; `undercount`: it counted far less than was sent. */
      reason: 'stuck' | 'undercount';
      estimated: number;
      reported: number;
      /** One paragraph for the user: what was seen and how to fix it. */
      message: string;
    };

/**
 * Watches one conversation's model calls for a provider that cuts the prompt to fit a small
 * window instead of refusing it. Ollama does this: its OpenAI endpoint runs with the server's
 * default context (a few thousand tokens) unless told otherwise, and drops the start of a longer
 * prompt without an error, so the model loses its instructions and the task. The only outside
 * sign is the reported prompt_tokens: it stops growing, or stays far below what was sent.
 *
 * Feed it each call's estimate and the provider's reported prompt tokens; call `reset` when the
 * conversation starts afresh (a new task attempt).
 */
export class TruncationWatch {
  #calls: { estimated: number; reported: number }[] = [];

  /** `reported` null or undefined (the provider sent no usage) is skipped: there is nothing to compare. */
  observe(estimatedPromptTokens: number, reportedPromptTokens: number | null | undefined): TruncationVerdict {
    if (reportedPromptTokens === null || reportedPromptTokens === undefined || !(reportedPromptTokens >= 0) || !(estimatedPromptTokens >= 0)) {
      return { suspected: false };
    }
    const estimated = estimatedPromptTokens;
    const reported = reportedPromptTokens;
    this.#calls.push({ estimated, reported });
    if (this.#calls.length > STUCK_CALLS) this.#calls.shift();

    if (estimated > UNDERCOUNT_MIN_ESTIMATE && reported < estimated * UNDERCOUNT_RATIO) {
      return {
        suspected: true,
        reason: 'undercount',
        estimated,
        reported,
        message: `The provider counted ${reported} prompt tokens for a request Tilth estimates at about ${estimated}: it is probably cutting the conversation to fit a small context window, so the model no longer sees its instructions. ${FIX}`,
      };
    }

    if (this.#calls.length === STUCK_CALLS) {
      const first = this.#calls[0]!;
      const reports = this.#calls.map((c) => c.reported);
      const low = Math.min(...reports);
      const high = Math.max(...reports);
      if (low > 0 && high <= low * (1 + STUCK_GROWTH) && estimated > first.estimated * (1 + ESTIMATE_GROWTH)) {
        return {
          suspected: true,
          reason: 'stuck',
          estimated,
          reported,
          message: `Over the last ${STUCK_CALLS} calls the conversation grew from about ${first.estimated} to ${estimated} estimated tokens, but the provider's prompt count stayed at about ${reported}: it is probably cutting the conversation to fit its context window. ${FIX}`,
        };
      }
    }
    return { suspected: false };
  }

  reset(): void {
    this.#calls = [];
  }
}

const FIX =
  "On Ollama, raise the context: start the server with OLLAMA_CONTEXT_LENGTH=32768 (then restart it), or add `PARAMETER num_ctx 32768` to the model's Modelfile and `ollama create` it; elsewhere, load the model with a larger context window (llama.cpp `-c`, LM Studio's context length, vLLM `--max-model-len`).";
