/**
 * A scripted OpenAI-compatible model server for integration tests, e2e tests and demo mode.
 *
 * Each model has a FIFO queue of scripted replies (see `script.ts` for the format).
 * Every request is recorded. A request with nothing scripted for its model is never answered with
 * something plausible: it gets HTTP 400 (which no client retries) naming the model and lands in
 * `failures`, every later request fails too, and `assertDone()` throws — a test that makes one
 * call too many fails instead of drifting onto the next scripted reply.
 *
 * A model may instead have a responder (`respondWith`): a function that reads the request and
 * picks the reply, consulted when that model's queue is empty. Demo mode plays its script this
 * way, so its replies follow where a session is rather than the order they were queued in. A
 * test that registers no responder keeps the rule above: nothing is ever answered by default.
 *
 * It binds 127.0.0.1 only. The `/_control/*` routes carry no token: this is a loopback test tool
 * that holds no secrets, and the CLI and Playwright drive it over HTTP. Requests with an Origin
 * header or a non-loopback Host are refused, so no web page can script what a demo agent does.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { describeZodError } from '../errors/app-error.ts';
import {
  ANY_MODEL,
  FakeScriptError,
  describeReply,
  parseReply,
  parseScript,
  type Script,
  type ScriptInput,
  type ScriptedReply,
  type ScriptedReplyInput,
} from './script.ts';

import {
  BodyTooLargeError,
  ENDLESS_COMPLETION,
  ENDLESS_COMPLETION_STREAM,
  ENDLESS_MODEL_LIST,
  errorBody,
  readJson,
  sendEndless,
  sendError,
  sendJson,
  sendSse,
  sleep,
  visibleHeaders,
  type EndlessOptions,
} from './http.ts';
import { ChatRequestSchema, checkExpectation, completionBody, planMessage, streamChunks, wireUsage, type ChatRequest } from './wire.ts';

export * from './script.ts';
export { MALFORMED_TOOL_ARGUMENTS, type ChatRequest } from './wire.ts';

/** Picks the reply to one request from the request itself (see `ScriptedModel.respondWith`). */
export type FakeResponder = (request: ChatRequest) => ScriptedReplyInput | Promise<ScriptedReplyInput>;

export type FakeServedBy = {
  /** The queue the reply came from: the model name, or `*`; for a responder's reply, the model name. */
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

export type FakeFailureKind = 'unscripted' | 'expectation_mismatch' | 'bad_request' | 'responder_error';

export type FakeFailure = {
  kind: FakeFailureKind;
  requestSeq: number | null;
  model: string | null;
  message: string;
  time: string;
};

export type ScriptedModelState = {
  remaining: Record<string, number>;
  pending: { queue: string; reply: string }[];
  failures: FakeFailure[];
  requestCount: number;
};

export type StartScriptedModelOptions = {
  /** 0 or absent picks a free port. */
  port?: number;
  script?: ScriptInput;
  /**
   * Makes it a provider that checks keys: `/v1/*` requests without `Authorization: Bearer <apiKey>`
   * get a 401 whose message quotes the key they sent, as some providers do — so tests can check
   * that the key is scrubbed from what Tilth shows.
   */
  apiKey?: string;
  /**
   * false: no `GET /v1/models` (404), like servers that only do chat completions; 'endless': a
   * model list that never ends (see `sendEndless`), like a broken provider or proxy.
   */
  listModels?: boolean | 'endless';
};

/** The endless answers served so far (the `endless` fault, an endless model list). */
export type FakeEndlessTally = {
  /** Still being written. */
  open: number;
  closed: number;
  /** Bytes of body the closed ones wrote before their client went away. */
  written: number;
};

export class ScriptedModelAssertionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScriptedModelAssertionError';
  }
}

type QueuedReply = { reply: ScriptedReply; position: number };

const ResetBodySchema = z.strictObject({});

export class ScriptedModel {
  readonly baseURL: string;
  readonly port: number;
  #queues = new Map<string, QueuedReply[]>();
  #responders = new Map<string, FakeResponder>();
  /** How many replies were ever scripted per queue, so positions survive appends and consumption. */
  #scripted = new Map<string, number>();
  #requests: FakeRequestRecord[] = [];
  #failures: FakeFailure[] = [];
  #seq = 0;
  #closing = false;
  #closed: Promise<void> | null = null;
  #endless: FakeEndlessTally = { open: 0, closed: 0, written: 0 };

  private constructor(
    private readonly server: http.Server,
    port: number,
    private readonly opts: StartScriptedModelOptions,
  ) {
    this.port = port;
    this.baseURL = `http://127.0.0.1:${port}/v1`;
  }

