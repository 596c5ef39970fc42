/**
 * The provider's own words from an error body, whatever shape it came in, bounded so that one
 * odd reply cannot flood an event, a log line or the settings page.
 *
 * Providers disagree on where the message goes (sources in error-body.test.ts, one per shape):
 * OpenAI `{error: {message, type, code}}`; vLLM and Mistral a top-level
 * `{object: "error", message, type, code}`; FastAPI-style servers `{detail}` (a string, or a
 * list of `{loc, msg}`); Ollama `{error: "text"}`; Gemini a one-element array around
 * `{error: {code, message, status}}`; OpenRouter `{error: {message, code, metadata: {raw,
 * provider_name}}}` where `raw` is the upstream's body, often JSON inside a string; proxies an
 * HTML page; small servers plain text.
 *
 * Pure functions: the SDK's error object loses most of these (see `failure.ts`).
 */

/** The most any extracted message keeps, in characters. */
export const MAX_REASON_CHARS = 500;

export type ErrorBodyFacts = {
  /** What the provider said, on one line, at most MAX_REASON_CHARS; '' when it said nothing. */
  message: string;
  /** `code` as text when the body has one ("tool_use_failed", "model_not_found", "400"). */
  code: string | null;
  /** `type`, or Gemini's `status` ("invalid_request_error", "INVALID_ARGUMENT"). */
  type: string | null;
  /** OpenRouter's `metadata.provider_name`: the upstream that failed. */
  provider: string | null;
};

const NOTHING: ErrorBodyFacts = { message: '', code: null, type: null, provider: null };
/** Deep enough for OpenRouter's raw-in-a-string-in-an-object; stops a hostile body recursing forever. */
const MAX_DEPTH = 6;

/** Reads a raw response body: JSON of any known shape, an HTML page (its title only), or text. */
export function readErrorBody(text: string, contentType?: string | null): ErrorBodyFacts {
  const trimmed = text.trim();
  if (trimmed === '') return NOTHING;
  const parsed = parseJson(trimmed);
  if (parsed !== undefined) return readErrorValue(parsed);
  if (isHtml(trimmed, contentType)) return { ...NOTHING, message: htmlTitle(trimmed) };
  return { ...NOTHING, message: bound(trimmed) };
}

/** Reads an already-parsed body, or the `error` field of a 200 reply. */
export function readErrorValue(value: unknown): ErrorBodyFacts {
  const facts = fromValue(value, 0);
  return { ...facts, message: bound(facts.message) };
}

/**
 * The error a 200 reply carries, in the provider's words: `error` at the top (OpenRouter's
 * upstream failures) or inside the first choice; null when there is none.
 */
export function readReplyError(completion: unknown): ErrorBodyFacts | null {
  if (!isRecord(completion)) return null;
  const choice = Array.isArray(completion.choices) && isRecord(completion.choices[0]) ? completion.choices[0] : {};
  const error = completion.error ?? choice.error;
  if (error === undefined || error === null) return null;
  const facts = readErrorValue(error);
  return facts.message === '' ? null : facts;
}

