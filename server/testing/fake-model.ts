/**
 * A scripted OpenAI-compatible model server for integration tests, e2e tests and demo mode.
 *
 * Each model has a FIFO queue of scripted replies (see `fake-model-script.ts` for the format).
 * Every request is recorded. A request with nothing scripted for its model is never answered with
 * something plausible: it gets HTTP 400 (which no client retries) naming the model and lands in
 * `failures`, every later request fails too, and `assertDone()` throws — a test that makes one
 * call too many fails instead of drifting onto the next scripted reply.
 *
 * It binds 127.0.0.1 only. The `/_control/*` routes carry no token: this is a loopback test tool
 * that holds no secrets, and the CLI and Playwright drive it over HTTP. Requests with an Origin
 * header or a non-loopback Host are refused, so no web page can script what a demo agent does.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { describeZodError } from '../errors.ts';
import {
  ANY_MODEL,
  FakeScriptError,
  describeReply,
  parseReply,
  parseScript,
  truncate,
  type ReplyExpectation,
  type Script,
  type ScriptInput,
  type ScriptedReply,
  type ScriptedReplyInput,
} from './fake-model-script.ts';

export * from './fake-model-script.ts';

/** The arguments string of a `malformed_tool_args` fault: JSON cut off mid-string. */
export const MALFORMED_TOOL_ARGUMENTS = '{"path": "notes.txt", "content": "unterminated';

const MAX_BODY_BYTES = 32 * 1024 * 1024;

export type FakeServedBy = {
  /** The queue the reply came from: the model name, or `*`. */
  queue: string;
  /** 1-based position of the reply among everything scripted for that queue. */
  position: number;
  label: string | null;
  fault: string | null;
};

export type FakeRequestRecord = {
  seq: number;
  time: string;
  method: string;
  path: string;
  model: string | null;
  messages: unknown[];
  tools: unknown[];
  stream: boolean;
  /** Request headers without credentials (authorization, api-key, x-api-key, cookie). */
  headers: Record<string, string>;
  /** The whole parsed JSON body, for assertions on extra fields. */
  body: unknown;
  servedBy: FakeServedBy | null;
  /** HTTP status sent; -1 for a `hang` (never answered), 0 while the request is being handled. */
  status: number;
};

export type FakeFailureKind = 'unscripted' | 'expectation_mismatch' | 'bad_request';

export type FakeFailure = {
  kind: FakeFailureKind;
  requestSeq: number | null;
  model: string | null;
  message: string;
  time: string;
};

export type FakeModelState = {
  remaining: Record<string, number>;
  pending: { queue: string; reply: string }[];
  failures: FakeFailure[];
  requestCount: number;
};

export type StartFakeModelOptions = {
  /** 0 or absent picks a free port. */
  port?: number;
  script?: ScriptInput;
};

export class FakeModelAssertionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FakeModelAssertionError';
  }
}

type QueuedReply = { reply: ScriptedReply; position: number };

type PlannedToolCall = { id: string; name: string; arguments: string };

/** A reply in the shape both the JSON and the SSE renderers need. */
type PlannedMessage = {
  content: string | null;
  toolCalls: PlannedToolCall[];
  reasoning: string | undefined;
  reasoningDetails: unknown[] | undefined;
  finishReason: string;
};

type WireUsage = { prompt_tokens: number; completion_tokens: number; total_tokens: number; cost?: number };

const ChatRequestSchema = z.looseObject({
  model: z.string().min(1, 'model must be a non-empty string'),
  messages: z.array(z.unknown()).min(1, 'messages must not be empty'),
  tools: z.array(z.unknown()).optional(),
  stream: z.boolean().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
});
type ChatRequest = z.infer<typeof ChatRequestSchema>;

const ResetBodySchema = z.strictObject({});

const HIDDEN_HEADERS = new Set(['authorization', 'api-key', 'x-api-key', 'cookie', 'proxy-authorization']);

export class FakeModel {
  readonly baseURL: string;
  readonly port: number;
  #queues = new Map<string, QueuedReply[]>();
  /** How many replies were ever scripted per queue, so positions survive appends and consumption. */
  #scripted = new Map<string, number>();
  #requests: FakeRequestRecord[] = [];
  #failures: FakeFailure[] = [];
  #seq = 0;
  #closing = false;
  #closed: Promise<void> | null = null;

  private constructor(
    private readonly server: http.Server,
    port: number,
  ) {
    this.port = port;
    this.baseURL = `http://127.0.0.1:${port}/v1`;
  }

