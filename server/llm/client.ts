/**
 * The model client: every model call in Tilth goes through `ModelClient.chat(role, …)`.
 *
 * Routing is by role, never by model name: each role has its own base URL, key and model, so
 * two roles using the same model name on different providers each reach their own provider
 * (the Python edition looked the client up by model name and sent such calls to the worker's).
 * One SDK client is built per distinct (base URL, key) pair.
 *
 * Retries live here, not in the SDK (`maxRetries: 0`): 429 (honouring retry-after), 408, 409,
 * 5xx, timeouts, reset connections, Groq's botched tool calls, and 200 replies whose health is
 * not ok. A refused connection gets one quick retry. What cannot pass — other 4xx, a server
 * started without the flags tools need, a model without tools or unknown to the provider —
 * fails at once with a sentence on what to change (see `classifyFailure`). An unhealthy reply is
 * never handed back as a message: when retries run out the call throws ProviderFailureError
 * carrying the last cause. Every retry is told to `onRetry` and the logger before its wait.
 *
 * API keys never appear in errors or call records: messages are scrubbed of the key and URLs are
 * shown without credentials.
 */
import type OpenAI from 'openai';
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions';
import { loadSdk } from './sdk.ts';
import { COMPLETION_MAX_BYTES, METADATA_MAX_BYTES, boundAnswers, replyMaxBytes } from './bounded-answer.ts';
import { ProviderFailureError, ProviderNotConfiguredError, UnhealthyReplyError } from './errors.ts';
import { bound, readReplyError } from './error-body.ts';
import {
  classifyFailure,
  describeFailure,
  displayUrl,
  keepErrorBodies,
  scrubSecret,
  timeoutFailure,
  type AttemptFailure,
  type FailureClass,
  type FailureWhere,
} from './failure.ts';
import { ZERO_USAGE, addUsage, normaliseCompletion, type NormalisedReply } from './reply.ts';
import { PROBE_TIMEOUT_MS, probeEndpoint, type ProbeResult } from './probe.ts';
import { resolveContextWindow, type ContextWindow } from './context-window.ts';
import { DEFAULT_RETRY_POLICY, abortableSleep, backoffDelay, type RetryPolicy, type Sleep } from './retry.ts';
import { ROLES, type AssistantMessage, type CallUsage, type ReplyHealth, type Role, type RoleEndpoint, type RoleEndpoints } from './types.ts';

export { displayUrl } from './failure.ts';

export const DEFAULT_TIMEOUT_MS = 600_000;
/** How long a discovered context window is trusted before the provider is asked again. */
const WINDOW_CACHE_MS = 60_000;
/** The wait before the one retry a refused connection gets: a server still starting, or nothing at all. */
export const UNREACHABLE_RETRY_DELAY_MS = 1_000;

export type ChatRequest = {
  messages: ChatCompletionMessageParam[];
  tools?: ChatCompletionTool[];
  /** Left to the provider's default ("auto") unless set. */
  toolChoice?: ChatCompletionToolChoiceOption;
  /** Cancels at once, including during a backoff sleep; the call rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Per-attempt timeout; overrides the client's `timeoutMs`. */
  timeoutMs?: number;
  /** The role's context window in tokens, when known: it bounds the size of the reply read. */
  contextWindow?: number | null;
  /** Told before each backoff sleep, so the caller can record a `model_retry` event. */
  onRetry?: (notice: RetryNotice) => void;
};

/** A failed attempt that will be tried again, for the `model_retry` event. */
export type RetryNotice = {
  role: Role;
  model: string;
  /** The attempt that failed, 1-based. */
  attempt: number;
  maxAttempts: number;
  waitMs: number;
  /** What went wrong, in the provider's words, bounded. */
  reason: string;
  status: number | null;
};

