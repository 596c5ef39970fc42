/**
 * The replay provider: an OpenAI-compatible server on 127.0.0.1 that answers the way real
 * providers do. The model name picks a shape from `provider-shapes.ts` (`deepseek-reasoner`,
 * `mistral-large`, `ollama-qwen-text-tools`, ...). Each request is
 *
 * 1. checked against the rules every strict provider applies (tool messages answer the calls
 *    before them, arguments are JSON text, ids are there) and then the shape's own history rules
 *    (DeepSeek's reasoning_content, Mistral's closed schema, Gemini's thought signatures, ...);
 *    a history the provider would refuse gets the provider's refusal, in its own error body;
 * 2. answered with what the demo's scripted model means to say at that point of the journey
 *    (`demoReply`, which reads where the session is from the request itself), written in the
 *    shape's wire form — or with the shape's error, for the shapes that are errors.
 *
 * So Tilth's interview, worker and evaluator can be driven end to end against every shape with
 * the real server and store. Like the fake model it binds loopback only and refuses requests that
 * carry an Origin header or a non-loopback Host. A per-model cap on calls turns a loop into a
 * refusal the test can see, instead of a test that never ends.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { demoReply } from '../demo/demo-script.ts';
import { BodyTooLargeError, readJson, sendJson } from '../scripted-model/http.ts';
import { parseReply } from '../scripted-model/script.ts';
import { ChatRequestSchema, type ChatRequest } from '../scripted-model/wire.ts';
import { PROVIDER_SHAPES, shapeNamed, type CanonicalReply, type Json, type ProviderShape, type ShapeContext, type WireAnswer } from './provider-shapes.ts';

export { PROVIDER_SHAPES, shapeNamed, type ProviderShape } from './provider-shapes.ts';

/** More calls than any one session of the demo journey needs, even one stuck until its caps. */
export const DEFAULT_MAX_CALLS_PER_MODEL = 400;

export type ReplayRecord = {
  seq: number;
  model: string;
  status: number;
  /** The prompt's estimated size in tokens (four characters a token). */
  promptTokens: number;
  /** What a non-200 answer said, cut short; null for a completion. */
  refusal: string | null;
};

export type ReplayOptions = { port?: number; maxCallsPerModel?: number };

