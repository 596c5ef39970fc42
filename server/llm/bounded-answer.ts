/**
 * Every answer from a provider is read under a size bound as well as a time bound.
 *
 * A provider, or a proxy in front of it, can answer with a body that never ends: a model list
 * that streams forever took the server past 3 GiB. So no caller reads a provider's body whole:
 * each goes through `boundedResponse` (or `readBounded` on top of it), which counts the bytes as
 * they arrive and, past the bound, cancels the body — which closes the connection — and fails
 * with one sentence saying so. The same reader stops when the request's signal aborts: once a
 * garbage collection has run, Node's fetch with `redirect: 'error'` no longer ends a body that is
 * still streaming when its signal aborts, so the time bound is enforced here, not left to fetch.
 *
 * The bounds: metadata (a server's props, an error body) 1 MiB; a model list 8 MiB, since
 * OpenRouter's lists 400+ models with descriptions and passes 1 MiB; a completion what the
 * model can write, with generous slack (see `replyMaxBytes`).
 */

const MIB = 1024 * 1024;

/** A server's props, Ollama's show and ps, an error body: small documents. */
export const METADATA_MAX_BYTES = MIB;
/** `GET /models`: the largest metadata a provider sends. */
export const MODEL_LIST_MAX_BYTES = 8 * MIB;
/** A completion when nothing is known of the model's window; also the most any window earns. */
export const COMPLETION_MAX_BYTES = 32 * MIB;
/**
 * Bytes allowed per token of the window: a token is a few characters, JSON escapes may make one
 * character six bytes, OpenRouter repeats the reasoning in `reasoning_details`, and a streamed
 * reply wraps every token in a chunk of its own — 128 covers all of that several times over.
 */
const BYTES_PER_TOKEN = 128;

/**
 * The bound on one completion: its reply (reasoning included) cannot hold more tokens than the
 * model's context window, so that window with generous slack, never less than the metadata bound
 * and never more than COMPLETION_MAX_BYTES, which also applies when the window is unknown.
 */
export function replyMaxBytes(windowTokens: number | null | undefined): number {
  if (!windowTokens || windowTokens <= 0) return COMPLETION_MAX_BYTES;
  return Math.min(COMPLETION_MAX_BYTES, Math.max(METADATA_MAX_BYTES, windowTokens * BYTES_PER_TOKEN));
}

/** The bound on a metadata answer from `url`: a model list's, or that of any other document. */
export function metadataMaxBytes(url: string | URL): number {
  return new URL(url).pathname.replace(/\/+$/, '').endsWith('/models') ? MODEL_LIST_MAX_BYTES : METADATA_MAX_BYTES;
}

/** An answer that passed its bound; the message is the sentence the user sees. */
export class AnswerTooLargeError extends Error {
  constructor(
    /** "GET http://127.0.0.1:8080/v1/models": no query, no credentials. */
    readonly request: string,
    readonly limit: number,
    /** The HTTP status the answer came with. */
    readonly status: number,
  ) {
    super(`The provider's answer to ${request} passed ${formatBytes(limit)}; Tilth stopped reading it.`);
    this.name = 'AnswerTooLargeError';
  }
}

export type AnswerBound = {
  limit: number;
  /** What was asked, as `requestLabel` gives it, for the sentence. */
  request: string;
  /** The request's own signal: reading stops when it aborts, with its reason. */
  signal?: AbortSignal | null | undefined;
};

/** "POST http://host/v1/chat/completions": what the sentence names; the query may carry a key. */
export function requestLabel(method: string | undefined, url: string | URL): string {
  let shown: string;
  try {
    const parsed = new URL(url);
    shown = `${parsed.origin}${parsed.pathname}`;
  } catch {
    shown = '(invalid URL)';
  }
  return `${(method ?? 'GET').toUpperCase()} ${shown}`;
}

/**
 * `response` with a body that ends in AnswerTooLargeError past `bound.limit` bytes (at once when
 * Content-Length says so) or in the signal's reason when it aborts. Either way the original body
 * is cancelled, which releases the connection; at most one chunk past the limit is ever held.
 */
export function boundedResponse(response: Response, bound: AnswerBound): Response {
  const source = response.body;
  if (source === null) return response;
  const { limit, signal } = bound;
  const reader = source.getReader();
  let received = 0;
  let settled = false;
  let output: ReadableStreamDefaultController<Uint8Array> | null = null;

  const onAbort = () => fail(signal?.reason);
  const settle = () => {
    settled = true;
    signal?.removeEventListener('abort', onAbort);
  };
  function fail(reason: unknown): void {
    if (settled) return;
    settle();
    reader.cancel(reason).catch(() => undefined);
    output?.error(reason);
  }

  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      output = controller;
      const declared = Number(response.headers.get('content-length'));
      if (Number.isFinite(declared) && declared > limit) return fail(new AnswerTooLargeError(bound.request, limit, response.status));
      if (signal?.aborted) return fail(signal.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
    },
    async pull(controller) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (err) {
        return fail(err);
      }
      if (settled) return;
      if (chunk.done) {
        settle();
        controller.close();
        return;
      }
      received += chunk.value.byteLength;
      if (received > limit) return fail(new AnswerTooLargeError(bound.request, limit, response.status));
      controller.enqueue(chunk.value);
    },
    cancel(reason) {
      settle();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** The body as text, at most `bound.limit` bytes of it; rejects with AnswerTooLargeError past that. */
export function readBounded(response: Response, bound: AnswerBound): Promise<string> {
  return boundedResponse(response, bound).text();
}

/**
 * A fetch for the OpenAI SDK whose every answer is bounded: a completion by `replyBytes`, a
 * model list by MODEL_LIST_MAX_BYTES, anything else — error bodies included — by
 * METADATA_MAX_BYTES. The SDK reads the body itself (whole, or as a stream of events); either way
 * it reads it through the bound, under the signal the SDK gave the request.
 */
export function boundAnswers(replyBytes: number = COMPLETION_MAX_BYTES, inner: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    const url = input instanceof Request ? input.url : String(input);
    const completion = new URL(url).pathname.replace(/\/+$/, '').endsWith('/chat/completions');
    const limit = response.status >= 400 ? METADATA_MAX_BYTES : completion ? replyBytes : metadataMaxBytes(url);
    return boundedResponse(response, {
      limit,
      request: requestLabel(init?.method ?? (input instanceof Request ? input.method : 'GET'), url),
      signal: init?.signal,
    });
  };
}

function formatBytes(bytes: number): string {
  if (bytes >= MIB && bytes % MIB === 0) return `${bytes / MIB} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
