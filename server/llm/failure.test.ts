import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSdk } from './sdk.ts';
import { classifyFailure, describeFailure, keepErrorBodies, scrubSecret, type FailureFacts, type FailureKind, type RetryRule } from './failure.ts';

// The SDK's errors are recognised once a model call has loaded it, as one has by the time any fails.
beforeAll(() => loadSdk());

const WHERE = { model: 'qwen3:8b', endpoint: 'http://127.0.0.1:11434/v1' };

const http = (status: number, message: string, code: string | null = null, type: string | null = null): FailureFacts => ({
  source: 'http',
  status,
  message,
  code,
  type,
});

type Row = { name: string; facts: FailureFacts; kind: FailureKind; retry: RetryRule; fix: RegExp | null };

/** Each message is the provider's, as its source shows it. */
const TABLE: Row[] = [
  { name: '429 rate limit', facts: http(429, 'Rate limit reached for requests'), kind: 'rate_limited', retry: 'retry', fix: null },
  {
    // OpenRouter's 429 from an upstream: https://github.com/open-webui/computer/issues/293
    name: 'a 429 whose words mention tokens is still a rate limit',
    facts: http(429, 'Provider returned error (BaseTen: too many tokens per minute, retry shortly)', '429'),
    kind: 'rate_limited',
    retry: 'retry',
    fix: null,
  },
  { name: '500', facts: http(500, 'Internal server error'), kind: 'server_error', retry: 'retry', fix: null },
  { name: '503 overloaded', facts: http(503, 'The model is overloaded. Please try again later.'), kind: 'server_error', retry: 'retry', fix: null },
  { name: '408 and 409', facts: http(408, 'Request timeout'), kind: 'server_error', retry: 'retry', fix: null },
  { name: 'timeout', facts: { source: 'timeout' }, kind: 'timeout', retry: 'retry', fix: null },
  {
    name: 'connection reset',
    facts: { source: 'connection', errno: 'ECONNRESET', message: 'read ECONNRESET' },
    kind: 'connection_lost',
    retry: 'retry',
    fix: null,
  },
  {
    name: 'socket closed by the other side',
    facts: { source: 'connection', errno: 'UND_ERR_SOCKET', message: 'other side closed' },
    kind: 'connection_lost',
    retry: 'retry',
    fix: null,
  },
  {
    name: 'refused connection',
    facts: { source: 'connection', errno: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:11434' },
    kind: 'unreachable',
    retry: 'retry_once',
    fix: /^Start the model server, or correct the base URL\.$/,
  },
  {
    name: 'unknown host',
    facts: { source: 'connection', errno: 'ENOTFOUND', message: 'getaddrinfo ENOTFOUND llm.internal' },
    kind: 'unreachable',
    retry: 'retry_once',
    fix: /Start the model server/,
  },
  {
    name: 'a port fetch refuses to use',
    facts: { source: 'connection', errno: null, message: 'fetch failed: bad port' },
    kind: 'unreachable',
    retry: 'retry_once',
    fix: /Start the model server/,
  },
  {
    name: 'untrusted certificate',
    facts: { source: 'connection', errno: 'DEPTH_ZERO_SELF_SIGNED_CERT', message: 'self-signed certificate' },
    kind: 'tls',
    retry: 'fail',
    fix: /NODE_EXTRA_CA_CERTS/,
  },
  {
    // Groq: https://github.com/groq/groq-typescript/issues/28
    name: "Groq's tool_use_failed",
    facts: http(
      400,
      "Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details.",
      'tool_use_failed',
      'invalid_request_error',
    ),
    kind: 'tool_call_failed',
    retry: 'retry',
    fix: null,
  },
  {
    // Without a code, as https://github.com/anomalyco/opencode/issues/1018 shows it
    name: "Groq's tool failure without its code",
    facts: http(400, "Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details.", null, 'invalid_request_error'),
    kind: 'tool_call_failed',
    retry: 'retry',
    fix: null,
  },
  {
    // Groq's schema check on a tool call: https://github.com/HunorLaczko/ha-groq-cloud-api/issues/20
    name: "Groq's tool_use_failed for arguments that miss the schema",
    facts: http(
      400,
      'tool call validation failed: parameters for tool HassTurnOff did not match schema: errors: [`/domain`: expected array, but got string]',
      'tool_use_failed',
      'invalid_request_error',
    ),
    kind: 'tool_call_failed',
    retry: 'retry',
    fix: null,
  },
  {
    // llama.cpp: https://github.com/defilantech/LLMKube/issues/126 (a 500 that never passes)
    name: 'llama-server without --jinja',
    facts: http(500, 'tools param requires --jinja flag', '500', 'server_error'),
    kind: 'needs_jinja',
    retry: 'fail',
    fix: /^Restart llama-server with --jinja/,
  },
  {
    // vLLM: https://github.com/langchain4j/langchain4j/issues/3475
    name: 'vLLM without tool flags',
    facts: http(400, '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set', '400', 'BadRequestError'),
    kind: 'needs_tool_parser',
    retry: 'fail',
    fix: /--enable-auto-tool-choice and the --tool-call-parser/,
  },
  {
    // Ollama: https://github.com/ollama/ollama/issues/14795
    name: 'a model without tool support (Ollama)',
    facts: http(400, 'registry.ollama.ai/library/qwen3.5:0.8b does not support tools', null, 'api_error'),
    kind: 'no_tool_support',
    retry: 'fail',
    fix: /^"qwen3:8b" cannot call tools, and Tilth's agents need them: pick a model with tool support\.$/,
  },
  {
    name: 'no tool support said in a 200 reply',
    facts: { source: 'reply', message: 'registry.ollama.ai/library/gemma3:4b does not support tools', code: null },
    kind: 'no_tool_support',
    retry: 'fail',
    fix: /pick a model with tool support/,
  },
  {
    // Ollama's /v1: https://github.com/netease-youdao/QAnything/issues/555
    name: 'a model Ollama has not pulled',
    facts: http(404, 'model "qwen3:8b" not found, try pulling it first', null, 'api_error'),
    kind: 'unknown_model',
    retry: 'fail',
    fix: /^Ollama has no model "qwen3:8b": run "ollama pull qwen3:8b"/,
  },
  {
    // OpenAI: https://github.com/Aider-AI/aider/issues/2030
    name: "OpenAI's model_not_found",
    facts: http(404, 'The model `gpt-4o-2024-08-06` does not exist or you do not have access to it.', 'model_not_found', 'invalid_request_error'),
    kind: 'unknown_model',
    retry: 'fail',
    fix: /^The provider has no model "qwen3:8b" for this key: check the name/,
  },
  {
    // vLLM: https://github.com/vllm-project/vllm/issues/3485
    name: "vLLM's unknown served model name",
    facts: http(404, 'The model `Qwen1.5-14B-Chat-GPTQ-Int8` does not exist.', '404', 'NotFoundError'),
    kind: 'unknown_model',
    retry: 'fail',
    fix: /check the name/,
  },
  {
    // OpenRouter: https://github.com/OpenRouterTeam/openrouter-examples/issues/74
    name: "OpenRouter's invalid model ID (a 400)",
    facts: http(400, 'claude-sonnet-4-6 is not a valid model ID', '400'),
    kind: 'unknown_model',
    retry: 'fail',
    fix: /check the name/,
  },
  {
    // OpenAI: https://github.com/crewAIInc/crewAI-examples/issues/121
    name: 'context length exceeded (OpenAI)',
    facts: http(400, "This model's maximum context length is 8192 tokens. However, your messages resulted in 8227 tokens.", 'context_length_exceeded'),
    kind: 'context_overflow',
    retry: 'fail',
    fix: /context window/,
  },
  {
    // llama.cpp reported it as a 500 before https://github.com/ggml-org/llama.cpp/pull/16486
    name: 'context size exceeded (llama.cpp, as a 500)',
    facts: http(
      500,
      'the request exceeds the available context size. try increasing the context size or enable context shift',
      '500',
      'exceed_context_size_error',
    ),
    kind: 'context_overflow',
    retry: 'fail',
    fix: /llama-server -c/,
  },
  {
    name: '401',
    facts: http(401, 'Incorrect API key provided: sk-…'),
    kind: 'auth',
    retry: 'fail',
    fix: /^Check the API key .*http:\/\/127\.0\.0\.1:11434\/v1 refused it\.$/,
  },
  { name: '403', facts: http(403, 'Project does not have access'), kind: 'auth', retry: 'fail', fix: /Check the API key/ },
  // OpenRouter's moderation 403: https://openrouter.ai/docs/api/errors
  {
    name: 'a moderation block (403) is not a key problem',
    facts: http(403, 'Input was flagged (flagged for harassment)'),
    kind: 'bad_request',
    retry: 'fail',
    fix: null,
  },
  // OpenRouter's 402: https://openrouter.ai/docs/api/errors
  { name: '402 out of credits', facts: http(402, 'Insufficient credits'), kind: 'no_credits', retry: 'fail', fix: /out of credits/ },
  // Ollama without /v1 in the base URL: https://github.com/ollama/ollama/issues/3050
  {
    name: 'a wrong path',
    facts: http(404, '404 page not found'),
    kind: 'wrong_endpoint',
    retry: 'fail',
    fix: /^Check the base URL http:\/\/127\.0\.0\.1:11434\/v1/,
  },
  { name: 'a wrong path on FastAPI', facts: http(404, 'Not Found'), kind: 'wrong_endpoint', retry: 'fail', fix: /often ending in \/v1/ },
  { name: 'any other 4xx', facts: http(400, 'Invalid value for temperature'), kind: 'bad_request', retry: 'fail', fix: null },
  {
    name: 'a 404 with a sentence is not a wrong path',
    facts: http(404, 'No endpoints found matching your data policy'),
    kind: 'bad_request',
    retry: 'fail',
    fix: null,
  },
  {
    name: 'an unhealthy 200 reply',
    facts: { source: 'reply', message: 'Provider returned error (Chutes: upstream timeout)', code: '502' },
    kind: 'unhealthy_reply',
    retry: 'retry',
    fix: null,
  },
  { name: 'something else entirely', facts: { source: 'other', message: 'TypeError: x is not a function' }, kind: 'unexpected', retry: 'fail', fix: null },
];

describe('classifyFailure', () => {
  it.each(TABLE)('$name → $kind, $retry', ({ facts, kind, retry, fix }) => {
    const verdict = classifyFailure(facts, WHERE);
    expect({ kind: verdict.kind, retry: verdict.retry }).toEqual({ kind, retry });
    if (fix) expect(verdict.fix).toMatch(fix);
    else expect(verdict.fix).toBeNull();
  });

  it('has a fix sentence for every failure that cannot pass, except the ones Tilth cannot advise on', () => {
    const withoutFix = TABLE.filter((row) => row.retry === 'fail' && row.fix === null).map((row) => row.kind);
    expect(new Set(withoutFix)).toEqual(new Set(['bad_request', 'unexpected']));
  });
});

const CONTEXT = { ...WHERE, timeoutMs: 1_000, scrub: (text: string) => scrubSecret(text, 'sk-secret-0123456789') };

describe('describeFailure', () => {
  it("uses the SDK's parsed error when no raw body was kept", () => {
    const err = new APIError(400, { message: 'registry.ollama.ai/library/x does not support tools', type: 'api_error' }, undefined, new Headers());
    expect(describeFailure(err, CONTEXT)).toMatchObject({
      status: 400,
      kind: 'no_tool_support',
      retry: 'fail',
      description: 'HTTP 400: registry.ollama.ai/library/x does not support tools',
    });
    const quoted = new APIError(400, 'model "x" not found, try pulling it first', undefined, new Headers());
    expect(describeFailure(quoted, CONTEXT).description).toBe('HTTP 400: model "x" not found, try pulling it first');
  });

  it('never says "status code (no body)"', () => {
    const err = new APIError(502, undefined, undefined, new Headers());
    expect(describeFailure(err, CONTEXT).description).toBe('HTTP 502 with an empty body');
  });

  it('reads retry-after and scrubs the key', () => {
    const err = new APIError(429, { message: 'slow down, sk-secret-0123456789' }, undefined, new Headers({ 'retry-after': '2' }));
    expect(describeFailure(err, CONTEXT)).toMatchObject({ kind: 'rate_limited', retryAfterMs: 2_000, description: 'HTTP 429: slow down, [redacted]' });
  });

  it('says "cannot reach <url>" for a refused connection, with the root cause', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:11434'), { code: 'ECONNREFUSED' });
    const err = new APIConnectionError({ cause: new TypeError('fetch failed', { cause: refused }) });
    expect(describeFailure(err, CONTEXT)).toMatchObject({
      kind: 'unreachable',
      retry: 'retry_once',
      description: 'cannot reach http://127.0.0.1:11434/v1 (connect ECONNREFUSED 127.0.0.1:11434)',
    });
  });

  it('finds the errno inside an AggregateError with an empty message', () => {
    const inner = Object.assign(new Error('connect ECONNREFUSED ::1:11434'), { code: 'ECONNREFUSED' });
    const err = new APIConnectionError({ cause: new TypeError('fetch failed', { cause: new AggregateError([inner], '') }) });
    expect(describeFailure(err, CONTEXT)).toMatchObject({
      kind: 'unreachable',
      description: expect.stringContaining('connect ECONNREFUSED ::1:11434') as string,
    });
  });

  it('retries a reset connection as a lost connection', () => {
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    const err = new APIConnectionError({ cause: new TypeError('fetch failed', { cause: reset }) });
    expect(describeFailure(err, CONTEXT)).toMatchObject({ kind: 'connection_lost', retry: 'retry', description: 'connection failed: read ECONNRESET' });
  });

  it('treats the SDK timeout as a timeout', () => {
    expect(describeFailure(new APIConnectionTimeoutError(), CONTEXT)).toMatchObject({
      kind: 'timeout',
      retry: 'retry',
      description: 'no complete answer within 1000 ms',
    });
  });
});

describe('keepErrorBodies', () => {
  it('passes successful responses through untouched and re-serves error bodies whole', async () => {
    const ok = new Response('{"choices":[]}', { status: 200 });
    const fetchOk = keepErrorBodies(async () => ok);
    expect(await fetchOk('http://x')).toBe(ok);

    const fetchErr = keepErrorBodies(
      async () =>
        new Response('{"object":"error","message":"bad"}', { status: 400, statusText: 'Bad Request', headers: { 'content-type': 'application/json' } }),
    );
    const copy = await fetchErr('http://x');
    expect(copy.status).toBe(400);
    expect(copy.statusText).toBe('Bad Request');
    expect(await copy.text()).toBe('{"object":"error","message":"bad"}');
    // As the SDK would build it: from the returned response's headers.
    const err = new APIError(400, undefined, undefined, copy.headers);
    expect(describeFailure(err, CONTEXT).description).toBe('HTTP 400: bad');
  });
});
