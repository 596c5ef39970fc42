/**
 * What a failed request to a provider says, safe to show, and whether trying again can help.
 *
 * The text is the provider's own words (see `error-body.ts`), connection errors down to their
 * root cause, never the key or URL credentials. `classifyFailure` decides, from those words and
 * the status, between retrying (rate limits, server errors, timeouts, resets, a model's botched
 * tool call), one quick retry (nothing answers at that address), and failing at once with a
 * sentence saying what to change (a server started without the flags tools need, a model that
 * cannot call tools or does not exist, a refused key). Shared by model calls (client.ts) and
 * connection tests (probe.ts).
 */
import type { APIError } from 'openai';
import { loadedSdk } from './sdk.ts';
import { AnswerTooLargeError } from './bounded-answer.ts';
import { bound, readErrorBody, readErrorValue, type ErrorBodyFacts } from './error-body.ts';
import { isRetryableStatus, retryAfterMs } from './retry.ts';

export type FailureKind =
  | 'rate_limited'
  | 'server_error'
  | 'timeout'
  | 'connection_lost'
  | 'tool_call_failed'
  | 'unhealthy_reply'
  | 'unreachable'
  | 'needs_jinja'
  | 'needs_tool_parser'
  | 'no_tool_support'
  | 'unknown_model'
  | 'auth'
  | 'no_credits'
  | 'context_overflow'
  | 'wrong_endpoint'
  | 'tls'
  | 'bad_request'
  | 'oversized_answer'
  | 'unexpected';

/**
 * `retry`: the policy's attempts and backoff; `retry_once`: one more try after a short wait
 * (a refused connection is either a server still starting or a wrong address, and six tries over
 * half a minute help neither); `fail`: retrying cannot fix it.
 */
export type RetryRule = 'retry' | 'retry_once' | 'fail';

export type FailureClass = {
  kind: FailureKind;
  retry: RetryRule;
  /** One sentence on what to change, when Tilth knows; null otherwise. */
  fix: string | null;
};

/** What is known about one failed attempt, as plain data, so the classification is a pure function. */
export type FailureFacts =
  | { source: 'http'; status: number; message: string; code: string | null; type: string | null }
  /** A 200 reply carrying an error (OpenRouter's upstream failures) or finishing with one. */
  | { source: 'reply'; message: string; code: string | null }
  | { source: 'connection'; errno: string | null; message: string }
  | { source: 'timeout' }
  /** A 2xx answer that passed its size bound (see bounded-answer.ts). */
  | { source: 'oversized' }
  | { source: 'other'; message: string };

/** Where the call went, for the sentences. `endpoint` is already safe to show (see displayUrl). */
export type FailureWhere = { model: string; endpoint: string };

export type AttemptFailure = FailureClass & {
  status: number | null;
  retryAfterMs: number | null;
  /** "HTTP 400: <the provider's words>", "cannot reach …", "no complete answer within …"; bounded, scrubbed. */
  description: string;
  cause: unknown;
};

/** Name and address errors: nothing is listening there, or the name does not resolve. */
const UNREACHABLE_ERRNOS = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);
const TLS_ERRNO = /^(CERT_|UNABLE_TO_|SELF_SIGNED|DEPTH_ZERO|ERR_TLS_|ERR_SSL_|HOSTNAME_MISMATCH)/;

/**
 * Decides what a failure means. Message rules come before status rules: llama.cpp reports a
 * missing `--jinja` as a 500 and older builds report an overlong prompt as a 500, and neither
 * passes on a retry. Sources for each message are cited in failure.test.ts.
 */
export function classifyFailure(facts: FailureFacts, where: FailureWhere): FailureClass {
  switch (facts.source) {
    case 'timeout':
      return { kind: 'timeout', retry: 'retry', fix: null };
    // Not retried: the bound is many times what any model writes, so this is a broken server or
    // proxy, which sends the same again — and each attempt reads, and may be billed, up to it.
    case 'oversized':
      return { kind: 'oversized_answer', retry: 'fail', fix: 'No provider answers with that much: check the provider, or a proxy in front of it.' };
    case 'other':
      return { kind: 'unexpected', retry: 'fail', fix: null };
    case 'connection':
      return classifyConnection(facts.errno, facts.message, where);
    case 'reply':
      return classifyByMessage(facts.message, [facts.code], where) ?? { kind: 'unhealthy_reply', retry: 'retry', fix: null };
    case 'http':
      // A rate limit is a rate limit whatever its wording ("tokens per minute" is not a context problem).
      if (facts.status === 429) return { kind: 'rate_limited', retry: 'retry', fix: null };
      return classifyByMessage(facts.message, [facts.code, facts.type], where) ?? classifyByStatus(facts.status, facts.message, where);
  }
}

