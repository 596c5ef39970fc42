/**
 * "Test connection" on the settings page: does this role's endpoint answer, with this key?
 *
 * `GET /models` first: it costs nothing and every mainstream provider and local server has it. A
 * server without it (404/405) gets a one-token chat completion with the role's model instead,
 * which costs a token but proves the whole path. The answer is the provider's own words (status
 * and message, whatever shape its error body has) followed by the sentence on what to change when
 * Tilth knows one; the key is scrubbed out of everything returned.
 */
import type OpenAI from 'openai';
import { readReplyError } from './error-body.ts';
import { classifyFailure, describeFailure, displayUrl, scrubSecret, type FailureWhere } from './failure.ts';
import { normaliseCompletion } from './reply.ts';
import type { RoleEndpoint } from './types.ts';

export const PROBE_TIMEOUT_MS = 10_000;

export type ProbeResult = {
  ok: boolean;
  detail: string;
  /** On failure, the HTTP status the provider answered with; null when nothing answered at all. */
  status?: number | null;
  /** On failure, the provider's answer passed its size bound (see bounded-answer.ts). */
  oversized?: true;
};

type Attempt<T> = { ok: true; value: T } | { ok: false; status: number | null; description: string; fix: string | null; oversized?: true };

type AttemptOptions = { timeoutMs: number; signal?: AbortSignal | undefined; where: FailureWhere; scrub: (text: string) => string };

export async function probeEndpoint(
  sdk: OpenAI,
  endpoint: RoleEndpoint,
  options: { timeoutMs: number; signal?: AbortSignal | undefined },
): Promise<ProbeResult> {
  const where = displayUrl(endpoint.baseUrl);
  const scrub = (text: string) => scrubSecret(text, endpoint.apiKey);
  const attemptOptions: AttemptOptions = { ...options, where: { model: endpoint.model, endpoint: where }, scrub };

  const listed = await attempt(attemptOptions, async (requestOptions) => (await sdk.models.list(requestOptions)).data);
  if (listed.ok) {
    const ids = listed.value.map((m) => m.id);
    const found = ids.includes(endpoint.model);
    const note = ids.length === 0 ? '' : found ? `; "${endpoint.model}" is among them` : `; "${endpoint.model}" is not among them — check the model name`;
    return { ok: true, detail: `${where} answered GET /models with ${ids.length} model(s)${note}.` };
  }
  if (listed.oversized) return { ok: false, detail: withFix(listed.description, listed.fix), status: listed.status, oversized: true };
  if (listed.status !== 404 && listed.status !== 405)
    return { ok: false, detail: withFix(`GET ${where}/models failed: ${listed.description}`, listed.fix), status: listed.status };

  const chat = await attempt(attemptOptions, (requestOptions) =>
    sdk.chat.completions.create({ model: endpoint.model, messages: [{ role: 'user', content: 'Reply with one word: ok' }], max_tokens: 1 }, requestOptions),
  );
  if (!chat.ok) {
    return {
      ok: false,
      detail: withFix(`${where} has no GET /models (HTTP ${listed.status}), and a one-token chat completion failed: ${chat.description}`, chat.fix),
      status: chat.status,
      ...(chat.oversized ? { oversized: true as const } : {}),
    };
  }
  const reply = normaliseCompletion(chat.value);
  if (reply.health === 'error_body' || reply.health === 'error_finish' || reply.health === 'no_choices') {
    const words = readReplyError(chat.value) ?? { message: reply.detail ?? reply.health, code: null };
    const { fix } = classifyFailure({ source: 'reply', message: words.message, code: words.code }, attemptOptions.where);
    return { ok: false, detail: scrub(withFix(`${where} answered a one-token chat completion with an error: ${words.message}`, fix)), status: 200 };
  }
  return { ok: true, detail: `${where} has no GET /models (HTTP ${listed.status}); a one-token chat completion with "${endpoint.model}" answered.` };
}

/** One request under our own timer as well as the SDK's (which stops at the response headers). */
async function attempt<T>(options: AttemptOptions, request: (requestOptions: { signal: AbortSignal; timeout: number }) => Promise<T>): Promise<Attempt<T>> {
  const timer = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timer]) : timer;
  try {
    return { ok: true, value: await request({ signal, timeout: options.timeoutMs }) };
  } catch (err) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (timer.aborted) return { ok: false, status: null, description: `no answer within ${formatMs(options.timeoutMs)}`, fix: null };
    const failure = describeFailure(err, { ...options.where, timeoutMs: options.timeoutMs, scrub: options.scrub });
    const fix = failure.fix && options.scrub(failure.fix);
    return {
      ok: false,
      status: failure.status,
      description: failure.description,
      fix,
      ...(failure.kind === 'oversized_answer' ? { oversized: true as const } : {}),
    };
  }
}

function withFix(detail: string, fix: string | null): string {
  if (!fix) return detail;
  return /[.!?…]$/.test(detail) ? `${detail} ${fix}` : `${detail}. ${fix}`;
}

function formatMs(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`;
}
