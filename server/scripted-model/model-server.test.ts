import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ScriptedModelAssertionError,
  FakeScriptError,
  MALFORMED_TOOL_ARGUMENTS,
  loadScriptFile,
  startScriptedModel,
  type ScriptedModel,
} from './model-server.ts';

let fake: ScriptedModel;

beforeEach(async () => {
  fake = await startScriptedModel();
});

afterEach(async () => {
  await fake.close();
});

const USER = [{ role: 'user', content: 'hello' }];
const TOOLS = [
  { type: 'function', function: { name: 'read_file', parameters: { type: 'object' } } },
  { type: 'function', function: { name: 'write_file', parameters: { type: 'object' } } },
];

async function call(body: unknown, init: { path?: string; method?: string; headers?: Record<string, string>; signal?: AbortSignal } = {}) {
  const url = new URL(init.path ?? 'chat/completions', `${fake.baseURL}/`);
  const res = await fetch(url, {
    method: init.method ?? 'POST',
    headers: { 'content-type': 'application/json', ...init.headers },
    body: body === undefined ? null : typeof body === 'string' ? body : JSON.stringify(body),
    signal: init.signal ?? null,
  });
  const text = await res.text();
  // biome-ignore lint/suspicious/noExplicitAny: the replies are free-form JSON under test
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, headers: res.headers, json };
}

function control(route: string, body?: unknown) {
  return call(body, { path: new URL(`/_control/${route}`, fake.baseURL).href, method: body === undefined ? 'GET' : 'POST' });
}

