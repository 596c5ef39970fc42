import { describe, expect, it } from 'vitest';
import { MAX_REASON_CHARS, bound, readErrorBody, readErrorValue, readReplyError } from './error-body.ts';

/**
 * One case per body shape seen from real providers. Each body is written in the shape its source
 * shows (messages shortened or reworded where the wording does not matter).
 */
describe('readErrorBody', () => {
  it("reads OpenAI's {error: {message, type, code}}", () => {
    // Shape: the OpenAI API's 404 for an unknown model, quoted in
    // https://github.com/openai/openai-agents-python/issues/458
    const body = JSON.stringify({
      error: {
        message: 'The model `gpt-9` does not exist or you do not have access to it.',
        type: 'invalid_request_error',
        param: null,
        code: 'model_not_found',
      },
    });
    expect(readErrorBody(body)).toEqual({
      message: 'The model `gpt-9` does not exist or you do not have access to it.',
      code: 'model_not_found',
      type: 'invalid_request_error',
      provider: null,
    });
  });

  it("reads vLLM's top-level {object: 'error', message}", () => {
    // Shape: https://github.com/langchain4j/langchain4j/issues/3475 (vLLM without tool flags)
    const body =
      '{"object":"error","message":"\\"auto\\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set","type":"BadRequestError","param":null,"code":400}';
    expect(readErrorBody(body)).toEqual({
      message: '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
      code: '400',
      type: 'BadRequestError',
      provider: null,
    });
  });

  it("reads Mistral's top-level {object: 'error', message}", () => {
    // Shape: https://github.com/solbrowse/extension/issues/16 (api.mistral.ai, 400)
    const body =
      '{"object":"error","message":"Assistant message must have either content or tool_calls, but not none.","type":"invalid_request_error","param":null,"code":null}';
    expect(readErrorBody(body)).toMatchObject({
      message: 'Assistant message must have either content or tool_calls, but not none.',
      type: 'invalid_request_error',
      code: null,
    });
  });

  it('reads a FastAPI-style {detail: "text"}', () => {
    // Shape: api.mistral.ai's 401, https://github.com/agent0ai/agent-zero/issues/539
    expect(readErrorBody('{"detail":"Unauthorized"}').message).toBe('Unauthorized');
  });

  it('reads a FastAPI validation list {detail: [{loc, msg}]} as location: message', () => {
    // Shape: a 422 from an OpenAI-compatible FastAPI server, https://github.com/microsoft/autogen/issues/1829
    const body = JSON.stringify({
      detail: [{ loc: ['body', 'messages', 2, 'content'], msg: 'none is not an allowed value', type: 'type_error.none.not_allowed' }],
    });
    expect(readErrorBody(body).message).toBe('body.messages.2.content: none is not an allowed value');
    const many = JSON.stringify({ detail: [1, 2, 3, 4, 5].map((n) => ({ loc: ['body', `f${n}`], msg: 'field required' })) });
    expect(readErrorBody(many).message).toBe('body.f1: field required; body.f2: field required; body.f3: field required (and 2 more)');
  });

  it("reads Ollama's {error: 'text'}", () => {
    // Shape: https://github.com/ollama/ollama/issues/14795 (native API wording)
    expect(readErrorBody('{"error":"registry.ollama.ai/library/qwen3.5:0.8b does not support tools"}').message).toBe(
      'registry.ollama.ai/library/qwen3.5:0.8b does not support tools',
    );
  });

  it("reads Ollama's OpenAI-compatible {error: {message, type: 'api_error'}}", () => {
    // Shape: https://github.com/netease-youdao/QAnything/issues/555 (404 from Ollama's /v1)
    const body = JSON.stringify({ error: { message: 'model "qwen9" not found, try pulling it first', type: 'api_error', param: null, code: null } });
    expect(readErrorBody(body)).toMatchObject({ message: 'model "qwen9" not found, try pulling it first', type: 'api_error', code: null });
  });

  it("reads llama.cpp's {error: {code, message, type}}", () => {
    // Shape: https://github.com/ggml-org/llama.cpp/pull/5961 and, for the --jinja message,
    // https://github.com/containers/ramalama/issues/988
    const body = JSON.stringify({ error: { code: 500, message: 'tools param requires --jinja flag', type: 'server_error' } });
    expect(readErrorBody(body)).toEqual({ message: 'tools param requires --jinja flag', code: '500', type: 'server_error', provider: null });
  });

  it("reads llama.cpp's top-level {code, message, type}", () => {
    // Shape: https://github.com/bakks/butterfish/issues/53 (llama-server b8583)
    expect(readErrorBody('{"code":400,"message":"Cannot determine type of \'item\'","type":"invalid_request_error"}').message).toBe(
      "Cannot determine type of 'item'",
    );
  });

  it("reads Groq's tool_use_failed and leaves out the failed generation", () => {
    // Shape: https://github.com/groq/groq-typescript/issues/103
    const body = JSON.stringify({
      error: {
        message: "Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details.",
        type: 'invalid_request_error',
        code: 'tool_use_failed',
        failed_generation: '<tool-use>{"tool_calls": [ … a long model output … ]}</tool-use>',
      },
    });
    const facts = readErrorBody(body);
    expect(facts.code).toBe('tool_use_failed');
    expect(facts.message).not.toContain('tool-use');
  });

  it("adds OpenRouter's upstream words from metadata.raw and the provider's name", () => {
    // Shape: https://github.com/open-webui/computer/issues/293
    const body = JSON.stringify({
      error: {
        message: 'Provider returned error',
        code: 429,
        metadata: { raw: 'z-ai/glm-5.3-flash is temporarily rate-limited upstream. Please retry shortly.', provider_name: 'BaseTen' },
      },
    });
    expect(readErrorBody(body)).toEqual({
      message: 'Provider returned error (BaseTen: z-ai/glm-5.3-flash is temporarily rate-limited upstream. Please retry shortly.)',
      code: '429',
      type: null,
      provider: 'BaseTen',
    });
  });

  it("reads OpenRouter's metadata.raw when it is JSON inside a string, keeping the upstream's code", () => {
    // Shape: https://github.com/diegosouzapw/OmniRoute/issues/3044
    const raw = JSON.stringify({ error: { type: 'invalid_request_error', code: 'tool_use_failed', message: 'Failed to call a function.' } });
    const body = JSON.stringify({
      error: { message: 'Provider returned error', code: 400, metadata: { raw, provider_name: 'Groq', is_byok: false } },
      user_id: 'user_x',
    });
    expect(readErrorBody(body)).toEqual({
      message: 'Provider returned error (Groq: Failed to call a function.)',
      code: 'tool_use_failed',
      type: 'invalid_request_error',
      provider: 'Groq',
    });
  });

  it("names what OpenRouter's moderation flagged", () => {
    // Shape: the moderation metadata described at https://openrouter.ai/docs/api/errors
    const body = JSON.stringify({
      error: { code: 403, message: 'Input was flagged', metadata: { reasons: ['harassment'], flagged_input: '…', provider_name: 'OpenAI', model_slug: 'x' } },
    });
    expect(readErrorBody(body).message).toBe('Input was flagged (flagged for harassment)');
  });

  it("reads Gemini's error wrapped in a one-element list", () => {
    // Shape: https://github.com/google-gemini/gemini-cli/issues/4701
    const body = JSON.stringify([{ error: { code: 400, message: 'Request contains an invalid argument.', errors: [], status: 'INVALID_ARGUMENT' } }]);
    expect(readErrorBody(body)).toEqual({ message: 'Request contains an invalid argument.', code: '400', type: 'INVALID_ARGUMENT', provider: null });
  });

  it('reads an error whose message is itself a JSON error body', () => {
    // Shape: a proxy re-wrapping Gemini, https://github.com/lbjlaq/Antigravity-Manager/issues/1942
    const inner = '{\n  "error": {\n    "code": 400,\n    "message": "Request contains an invalid argument.",\n    "status": "INVALID_ARGUMENT"\n  }\n}\n';
    expect(readErrorBody(JSON.stringify({ error: { code: 400, message: inner, status: 'UPSTREAM_ERROR' } })).message).toBe(
      'Request contains an invalid argument.',
    );
    // and a string `error` holding JSON: https://github.com/maxnowack/anthropic-proxy/issues/4
    const wrapped = JSON.stringify({ error: JSON.stringify({ error: { message: 'x/y is not a valid model ID', code: 400 }, user_id: 'u' }) });
    expect(readErrorBody(wrapped)).toMatchObject({ message: 'x/y is not a valid model ID', code: '400' });
  });

  it('shows an HTML error page as its title, never the page', () => {
    // Shape: Cloudflare's 502 page, https://github.com/n3d1117/chatgpt-telegram-bot/issues/637
    const page =
      '<html>\n<head><title>502 Bad Gateway</title></head>\n<body>\n<center><h1>502 Bad Gateway</h1></center>\n<hr><center>cloudflare</center>\n</body></html>';
    expect(readErrorBody(page, 'text/html')).toEqual({ message: '502 Bad Gateway', code: null, type: null, provider: null });
    // https://github.com/yoheinakajima/babyagi/issues/64: a doctype, attributes and entities
    const cf =
      '<!DOCTYPE html>\n <html class="no-js" lang="en-US">\n<head>\n<title>api.example.com | 502: Bad gateway &amp; more</title>\n<meta charset="UTF-8" />';
    expect(readErrorBody(cf).message).toBe('api.example.com | 502: Bad gateway & more');
    expect(readErrorBody('<html><body><p>oops</p></body></html>').message).toBe('an HTML page with no title');
  });

  it('keeps plain text on one line, bounded', () => {
    // Ollama without /v1 answers a bare "404 page not found": https://github.com/ollama/ollama/issues/3050
    expect(readErrorBody('404 page not found\n')).toEqual({ message: '404 page not found', code: null, type: null, provider: null });
    const long = readErrorBody(`Internal error:\n${'x'.repeat(2_000)}`).message;
    expect(long.length).toBe(MAX_REASON_CHARS);
    expect(long.endsWith('…')).toBe(true);
  });

  it('says nothing for an empty body and shows an unknown shape as short JSON', () => {
    expect(readErrorBody('  ').message).toBe('');
    expect(readErrorBody('{}').message).toBe('');
    expect(readErrorBody('{"status":"down","retry":true}').message).toBe('{"status":"down","retry":true}');
  });

  it('survives deep nesting without recursing forever', () => {
    let value: unknown = { message: 'bottom' };
    for (let i = 0; i < 50; i++) value = { error: value };
    expect(readErrorValue(value).message.length).toBeLessThanOrEqual(MAX_REASON_CHARS);
  });
});

describe('bound', () => {
  it('joins lines and cuts with an ellipsis', () => {
    expect(bound('a\n  b\tc')).toBe('a b c');
    expect(bound('abcdef', 4)).toBe('abc…');
  });
});

describe('readReplyError', () => {
  it('reads the error of a 200 reply at the top or inside the first choice, and nothing else', () => {
    expect(readReplyError({ error: { message: 'Provider returned error', code: 502, metadata: { raw: 'timeout', provider_name: 'Chutes' } } })?.message).toBe(
      'Provider returned error (Chutes: timeout)',
    );
    expect(readReplyError({ choices: [{ finish_reason: 'error', error: { message: 'stream cut', code: 'server_error' } }] })).toMatchObject({
      message: 'stream cut',
      code: 'server_error',
    });
    expect(readReplyError({ choices: [{ message: { role: 'assistant', content: 'hi' } }] })).toBeNull();
    expect(readReplyError('not an object')).toBeNull();
  });
});