  /** Use `startFakeModel`; this exists so the server is listening before anyone holds the object. */
  static async start(opts: StartFakeModelOptions = {}): Promise<FakeModel> {
    const server = http.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port ?? 0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    const fake = new FakeModel(server, (server.address() as AddressInfo).port);
    server.on('request', (req, res) => void fake.#handle(req, res));
    if (opts.script) fake.load(opts.script);
    return fake;
  }

  get requests(): readonly FakeRequestRecord[] {
    return [...this.#requests];
  }

  get failures(): readonly FakeFailure[] {
    return [...this.#failures];
  }

  /** Appends replies to `model`'s queue; each is validated and a bad one throws FakeScriptError. */
  enqueue(model: string, ...replies: ScriptedReplyInput[]): void {
    if (!model) throw new FakeScriptError('enqueue needs a model name (or "*" for any model)');
    const parsed = replies.map((r, i) => parseReply(r, `reply ${i + 1} for model "${model}"`));
    this.#append(model, parsed);
  }

  /** Appends every queue of a script (validated as a whole first, so a bad script adds nothing). */
  load(script: ScriptInput | Script): void {
    const parsed = parseScript(script);
    for (const [model, replies] of Object.entries(parsed.models)) this.#append(model, replies);
  }

  remaining(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [model, queue] of this.#queues) out[model] = queue.length;
    return out;
  }

  state(): FakeModelState {
    const pending: FakeModelState['pending'] = [];
    for (const [queue, items] of this.#queues) {
      for (const item of items) pending.push({ queue, reply: describeReply(item.reply, item.position) });
    }
    return { remaining: this.remaining(), pending, failures: [...this.#failures], requestCount: this.#requests.length };
  }

  /** Throws if any request failed (unscripted, expectation mismatch, bad request) or replies remain. */
  assertDone(): void {
    const problems: string[] = [];
    for (const f of this.#failures) {
      problems.push(`request #${f.requestSeq ?? '?'} failed (${f.kind}): ${f.message}`);
    }
    for (const [queue, items] of this.#queues) {
      if (items.length === 0) continue;
      const list = items.map((item) => describeReply(item.reply, item.position)).join(', ');
      problems.push(`${items.length} scripted repl${items.length === 1 ? 'y was' : 'ies were'} never requested for model "${queue}": ${list}`);
    }
    if (problems.length > 0) {
      throw new FakeModelAssertionError(
        `fake model: ${problems.length} problem(s) after ${this.#requests.length} request(s):\n${problems.map((p) => `  - ${p}`).join('\n')}`,
      );
    }
  }

  /** Forgets queues, requests and failures. Requests still hanging keep hanging until close(). */
  reset(): void {
    this.#queues.clear();
    this.#scripted.clear();
    this.#requests = [];
    this.#failures = [];
    this.#seq = 0;
  }

  /** Stops listening and ends every open connection, hung requests included. Idempotent. */
  close(): Promise<void> {
    if (this.#closed) return this.#closed;
    this.#closing = true;
    this.#closed = new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
    return this.#closed;
  }

  #append(model: string, replies: ScriptedReply[]): void {
    const queue = this.#queues.get(model) ?? [];
    let count = this.#scripted.get(model) ?? 0;
    for (const reply of replies) queue.push({ reply, position: ++count });
    this.#queues.set(model, queue);
    this.#scripted.set(model, count);
  }

  #take(model: string): { queue: string; item: QueuedReply } | null {
    for (const queue of [model, ANY_MODEL]) {
      const item = this.#queues.get(queue)?.shift();
      if (item) return { queue, item };
    }
    return null;
  }

  #fail(kind: FakeFailureKind, message: string, record: FakeRequestRecord | null): void {
    this.#failures.push({ kind, message, requestSeq: record?.seq ?? null, model: record?.model ?? null, time: new Date().toISOString() });
  }

  async #handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    // Aborted when the client goes away or close() destroys the socket; ends delays and hangs.
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = req.method ?? 'GET';
    // Model SDKs never send Origin, and only we use loopback names: anything else is a web page
    // (cross-site, or through DNS rebinding) trying to script the model a demo's agent obeys.
    const host = req.headers.host ?? '';
    if (req.headers.origin !== undefined || !/^(127\.0\.0\.1|localhost|\[::1\]):\d+$/.test(host)) {
      return sendError(res, 403, 'forbidden', 'fake model: requests from web pages are refused; call it from a test or an SDK on this machine');
    }
    try {
      const route = `${method} ${url.pathname}`;
      switch (route) {
        case 'POST /v1/chat/completions':
          return await this.#chat(req, res, url.pathname, gone.signal);
        case 'GET /v1/models':
          return sendJson(res, 200, {
            object: 'list',
            data: [...this.#scripted.keys()]
              .filter((m) => m !== ANY_MODEL)
              .map((id) => ({ id, object: 'model', created: 0, owned_by: 'tilth-fake-model' })),
          });
        case 'POST /_control/script': {
          const body = await readJson(req);
          if (!body.ok) return sendError(res, 400, 'invalid_json', body.message);
          this.load(parseScript(body.value, 'request body'));
          return sendJson(res, 200, { ok: true, remaining: this.remaining() });
        }
        case 'POST /_control/reset': {
          const body = await readJson(req, { allowEmpty: true });
          if (!body.ok) return sendError(res, 400, 'invalid_json', body.message);
          const parsed = ResetBodySchema.safeParse(body.value ?? {});
          if (!parsed.success) return sendError(res, 400, 'invalid_request', `reset takes no options: ${describeZodError(parsed.error)}`);
          this.reset();
          return sendJson(res, 200, { ok: true });
        }
        case 'GET /_control/requests':
          return sendJson(res, 200, { requests: this.#requests });
        case 'GET /_control/state':
          return sendJson(res, 200, this.state());
        default:
          return sendError(
            res,
            404,
            'not_found',
            `fake model: no route ${route}. Routes: POST /v1/chat/completions, GET /v1/models, POST /_control/script, POST /_control/reset, GET /_control/requests, GET /_control/state`,
          );
      }
    } catch (err) {
      if (err instanceof FakeScriptError) return sendError(res, 400, err.code, err.message);
      if (err instanceof BodyTooLargeError) return sendError(res, 413, 'body_too_large', err.message);
      if (!res.headersSent && !res.destroyed) sendError(res, 500, 'fake_model_bug', `fake model crashed: ${(err as Error).message}`);
    }
  }

  async #chat(req: http.IncomingMessage, res: http.ServerResponse, path: string, gone: AbortSignal): Promise<void> {
    const record: FakeRequestRecord = {
      seq: ++this.#seq,
      time: new Date().toISOString(),
      method: req.method ?? 'POST',
      path,
      model: null,
      messages: [],
      tools: [],
      stream: false,
      headers: visibleHeaders(req.headers),
      body: null,
      servedBy: null,
      status: 0,
    };
    this.#requests.push(record);
    const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      record.status = status;
      sendJson(res, status, body, headers);
    };

    const body = await readJson(req);
    if (!body.ok) {
      this.#fail('bad_request', body.message, record);
      return answer(400, errorBody('invalid_json', body.message));
    }
    record.body = body.value;
    const parsed = ChatRequestSchema.safeParse(body.value);
    if (!parsed.success) {
      const message = `not a chat completion request: ${describeZodError(parsed.error)}`;
      this.#fail('bad_request', message, record);
      return answer(400, errorBody('invalid_request', message));
    }
    const request = parsed.data;
    record.model = request.model;
    record.messages = request.messages;
    record.tools = request.tools ?? [];
    record.stream = request.stream === true;

    // After an unscripted or mismatched request the script is out of step with the code under
    // test; every later answer would be wrong, so every later request fails too.
    const broken = this.#failures.find((f) => f.kind === 'unscripted' || f.kind === 'expectation_mismatch');
    if (broken) {
      const message = `an earlier request already failed, so this one does too: ${broken.message}`;
      return answer(400, errorBody('fake_model_failed', `fake model: ${message}`), { 'x-fake-model-failure': 'after_failure' });
    }

    const taken = this.#take(request.model);
    if (!taken) {
      const message = `no reply was scripted for model "${request.model}" (request #${record.seq}); script one with enqueue() or POST /_control/script before the code under test calls the model`;
      this.#fail('unscripted', message, record);
      return answer(400, errorBody('unscripted_request', `fake model: ${message}`), { 'x-fake-model-failure': 'unscripted' });
    }
    const { reply, position } = taken.item;
    record.servedBy = { queue: taken.queue, position, label: reply.label ?? null, fault: reply.fault ?? null };

    if (reply.expect) {
      const mismatches = checkExpectation(reply.expect, request);
      if (mismatches.length > 0) {
        const message = `request #${record.seq} to model "${request.model}" did not match reply ${describeReply(reply, position)}: ${mismatches.join('; ')}`;
        this.#fail('expectation_mismatch', message, record);
        return answer(400, errorBody('expectation_mismatch', `fake model: ${message}`), { 'x-fake-model-failure': 'expectation_mismatch' });
      }
    }

    if (reply.delay_ms) await sleep(reply.delay_ms, gone);
    if (gone.aborted || this.#closing) return;

    const meta = { id: `chatcmpl-fake-${record.seq}`, created: Math.floor(Date.now() / 1000), model: request.model };
    const usage = wireUsage(reply, request);
    switch (reply.fault) {
      case 'rate_limit': {
        const headers: Record<string, string> = { 'retry-after': String(reply.retry_after ?? 1) };
        if (reply.retry_after_ms !== undefined) headers['retry-after-ms'] = String(reply.retry_after_ms);
        return answer(429, errorBody('rate_limit_exceeded', reply.error_message ?? 'Rate limit exceeded (scripted by the fake model)', 'rate_limit_error'), headers);
      }
      case 'server_error':
        return answer(reply.status ?? 500, errorBody('server_error', reply.error_message ?? 'Upstream error (scripted by the fake model)', 'server_error'));
      case 'hang':
        // Never answers: the client's timeout or abort, or close(), ends it.
        record.status = -1;
        return await new Promise<void>((resolve) => gone.addEventListener('abort', () => resolve(), { once: true }));
      case 'stall':
        // Headers and the start of the body, then nothing: a timeout that covers only the
        // headers never fires.
        record.status = 200;
        res.writeHead(200, { 'content-type': request.stream ? 'text/event-stream' : 'application/json' });
        res.write(request.stream ? `data: ${JSON.stringify(streamChunks(planMessage({ content: '' }, request, record.seq), meta, usage, false)[0])}\n\n` : '{"id": ');
        return await new Promise<void>((resolve) => gone.addEventListener('abort', () => resolve(), { once: true }));
      case 'error_body': {
        const error = { message: reply.error_message ?? 'Provider returned error (scripted by the fake model)', code: 502 };
        record.status = 200;
        if (request.stream) return sendSse(res, [{ error }]);
        return answer(200, { error });
      }
      case 'no_choices': {
        const completion = { id: meta.id, object: 'chat.completion', created: meta.created, model: meta.model, choices: [], usage };
        record.status = 200;
        if (request.stream) return sendSse(res, [{ ...completion, object: 'chat.completion.chunk' }]);
        return answer(200, completion);
      }
      default: {
        const plan = planMessage(reply, request, record.seq);
        record.status = 200;
        if (request.stream) return sendSse(res, streamChunks(plan, meta, usage, request.stream_options?.include_usage === true));
        return answer(200, completionBody(plan, meta, usage));
      }
    }
  }
}

export function startFakeModel(opts: StartFakeModelOptions = {}): Promise<FakeModel> {
  return FakeModel.start(opts);
}

function planMessage(reply: ScriptedReply, request: ChatRequest, seq: number): PlannedMessage {
  const callId = (i: number, id: string | undefined) => id ?? `call_${seq}_${i + 1}`;
  let toolCalls: PlannedToolCall[];
  let content = reply.content ?? null;
  switch (reply.fault) {
    case 'empty':
      content = null;
      toolCalls = [];
      break;
    case 'malformed_tool_args': {
      const first = reply.tool_calls?.[0];
      toolCalls = [{ id: callId(0, first?.id), name: first?.name ?? toolNames(request.tools ?? [])[0] ?? 'unknown_tool', arguments: MALFORMED_TOOL_ARGUMENTS }];
      break;
    }
    default:
      toolCalls = (reply.tool_calls ?? []).map((c, i) => ({
        id: callId(i, c.id),
        name: c.name,
        arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
      }));
  }
  const finishReason = reply.fault === 'finish_error' ? 'error' : (reply.finish_reason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'));
  return { content, toolCalls, reasoning: reply.reasoning, reasoningDetails: reply.reasoning_details, finishReason };
}

/** Scripted usage, or a rough estimate (four characters a token) so demo runs show real-looking counts. */
function wireUsage(reply: ScriptedReply, request: ChatRequest): WireUsage {
  if (reply.usage) {
    const { prompt_tokens, completion_tokens, cost } = reply.usage;
    return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens, ...(cost === undefined ? {} : { cost }) };
  }
  const prompt = Math.ceil(JSON.stringify(request.messages).length / 4);
  const out = [reply.content ?? '', reply.reasoning ?? '', ...(reply.tool_calls ?? []).map((c) => JSON.stringify(c.arguments))].join('');
  const completion = reply.fault === 'empty' ? 0 : Math.ceil(out.length / 4);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

function wireMessage(plan: PlannedMessage): Record<string, unknown> {
  const message: Record<string, unknown> = { role: 'assistant', content: plan.content, refusal: null };
  if (plan.toolCalls.length > 0) {
    message.tool_calls = plan.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
  }
  if (plan.reasoning !== undefined) message.reasoning = plan.reasoning;
  if (plan.reasoningDetails !== undefined) message.reasoning_details = plan.reasoningDetails;
  return message;
}

type Meta = { id: string; created: number; model: string };

function completionBody(plan: PlannedMessage, meta: Meta, usage: WireUsage): unknown {
  return {
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, message: wireMessage(plan), finish_reason: plan.finishReason, logprobs: null }],
    usage,
  };
}

/** The OpenAI chunk sequence: role, reasoning, content pieces, tool-call deltas by index, finish, usage. */
function streamChunks(plan: PlannedMessage, meta: Meta, usage: WireUsage, includeUsage: boolean): unknown[] {
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    id: meta.id,
    object: 'chat.completion.chunk',
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
  });
  const chunks: unknown[] = [chunk({ role: 'assistant', content: plan.content === null ? null : '' })];
  if (plan.reasoning !== undefined) chunks.push(chunk({ reasoning: plan.reasoning }));
  if (plan.reasoningDetails !== undefined) chunks.push(chunk({ reasoning_details: plan.reasoningDetails }));
  for (const piece of pieces(plan.content ?? '')) chunks.push(chunk({ content: piece }));
  plan.toolCalls.forEach((call, index) => {
    chunks.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (const piece of pieces(call.arguments)) chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  chunks.push(chunk({}, plan.finishReason));
  if (includeUsage) chunks.push({ id: meta.id, object: 'chat.completion.chunk', created: meta.created, model: meta.model, choices: [], usage });
  return chunks;
}

/** Splits text into a few pieces so clients really have to join deltas. */
function pieces(text: string, size = 16): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function checkExpectation(expect: ReplyExpectation, request: ChatRequest): string[] {
  const problems: string[] = [];
  if (expect.model !== undefined && request.model !== expect.model) {
    problems.push(`expected model "${expect.model}", got "${request.model}"`);
  }
  if (expect.tools_include) {
    const names = toolNames(request.tools ?? []);
    const missing = expect.tools_include.filter((n) => !names.includes(n));
    if (missing.length > 0) problems.push(`expected tools to include ${missing.join(', ')}; the request offered [${names.join(', ')}]`);
  }
  if (expect.last_message_contains !== undefined) {
    const last = messageText(request.messages.at(-1));
    if (!last.includes(expect.last_message_contains)) {
      problems.push(`expected the last message to contain "${expect.last_message_contains}"; it was "${truncate(last, 200)}"`);
    }
  }
  if (expect.system_contains !== undefined) {
    const needle = expect.system_contains;
    const system = request.messages.filter((m) => isRecord(m) && (m.role === 'system' || m.role === 'developer')).map(messageText);
    if (!system.some((text) => text.includes(needle))) {
      problems.push(
        system.length === 0
          ? `expected a system message containing "${needle}"; the request has no system message`
          : `expected a system message containing "${needle}"; it was "${truncate(system.join('\n'), 200)}"`,
      );
    }
  }
  return problems;
}

function toolNames(tools: unknown[]): string[] {
  return tools.flatMap((t) => {
    if (!isRecord(t)) return [];
    if (isRecord(t.function) && typeof t.function.name === 'string') return [t.function.name];
    return typeof t.name === 'string' ? [t.name] : [];
  });
}

function messageText(message: unknown): string {
  if (!isRecord(message)) return '';
  const content = message.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (isRecord(p) && typeof p.text === 'string' ? p.text : '')).join('');
  return '';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function visibleHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HIDDEN_HEADERS.has(name)) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function errorBody(code: string, message: string, type = 'invalid_request_error') {
  return { error: { message, type, code } };
}

function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed || res.writableEnded) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function sendError(res: http.ServerResponse, status: number, code: string, message: string): void {
  sendJson(res, status, errorBody(code, message));
}

function sendSse(res: http.ServerResponse, events: unknown[]): void {
  if (res.destroyed || res.writableEnded) return;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  for (const event of events) res.write(`data: ${JSON.stringify(event)}\n\n`);
  res.end('data: [DONE]\n\n');
}

class BodyTooLargeError extends Error {}

type JsonBody = { ok: true; value: unknown } | { ok: false; message: string };

async function readJson(req: http.IncomingMessage, opts: { allowEmpty?: boolean } = {}): Promise<JsonBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLargeError(`request body is larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return opts.allowEmpty ? { ok: true, value: undefined } : { ok: false, message: 'the request body is empty; send JSON' };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, message: `the request body is not valid JSON: ${(err as Error).message}` };
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
