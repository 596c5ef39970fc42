import { APIError } from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cannedCompletion, startCannedServer, type CannedResponse, type CannedServer } from '../testing/canned-http.ts';
import { MALFORMED_TOOL_ARGUMENTS, startScriptedModel, type ScriptedModel } from '../scripted-model/model-server.ts';
import { ENDLESS_COMPLETION, SOCKET_SLACK_BYTES, startEndlessServer, type EndlessServer } from '../testing/endless-http.ts';
import { COMPLETION_MAX_BYTES, METADATA_MAX_BYTES } from './bounded-answer.ts';
import { ModelClient, type ChatRequest, type ModelClientOptions, type RetryNotice } from './client.ts';
import { ProviderFailureError, ProviderNotConfiguredError, UnhealthyReplyError } from './errors.ts';
import { assistantHistoryMessage } from './reply.ts';
import type { Sleep } from './retry.ts';
import type { RoleEndpoints } from './types.ts';

const MESSAGES = [{ role: 'user' as const, content: 'Work on T-001.' }];
const TOOLS = [{ type: 'function' as const, function: { name: 'read_file', parameters: { type: 'object' } } }];
const KEY = 'sk-test-0123456789abcdef';

let fake: ScriptedModel;
const extraServers: ScriptedModel[] = [];

beforeEach(async () => {
  fake = await startScriptedModel();
});

afterEach(async () => {
  await Promise.all([fake, ...extraServers.splice(0)].map((f) => f.close()));
});

/** A client for the worker role at `fake`, recording every backoff delay; `chat` also records each retry notice. */
function setup(options: Partial<ModelClientOptions> = {}, endpoints?: RoleEndpoints) {
  const notices: RetryNotice[] = [];
  const delays: number[] = [];
  const sleep: Sleep = async (ms) => {
    delays.push(ms);
  };
  const client = new ModelClient({
    endpoints: endpoints ?? { worker: { baseUrl: fake.baseURL, apiKey: KEY, model: 'worker-model' } },
    sleep,
    random: () => 0.5,
    retry: { baseDelayMs: 100 },
    ...options,
  });
  const chat = (request: ChatRequest) => client.chat('worker', { ...request, onRetry: (notice) => notices.push(notice) });
  return { client, chat, notices, delays };
}

describe('routing by role', () => {
  it('sends two roles with the same model name to their own providers', async () => {
    const other = await startScriptedModel();
    extraServers.push(other);
    fake.enqueue('shared-model', { content: 'from the worker provider' });
    other.enqueue('shared-model', { content: 'from the evaluator provider' });
    const { client } = setup(
      {},
      {
        worker: { baseUrl: fake.baseURL, apiKey: 'key-one', model: 'shared-model' },
        evaluator: { baseUrl: other.baseURL, apiKey: 'key-two', model: 'shared-model' },
      },
    );

    const evaluator = await client.chat('evaluator', { messages: MESSAGES });
    const worker = await client.chat('worker', { messages: MESSAGES });

    expect(evaluator.message.content).toBe('from the evaluator provider');
    expect(worker.message.content).toBe('from the worker provider');
    expect(fake.requests).toHaveLength(1);
    expect(other.requests).toHaveLength(1);
    expect(client.sdkClientCount).toBe(2);
    fake.assertDone();
    other.assertDone();
  });

  it('makes SDK clients at the first call, one shared between roles with the same base URL and key', async () => {
    const endpoint = { baseUrl: fake.baseURL, apiKey: KEY };
    const { client } = setup(
      {},
      {
        worker: { ...endpoint, model: 'a' },
        evaluator: { ...endpoint, model: 'b' },
        prep: { ...endpoint, model: 'c' },
      },
    );
    expect(client.sdkClientCount).toBe(0);
    for (const [role, model] of [
      ['worker', 'a'],
      ['evaluator', 'b'],
      ['prep', 'c'],
    ] as const) {
      fake.enqueue(model, { content: `from ${model}` });
      expect((await client.chat(role, { messages: MESSAGES })).message.content).toBe(`from ${model}`);
    }
    expect(client.sdkClientCount).toBe(1);
    expect(client.describeEndpoint('prep')).toEqual({ baseUrl: fake.baseURL, model: 'c' });
  });

  it('throws provider_not_configured naming the variables to set for an unconfigured role', async () => {
    const { client } = setup();
    const error = await client.chat('prep', { messages: MESSAGES }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ProviderNotConfiguredError);
    expect((error as ProviderNotConfiguredError).code).toBe('provider_not_configured');
    expect((error as Error).message).toContain('TILTH_PREP_BASE_URL, TILTH_PREP_API_KEY and TILTH_PREP_MODEL');
    expect(client.isConfigured('prep')).toBe(false);
    expect(fake.requests).toHaveLength(0);
  });

  it('sends tools and tool_choice only when given, and no OpenRouter reasoning opt-in elsewhere', async () => {
    fake.enqueue('worker-model', { content: 'a', expect: { tools_include: ['read_file'] } }, { content: 'b' });
    const { client } = setup();
    await client.chat('worker', { messages: MESSAGES, tools: TOOLS, toolChoice: 'auto' });
    await client.chat('worker', { messages: MESSAGES, tools: [] });
    const [first, second] = fake.requests.map((r) => r.body as Record<string, unknown>);
    expect(first).toMatchObject({ model: 'worker-model', tool_choice: 'auto' });
    expect(second).not.toHaveProperty('tools');
    expect(second).not.toHaveProperty('tool_choice');
    expect(first).not.toHaveProperty('reasoning');
    fake.assertDone();
  });
});