/** One line, at most `max` characters, with an ellipsis when cut. */
export function bound(text: string, max: number = MAX_REASON_CHARS): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1).trimEnd()}…`;
}

function fromValue(value: unknown, depth: number): ErrorBodyFacts {
  if (depth > MAX_DEPTH) return { ...NOTHING, message: shortJson(value) };
  if (typeof value === 'string') return fromString(value, depth);
  if (Array.isArray(value)) return fromArray(value, depth);
  if (!isRecord(value)) return value === null || value === undefined ? NOTHING : { ...NOTHING, message: String(value) };

  // `{error: …}` wraps the real thing (OpenAI, Ollama, OpenRouter, llama.cpp, Gemini).
  if (value.error !== undefined && value.error !== null && value.error !== false) {
    const inner = fromValue(value.error, depth + 1);
    if (inner.message !== '') return withCodes(inner, value);
  }
  const own = ownMessage(value, depth);
  const facts = withCodes({ ...NOTHING, message: own }, value);
  return withUpstream(facts, value, depth);
}

/** A message field, in the order providers use them. */
function ownMessage(value: Record<string, unknown>, depth: number): string {
  for (const key of ['message', 'detail', 'msg', 'error_message', 'title']) {
    const field = value[key];
    if (field === undefined || field === null || field === '') continue;
    const facts = fromValue(field, depth + 1);
    if (facts.message !== '') return facts.message;
  }
  // Nothing recognisable: show the object itself rather than nothing at all.
  return Object.keys(value).length > 0 ? shortJson(value) : '';
}

/**
 * OpenRouter's generic "Provider returned error" says nothing; the upstream's own body is in
 * `metadata.raw` and its name in `metadata.provider_name`. Moderation blocks list `reasons`.
 */
function withUpstream(facts: ErrorBodyFacts, value: Record<string, unknown>, depth: number): ErrorBodyFacts {
  const metadata = value.metadata;
  if (!isRecord(metadata)) return facts;
  const provider = typeof metadata.provider_name === 'string' && metadata.provider_name.trim() !== '' ? metadata.provider_name.trim() : null;
  const raw = metadata.raw === undefined || metadata.raw === null ? NOTHING : fromValue(metadata.raw, depth + 1);
  const reasons = Array.isArray(metadata.reasons) ? metadata.reasons.filter((r): r is string => typeof r === 'string') : [];
  const extra = [raw.message && (provider ? `${provider}: ${raw.message}` : raw.message), reasons.length > 0 ? `flagged for ${reasons.join(', ')}` : '']
    .filter(Boolean)
    .join('; ');
  return {
    message: extra ? (facts.message ? `${facts.message} (${extra})` : extra) : facts.message,
    // The upstream's code says more than OpenRouter's numeric one (Groq's tool_use_failed, say).
    code: raw.code ?? facts.code,
    type: raw.type ?? facts.type,
    provider,
  };
}

function withCodes(facts: ErrorBodyFacts, value: Record<string, unknown>): ErrorBodyFacts {
  return {
    ...facts,
    code: facts.code ?? codeText(value.code),
    type: facts.type ?? codeText(value.type) ?? codeText(value.status),
  };
}

function fromString(text: string, depth: number): ErrorBodyFacts {
  const trimmed = text.trim();
  // JSON inside a string: OpenRouter's metadata.raw, Gemini's message, proxies that re-wrap.
  const parsed = /^[[{]/.test(trimmed) ? parseJson(trimmed) : undefined;
  if (parsed !== undefined) {
    const inner = fromValue(parsed, depth + 1);
    if (inner.message !== '') return inner;
  }
  if (isHtml(trimmed, null)) return { ...NOTHING, message: htmlTitle(trimmed) };
  return { ...NOTHING, message: trimmed };
}

/**
 * FastAPI's validation errors are a list of `{loc, msg}`: "body.messages.2.content: none is not
 * an allowed value". Gemini wraps its error in a one-element list.
 */
function fromArray(items: unknown[], depth: number): ErrorBodyFacts {
  if (items.length === 0) return NOTHING;
  if (items.every((item) => isRecord(item) && typeof item.msg === 'string')) {
    const parts = (items as Record<string, unknown>[]).slice(0, 3).map((item) => {
      const loc = Array.isArray(item.loc) ? item.loc.map(String).join('.') : '';
      return loc ? `${loc}: ${String(item.msg)}` : String(item.msg);
    });
    const more = items.length > 3 ? ` (and ${items.length - 3} more)` : '';
    return { ...NOTHING, message: parts.join('; ') + more, type: codeText((items[0] as Record<string, unknown>).type) };
  }
  return fromValue(items[0], depth + 1);
}

function isHtml(text: string, contentType: string | null | undefined): boolean {
  if (contentType && /\bhtml\b/i.test(contentType)) return true;
  return /^<(!doctype\s+html|html[\s>])/i.test(text) || /<title[\s>]/i.test(text.slice(0, 2_000));
}

/** "502 Bad Gateway" from the page's title (or first heading), never the page itself. */
function htmlTitle(html: string): string {
  const match = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html) ?? /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(html);
  const text = match?.[1] ? decodeEntities(match[1].replace(/<[^>]*>/g, ' ')) : '';
  return bound(text) || 'an HTML page with no title';
}

function decodeEntities(text: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, entity: string) => {
    if (entity[0] === '#') {
      const code = entity[1]?.toLowerCase() === 'x' ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return named[entity.toLowerCase()] ?? whole;
  });
}

function codeText(value: unknown): string | null {
  if (typeof value === 'string' && value.trim() !== '') return value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function shortJson(value: unknown): string {
  try {
    return bound(JSON.stringify(value) ?? '');
  } catch {
    return '';
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
