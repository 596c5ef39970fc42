/**
 * The replay provider on its own: each shape's wire form and each history rule, over HTTP, with
 * the first two turns of the demo interview (the look at the code, then the first question).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDER_SHAPES, signatureFor, type Json } from './provider-shapes.ts';
import { startReplayProvider, type ReplayProvider } from './replay-provider.ts';

let replay: ReplayProvider;
beforeAll(async () => {
  replay = await startReplayProvider({ maxCallsPerModel: 1000 });
});
afterAll(async () => {
  await replay.close();
});

const tool = (name: string) => ({ type: 'function', function: { name, description: name, parameters: { type: 'object', properties: {} } } });
/** The interviewer's tools: the demo model answers a request offering them as the interviewer. */
const INTERVIEW_TOOLS = ['glob', 'grep', 'read_file', 'ask_user', 'write_seed'].map(tool);
const OPENING: Json[] = [
  { role: 'system', content: 'You interview the user before any code is written.' },
  { role: 'user', content: 'Todos should be able to carry a due date.' },
];

async function chat(model: string, messages: unknown[], tools: unknown[] = INTERVIEW_TOOLS): Promise<{ status: number; body: unknown; text: string }> {
  const res = await fetch(`${replay.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages, tools }),
  });
  const text = await res.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  return { status: res.status, body, text };
}

type Message = Json & { tool_calls?: Json[] };
const messageOf = (body: unknown): Message => (body as { choices: { message: Message }[] }).choices[0]!.message;

/** The echo a careful client sends back: the message as it came, arguments as text, plus tool results. */
function followUp(message: Message, echo: (m: Message) => Json = (m) => m): Json[] {
  const calls = message.tool_calls ?? [];
  const results = calls.map((c) => ({ role: 'tool', tool_call_id: c.id, content: 'export function addTodo() {}' }));
  return [...OPENING, echo(message), ...results];
}

const stringArgs = (m: Message): Json => ({
  ...m,
  tool_calls: m.tool_calls?.map((c) => {
    const fn = c.function as Json;
    return { ...c, type: 'function', function: { ...fn, arguments: typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments) } };
  }),
});

describe('replay provider', () => {
  it('lists every shape as a model and refuses calls from web pages', async () => {
    const models = (await (await fetch(`${replay.baseURL}/models`)).json()) as { data: { id: string }[] };
    expect(models.data.map((m) => m.id)).toEqual(PROVIDER_SHAPES.map((s) => s.name));
    const res = await fetch(`${replay.baseURL}/models`, { headers: { origin: 'https://evil.example' } });
    expect(res.status).toBe(403);
  });

  it('answers an unknown model with 404 model_not_found', async () => {
    const res = await chat('gpt-nonexistent', OPENING);
    expect(res.status).toBe(404);
    expect(JSON.stringify(res.body)).toContain('model_not_found');
  });

  it('writes the first interview turn of the normal shapes as three tool calls in their wire form', async () => {
    const ids: Record<string, string[]> = {};
    for (const name of [
      'openai-baseline',
      'deepseek-reasoner',
      'kimi-k2.5',
      'mistral-large',
      'lmstudio-qwen',
      'gemini-2.5-flash',
      'gemini-3-pro',
      'llamacpp-object-args',
    ]) {
      const res = await chat(name, OPENING);
      expect(res.status, `${name}: ${res.text}`).toBe(200);
      const calls = messageOf(res.body).tool_calls ?? [];
      expect(calls.map((c) => (c.function as Json).name)).toEqual(['glob', 'read_file', 'read_file']);
      ids[name] = calls.map((c) => String(c.id));
    }
    expect(ids['kimi-k2.5']).toEqual(['functions.glob:0', 'functions.read_file:1', 'functions.read_file:2']);
    for (const id of ids['mistral-large']!) expect(id).toMatch(/^[a-zA-Z0-9]{9}$/);
    for (const id of ids['lmstudio-qwen']!) expect(id).toMatch(/^\d{9}$/);
    expect(ids['gemini-2.5-flash']).toEqual(['', '', '']);
    const mistral = messageOf((await chat('mistral-large', OPENING)).body);
    expect(mistral.tool_calls![0]).not.toHaveProperty('type');
    expect(mistral.content).toMatch(/^I'll use glob/);
    const llama = messageOf((await chat('llamacpp-object-args', OPENING)).body);
    expect((llama.tool_calls![0]!.function as Json).arguments).toEqual({ pattern: 'src/*.js' });
  });

  it('writes text-only tool calls into the content, one spelling per shape', async () => {
    const content = async (name: string) => String(messageOf((await chat(name, OPENING)).body).content);
    expect(await content('ollama-qwen-text-tools')).toBe(
      JSON.stringify([
        { name: 'glob', arguments: { pattern: 'src/*.js' } },
        { name: 'read_file', arguments: { path: 'src/todo.js' } },
        { name: 'read_file', arguments: { path: 'AGENTS.md' } },
      ]),
    );
    expect(await content('vllm-hermes-text-tools')).toContain('<tool_call>\n{"name":"glob","arguments":{"pattern":"src/*.js"}}\n</tool_call>');
    expect(await content('vllm-qwen3-xml')).toContain('<function=read_file>\n<parameter=path>\nsrc/todo.js\n</parameter>\n</function>');
    expect(await content('llama-function-text')).toContain('<function=glob>{"pattern":"src/*.js"}</function>');
  });

  it('holds DeepSeek and Kimi to reasoning_content on tool-call turns, an empty one included', async () => {
    const first = messageOf((await chat('deepseek-reasoner', OPENING)).body);
    expect(typeof first.reasoning_content).toBe('string');
    const { reasoning_content: _dropped, ...bare } = first;
    const refused = await chat(
      'deepseek-reasoner',
      followUp(first, () => bare),
    );
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('Missing `reasoning_content` field in the assistant message at message index 2.');
    expect((await chat('deepseek-reasoner', followUp(first))).status).toBe(200);
    expect(
      (
        await chat(
          'deepseek-v4-pro',
          followUp(first, (m) => ({ ...m, reasoning_content: '' })),
        )
      ).status,
    ).toBe(200);
    const kimi = await chat(
      'kimi-k2.5',
      followUp(first, () => bare),
    );
    expect(JSON.stringify(kimi.body)).toContain('thinking is enabled but reasoning_content is missing in assistant tool call message at index 2');
  });

  it('holds Mistral to its closed schema, 9-character ids, no text beside tool calls and no user after a tool', async () => {
    const first = messageOf((await chat('mistral-large', OPENING)).body);
    const asIs = await chat('mistral-large', followUp(first));
    expect(asIs.status, 'the preamble sentence beside the calls').toBe(400);
    expect(JSON.stringify(asIs.body)).toContain('Assistant message must have either content or tool_calls, but not both.');
    const clean = (m: Message): Json => ({ role: 'assistant', content: '', tool_calls: m.tool_calls });
    expect((await chat('mistral-large', followUp(first, clean))).status).toBe(200);

    const extra = await chat(
      'mistral-large',
      followUp(first, (m) => ({ ...clean(m), reasoning_content: 'thoughts' })),
    );
    expect(extra.status).toBe(422);
    expect(extra.body).toMatchObject({
      detail: [{ type: 'extra_forbidden', loc: ['body', 'messages', 2, 'assistant', 'reasoning_content'], msg: 'Extra inputs are not permitted' }],
    });

    const renamed = followUp(first, clean).map((m) => (m.role === 'tool' ? { ...m, tool_call_id: `call_${String(m.tool_call_id)}` } : m));
    const assistant = renamed[2] as Message;
    assistant.tool_calls = assistant.tool_calls!.map((c) => ({ ...c, id: `call_${String(c.id)}` }));
    expect(JSON.stringify((await chat('mistral-large', renamed)).body)).toMatch(/Tool call id was call_\w+ but must be a-z, A-Z, 0-9, with a length of 9\./);

    const nudged = [...followUp(first, clean), { role: 'user', content: 'Go on.' }];
    expect((await chat('mistral-large', nudged)).body).toMatchObject({ message: "Unexpected role 'user' after role 'tool'", code: '3230' });
  });

  it('wants thought signatures back where they came: Gemini 3 on the tool call, OpenRouter in reasoning_details', async () => {
    const first = messageOf((await chat('gemini-3-pro', OPENING)).body);
    const signed = first.tool_calls![0]!;
    expect(signed.extra_content).toEqual({ google: { thought_signature: signatureFor(String(signed.id)) } });
    expect(first.tool_calls![1]).not.toHaveProperty('extra_content');
    const stripped = (m: Message): Json => ({ ...m, tool_calls: m.tool_calls!.map(({ extra_content: _e, ...c }) => c) });
    const refused = await chat('gemini-3-pro', followUp(first, stripped));
    expect(refused.status).toBe(400);
    expect(Array.isArray(refused.body), 'Gemini errors are an array').toBe(true);
    expect(refused.text).toContain('Function call is missing a thought_signature in functionCall parts.');
    expect((await chat('gemini-3-pro', followUp(first))).status).toBe(200);

    const or = messageOf((await chat('openrouter-claude-reasoning', OPENING)).body);
    const { reasoning_details: _d, ...withoutDetails } = or;
    const wrapped = await chat(
      'openrouter-claude-reasoning',
      followUp(or, () => withoutDetails),
    );
    expect(wrapped.body).toMatchObject({ error: { message: 'Provider returned error', metadata: { provider_name: 'Anthropic' } } });
    expect((await chat('openrouter-claude-reasoning', followUp(or))).status).toBe(200);
  });

  it('refuses object arguments and a missing type for strict providers, but not for llama.cpp', async () => {
    const first = messageOf((await chat('llamacpp-object-args', OPENING)).body);
    expect((await chat('llamacpp-object-args', followUp(first))).status).toBe(200);
    const strict = await chat('openai-baseline', followUp(first));
    expect(JSON.stringify(strict.body)).toContain(
      "Invalid type for 'messages[2].tool_calls[0].function.arguments': expected a string, but got an object instead.",
    );
    expect((await chat('openai-baseline', followUp(first, stringArgs))).status).toBe(200);
    const untyped = followUp(first, (m) => ({ ...stringArgs(m), tool_calls: (stringArgs(m).tool_calls as Json[]).map(({ type: _t, ...c }) => c) }));
    expect(JSON.stringify((await chat('openai-baseline', untyped)).body)).toContain("Missing required parameter: 'messages[2].tool_calls[0].type'.");
  });

  it('refuses a tool message that answers no call, and calls left unanswered', async () => {
    const orphan = [...OPENING, { role: 'tool', tool_call_id: 'call_x', content: 'hi' }];
    expect(JSON.stringify((await chat('openai-baseline', orphan)).body)).toContain(
      "messages with role 'tool' must be a response to a preceeding message with 'tool_calls'",
    );
    const first = messageOf((await chat('openai-baseline', OPENING)).body);
    const unanswered = [...OPENING, first, { role: 'user', content: 'well?' }];
    expect(JSON.stringify((await chat('openai-baseline', unanswered)).body)).toContain('did not have response messages');
  });

  it('fails transient shapes on the first sight of a request only, so a retry passes', async () => {
    // A conversation of its own: the replay knows transient faults by where a conversation is.
    const messages = [OPENING[0]!, { role: 'user', content: `Todos should be able to carry a due date (${Date.now()}).` }];
    for (const [name, status] of [
      ['groq-tool-use-failed', 400],
      ['openrouter-upstream-429', 429],
      ['openrouter-error-200', 200],
    ] as const) {
      const once = await chat(name, messages);
      expect(once.status, name).toBe(status);
      expect(once.body, name).toHaveProperty('error');
      const again = await chat(name, messages);
      expect(again.status, name).toBe(200);
      expect(again.body, name).toHaveProperty('choices');
    }
    const reasoningOnly = messageOf((await chat('reasoning-only-once', messages)).body);
    expect(reasoningOnly.content).toBe('');
    expect(reasoningOnly.reasoning_content).toMatch(/^I should call glob/);
  });

  it('answers the error shapes in their own bodies', async () => {
    expect((await chat('vllm-no-tool-parser', OPENING)).body).toMatchObject({
      object: 'error',
      message: '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
      code: 400,
    });
    const jinja = await chat('llamacpp-no-jinja', OPENING);
    expect(jinja.status).toBe(500);
    expect(jinja.body).toEqual({ error: { code: 500, message: 'tools param requires --jinja flag', type: 'server_error' } });
    expect((await chat('ollama-no-tools', OPENING)).body).toMatchObject({
      error: { message: 'registry.ollama.ai/library/gemma:2b does not support tools', type: 'api_error' },
    });
    const html = await chat('html-error-page', OPENING);
    expect(html.status).toBe(502);
    expect(html.text).toMatch(/^<!DOCTYPE html>/);
    const filtered = await chat('azure-content-filter', OPENING);
    expect((filtered.body as { choices: Json[] }).choices[0]).toMatchObject({ finish_reason: 'content_filter', message: { content: null } });
    const big = [...OPENING, { role: 'user', content: 'x'.repeat(40_000) }];
    const lms = await chat('lmstudio-context-overflow', big);
    expect(typeof (lms.body as Json).error, 'LM Studio errors are a plain string').toBe('string');
    expect((await chat('llamacpp-context-exceeded', big)).body).toMatchObject({ error: { type: 'exceed_context_size_error', n_ctx: 4096 } });
    const cut = await chat('ollama-small-context', big);
    expect((cut.body as { usage: Json }).usage.total_tokens).toBe(4096);
    expect(messageOf(cut.body).tool_calls).toBeUndefined();
  });

  it('leaves usage out for no-usage and the top-level id out for Gemini', async () => {
    expect((await chat('no-usage', OPENING)).body).not.toHaveProperty('usage');
    expect((await chat('gemini-2.5-flash', OPENING)).body).not.toHaveProperty('id');
  });
});