describe('retries', () => {
  it('honours retry-after on a 429, then returns the reply', async () => {
    fake.enqueue('worker-model', { fault: 'rate_limit', retry_after: 3 }, { content: 'made it' });
    const { chat, notices, delays } = setup();
    const result = await chat({ messages: MESSAGES });
    expect(result.message.content).toBe('made it');
    expect(result.attempts).toBe(2);
    expect(delays).toEqual([3_000]);
    expect(notices.map((n) => [n.attempt, n.status, n.waitMs])).toEqual([[1, 429, 3_000]]);
    expect(notices[0]?.reason).toContain('HTTP 429');
    fake.assertDone();
  });

  it('prefers retry-after-ms, and gives up when the provider asks for more than the cap', async () => {
    fake.enqueue('worker-model', { fault: 'rate_limit', retry_after: 9, retry_after_ms: 1_500 }, { fault: 'rate_limit', retry_after: 3_600 });
    const { client, delays } = setup({ retry: { retryAfterCapMs: 5_000, maxTotalWaitMs: 60_000 } });
    await expect(client.chat('worker', { messages: MESSAGES })).rejects.toThrow(/asked to wait 3600000 ms, longer than the 5000 ms/);
    expect(delays).toEqual([1_500]);
    fake.assertDone();
  });

  it('retries a 500 with exponential backoff, then succeeds', async () => {
    fake.enqueue('worker-model', { fault: 'server_error' }, { fault: 'server_error', status: 503 }, { content: 'third time' });
    const { chat, delays, notices } = setup();
    const result = await chat({ messages: MESSAGES });
    expect(result.message.content).toBe('third time');
    expect(result.attempts).toBe(3);
    // base 100 ms doubling, equal jitter at random() = 0.5 → 75 % of each step
    expect(delays).toEqual([75, 150]);
    expect(notices.map((n) => n.status)).toEqual([500, 503]);
  });

  it('times out a hung request per call and retries', async () => {
    fake.enqueue('worker-model', { fault: 'hang' }, { content: 'awake' });
    const { chat, notices } = setup();
    const started = Date.now();
    // Long enough that the answer after the hang arrives in time on a loaded machine (at 150 ms it
    // could time out too, and be retried a second time); the hang itself never answers.
    const result = await chat({ messages: MESSAGES, timeoutMs: 1_000 });
    expect(result.message.content).toBe('awake');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(notices).toMatchObject([{ attempt: 1, status: null, reason: 'no complete answer within 1000 ms' }]);
  });

  it('times out a reply whose body stalls after the headers, and retries', async () => {
    fake.enqueue('worker-model', { fault: 'stall' }, { content: 'flowing' });
    const { chat, notices } = setup();
    const result = await chat({ messages: MESSAGES, timeoutMs: 150 });
    expect(result.message.content).toBe('flowing');
    expect(notices).toMatchObject([{ attempt: 1, reason: 'no complete answer within 150 ms' }]);
  });

  it('retries a reply that finished with an error and never returns it', async () => {
    fake.enqueue('worker-model', { fault: 'finish_error', content: 'broken half' }, { content: 'whole' });
    const { chat, notices } = setup();
    const result = await chat({ messages: MESSAGES });
    expect(result.message.content).toBe('whole');
    expect(result).toMatchObject({ health: 'ok', attempts: 2 });
    expect(notices).toHaveLength(1);
  });

  it('retries replies with no choices or an error body', async () => {
    fake.enqueue('worker-model', { fault: 'no_choices' }, { fault: 'error_body', error_message: 'upstream down' }, { content: 'fine' });
    const { chat, notices } = setup();
    expect(await chat({ messages: MESSAGES })).toMatchObject({ health: 'ok', attempts: 3 });
    expect(notices.map((n) => n.reason)).toEqual(['reply had no choices', 'reply carried an error: upstream down']);
  });

  it('throws ProviderFailureError with the last cause when attempts run out', async () => {
    fake.enqueue('worker-model', { fault: 'server_error' }, { fault: 'server_error' }, { fault: 'server_error', status: 502 });
    const { chat, notices } = setup({ retry: { maxAttempts: 3, baseDelayMs: 1 } });
    const error = await chat({ messages: MESSAGES }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ProviderFailureError);
    const failure = error as ProviderFailureError;
    expect(failure.code).toBe('provider_failure');
    expect(failure.attempts).toBe(3);
    expect(failure.httpStatus).toBe(502);
    expect(failure.cause).toBeInstanceOf(APIError);
    expect(failure.message).toContain('gave up after 3 attempt(s)');
    expect(notices.map((n) => n.attempt)).toEqual([1, 2]);
    fake.assertDone();
  });

  it('throws rather than return an unhealthy reply when attempts run out', async () => {
    fake.enqueue('worker-model', { fault: 'finish_error', content: 'x' }, { fault: 'no_choices' });
    const { client } = setup({ retry: { maxAttempts: 2 } });
    const error = (await client.chat('worker', { messages: MESSAGES }).catch((err: unknown) => err)) as ProviderFailureError;
    expect(error).toBeInstanceOf(ProviderFailureError);
    expect(error.health).toBe('no_choices');
    expect(error.cause).toBeInstanceOf(UnhealthyReplyError);
  });

  it('gives up when the next wait would pass the total retry budget', async () => {
    fake.enqueue('worker-model', { fault: 'rate_limit', retry_after: 30 });
    const { client, delays } = setup({ retry: { maxTotalWaitMs: 10_000 } });
    const error = (await client.chat('worker', { messages: MESSAGES }).catch((err: unknown) => err)) as ProviderFailureError;
    expect(error).toBeInstanceOf(ProviderFailureError);
    expect(error.attempts).toBe(1);
    expect(error.message).toContain('retry budget of 10000 ms');
    expect(delays).toEqual([]);
  });

  it('does not retry a 4xx other than 408, 409 and 429', async () => {
    const { chat, notices } = setup();
    // The fake answers 400 to a request with no messages.
    const error = (await chat({ messages: [] }).catch((err: unknown) => err)) as ProviderFailureError;
    expect(error).toBeInstanceOf(ProviderFailureError);
    expect(error.httpStatus).toBe(400);
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('not retried');
    expect(error.attempts).toBe(1);
    expect(notices).toEqual([]);
    expect(fake.failures.map((f) => f.kind)).toEqual(['bad_request']);
  });

  it('retries a refused connection once, quickly, then says it cannot reach the URL, with no key anywhere', async () => {
    const gone = await startScriptedModel();
    await gone.close();
    const { chat, notices, delays } = setup({ retry: { baseDelayMs: 5_000 } }, { worker: { baseUrl: gone.baseURL, apiKey: KEY, model: 'm' } });
    const error = (await chat({ messages: MESSAGES }).catch((err: unknown) => err)) as ProviderFailureError;
    expect(error).toBeInstanceOf(ProviderFailureError);
    expect(error.attempts).toBe(2);
    expect(error.retryable).toBe(true);
    expect(error.kind).toBe('unreachable');
    expect(delays).toEqual([1_000]);
    expect(notices.map((n) => [n.attempt, n.maxAttempts])).toEqual([[1, 2]]);
    expect(notices[0]?.reason).toBe(`cannot reach ${gone.baseURL} (connect ECONNREFUSED 127.0.0.1:${gone.port})`);
    expect(error.message).toMatch(/gave up after 2 attempt\(s\)\)\. Start the model server, or correct the base URL\.$/);
    expect(error.fix).toBe('Start the model server, or correct the base URL.');
    expect([error.message, ...notices.map((n) => n.reason)].join('\n')).not.toContain(KEY);
  });

  it('gives up on a refused connection within five seconds with the default policy and real waits', async () => {
    const gone = await startScriptedModel();
    await gone.close();
    const client = new ModelClient({ endpoints: { worker: { baseUrl: gone.baseURL, apiKey: KEY, model: 'm' } } });
    const started = Date.now();
    const error = (await client.chat('worker', { messages: MESSAGES }).catch((err: unknown) => err)) as ProviderFailureError;
    expect(error).toBeInstanceOf(ProviderFailureError);
    expect(error.message).toContain(`cannot reach ${gone.baseURL}`);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('retries a lost connection with the full policy', async () => {
    // A server that accepts and hangs up at once: "other side closed", not a refusal.
    const net = await import('node:net');
    const rude = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => rude.listen(0, '127.0.0.1', resolve));
    try {
      const port = (rude.address() as { port: number }).port;
      const { chat, notices } = setup({ retry: { maxAttempts: 3 } }, { worker: { baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: KEY, model: 'm' } });
      const error = (await chat({ messages: MESSAGES }).catch((err: unknown) => err)) as ProviderFailureError;
      expect(error.kind).toBe('connection_lost');
      expect(error.attempts).toBe(3);
      expect(notices).toHaveLength(2);
      expect(notices[0]?.reason).toMatch(/^connection failed: /);
    } finally {
      await new Promise<void>((resolve) => rude.close(() => resolve()));
    }
  });

  it('shows a base URL without its credentials or query in errors', async () => {
    const gone = await startScriptedModel();
    await gone.close();
    const baseUrl = `http://user:pw@127.0.0.1:${gone.port}/v1?key=${KEY}`;
    const { chat, notices } = setup({ retry: { maxAttempts: 2 } }, { worker: { baseUrl, apiKey: KEY, model: 'm' } });
    const error = (await chat({ messages: MESSAGES }).catch((err: unknown) => err)) as ProviderFailureError;
    expect(error).toBeInstanceOf(ProviderFailureError);
    expect(error.endpoint).toBe(`http://127.0.0.1:${gone.port}/v1`);
    const visible = [error.message, ...notices.map((n) => n.reason)].join('\n');
    expect(visible).not.toContain(KEY);
    expect(visible).not.toContain('pw@');
  });
});