describe('scripted replies', () => {
  it('serves each model its own queue in order and records every request without the authorization header', async () => {
    fake.enqueue('model-a', { content: 'first', label: 'a1' }, { content: 'second' });
    fake.enqueue('model-b', { content: 'from b', reasoning: 'thinking', reasoning_details: [{ type: 'reasoning.text', text: 'thinking' }] });

    const b = await call({ model: 'model-b', messages: USER }, { headers: { authorization: 'Bearer sk-secret' } });
    const a1 = await call({ model: 'model-a', messages: USER, tools: TOOLS });
    const a2 = await call({ model: 'model-a', messages: USER });

    expect(b.status).toBe(200);
    expect(b.json.choices[0].message).toMatchObject({ role: 'assistant', content: 'from b', reasoning: 'thinking' });
    expect(b.json.choices[0].message.reasoning_details).toEqual([{ type: 'reasoning.text', text: 'thinking' }]);
    expect(b.json.choices[0].finish_reason).toBe('stop');
    expect(a1.json.choices[0].message.content).toBe('first');
    expect(a2.json.choices[0].message.content).toBe('second');

    const records = fake.requests;
    expect(records.map((r) => [r.seq, r.model, r.servedBy?.position])).toEqual([
      [1, 'model-b', 1],
      [2, 'model-a', 1],
      [3, 'model-a', 2],
    ]);
    expect(records[1]?.servedBy).toEqual({ queue: 'model-a', position: 1, label: 'a1', fault: null });
    expect(records[1]?.tools).toEqual(TOOLS);
    expect(records[0]?.messages).toEqual(USER);
    expect(records[0]?.stream).toBe(false);
    expect(records[0]?.headers).not.toHaveProperty('authorization');
    expect(records[0]?.headers['content-type']).toBe('application/json');
    expect(() => fake.assertDone()).not.toThrow();
  });

  it('stringifies object tool arguments, keeps string arguments raw, and defaults finish_reason to tool_calls', async () => {
    fake.enqueue('m', {
      content: null,
      tool_calls: [
        { id: 'call_x', name: 'write_file', arguments: { path: 'a.txt', content: 'hi' } },
        { name: 'bash', arguments: 'ls -la' },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 5, cost: 0.25 },
    });
    const { json } = await call({ model: 'm', messages: USER });
    const choice = json.choices[0];
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.tool_calls).toEqual([
      { id: 'call_x', type: 'function', function: { name: 'write_file', arguments: '{"path":"a.txt","content":"hi"}' } },
      { id: 'call_1_2', type: 'function', function: { name: 'bash', arguments: 'ls -la' } },
    ]);
    expect(json.usage).toEqual({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, cost: 0.25 });
  });

  it('serves the "*" queue to a model that has nothing of its own', async () => {
    fake.enqueue('*', { content: 'anyone', expect: { model: 'whatever' } });
    const res = await call({ model: 'whatever', messages: USER });
    expect(res.json.choices[0].message.content).toBe('anyone');
    expect(fake.requests[0]?.servedBy?.queue).toBe('*');
  });

  it('answers an unscripted request with 400 naming the model, and assertDone throws', async () => {
    const res = await call({ model: 'ghost-model', messages: USER });
    expect(res.status).toBe(400);
    expect(res.json.error.message).toContain('no reply was scripted for model "ghost-model"');
    expect(fake.failures).toHaveLength(1);
    expect(fake.failures[0]).toMatchObject({ kind: 'unscripted', model: 'ghost-model', requestSeq: 1 });
    expect(() => fake.assertDone()).toThrow(ScriptedModelAssertionError);
    expect(() => fake.assertDone()).toThrow(/request #1 failed \(unscripted\)/);
  });

  it('refuses requests from web pages: any Origin, or a Host that is not loopback', async () => {
    fake.enqueue('m', { content: 'x' });
    const fromPage = await fetch(`${fake.baseURL.replace('/v1', '')}/_control/script`, {
      method: 'POST',
      headers: { origin: 'http://evil.example', 'content-type': 'text/plain' },
      body: JSON.stringify({ models: { m: [{ content: 'injected' }] } }),
    });
    expect(fromPage.status).toBe(403);
    expect(fake.remaining()).toEqual({ m: 1 });
  });

  it('makes assertDone list the replies nobody asked for', () => {
    fake.enqueue('m', { content: 'never sent', label: 'the-leftover' }, { fault: 'rate_limit' });
    expect(() => fake.assertDone()).toThrow(
      /2 scripted replies were never requested for model "m": #1 "the-leftover" \(content "never sent"\), #2 \(fault rate_limit\)/,
    );
  });

  it('answers 400 and records a failure when an expectation does not hold', async () => {
    fake.enqueue('m', {
      content: 'unused',
      expect: { tools_include: ['read_file', 'submit_case'], last_message_contains: 'T-001', system_contains: 'advocate' },
    });
    const res = await call({ model: 'm', messages: [{ role: 'system', content: 'You are a worker.' }, ...USER], tools: TOOLS });
    expect(res.status).toBe(400);
    expect(res.headers.get('x-fake-model-failure')).toBe('expectation_mismatch');
    const failure = fake.failures[0];
    expect(failure?.kind).toBe('expectation_mismatch');
    expect(failure?.message).toContain('expected tools to include submit_case; the request offered [read_file, write_file]');
    expect(failure?.message).toContain('expected the last message to contain "T-001"; it was "hello"');
    expect(failure?.message).toContain('expected a system message containing "advocate"');
    expect(fake.remaining()).toEqual({ m: 0 });
    expect(() => fake.assertDone()).toThrow(/expectation_mismatch/);
  });

  it('lets a request through when every expectation holds, reading text content parts too', async () => {
    fake.enqueue('m', { content: 'ok', expect: { model: 'm', tools_include: ['write_file'], last_message_contains: 'T-001', system_contains: 'advocate' } });
    const res = await call({
      model: 'm',
      messages: [
        { role: 'system', content: 'You are the advocate.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Work on ' },
            { type: 'text', text: 'T-001 now' },
          ],
        },
      ],
      tools: TOOLS,
    });
    expect(res.status).toBe(200);
    expect(fake.failures).toEqual([]);
  });

  it('rejects a request that is not a chat completion with 400 and records it', async () => {
    const res = await call({ messages: USER });
    expect(res.status).toBe(400);
    expect(res.json.error.message).toContain('model');
    const bad = await call('{not json');
    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toContain('not valid JSON');
    expect(fake.failures.map((f) => f.kind)).toEqual(['bad_request', 'bad_request']);
  });

  it('lists the scripted models on GET /v1/models', async () => {
    fake.enqueue('alpha', { content: 'x' });
    fake.enqueue('beta', { content: 'y' });
    fake.enqueue('*', { content: 'z' });
    const res = await call(undefined, { path: 'models', method: 'GET' });
    expect(res.json.object).toBe('list');
    expect(res.json.data.map((m: { id: string }) => m.id)).toEqual(['alpha', 'beta']);
  });

  it('checks the key when started with one: 401 quoting the wrong key, like a real provider', async () => {
    const strict = await startScriptedModel({ apiKey: 'sk-right-0123456789' });
    try {
      strict.enqueue('m', { content: 'let in' });
      const wrong = await fetch(`${strict.baseURL}/models`, { headers: { authorization: 'Bearer sk-wrong-0123456789' } });
      expect(wrong.status).toBe(401);
      expect(((await wrong.json()) as { error: { message: string; code: string } }).error).toMatchObject({
        code: 'invalid_api_key',
        message: expect.stringContaining('Incorrect API key provided: sk-wrong-0123456789'),
      });
      const none = await fetch(`${strict.baseURL}/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'm', messages: USER }) });
      expect(none.status).toBe(401);
      const sdk = new OpenAI({ baseURL: strict.baseURL, apiKey: 'sk-right-0123456789' });
      expect((await sdk.models.list()).data.map((m) => m.id)).toEqual(['m']);
      const reply = await sdk.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
      expect(reply.choices[0]?.message.content).toBe('let in');
      strict.assertDone();
    } finally {
      await strict.close();
    }
  });

  it('has no GET /v1/models when started with listModels: false', async () => {
    const bare = await startScriptedModel({ listModels: false });
    try {
      const res = await fetch(`${bare.baseURL}/models`);
      expect(res.status).toBe(404);
      expect(await res.text()).toContain('no model list');
    } finally {
      await bare.close();
    }
  });

  it('waits delay_ms before answering', async () => {
    fake.enqueue('m', { content: 'late', delay_ms: 120 });
    const started = Date.now();
    const res = await call({ model: 'm', messages: USER });
    expect(res.json.choices[0].message.content).toBe('late');
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);
  });
});

describe('responders', () => {
  it('answers a model with no queued reply from the request itself, after anything queued for it', async () => {
    const seen: number[] = [];
    fake.enqueue('demo', { content: 'queued first' });
    fake.respondWith('demo', (request) => {
      seen.push(request.messages.length);
      return { content: `you sent ${request.messages.length} message(s)`, label: 'echo' };
    });
    const first = await call({ model: 'demo', messages: USER });
    const second = await call({ model: 'demo', messages: [...USER, { role: 'assistant', content: 'hi' }, ...USER] });
    expect(first.json.choices[0].message.content).toBe('queued first');
    expect(second.json.choices[0].message.content).toBe('you sent 3 message(s)');
    expect(seen).toEqual([3]);
    expect(fake.requests[1]?.servedBy).toEqual({ queue: 'demo', position: 2, label: 'echo', fault: null });
    expect(() => fake.assertDone()).not.toThrow();
  });

  it('leaves every other model to the rule: an unscripted request still fails, and a removed responder answers nothing', async () => {
    const remove = fake.respondWith('demo', () => ({ content: 'scripted by position' }));
    expect((await call({ model: 'other', messages: USER })).status).toBe(400);
    // A responder keeps its model in step whatever happened to the queues of others.
    expect((await call({ model: 'demo', messages: USER })).status).toBe(200);
    remove();
    const after = await call({ model: 'demo', messages: USER });
    expect(after.status).toBe(400);
    expect(after.json.error.message).toContain('an earlier request already failed');
    expect(() => fake.respondWith('*', () => ({ content: 'x' }))).toThrow(FakeScriptError);
  });

  it('records a failure, not a crash, when the responder throws or returns a reply that is not valid', async () => {
    fake.respondWith('broken', () => {
      throw new Error('no idea');
    });
    fake.respondWith('invalid', () => ({ label: 'says nothing' }));
    const thrown = await call({ model: 'broken', messages: USER });
    const invalid = await call({ model: 'invalid', messages: USER });
    expect(thrown.status).toBe(400);
    expect(thrown.json.error.message).toContain('no idea');
    expect(invalid.status).toBe(400);
    expect(invalid.json.error.message).toContain('needs content, tool_calls');
    expect(fake.failures.map((f) => f.kind)).toEqual(['responder_error', 'responder_error']);
  });
});

describe('faults', () => {
  it('rate_limit answers 429 with retry-after (and retry-after-ms when scripted)', async () => {
    fake.enqueue('m', { fault: 'rate_limit', retry_after: 7 }, { fault: 'rate_limit', retry_after_ms: 250, error_message: 'slow down' });
    const first = await call({ model: 'm', messages: USER });
    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe('7');
    expect(first.json.error.type).toBe('rate_limit_error');
    const second = await call({ model: 'm', messages: USER });
    expect(second.headers.get('retry-after')).toBe('1');
    expect(second.headers.get('retry-after-ms')).toBe('250');
    expect(second.json.error.message).toBe('slow down');
  });

  it('server_error answers 500 or the scripted 5xx status', async () => {
    fake.enqueue('m', { fault: 'server_error' }, { fault: 'server_error', status: 503 });
    expect((await call({ model: 'm', messages: USER })).status).toBe(500);
    expect((await call({ model: 'm', messages: USER })).status).toBe(503);
  });

  it('empty, no_choices, finish_error, error_body and malformed_tool_args answer 200 with the broken shape', async () => {
    fake.enqueue(
      'm',
      { fault: 'empty' },
      { fault: 'no_choices' },
      { fault: 'finish_error', content: 'half an answer' },
      { fault: 'error_body', error_message: 'upstream exploded' },
      { fault: 'malformed_tool_args' },
    );
    const ask = () => call({ model: 'm', messages: USER, tools: TOOLS });

    const empty = await ask();
    expect(empty.status).toBe(200);
    expect(empty.json.choices[0].message.content).toBeNull();
    expect(empty.json.choices[0].message.tool_calls).toBeUndefined();

    const noChoices = await ask();
    expect(noChoices.json.choices).toEqual([]);

    const finishError = await ask();
    expect(finishError.json.choices[0]).toMatchObject({ finish_reason: 'error', message: { content: 'half an answer' } });

    const errorBody = await ask();
    expect(errorBody.status).toBe(200);
    expect(errorBody.json).toEqual({ error: { message: 'upstream exploded', code: 502 } });

    const malformed = await ask();
    const toolCall = malformed.json.choices[0].message.tool_calls[0];
    expect(toolCall.function).toEqual({ name: 'read_file', arguments: MALFORMED_TOOL_ARGUMENTS });
    expect(() => JSON.parse(toolCall.function.arguments)).toThrow();
    expect(fake.requests.map((r) => r.servedBy?.fault)).toEqual(['empty', 'no_choices', 'finish_error', 'error_body', 'malformed_tool_args']);
  });

  it('hang never answers until the client gives up', async () => {
    fake.enqueue('m', { fault: 'hang' }, { content: 'after the hang' });
    const gaveUp = call({ model: 'm', messages: USER }, { signal: AbortSignal.timeout(80) });
    await expect(gaveUp).rejects.toThrow();
    const next = await call({ model: 'm', messages: USER });
    expect(next.json.choices[0].message.content).toBe('after the hang');
  });

  it('stall sends the headers and then never finishes the body', async () => {
    fake.enqueue('m', { fault: 'stall' });
    const res = await fetch(`${fake.baseURL}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', messages: USER }),
      signal: AbortSignal.timeout(150),
    });
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
  });

  it('endless sends a reply that never ends, JSON or streamed, until the client stops reading, and counts what it wrote', async () => {
    fake.enqueue('m', { fault: 'endless' }, { fault: 'endless' });
    for (const stream of [false, true]) {
      const res = await fetch(`${fake.baseURL}/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'm', messages: USER, stream }) });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(stream ? 'text/event-stream' : 'application/json');
      const reader = res.body!.getReader();
      let text = '';
      while (text.length < 4 * 65_536) text += Buffer.from((await reader.read()).value!).toString();
      await reader.cancel();
      expect(text).toContain(stream ? 'data: {"id":"chatcmpl-endless","object":"chat.completion.chunk"' : '"content":"endless endless endless');
      expect(text).not.toContain('[DONE]');
    }
    await waitFor(() => fake.endless.closed === 2);
    expect(fake.endless.open).toBe(0);
    expect(fake.endless.written).toBeGreaterThan(8 * 65_536);
    expect(fake.requests.map((r) => [r.servedBy?.fault, r.status])).toEqual([
      ['endless', 200],
      ['endless', 200],
    ]);
  });

  it("with listModels 'endless', sends a model list that never ends", async () => {
    const endless = await startScriptedModel({ listModels: 'endless' });
    try {
      const res = await fetch(`${endless.baseURL}/models`);
      const reader = res.body!.getReader();
      let text = '';
      while (text.length < 65_536) text += Buffer.from((await reader.read()).value!).toString();
      await reader.cancel();
      expect(text.startsWith('{"object":"list","data":[{"id":"endless","object":"model"')).toBe(true);
      await waitFor(() => endless.endless.closed === 1);
    } finally {
      await endless.close();
    }
  });

  it('close() ends hung requests instead of waiting for them', async () => {
    fake.enqueue('m', { fault: 'hang' }, { content: 'slow', delay_ms: 60_000 });
    const settled = Promise.allSettled([call({ model: 'm', messages: USER }), call({ model: 'm', messages: USER })]);
    await waitFor(() => fake.requests.length === 2);
    const started = Date.now();
    await fake.close();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect((await settled).map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });
});

describe('streaming', () => {
  it('gives the openai SDK the same content, reasoning, tool calls and usage as the JSON reply', async () => {
    const reply = {
      content: 'I will write the file now, then run the tests to be sure.',
      reasoning: 'The task needs a new file.',
      tool_calls: [
        { name: 'write_file', arguments: { path: 'src/feature.py', content: 'def feature():\n    return 42\n' } },
        { name: 'bash', arguments: { command: 'python3 -m pytest -q tests/test_t001_feature.py' } },
      ],
      usage: { prompt_tokens: 321, completion_tokens: 54, cost: 0.0012 },
    };
    fake.enqueue('m', reply, reply);
    const sdk = new OpenAI({ baseURL: fake.baseURL, apiKey: 'test-key', maxRetries: 0 });

    const plain = await sdk.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'go' }] });

    const stream = await sdk.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'go' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let content = '';
    let reasoning = '';
    let finishReason: string | null = null;
    let usage: unknown = null;
    const calls: { id: string; name: string; arguments: string }[] = [];
    for await (const chunk of stream) {
      if (chunk.usage) usage = chunk.usage;
      const choice = chunk.choices[0];
      if (!choice) continue;
      const delta = choice.delta as typeof choice.delta & { reasoning?: string };
      content += delta.content ?? '';
      reasoning += delta.reasoning ?? '';
      for (const tc of delta.tool_calls ?? []) {
        const slot = (calls[tc.index] ??= { id: '', name: '', arguments: '' });
        slot.id += tc.id ?? '';
        slot.name += tc.function?.name ?? '';
        slot.arguments += tc.function?.arguments ?? '';
      }
      finishReason = choice.finish_reason ?? finishReason;
    }

    const message = plain.choices[0]?.message as (typeof plain.choices)[0]['message'] & { reasoning?: string };
    expect(content).toBe(message.content);
    expect(reasoning).toBe(message.reasoning);
    expect(finishReason).toBe(plain.choices[0]?.finish_reason);
    expect(finishReason).toBe('tool_calls');
    expect(usage).toEqual(plain.usage);
    const plainCalls = (message.tool_calls ?? []).map((c) => (c.type === 'function' ? { name: c.function.name, arguments: c.function.arguments } : null));
    expect(calls.map((c) => ({ name: c.name, arguments: c.arguments }))).toEqual(plainCalls);
    expect(calls.every((c) => c.id.startsWith('call_'))).toBe(true);
    expect(fake.requests[1]?.stream).toBe(true);
    fake.assertDone();
  });

  it('streams no_choices and finish_error faults in chunk form', async () => {
    fake.enqueue('m', { fault: 'finish_error', content: 'partial' }, { fault: 'no_choices' });
    const sdk = new OpenAI({ baseURL: fake.baseURL, apiKey: 'test-key', maxRetries: 0 });
    const collect = async () => {
      const chunks = [];
      for await (const chunk of await sdk.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'go' }], stream: true }))
        chunks.push(chunk);
      return chunks;
    };
    const finishError = await collect();
    expect(finishError.at(-1)?.choices[0]?.finish_reason).toBe('error');
    const noChoices = await collect();
    expect(noChoices.every((c) => c.choices.length === 0)).toBe(true);
  });
});

describe('control routes', () => {
  it('loads a script over HTTP, reports state and requests, and resets', async () => {
    const loaded = await control('script', { models: { m: [{ content: 'via http' }, { fault: 'server_error' }] } });
    expect(loaded.status).toBe(200);
    expect(loaded.json.remaining).toEqual({ m: 2 });

    await call({ model: 'm', messages: USER });
    const state = await control('state');
    expect(state.json.remaining).toEqual({ m: 1 });
    expect(state.json.pending).toEqual([{ queue: 'm', reply: '#2 (fault server_error)' }]);
    expect(state.json.requestCount).toBe(1);
    expect(state.json.failures).toEqual([]);

    const requests = await control('requests');
    expect(requests.json.requests).toHaveLength(1);
    expect(requests.json.requests[0].servedBy.position).toBe(1);

    const reset = await control('reset', {});
    expect(reset.status).toBe(200);
    expect(fake.remaining()).toEqual({});
    expect(fake.requests).toEqual([]);
  });

  it('answers 400 with the offending path for a bad script and adds nothing', async () => {
    const res = await control('script', { models: { m: [{ content: 'fine' }, { tool_calls: [{ arguments: {} }] }] } });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('invalid_fake_script');
    expect(res.json.error.message).toContain('request body is not a valid fake-model script');
    expect(res.json.error.message).toContain('models.m.1.tool_calls.0.name');
    expect(fake.remaining()).toEqual({});

    const notJson = await call('nope', { path: new URL('/_control/script', fake.baseURL).href });
    expect(notJson.status).toBe(400);
    const badReset = await control('reset', { everything: true });
    expect(badReset.status).toBe(400);
    expect(badReset.json.error.message).toContain('everything');
  });

  it('answers 404 listing the routes for an unknown path', async () => {
    const res = await call(undefined, { path: new URL('/v1/completions', fake.baseURL).href, method: 'GET' });
    expect(res.status).toBe(404);
    expect(res.json.error.message).toContain('POST /v1/chat/completions');
  });
});

describe('script validation', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'tilth-fake-model-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('loads a JSON script file that startScriptedModel then serves', async () => {
    const file = path.join(dir, 'script.json');
    await writeFile(file, JSON.stringify({ models: { 'from-file': [{ content: 'scripted', usage: { prompt_tokens: 1, completion_tokens: 2 } }] } }));
    const script = await loadScriptFile(file);
    const other = await startScriptedModel({ script });
    try {
      const res = await fetch(`${other.baseURL}/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'from-file', messages: USER }) });
      const json = (await res.json()) as { choices: { message: { content: string } }[] };
      expect(json.choices[0]?.message.content).toBe('scripted');
      other.assertDone();
    } finally {
      await other.close();
    }
  });

  it('names the file and the reason for a file that is not JSON or not a script', async () => {
    const broken = path.join(dir, 'broken.json');
    await writeFile(broken, '{"models": ');
    await expect(loadScriptFile(broken)).rejects.toThrow(`fake-model script ${broken} is not valid JSON`);

    const wrong = path.join(dir, 'wrong.json');
    await writeFile(wrong, JSON.stringify({ models: { m: [{ content: 'x', tool_call: [] }] } }));
    const error = await loadScriptFile(wrong).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(FakeScriptError);
    expect((error as Error).message).toContain(`${wrong} is not a valid fake-model script`);
    expect((error as Error).message).toMatch(/models\.m\.0: Unrecognized key.*tool_call/);

    await expect(loadScriptFile(path.join(dir, 'missing.json'))).rejects.toThrow(/cannot read fake-model script/);
  });

  it('rejects replies that contradict themselves or say nothing', () => {
    expect(() => fake.enqueue('m', { fault: 'hang', content: 'ignored' })).toThrow(/content has no effect with fault "hang"/);
    expect(() => fake.enqueue('m', { content: 'x', retry_after: 3 })).toThrow(/retry_after and retry_after_ms only apply to fault "rate_limit"/);
    expect(() => fake.enqueue('m', { fault: 'server_error', status: 404 })).toThrow(/status/);
    expect(() => fake.enqueue('m', {})).toThrow(/use fault "empty"/);
    expect(() => fake.enqueue('m', { content: 'ok' }, { usage: { prompt_tokens: -1, completion_tokens: 0 }, content: 'x' })).toThrow(
      /reply 2 for model "m".*usage\.prompt_tokens/,
    );
    expect(fake.remaining()).toEqual({});
  });
});

async function waitFor(predicate: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}