export type ChatResult = {
  message: AssistantMessage;
  /** Tokens of every attempt of this call (failed replies are billed too). */
  usage: CallUsage;
  finishReason: string | null;
  /** `empty` replies are returned for the caller to handle; unhealthy ones throw. */
  health: Extract<ReplyHealth, 'ok' | 'empty'>;
  /** The last reply carried a `usage` object (else the figures are zeros, to be estimated). */
  usageReported: boolean;
  /** An empty reply the provider's content filter caused. */
  filtered: boolean;
  /** USD over every attempt that reported a cost; null when none did. */
  costUsd: number | null;
  model: string;
  attempts: number;
  durationMs: number;
};

export type ModelClientOptions = {
  endpoints: RoleEndpoints;
  /** Per-attempt timeout (default 10 minutes: thinking models are slow). */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Told one line per retry (role, model, endpoint without credentials, the reason); never the key. */
  logger?: ModelClientLogger;
  /** Injected by tests to make backoff instant or to observe the delays. */
  sleep?: Sleep;
  random?: () => number;
};

/** Structurally the server's Logger, so `llm/` does not depend on `jobs/`. */
export type ModelClientLogger = { warn(msg: string, extra?: Record<string, unknown>): void };

/** OpenRouter only returns reasoning when asked; other providers may reject the unknown field. */
export function isOpenRouter(baseUrl: string): boolean {
  try {
    const host = new URL(baseUrl).hostname.toLowerCase();
    return host === 'openrouter.ai' || host.endsWith('.openrouter.ai');
  } catch {
    return false;
  }
}

export class ModelClient {
  #endpoints: RoleEndpoints;
  /** Shared with pinned() copies. */
  #sdk = new Map<string, OpenAI>();
  readonly #policy: RetryPolicy;
  readonly #timeoutMs: number;
  readonly #logger: ModelClientLogger | undefined;
  readonly #sleep: Sleep;
  readonly #random: () => number;
  #windows = new Map<string, { window: Promise<ContextWindow>; until: number }>();
  readonly #options: ModelClientOptions;