describe('abort', () => {
  it('cancels during a backoff sleep at once', async () => {
    fake.enqueue('worker-model', { fault: 'server_error' });
    // Real sleeps here: the point is that a long backoff does not delay the abort.
    const client = new ModelClient({
      endpoints: { worker: { baseUrl: fake.baseURL, apiKey: KEY, model: 'worker-model' } },
      retry: { baseDelayMs: 60_000, maxTotalWaitMs: 600_000 },
    });
    const controller = new AbortController();
    const started = Date.now();
    const pending = client.chat('worker', { messages: MESSAGES, signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(fake.requests).toHaveLength(1);
  });

  it('cancels a request in flight without retrying it', async () => {
    fake.enqueue('worker-model', { fault: 'hang' });
    const { chat, notices } = setup();
    const controller = new AbortController();
    const pending = chat({ messages: MESSAGES, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('user pressed stop')), 50);
    await expect(pending).rejects.toThrow('user pressed stop');
    expect(notices).toHaveLength(0);
  });
});

describe('replies', () => {
  it('returns an empty reply as empty without retrying it', async () => {
    fake.enqueue('worker-model', { fault: 'empty' });
    const { chat, notices } = setup();
    const result = await chat({ messages: MESSAGES });
    expect(result.health).toBe('empty');
    expect(result.attempts).toBe(1);
    expect(notices).toEqual([]);
    fake.assertDone();
  });

  it('retries empty replies when retryEmpty is set', async () => {
    fake.enqueue('worker-model', { fault: 'empty' }, { content: 'something' });
    const { client } = setup({ retry: { retryEmpty: true } });
    const result = await client.chat('worker', { messages: MESSAGES });
    expect(result).toMatchObject({ health: 'ok', attempts: 2 });
  });

  it('hands malformed tool arguments to the caller as the raw string', async () => {
    fake.enqueue('worker-model', { fault: 'malformed_tool_args' });
    const { client } = setup();
    const result = await client.chat('worker', { messages: MESSAGES, tools: TOOLS });
    expect(result.health).toBe('ok');
    const toolCall = result.message.tool_calls?.[0];
    expect(toolCall?.type === 'function' && toolCall.function).toEqual({ name: 'read_file', arguments: MALFORMED_TOOL_ARGUMENTS });
  });

  it('keeps reasoning for the history echo and drops the rest', async () => {
    const details = [{ type: 'reasoning.text', text: 'look first' }];
    fake.enqueue('worker-model', {
      reasoning: 'look first',
      reasoning_details: details,
      tool_calls: [{ id: 'c1', name: 'read_file', arguments: { path: 'a' } }],
    });
    const { client } = setup();
    const { message } = await client.chat('worker', { messages: MESSAGES, tools: TOOLS });
    expect(message).toHaveProperty('refusal');
    expect(assistantHistoryMessage(message)).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } }],
      reasoning: 'look first',
      reasoning_details: details,
    });
  });
});