function classifyConnection(errno: string | null, message: string, where: FailureWhere): FailureClass {
  // fetch refuses some ports outright ("bad port"): as hopeless as a refused connection.
  if ((errno && UNREACHABLE_ERRNOS.has(errno)) || /\bbad port\b/i.test(message)) {
    return { kind: 'unreachable', retry: 'retry_once', fix: 'Start the model server, or correct the base URL.' };
  }
  if (errno && TLS_ERRNO.test(errno)) {
    return {
      kind: 'tls',
      retry: 'fail',
      fix: `The TLS certificate of ${where.endpoint} is not trusted: use the server's http:// address if it is local, or add its CA with NODE_EXTRA_CA_CERTS.`,
    };
  }
  // Resets, closed sockets, broken pipes: the next attempt usually gets through.
  return { kind: 'connection_lost', retry: 'retry', fix: null };
}

function classifyByMessage(message: string, codes: readonly (string | null)[], where: FailureWhere): FailureClass | null {
  const text = message.toLowerCase();
  const coded = (code: string) => codes.includes(code);
  // Groq answers 400 when the model botched a tool call ("tool call validation failed: …" too);
  // the same request usually passes next time. First, so its wording cannot pass for another rule.
  if (coded('tool_use_failed') || text.includes('failed to call a function')) {
    return { kind: 'tool_call_failed', retry: 'retry', fix: null };
  }
  if (/--jinja\b/.test(text)) {
    return { kind: 'needs_jinja', retry: 'fail', fix: 'Restart llama-server with --jinja: it only accepts tools with its Jinja chat templates.' };
  }
  if (text.includes('--enable-auto-tool-choice') || text.includes('--tool-call-parser')) {
    return {
      kind: 'needs_tool_parser',
      retry: 'fail',
      fix: 'Restart vLLM with --enable-auto-tool-choice and the --tool-call-parser for this model (hermes for Qwen and Hermes, llama3_json for Llama 3.1+, mistral for Mistral).',
    };
  }
  if (/does not support (tools|function calling)|support tool use|tools? (are|is) not supported/.test(text)) {
    return { kind: 'no_tool_support', retry: 'fail', fix: `"${where.model}" cannot call tools, and Tilth's agents need them: pick a model with tool support.` };
  }
  if (
    coded('context_length_exceeded') ||
    coded('exceed_context_size_error') ||
    /context (length|size|window)|maximum context|prompt is too long|too many tokens/.test(text)
  ) {
    return {
      kind: 'context_overflow',
      retry: 'fail',
      fix: "The conversation is longer than the model's context window: use a model with a larger window, or give the server a larger context (llama-server -c, Ollama num_ctx, vLLM --max-model-len).",
    };
  }
  if (coded('model_not_found') || /\bmodel\b.{0,120}\b(not found|does not exist)|not a valid model id|no such model/.test(text)) {
    const pull = text.includes('pull');
    return {
      kind: 'unknown_model',
      retry: 'fail',
      fix: pull
        ? `Ollama has no model "${where.model}": run "ollama pull ${where.model}" where Ollama runs, or pick one "ollama list" shows.`
        : `The provider has no model "${where.model}" for this key: check the name against its model list (Test connection in settings shows whether it is listed).`,
    };
  }
  return null;
}

function classifyByStatus(status: number, message: string, where: FailureWhere): FailureClass {
  if (isRetryableStatus(status)) return { kind: 'server_error', retry: 'retry', fix: null };
  if (status === 401 || (status === 403 && !/flagged|moderation/i.test(message))) {
    return { kind: 'auth', retry: 'fail', fix: `Check the API key set for this role and what it may use: ${where.endpoint} refused it.` };
  }
  if (status === 402) return { kind: 'no_credits', retry: 'fail', fix: 'The account behind this key is out of credits: add credits, or use another key.' };
  // A wrong path gets the web server's bare "Not Found" (or "Cannot POST …"), not a provider's sentence.
  if (
    (status === 404 || status === 405) &&
    (message === '' || /^(\d{3}:? )?(page |file )?not found\.?$|method not allowed|^cannot (post|get) /i.test(message))
  ) {
    return {
      kind: 'wrong_endpoint',
      retry: 'fail',
      fix: `Check the base URL ${where.endpoint}: it should be the API root with /chat/completions under it (often ending in /v1).`,
    };
  }
  return { kind: 'bad_request', retry: 'fail', fix: null };
}

/** A base URL fit for messages and logs: no user:password, no query string. */
export function displayUrl(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return '(invalid URL)';
  }
}

export type DescribeContext = FailureWhere & { timeoutMs: number; scrub: (text: string) => string };