const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export class ReplayProvider {
  readonly baseURL: string;
  readonly port: number;
  #records: ReplayRecord[] = [];
  #calls = new Map<string, number>();
  #seen = new Set<string>();
  #closed: Promise<void> | null = null;

  private constructor(
    private readonly server: http.Server,
    port: number,
    private readonly maxCalls: number,
  ) {
    this.port = port;
    this.baseURL = `http://127.0.0.1:${port}/v1`;
  }

  static async start(options: ReplayOptions = {}): Promise<ReplayProvider> {
    const server = http.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    const replay = new ReplayProvider(server, (server.address() as AddressInfo).port, options.maxCallsPerModel ?? DEFAULT_MAX_CALLS_PER_MODEL);
    server.on('request', (req, res) => void replay.#handle(req, res));
    return replay;
  }

  /** Chat requests that reached a shape, refused or not. */
  calls(model: string): number {
    return this.#calls.get(model) ?? 0;
  }

  records(model?: string): ReplayRecord[] {
    return this.#records.filter((r) => model === undefined || r.model === model);
  }

  /** True when a model hit the call cap: the code under test was looping. */
  capped(model: string): boolean {
    return this.calls(model) > this.maxCalls;
  }

  close(): Promise<void> {
    if (this.#closed) return this.#closed;
    this.#closed = new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
    return this.#closed;
  }

  async #handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const host = req.headers.host ?? '';
    // SDKs never send Origin; a web page (or DNS rebinding) would. Same rule as the fake model.
    if (req.headers.origin !== undefined || !/^(127\.0\.0\.1|localhost|\[::1\]):\d+$/.test(host)) {
      return sendJson(res, 403, { error: { message: 'replay provider: requests from web pages are refused', type: 'forbidden' } });
    }
    const route = `${req.method ?? 'GET'} ${url.pathname}`;
    if (route === 'GET /v1/models') {
      return sendJson(res, 200, { object: 'list', data: PROVIDER_SHAPES.map((s) => ({ id: s.name, object: 'model', created: 0, owned_by: s.provider })) });
    }
    if (route === 'GET /api/ps') return sendJson(res, 200, { models: [] }); // nothing loaded yet
    if (route === 'POST /api/show') {
      // Ollama's native model info, which Tilth reads to learn the context window.
      const read = await readJson(req);
      const model = read.ok && typeof read.value === 'object' && read.value !== null ? (read.value as { model?: unknown }).model : undefined;
      const shown = typeof model === 'string' ? shapeNamed(model)?.ollamaShow : undefined;
      return shown ? sendJson(res, 200, shown) : sendJson(res, 404, { error: `model "${String(model)}" not found, try pulling it first` });
    }
    if (route !== 'POST /v1/chat/completions') {
      return sendJson(res, 404, { error: { message: `replay provider: no route ${route}`, type: 'not_found' } });
    }
    let body: unknown;
    try {
      const read = await readJson(req);
      if (!read.ok) return sendJson(res, 400, { error: { message: read.message, type: 'invalid_request_error' } });
      body = read.value;
    } catch (err) {
      if (err instanceof BodyTooLargeError) return sendJson(res, 413, { error: { message: err.message, type: 'invalid_request_error' } });
      throw err;
    }
    const parsed = ChatRequestSchema.safeParse(body);
    if (!parsed.success) {
      return sendJson(res, 400, {
        error: {
          message: `replay provider: not a chat completion request: ${parsed.error.issues.map((i) => i.message).join('; ')}`,
          type: 'invalid_request_error',
        },
      });
    }
    const request = parsed.data;
    const shape = shapeNamed(request.model);
    if (!shape || shape.unreachable) {
      return sendJson(res, 404, {
        error: { message: `The model \`${request.model}\` does not exist`, type: 'invalid_request_error', code: 'model_not_found' },
      });
    }
    const seq = (this.#calls.get(shape.name) ?? 0) + 1;
    this.#calls.set(shape.name, seq);
    const answer = this.#answer(shape, request, seq);
    this.#records.push({
      seq,
      model: shape.name,
      status: answer.status,
      promptTokens: promptTokens(request),
      refusal: answer.status !== 200 || (isRecord(answer.json) && 'error' in answer.json) ? refusalText(answer) : null,
    });
    send(res, answer);
  }

  #answer(shape: ProviderShape, request: ChatRequest, seq: number): WireAnswer {
    if (seq > this.maxCalls) return shape.refuse(`replay provider: model ${shape.name} passed its cap of ${this.maxCalls} calls; the client is looping`, 429);
    if (request.stream === true) return shape.refuse('replay provider: streaming is not replayed; send stream: false');
    const messages = request.messages.filter(isRecord);
    const seenKey = progressKey(shape.name, messages);
    const firstSight = !this.#seen.has(seenKey);
    this.#seen.add(seenKey);
    let reply: CanonicalReply | null = null;
    const ctx: ShapeContext = {
      model: shape.name,
      messages,
      tools: request.tools ?? [],
      firstSight,
      priorCalls: messages.reduce((n, m) => n + (m.role === 'assistant' && Array.isArray(m.tool_calls) ? m.tool_calls.length : 0), 0),
      promptTokens: promptTokens(request),
      seq,
      reply: () => (reply ??= canonicalReply(request)),
    };
    return commonRules(shape, messages) ?? shape.history?.(ctx) ?? shape.answer(ctx);
  }
}

export function startReplayProvider(options: ReplayOptions = {}): Promise<ReplayProvider> {
  return ReplayProvider.start(options);
}

/**
 * Where a conversation is: its opening (system and first user message) and every tool result so
 * far. A retry of a step has the same key whether or not the client appended a nudge or kept the
 * failed turn, so a transient fault passes on the next try as it would at the real provider.
 */
function progressKey(model: string, messages: Json[]): string {
  const opening = messages
    .filter((m) => m.role === 'system')
    .slice(0, 1)
    .concat(messages.filter((m) => m.role === 'user').slice(0, 1));
  const results = messages.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, m.content]);
  return createHash('sha256')
    .update(JSON.stringify([model, opening.map((m) => m.content), results]))
    .digest('hex');
}

function promptTokens(request: ChatRequest): number {
  return Math.ceil(JSON.stringify({ messages: request.messages, tools: request.tools ?? [] }).length / 4);
}