describe('usage and cost', () => {
  it("adds up a call's tokens and cost over its attempts, failed replies included", async () => {
    const other = await startScriptedModel();
    extraServers.push(other);
    fake.enqueue(
      'w',
      { content: 'one', usage: { prompt_tokens: 100, completion_tokens: 10, cost: 0.001 } },
      { fault: 'finish_error', usage: { prompt_tokens: 50, completion_tokens: 5, cost: 0.0005 } },
      { content: 'two', usage: { prompt_tokens: 200, completion_tokens: 20, cost: 0.002 } },
    );
    other.enqueue('e', { content: 'verdict', usage: { prompt_tokens: 7, completion_tokens: 3 } });
    const { client } = setup(
      {},
      {
        worker: { baseUrl: fake.baseURL, apiKey: KEY, model: 'w' },
        evaluator: { baseUrl: other.baseURL, apiKey: KEY, model: 'e' },
      },
    );

    const first = await client.chat('worker', { messages: MESSAGES });
    const second = await client.chat('worker', { messages: MESSAGES });
    const verdict = await client.chat('evaluator', { messages: MESSAGES });

    expect(first).toMatchObject({ costUsd: 0.001, usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 } });
    // the failed attempt's tokens and cost belong to the call that retried past it
    expect(second.usage).toEqual({ prompt_tokens: 250, completion_tokens: 25, total_tokens: 275 });
    expect(second.costUsd).toBeCloseTo(0.0025, 10);
    expect(verdict).toMatchObject({ costUsd: null, usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } });
    fake.assertDone();
    other.assertDone();
  });
});