  constructor(options: ModelClientOptions) {
    this.#options = options;
    this.#endpoints = { ...options.endpoints };
    this.#policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    if (!Number.isInteger(this.#policy.maxAttempts) || this.#policy.maxAttempts < 1) {
      throw new RangeError(`retry.maxAttempts must be a whole number of at least 1, got ${this.#policy.maxAttempts}`);
    }
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#logger = options.logger;
    this.#sleep = options.sleep ?? abortableSleep;
    this.#random = options.random ?? Math.random;
  }

  /**
   * Points the roles at new endpoints (a settings save): each role's next call goes to its new
   * endpoint; calls under way finish where they started. SDK clients of (base URL, key) pairs
   * still in use are kept, the others dropped, so a replaced key does not linger in memory.
   */
  reconfigure(endpoints: RoleEndpoints): void {
    this.#endpoints = { ...endpoints };
    const inUse = new Set<string>();
    for (const role of ROLES) {
      const endpoint = this.#endpoints[role];
      if (endpoint) inUse.add(sdkKey(endpoint));
    }
    for (const key of [...this.#sdk.keys()]) if (!inUse.has(key)) this.#sdk.delete(key);
  }

  /**
   * A client that keeps today's endpoints whatever later reconfigure() calls say: a run finishes
   * on the models its session_start recorded. SDK clients are shared.
   */
  pinned(): ModelClient {
    const copy = new ModelClient({ ...this.#options, endpoints: {} });
    copy.#endpoints = { ...this.#endpoints };
    copy.#sdk = this.#sdk;
    copy.#windows = this.#windows;
    return copy;
  }

  /**
   * Does the role's endpoint answer, with this key? Never throws for a provider's failure: the
   * result's detail carries the provider's own words, without the key.
   */
  async probe(role: Role, options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<ProbeResult> {
    const endpoint = this.#endpoints[role];
    if (!endpoint) return { ok: false, detail: new ProviderNotConfiguredError(role).message };
    // Its one-token completion, when it needs one, is a small document like the model list.
    const sdk = withReplyBound(await this.#sdkFor(endpoint), METADATA_MAX_BYTES);
    return probeEndpoint(sdk, endpoint, { timeoutMs: options.timeoutMs ?? PROBE_TIMEOUT_MS, signal: options.signal });
  }

  /**
   * The role's context window: the configured figure, else what its provider tells (discovered
   * once a minute at most per endpoint and model; never throws — unknown is `tokens: null`).
   */
  async contextWindow(role: Role, configured: number | null, options: { signal?: AbortSignal } = {}): Promise<ContextWindow> {
    const endpoint = this.#endpoints[role];
    if (configured !== null || !endpoint) return resolveContextWindow(configured, endpoint);
    const key = `${sdkKey(endpoint)}\u0000${endpoint.model}`;
    const cached = this.#windows.get(key);
    if (cached && cached.until > Date.now()) return cached.window;
    const window = resolveContextWindow(null, endpoint, options.signal ? { signal: options.signal } : {});
    this.#windows.set(key, { window, until: Date.now() + WINDOW_CACHE_MS });
    return window;
  }

  isConfigured(role: Role): boolean {
    return this.#endpoints[role] !== undefined;
  }

  /** Where a role goes, without its key; null when the role is not configured. */
  describeEndpoint(role: Role): { baseUrl: string; model: string } | null {
    const endpoint = this.#endpoints[role];
    return endpoint ? { baseUrl: displayUrl(endpoint.baseUrl), model: endpoint.model } : null;
  }

  /** Number of SDK clients built (by the first call through each): one per distinct (base URL, key) pair. */
  get sdkClientCount(): number {
    return this.#sdk.size;
  }

  async chat(role: Role, request: ChatRequest): Promise<ChatResult> {
    const endpoint = this.#endpoints[role];
    if (!endpoint) throw new ProviderNotConfiguredError(role);
    const sdk = withReplyBound(await this.#sdkFor(endpoint), replyMaxBytes(request.contextWindow));
    const { signal } = request;
    const timeout = request.timeoutMs ?? this.#timeoutMs;
    const params = buildParams(endpoint, request);
    const policy = this.#policy;
    const scrub = (text: string) => scrubSecret(text, endpoint.apiKey);
    const where = { model: endpoint.model, endpoint: displayUrl(endpoint.baseUrl) };

    const started = performance.now();
    let waited = 0;
    let usage: CallUsage = ZERO_USAGE;
    let costUsd: number | null = null;

    for (let attempt = 1; ; attempt++) {
      signal?.throwIfAborted();
      const { reply, detail, detailCode, failure } = await attemptOnce(sdk, params, signal, { timeout, scrub, where });
      if (reply) {
        usage = addUsage(usage, reply.usage);
        if (reply.costUsd !== null) costUsd = (costUsd ?? 0) + reply.costUsd;
      }

      const usable = reply !== null && (reply.health === 'ok' || (reply.health === 'empty' && !policy.retryEmpty));
      // What this attempt's trouble is and whether another can pass; null for a usable reply.
      const what = reply ? (usable ? null : scrub(describeUnhealthy(reply, detail))) : (failure?.description ?? 'unknown error');
      // An unhealthy 200 reply is retried unless its error's words say it cannot pass.
      const verdict: FailureClass | null = reply
        ? usable
          ? null
          : classifyFailure({ source: 'reply', message: detail ?? '', code: detailCode }, where)
        : failure;
      const retryable = verdict !== null && verdict.retry !== 'fail';
      const attemptsAllowed = verdict?.retry === 'retry_once' ? Math.min(2, policy.maxAttempts) : policy.maxAttempts;
      // A provider that asks for a longer wait than we are willing to give is honoured by giving
      // up, not by knocking again early and earning another 429.
      const askedTooLong = failure?.retryAfterMs != null && failure.retryAfterMs > policy.retryAfterCapMs;
      const backoff = failure?.retryAfterMs ?? backoffDelay(attempt, policy, this.#random);
      const delay = verdict?.retry === 'retry_once' ? Math.min(backoff, UNREACHABLE_RETRY_DELAY_MS) : backoff;
      const willRetry = retryable && !askedTooLong && attempt < attemptsAllowed && waited + delay <= policy.maxTotalWaitMs;
      if (willRetry) {
        const reason = bound(what ?? 'unknown error');
        request.onRetry?.({ role, model: endpoint.model, attempt, maxAttempts: attemptsAllowed, waitMs: delay, reason, status: failure?.status ?? null });
        this.#logger?.warn(
          `${role} model "${endpoint.model}" at ${where.endpoint}: attempt ${attempt} of ${attemptsAllowed} failed, retrying in ${formatWait(delay)}: ${reason}`,
          {
            role,
            model: endpoint.model,
            attempt,
            waitMs: delay,
            status: failure?.status ?? null,
          },
        );
        await this.#sleep(delay, signal);
        waited += delay;
        continue;
      }

      // Out of retries with an empty reply: empty is the caller's to handle, not a provider fault.
      if (reply && (usable || reply.health === 'empty')) {
        return {
          message: reply.message,
          usage,
          finishReason: reply.finishReason,
          health: reply.health === 'ok' ? 'ok' : 'empty',
          usageReported: reply.usageReported,
          filtered: reply.filtered,
          costUsd,
          model: endpoint.model,
          attempts: attempt,
          durationMs: Math.round(performance.now() - started),
        };
      }

      const cause = reply ? new UnhealthyReplyError(reply.health as Exclude<ReplyHealth, 'ok'>, reply.finishReason, detail) : failure?.cause;
      const reason = bound(what ?? 'unknown error');
      const fix = verdict?.fix ?? null;
      const why = !retryable
        ? 'not retried: retrying cannot fix it'
        : askedTooLong
          ? `the provider asked to wait ${failure?.retryAfterMs} ms, longer than the ${policy.retryAfterCapMs} ms Tilth waits`
          : attempt >= attemptsAllowed
            ? `gave up after ${attempt} attempt(s)`
            : `gave up after ${attempt} attempt(s): waiting another ${delay} ms would pass the retry budget of ${policy.maxTotalWaitMs} ms`;
      throw new ProviderFailureError(scrub(`The ${role} model "${endpoint.model}" at ${where.endpoint} failed: ${reason} (${why}).${fix ? ` ${fix}` : ''}`), {
        role,
        model: endpoint.model,
        endpoint: where.endpoint,
        attempts: attempt,
        health: reply?.health ?? null,
        status: failure?.status ?? null,
        retryable,
        kind: verdict?.kind ?? 'unexpected',
        reason,
        fix: fix === null ? null : scrub(fix),
        cause,
      });
    }
  }

  /** The SDK client of an endpoint, made by its first call. */
  async #sdkFor(endpoint: RoleEndpoint): Promise<OpenAI> {
    const key = sdkKey(endpoint);
    const { default: OpenAI } = await loadSdk();
    let sdk = this.#sdk.get(key);
    if (!sdk) {
      sdk = new OpenAI({
        baseURL: endpoint.baseUrl,
        // Local servers need no key, but the SDK refuses to start without one.
        apiKey: endpoint.apiKey || 'none',
        maxRetries: 0,
        timeout: this.#timeoutMs,
        // Otherwise the SDK picks OPENAI_ORG_ID / OPENAI_PROJECT_ID from the environment and
        // sends them to whatever provider this role uses.
        organization: null,
        project: null,
        // Every answer read under a size bound (see bounded-answer.ts); the SDK drops error
        // bodies it does not recognise, keepErrorBodies keeps them (see failure.ts).
        fetch: keepErrorBodies(boundAnswers()),
      });
      this.#sdk.set(key, sdk);
    }
    return sdk;
  }
}

/** The SDK client reading completions up to `replyBytes` instead of COMPLETION_MAX_BYTES. */
function withReplyBound(sdk: OpenAI, replyBytes: number): OpenAI {
  return replyBytes === COMPLETION_MAX_BYTES ? sdk : sdk.withOptions({ fetch: keepErrorBodies(boundAnswers(replyBytes)) });
}

function sdkKey(endpoint: RoleEndpoint): string {
  return `${endpoint.baseUrl}\u0000${endpoint.apiKey}`;
}

type AttemptOutcome = {
  reply: NormalisedReply | null;
  /** For an unhealthy reply, what its error said, in the provider's words; null otherwise. */
  detail: string | null;
  /** That error's code, when it had one ("tool_use_failed", "context_length_exceeded"). */
  detailCode: string | null;
  failure: AttemptFailure | null;
};

type AttemptContext = { timeout: number; scrub: (text: string) => string; where: FailureWhere };

/** One request. Rejects only when the caller's signal aborts; every other problem is a failure. */
async function attemptOnce(
  sdk: OpenAI,
  params: ChatCompletionCreateParamsNonStreaming,
  signal: AbortSignal | undefined,
  { timeout, scrub, where }: AttemptContext,
): Promise<AttemptOutcome> {
  // Our own timer as well as the SDK's: the SDK's stops at the response headers, and some
  // providers send headers at once and then stall the body.
  const timer = new AbortController();
  const timeoutId = setTimeout(() => timer.abort(), timeout);
  try {
    const attemptSignal = signal ? AbortSignal.any([signal, timer.signal]) : timer.signal;
    const completion = await sdk.chat.completions.create(params, { signal: attemptSignal, timeout });
    const reply = normaliseCompletion(completion);
    return { reply, ...unhealthyDetail(reply, completion), failure: null };
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    const failure = timer.signal.aborted ? timeoutFailure(timeout, err) : describeFailure(err, { ...where, timeoutMs: timeout, scrub });
    return { reply: null, detail: null, detailCode: null, failure };
  } finally {
    clearTimeout(timeoutId);
  }
}

function buildParams(endpoint: RoleEndpoint, request: ChatRequest): ChatCompletionCreateParamsNonStreaming {
  const params: ChatCompletionCreateParamsNonStreaming & { reasoning?: { enabled: boolean } } = {
    model: endpoint.model,
    messages: request.messages,
  };
  if (request.tools && request.tools.length > 0) params.tools = request.tools;
  if (request.toolChoice !== undefined) params.tool_choice = request.toolChoice;
  if (isOpenRouter(endpoint.baseUrl)) params.reasoning = { enabled: true };
  return params;
}

/**
 * The error inside a 200 reply in the provider's own words. `reply.detail` keeps only
 * `error.message`; OpenRouter's useful part is in `error.metadata.raw` and `provider_name`.
 */
function unhealthyDetail(reply: NormalisedReply, completion: unknown): { detail: string | null; detailCode: string | null } {
  const words = reply.health === 'error_body' || reply.health === 'error_finish' ? readReplyError(completion) : null;
  return { detail: words?.message ?? reply.detail, detailCode: words?.code ?? null };
}

function describeUnhealthy(reply: NormalisedReply, detail: string | null): string {
  // Checked first, whatever the health: a filtered reply is often empty, and "empty reply"
  // would send the user looking for a model problem.
  if (reply.finishReason === 'content_filter')
    return `the provider's content filter blocked the reply (finish_reason "content_filter")${detail ? `: ${detail}` : ''}`;
  switch (reply.health) {
    case 'ok':
      return 'ok';
    case 'empty':
      return 'empty reply (no content and no tool calls)';
    case 'error_finish':
      return `reply finished with an error${detail ? `: ${detail}` : ` (finish_reason "${reply.finishReason}")`}`;
    case 'no_choices':
      return 'reply had no choices';
    case 'error_body':
      return `reply carried an error${detail ? `: ${detail}` : ''}`;
    default:
      return `unusable reply (${String(reply.health)})`;
  }
}

function formatWait(ms: number): string {
  return ms >= 1_000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}