function send(res: http.ServerResponse, answer: WireAnswer): void {
  if (res.destroyed || res.writableEnded) return;
  if (answer.text !== undefined) {
    res.writeHead(answer.status, { 'content-type': answer.contentType ?? 'text/plain', 'content-length': Buffer.byteLength(answer.text), ...answer.headers });
    res.end(answer.text);
    return;
  }
  sendJson(res, answer.status, answer.json ?? null, answer.headers ?? {});
}

function refusalText(answer: WireAnswer): string {
  const text = answer.text ?? JSON.stringify(answer.json);
  return text.length > 400 ? `${text.slice(0, 399)}…` : text;
}

/**
 * OpenAI's own history rules, which strict providers copy (the wording is OpenAI's): ids present,
 * `type: "function"`, arguments as JSON text, one tool message per call and none without one.
 */
function commonRules(shape: ProviderShape, messages: Json[]): WireAnswer | null {
  const pending: string[] = [];
  for (const [i, m] of messages.entries()) {
    if (m.role === 'tool') {
      const id = typeof m.tool_call_id === 'string' ? m.tool_call_id : '';
      const at = pending.indexOf(id);
      if (at < 0)
        return shape.refuse(
          `Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'. (messages[${i}], tool_call_id "${id}")`,
        );
      pending.splice(at, 1);
      continue;
    }
    if (pending.length > 0) {
      return shape.refuse(
        `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${pending.join(', ')}`,
      );
    }
    if (m.role !== 'assistant' || !Array.isArray(m.tool_calls)) continue;
    for (const [j, call] of m.tool_calls.entries()) {
      const where = `messages[${i}].tool_calls[${j}]`;
      if (!isRecord(call)) return shape.refuse(`Invalid type for '${where}': expected an object.`);
      if (typeof call.id !== 'string' || call.id === '')
        return shape.refuse(`Invalid '${where}.id': empty string. Expected a string with minimum length 1, but got an empty string instead.`);
      if (!shape.typeOptional && call.type !== 'function') return shape.refuse(`Missing required parameter: '${where}.type'.`);
      const fn = isRecord(call.function) ? call.function : null;
      if (!fn || typeof fn.name !== 'string') return shape.refuse(`Missing required parameter: '${where}.function.name'.`);
      if (!shape.objectArgumentsOk && typeof fn.arguments !== 'string') {
        return shape.refuse(
          `Invalid type for '${where}.function.arguments': expected a string, but got ${Array.isArray(fn.arguments) ? 'an array' : typeof fn.arguments === 'object' ? 'an object' : typeof fn.arguments} instead.`,
        );
      }
      pending.push(call.id);
    }
  }
  if (pending.length > 0) {
    return shape.refuse(
      `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${pending.join(', ')}`,
    );
  }
  return null;
}

/**
 * What the demo's scripted model says to this request. It reads the conversation the OpenAI way
 * (string arguments, string ids), so a history in another provider's spelling is read back into
 * that form first: the story must follow what Tilth sent, whatever shape it echoed.
 */
function canonicalReply(request: ChatRequest): CanonicalReply {
  const messages = request.messages.map((m) => {
    if (!isRecord(m) || m.role !== 'assistant' || !Array.isArray(m.tool_calls)) return m;
    const calls = m.tool_calls.filter(isRecord).map((c) => {
      const fn = isRecord(c.function) ? c.function : {};
      const args = typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {});
      return { id: typeof c.id === 'string' ? c.id : '', type: 'function', function: { name: String(fn.name ?? ''), arguments: args } };
    });
    return { ...m, tool_calls: calls };
  });
  const scripted = parseReply(demoReply({ ...request, messages }), 'the demo reply');
  const calls = (scripted.tool_calls ?? []).map((c, i) => ({
    name: c.name,
    args: typeof c.arguments === 'string' ? parseObject(c.arguments) : c.arguments,
    key: c.id ?? `call-${request.messages.length}-${i + 1}`,
  }));
  const text = scripted.content ?? null;
  const usage = scripted.usage ?? {
    prompt_tokens: Math.ceil(JSON.stringify(request.messages).length / 4),
    completion_tokens: Math.ceil((text ?? '').length / 4) + 20 * calls.length,
  };
  return { text, calls, usage: { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens } };
}

function parseObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : {};
  } catch {
    return {};
  }
}