describe('reconfigure', () => {
  it('sends the next call of a role to its new endpoint and drops SDK clients nobody uses', async () => {
    const next = await startScriptedModel();
    extraServers.push(next);
    fake.enqueue('old-model', { content: 'from the old provider' });
    next.enqueue('new-model', { content: 'from the new provider' });
    const { client } = setup({}, { worker: { baseUrl: fake.baseURL, apiKey: 'key-old-0123456789', model: 'old-model' } });
    expect((await client.chat('worker', { messages: MESSAGES })).message.content).toBe('from the old provider');

    client.reconfigure({ worker: { baseUrl: next.baseURL, apiKey: 'key-new-0123456789', model: 'new-model' } });
    expect((await client.chat('worker', { messages: MESSAGES })).message.content).toBe('from the new provider');
    expect(client.describeEndpoint('worker')).toEqual({ baseUrl: next.baseURL, model: 'new-model' });
    expect(client.sdkClientCount).toBe(1);
    expect(next.requests[0]?.model).toBe('new-model');
    fake.assertDone();
    next.assertDone();

    client.reconfigure({});
    expect(client.isConfigured('worker')).toBe(false);
    expect(client.sdkClientCount).toBe(0);
  });

  it('leaves a pinned copy on the endpoints it had', async () => {
    const next = await startScriptedModel();
    extraServers.push(next);
    fake.enqueue('old-model', { content: 'old', usage: { prompt_tokens: 1, completion_tokens: 1 } });
    next.enqueue('new-model', { content: 'new', usage: { prompt_tokens: 2, completion_tokens: 2 } });
    const { client } = setup({}, { worker: { baseUrl: fake.baseURL, apiKey: KEY, model: 'old-model' } });
    const pinned = client.pinned();
    client.reconfigure({ worker: { baseUrl: next.baseURL, apiKey: KEY, model: 'new-model' } });

    expect((await pinned.chat('worker', { messages: MESSAGES })).message.content).toBe('old');
    expect((await client.chat('worker', { messages: MESSAGES })).message.content).toBe('new');
    expect(pinned.describeEndpoint('worker')?.model).toBe('old-model');
    fake.assertDone();
    next.assertDone();
  });
});

describe('with the fake model', () => {
  it('makes an unscripted call fail loudly on the first attempt instead of retrying', async () => {
    const { client } = setup({ retry: { maxAttempts: 5 } });
    await expect(client.chat('worker', { messages: MESSAGES })).rejects.toThrow(/no reply was scripted for model "worker-model"/);
    expect(fake.requests).toHaveLength(1);
    expect(() => fake.assertDone()).toThrow(/1 problem\(s\)/);
  });

  it('surfaces an expectation mismatch as a failure, and the next reply is not served in its place', async () => {
    fake.enqueue('worker-model', { content: 'x', expect: { last_message_contains: 'T-002' } }, { content: 'reply meant for the next call' });
    const { client } = setup({ retry: { maxAttempts: 5 } });
    await expect(client.chat('worker', { messages: MESSAGES })).rejects.toBeInstanceOf(ProviderFailureError);
    expect(fake.failures[0]?.kind).toBe('expectation_mismatch');
    expect(fake.failures[0]?.message).toContain('expected the last message to contain "T-002"; it was "Work on T-001."');
    await expect(client.chat('worker', { messages: MESSAGES })).rejects.toThrow(/an earlier request already failed/);
  });
});