  /** Use `startScriptedModel`; this exists so the server is listening before anyone holds the object. */
  static async start(opts: StartScriptedModelOptions = {}): Promise<ScriptedModel> {
    const server = http.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port ?? 0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    const fake = new ScriptedModel(server, (server.address() as AddressInfo).port, opts);
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

  get endless(): FakeEndlessTally {
    return { ...this.#endless };
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

  /**
   * Answers every request for `model` that finds its queue empty with `responder(request)`,
   * validated like any scripted reply. Only that exact model name: `*` is for queues. Such a model
   * is also spared the failure latch (see #chat): a responder reads where the conversation is, so
   * it cannot fall out of step with a queue. Returns a function that removes the responder.
   */
  respondWith(model: string, responder: FakeResponder): () => void {
    if (!model || model === ANY_MODEL) throw new FakeScriptError('respondWith needs a model name (not "*")');
    this.#responders.set(model, responder);
    return () => {
      if (this.#responders.get(model) === responder) this.#responders.delete(model);
    };
  }

  remaining(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [model, queue] of this.#queues) out[model] = queue.length;
    return out;
  }

  state(): ScriptedModelState {
    const pending: ScriptedModelState['pending'] = [];
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
      throw new ScriptedModelAssertionError(
        `fake model: ${problems.length} problem(s) after ${this.#requests.length} request(s):\n${problems.map((p) => `  - ${p}`).join('\n')}`,
      );
    }
  }

  /** Forgets queues, responders, requests and failures. Requests still hanging keep hanging until close(). */
  reset(): void {
    this.#queues.clear();
    this.#responders.clear();
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

  async #sendEndless(res: http.ServerResponse, contentType: string, body: EndlessOptions): Promise<void> {
    this.#endless.open += 1;
    const written = await sendEndless(res, contentType, body);
    this.#endless = { open: this.#endless.open - 1, closed: this.#endless.closed + 1, written: this.#endless.written + written };
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

  /** The responder's reply to `request`, numbered after everything scripted for the model. */
  async #respond(responder: FakeResponder, request: ChatRequest): Promise<QueuedReply> {
    const reply = parseReply(await responder(request), `the reply of the responder for model "${request.model}"`);
    const position = (this.#scripted.get(request.model) ?? 0) + 1;
    this.#scripted.set(request.model, position);
    return { reply, position };
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
    if (this.opts.apiKey !== undefined && url.pathname.startsWith('/v1/')) {
      const given = /^Bearer (.*)$/.exec(req.headers.authorization ?? '')?.[1];
      if (given !== this.opts.apiKey) {
        return sendJson(res, 401, errorBody('invalid_api_key', `Incorrect API key provided: ${given ?? '(none)'}. Check the key for this fake provider.`));
      }
    }
    try {
      const route = `${method} ${url.pathname}`;
      if (route === 'GET /v1/models' && this.opts.listModels === false) {
        return sendError(res, 404, 'not_found', 'fake model: this one has no model list (started with listModels: false)');
      }
      if (route === 'GET /v1/models' && this.opts.listModels === 'endless') {
        return await this.#sendEndless(res, 'application/json', ENDLESS_MODEL_LIST);
      }
      switch (route) {
        case 'POST /v1/chat/completions':
          return await this.#chat(req, res, url.pathname, gone.signal);
        case 'GET /v1/models':
          return sendJson(res, 200, {
            object: 'list',
            data: [...this.#scripted.keys()].filter((m) => m !== ANY_MODEL).map((id) => ({ id, object: 'model', created: 0, owned_by: 'tilth-fake-model' })),
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
    const responder = this.#responders.get(request.model);
    const broken = this.#failures.find((f) => f.kind === 'unscripted' || f.kind === 'expectation_mismatch');
    if (broken && !responder) {
      const message = `an earlier request already failed, so this one does too: ${broken.message}`;
      return answer(400, errorBody('fake_model_failed', `fake model: ${message}`), { 'x-fake-model-failure': 'after_failure' });
    }

    let taken = this.#take(request.model);
    if (!taken && responder) {
      try {
        taken = { queue: request.model, item: await this.#respond(responder, request) };
      } catch (err) {
        const message = `the responder for model "${request.model}" failed on request #${record.seq}: ${(err as Error).message}`;
        this.#fail('responder_error', message, record);
        return answer(400, errorBody('responder_error', `fake model: ${message}`), { 'x-fake-model-failure': 'responder_error' });
      }
    }
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
        return answer(
          429,
          errorBody('rate_limit_exceeded', reply.error_message ?? 'Rate limit exceeded (scripted by the fake model)', 'rate_limit_error'),
          headers,
        );
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
        res.write(
          request.stream ? `data: ${JSON.stringify(streamChunks(planMessage({ content: '' }, request, record.seq), meta, usage, false)[0])}\n\n` : '{"id": ',
        );
        return await new Promise<void>((resolve) => gone.addEventListener('abort', () => resolve(), { once: true }));
      case 'endless':
        record.status = 200;
        if (request.stream) return await this.#sendEndless(res, 'text/event-stream', ENDLESS_COMPLETION_STREAM);
        return await this.#sendEndless(res, 'application/json', ENDLESS_COMPLETION);
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

export function startScriptedModel(opts: StartScriptedModelOptions = {}): Promise<ScriptedModel> {
  return ScriptedModel.start(opts);
}