export function describeFailure(err: unknown, context: DescribeContext): AttemptFailure {
  const { scrub } = context;
  if (err instanceof AnswerTooLargeError) {
    const verdict = classifyFailure({ source: 'oversized' }, context);
    return { ...verdict, status: err.status, retryAfterMs: null, description: scrub(err.message.replace(/\.$/, '')), cause: err };
  }
  // Only a loaded SDK throws its errors. Order matters: the timeout error is a connection error,
  // which is an APIError.
  const sdk = loadedSdk();
  if (sdk && err instanceof sdk.APIConnectionTimeoutError) return timeoutFailure(context.timeoutMs, err);
  if (sdk && err instanceof sdk.APIConnectionError) {
    const { errno, text } = rootCause(err);
    const verdict = classifyFailure({ source: 'connection', errno, message: text }, context);
    const description = verdict.kind === 'unreachable' ? `cannot reach ${context.endpoint} (${text})` : `connection failed: ${text}`;
    return { ...verdict, status: null, retryAfterMs: null, description: scrub(bound(description)), cause: err };
  }
  if (sdk && err instanceof sdk.APIError && typeof err.status === 'number') {
    const body = providerWords(err);
    const verdict = classifyFailure({ source: 'http', status: err.status, message: body.message, code: body.code, type: body.type }, context);
    const description = body.message ? `HTTP ${err.status}: ${body.message}` : `HTTP ${err.status} with an empty body`;
    return { ...verdict, status: err.status, retryAfterMs: retryAfterMs(err.headers), description: scrub(description), cause: err };
  }
  const message = err instanceof Error ? err.message : String(err);
  return {
    ...classifyFailure({ source: 'other', message }, context),
    status: null,
    retryAfterMs: null,
    description: scrub(bound(`unexpected error: ${message}`)),
    cause: err,
  };
}

export function timeoutFailure(timeoutMs: number, cause: unknown): AttemptFailure {
  return { kind: 'timeout', retry: 'retry', fix: null, status: null, retryAfterMs: null, description: `no complete answer within ${timeoutMs} ms`, cause };
}

/**
 * The SDK keeps only `body.error` of a JSON error body, so a top-level `{message}` (vLLM,
 * Mistral) or `{detail}` becomes "400 status code (no body)" and Ollama's `{error: "text"}` comes
 * out JSON-quoted. `keepErrorBodies` records the raw body; `err.error` and `err.message` are
 * the fallback for an error the SDK built without it.
 */
function providerWords(err: APIError): ErrorBodyFacts {
  const raw = err.headers ? errorBodies.get(err.headers) : undefined;
  if (raw !== undefined) return readErrorBody(raw, err.headers?.get('content-type'));
  if (err.error !== undefined && err.error !== null) return readErrorValue(err.error);
  return { message: bound(err.message.replace(/^\d{3}\s+/, '').replace(/^status code \(no body\)$/, '')), code: null, type: null, provider: null };
}

/**
 * Raw error bodies by the headers object the SDK's APIError carries. The SDK builds the error
 * from `response.headers` of the Response our fetch returns, so the key is that very object; a
 * WeakMap lets the text go with the error.
 */
const errorBodies = new WeakMap<Headers, string>();

/**
 * A fetch for the SDK that reads each error response's body once, keeps the text for
 * `describeFailure`, and hands the SDK an identical response to build its error from.
 * Successful responses pass through untouched (and may stream). `inner` bounds the bodies
 * (`boundAnswers`); an error body past its bound is kept as the sentence saying so, so the
 * failure is still classified by its status.
 */
export function keepErrorBodies(inner: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (response.status < 400) return response;
    let text: string;
    let headers = response.headers;
    try {
      text = await response.text();
    } catch (err) {
      if (!(err instanceof AnswerTooLargeError)) throw err;
      text = err.message;
      // The sentence is Tilth's own plain text, whatever the provider's body was (an HTML page…).
      headers = new Headers(response.headers);
      headers.set('content-type', 'text/plain; charset=utf-8');
      headers.delete('content-length');
    }
    const copy = new Response(text, { status: response.status, statusText: response.statusText, headers });
    errorBodies.set(copy.headers, text);
    return copy;
  };
}

/**
 * The SDK's "Connection error." wraps fetch's "fetch failed", which wraps what actually happened
 * ("connect ECONNREFUSED 127.0.0.1:1", "getaddrinfo ENOTFOUND …"): name the causes, not the
 * wrappers, and find the errno. Happy-eyeballs failures arrive as an AggregateError whose own
 * message is empty; its first inner error says it.
 */
function rootCause(err: Error): { errno: string | null; text: string } {
  const messages: string[] = [];
  let errno: string | null = null;
  for (let cause = err.cause; cause instanceof Error && messages.length < 5; cause = cause.cause) {
    const inner = cause instanceof AggregateError && cause.errors[0] instanceof Error ? cause.errors[0] : null;
    const message = cause.message || inner?.message || '';
    if (message) messages.push(message);
    const code = (cause as { code?: unknown }).code ?? (inner as { code?: unknown } | null)?.code;
    if (errno === null && typeof code === 'string') errno = code;
  }
  // fetch's own "fetch failed" says nothing once there is a cause under it.
  const telling = messages.length > 1 ? messages.filter((m) => m !== 'fetch failed') : messages;
  return { errno, text: telling.length > 0 ? telling.join(': ') : err.message };
}

/** Removes the key and any `user:password@` in URLs (the SDK quotes the URL in some errors). */
export function scrubSecret(text: string, secret: string): string {
  const withoutUserinfo = text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^/\s@]+@/gi, '$1');
  // Short "keys" like "none" or "x" are placeholders for local servers, not secrets.
  return secret.length >= 8 ? withoutUserinfo.split(secret).join('[redacted]') : withoutUserinfo;
}