describe('provider error bodies, through the SDK from a real HTTP server', () => {
  let canned: CannedServer;

  beforeEach(async () => {
    canned = await startCannedServer();
  });

  afterEach(async () => {
    expect(canned.unanswered).toBe(0);
    await canned.close();
  });

  function cannedClient(options: Partial<ModelClientOptions> = {}) {
    const notices: RetryNotice[] = [];
    const logged: string[] = [];
    const client = new ModelClient({
      endpoints: { worker: { baseUrl: canned.baseURL, apiKey: KEY, model: 'qwen3:8b' } },
      sleep: async () => {},
      random: () => 0.5,
      retry: { baseDelayMs: 100 },
      logger: { warn: (msg, extra) => logged.push(`${msg} ${JSON.stringify(extra)}`) },
      ...options,
    });
    const chat = () => client.chat('worker', { messages: MESSAGES, tools: TOOLS, onRetry: (notice) => notices.push(notice) });
    const failure = async () => (await chat().catch((err: unknown) => err)) as ProviderFailureError;
    return { client, notices, logged, chat, failure };
  }

  type FailFast = { name: string; response: CannedResponse; reason: string; kind: string; fix: RegExp | null };

  /** Sources for each body are cited in error-body.test.ts and failure.test.ts. */
  const FAIL_FAST: FailFast[] = [
    {
      name: 'vLLM without tool flags (top-level object: error)',
      response: {
        status: 400,
        body: {
          object: 'error',
          message: '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
          type: 'BadRequestError',
          param: null,
          code: 400,
        },
      },
      reason: 'HTTP 400: "auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
      kind: 'needs_tool_parser',
      fix: /^Restart vLLM with --enable-auto-tool-choice/,
    },
    {
      name: 'Mistral\'s top-level error, which the SDK alone shows as "status code (no body)"',
      response: {
        status: 400,
        body: {
          object: 'error',
          message: 'Assistant message must have either content or tool_calls, but not none.',
          type: 'invalid_request_error',
          param: null,
          code: null,
        },
      },
      reason: 'HTTP 400: Assistant message must have either content or tool_calls, but not none.',
      kind: 'bad_request',
      fix: null,
    },
    {
      name: 'a FastAPI validation list',
      response: {
        status: 422,
        body: { detail: [{ loc: ['body', 'messages', 2, 'content'], msg: 'none is not an allowed value', type: 'type_error.none.not_allowed' }] },
      },
      reason: 'HTTP 422: body.messages.2.content: none is not an allowed value',
      kind: 'bad_request',
      fix: null,
    },
    {
      name: "Ollama's string error for a model without tools",
      response: { status: 400, body: { error: 'registry.ollama.ai/library/qwen3:8b does not support tools' } },
      reason: 'HTTP 400: registry.ollama.ai/library/qwen3:8b does not support tools',
      kind: 'no_tool_support',
      fix: /^"qwen3:8b" cannot call tools/,
    },
    {
      name: 'Ollama without the model pulled',
      response: { status: 404, body: { error: { message: 'model "qwen3:8b" not found, try pulling it first', type: 'api_error', param: null, code: null } } },
      reason: 'HTTP 404: model "qwen3:8b" not found, try pulling it first',
      kind: 'unknown_model',
      fix: /ollama pull qwen3:8b/,
    },
    {
      name: 'llama-server without --jinja, a 500 that is not retried',
      response: { status: 500, body: { error: { code: 500, message: 'tools param requires --jinja flag', type: 'server_error' } } },
      reason: 'HTTP 500: tools param requires --jinja flag',
      kind: 'needs_jinja',
      fix: /^Restart llama-server with --jinja/,
    },
    {
      name: 'a refused key',
      response: { status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}.`, type: 'invalid_request_error', code: 'invalid_api_key' } } },
      reason: 'HTTP 401: Incorrect API key provided: [redacted].',
      kind: 'auth',
      fix: /^Check the API key/,
    },
    {
      name: "Gemini's error list",
      response: { status: 400, body: [{ error: { code: 400, message: 'Request contains an invalid argument.', status: 'INVALID_ARGUMENT' } }] },
      reason: 'HTTP 400: Request contains an invalid argument.',
      kind: 'bad_request',
      fix: null,
    },
  ];

  it.each(FAIL_FAST)("fails at once, in the provider's words: $name", async ({ response, reason, kind, fix }) => {
    canned.enqueue(response);
    const { notices, failure } = cannedClient();
    const error = await failure();
    expect(error).toBeInstanceOf(ProviderFailureError);
    expect({ kind: error.kind, reason: error.reason, attempts: error.attempts, retryable: error.retryable }).toEqual({
      kind,
      reason,
      attempts: 1,
      retryable: false,
    });
    expect(notices).toEqual([]);
    expect(canned.requests).toHaveLength(1);
    if (fix) {
      expect(error.fix).toMatch(fix);
      expect(error.message.endsWith(` ${error.fix}`)).toBe(true);
    } else {
      expect(error.fix).toBeNull();
    }
    expect(error.message).toContain('(not retried: retrying cannot fix it)');
    expect(error.message).not.toContain(KEY);
  });

  type Retried = { name: string; response: CannedResponse; reason: string; status: number | null };

  const RETRIED: Retried[] = [
    {
      name: "OpenRouter's 429 with the upstream's words in metadata.raw",
      response: {
        status: 429,
        body: {
          error: {
            message: 'Provider returned error',
            code: 429,
            metadata: { raw: 'qwen/qwen3-coder:free is temporarily rate-limited upstream.', provider_name: 'Venice' },
          },
        },
      },
      reason: 'HTTP 429: Provider returned error (Venice: qwen/qwen3-coder:free is temporarily rate-limited upstream.)',
      status: 429,
    },
    {
      name: "OpenRouter's 200 with an error body",
      response: {
        status: 200,
        body: {
          error: { message: 'Provider returned error', code: 502, metadata: { raw: '{"error":{"message":"Deadline exceeded"}}', provider_name: 'Vertex' } },
        },
      },
      reason: 'reply carried an error: Provider returned error (Vertex: Deadline exceeded)',
      status: null,
    },
    {
      name: "Groq's tool_use_failed",
      response: {
        status: 400,
        body: {
          error: {
            message: "Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details.",
            type: 'invalid_request_error',
            code: 'tool_use_failed',
            failed_generation: '<function=read_file>{}',
          },
        },
      },
      reason: "HTTP 400: Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details.",
      status: 400,
    },
    {
      name: "a proxy's HTML 502 page, shown as its title",
      response: {
        status: 502,
        contentType: 'text/html',
        body: '<html>\n<head><title>502 Bad Gateway</title></head>\n<body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>',
      },
      reason: 'HTTP 502: 502 Bad Gateway',
      status: 502,
    },
    {
      name: 'a plain-text 503',
      response: { status: 503, body: 'upstream connect error or disconnect/reset before headers. reset reason: overflow' },
      reason: 'HTTP 503: upstream connect error or disconnect/reset before headers. reset reason: overflow',
      status: 503,
    },
  ];

  it.each(RETRIED)("retries, telling onRetry and the log in the provider's words: $name", async ({ response, reason, status }) => {
    canned.enqueue(response, cannedCompletion('recovered'));
    const { notices, logged, chat } = cannedClient();
    const result = await chat();
    expect(result.message.content).toBe('recovered');
    expect(notices).toEqual([{ role: 'worker', model: 'qwen3:8b', attempt: 1, maxAttempts: 6, waitMs: 75, reason, status }]);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain(`worker model "qwen3:8b" at ${canned.baseURL}: attempt 1 of 6 failed, retrying in 75 ms: ${reason}`);
  });

  it('bounds a long error to about 500 characters everywhere it is shown', async () => {
    canned.enqueue({ status: 500, body: { error: { message: `boom ${'x'.repeat(5_000)}` } } }, cannedCompletion('ok'));
    const { notices, chat } = cannedClient();
    await chat();
    expect(notices[0]?.reason.length).toBeLessThanOrEqual(500);
  });

  it('keeps the key out of retry notices and log lines', async () => {
    canned.enqueue({ status: 500, body: `internal error while using key ${KEY}` }, cannedCompletion('ok'));
    const { notices, logged, chat } = cannedClient();
    await chat();
    expect(notices[0]?.reason).toBe('HTTP 500: internal error while using key [redacted]');
    expect(logged.join('\n')).not.toContain(KEY);
  });

  it('tells onRetry about every retry of an unhealthy reply, with the attempt count', async () => {
    canned.enqueue({ status: 200, body: { choices: [] } }, { status: 200, body: { error: { message: 'upstream down' } } }, cannedCompletion('fine'));
    const { notices, chat } = cannedClient();
    await chat();
    expect(notices.map((n) => [n.attempt, n.maxAttempts, n.waitMs, n.reason])).toEqual([
      [1, 6, 75, 'reply had no choices'],
      [2, 6, 150, 'reply carried an error: upstream down'],
    ]);
  });

  it('fails fast when a 200 reply carries an error retrying cannot fix', async () => {
    canned.enqueue({
      status: 200,
      body: { error: { message: 'Provider returned error', code: 400, metadata: { raw: 'registry.ollama.ai/library/qwen3:8b does not support tools' } } },
    });
    const { failure } = cannedClient();
    const error = await failure();
    expect(error).toMatchObject({ kind: 'no_tool_support', attempts: 1, health: 'error_body' });
    expect(error.cause).toBeInstanceOf(UnhealthyReplyError);
  });

  it("names the provider's content filter instead of calling the reply empty", async () => {
    const words = `the provider's content filter blocked the reply (finish_reason "content_filter")`;
    const filtered = cannedCompletion('', 'content_filter');
    canned.enqueue(filtered, filtered);
    const { notices, chat } = cannedClient({ retry: { retryEmpty: true, maxAttempts: 2, baseDelayMs: 100 } });
    // Still empty when retries run out: handed back for the caller to handle, finish reason and all.
    const result = await chat();
    expect(result).toMatchObject({ health: 'empty', finishReason: 'content_filter', attempts: 2 });
    expect(notices[0]?.reason).toBe(words);

    // A filtered reply that also carries an error is thrown, and named the same way.
    const withError: CannedResponse = {
      status: 200,
      body: { choices: [{ index: 0, message: { role: 'assistant', content: null }, finish_reason: 'content_filter', error: { message: 'blocked' } }] },
    };
    canned.enqueue(withError, withError);
    const { failure } = cannedClient({ retry: { maxAttempts: 2, baseDelayMs: 100 } });
    const error = await failure();
    expect(error).toBeInstanceOf(ProviderFailureError);
    expect(error.message).toContain(words);
    expect(error.message).not.toContain('empty reply');
  });
});

describe('answers that do not end', () => {
  const endlessServers: EndlessServer[] = [];
  afterEach(async () => {
    await Promise.all(endlessServers.splice(0).map((server) => server.close()));
  });

  async function endless(routes: Parameters<typeof startEndlessServer>[0]) {
    const server = await startEndlessServer(routes);
    endlessServers.push(server);
    const { client, chat, notices } = setup({ retry: { baseDelayMs: 100, maxAttempts: 3 } }, { worker: { baseUrl: server.base, apiKey: KEY, model: 'm' } });
    return { server, client, chat, notices };
  }

  it('stops reading a completion that never ends at 32 MiB and fails the call at once, not retried', async () => {
    const { server, chat, notices } = await endless({ 'POST /v1/chat/completions': { endless: true, ...ENDLESS_COMPLETION } });
    const started = Date.now();
    const error = (await chat({ messages: MESSAGES, timeoutMs: 30_000 }).catch((err: unknown) => err)) as ProviderFailureError;
    expect(error).toBeInstanceOf(ProviderFailureError);
    expect(error.message).toBe(
      `The worker model "m" at ${server.base} failed: The provider's answer to POST ${server.base}/chat/completions passed 32 MiB; Tilth stopped reading it (not retried: retrying cannot fix it). No provider answers with that much: check the provider, or a proxy in front of it.`,
    );
    expect(error).toMatchObject({ kind: 'oversized_answer', retryable: false, attempts: 1, httpStatus: 200 });
    expect(notices).toEqual([]);
    expect(Date.now() - started).toBeLessThan(15_000);
    const [served] = await server.closed();
    expect(served!.written).toBeLessThan(COMPLETION_MAX_BYTES + SOCKET_SLACK_BYTES);
  });

  it("bounds a completion by the model's context window when the call gives it", async () => {
    const { server, chat } = await endless({ 'POST /v1/chat/completions': { endless: true, ...ENDLESS_COMPLETION } });
    const error = (await chat({ messages: MESSAGES, contextWindow: 4_096 }).catch((err: unknown) => err)) as ProviderFailureError;
    expect(error.reason).toBe(`The provider's answer to POST ${server.base}/chat/completions passed 1 MiB; Tilth stopped reading it`);
    const [served] = await server.closed();
    expect(served!.written).toBeLessThan(METADATA_MAX_BYTES + SOCKET_SLACK_BYTES);
  });

  it('keeps an error body that never ends to 1 MiB, and retries it as the 500 it is', async () => {
    const { server, chat, notices } = await endless({
      'POST /v1/chat/completions': { endless: true, status: 500, contentType: 'text/plain', head: 'upstream trouble: ', unit: 'again and again ' },
    });
    const error = (await chat({ messages: MESSAGES }).catch((err: unknown) => err)) as ProviderFailureError;
    const reason = `HTTP 500: The provider's answer to POST ${server.base}/chat/completions passed 1 MiB; Tilth stopped reading it.`;
    expect(error).toMatchObject({ kind: 'server_error', retryable: true, attempts: 3, httpStatus: 500, reason });
    expect(notices.map((n) => n.reason)).toEqual([reason, reason]);
    const served = await server.closed(3);
    for (const { written } of served) expect(written).toBeLessThan(METADATA_MAX_BYTES + SOCKET_SLACK_BYTES);
  });
});
