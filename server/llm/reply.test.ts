import { describe, expect, it } from 'vitest';
import { assistantHistoryMessage, normaliseCompletion, reasoningText } from './reply.ts';
import type { AssistantMessage } from './types.ts';

const choice = (message: Record<string, unknown>, finish_reason: string | null = 'stop', extra: Record<string, unknown> = {}) => ({
  choices: [{ index: 0, message: { role: 'assistant', refusal: null, ...message }, finish_reason, ...extra }],
});

describe('normaliseCompletion', () => {
  it('calls a reply with content or tool calls ok', () => {
    expect(normaliseCompletion(choice({ content: 'hi' })).health).toBe('ok');
    const tools = normaliseCompletion(
      choice({ content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'x', arguments: '{}' } }] }, 'tool_calls'),
    );
    expect(tools).toMatchObject({ health: 'ok', finishReason: 'tool_calls' });
  });

  it('calls a reply with only blank content empty, and reasoning alone empty in every spelling', () => {
    expect(normaliseCompletion(choice({ content: '  \n' })).health).toBe('empty');
    expect(normaliseCompletion(choice({ content: null, tool_calls: [] })).health).toBe('empty');
    expect(normaliseCompletion(choice({ content: null, reasoning: 'thinking...' })).health).toBe('empty');
    expect(normaliseCompletion(choice({ content: '', reasoning_content: 'thinking...' })).health).toBe('empty');
    expect(normaliseCompletion(choice({ content: '', reasoning_details: [{ type: 'reasoning.encrypted' }] })).health).toBe('empty');
    expect(normaliseCompletion(choice({ content: [{ type: 'thinking', thinking: [{ type: 'text', text: 'hmm' }] }] })).health).toBe('empty');
  });

  it('recognises error finishes, missing choices and error bodies', () => {
    expect(normaliseCompletion(choice({ content: 'partial' }, 'error')).health).toBe('error_finish');
    const inChoice = normaliseCompletion(choice({ content: '' }, 'stop', { error: { message: 'model crashed', code: 500 } }));
    expect(inChoice).toMatchObject({ health: 'error_finish', detail: 'model crashed (code 500)' });
    expect(normaliseCompletion({ choices: [] }).health).toBe('no_choices');
    expect(normaliseCompletion({}).health).toBe('no_choices');
    expect(normaliseCompletion(null).health).toBe('no_choices');
    expect(normaliseCompletion({ error: { message: 'upstream 502' }, choices: [] })).toMatchObject({ health: 'error_body', detail: 'upstream 502' });
    expect(normaliseCompletion({ error: 'rate limited' })).toMatchObject({ health: 'error_body', detail: 'rate limited' });
  });

  it('reads usage and OpenRouter cost, treating junk as zero and a missing cost as null', () => {
    const withCost = normaliseCompletion({ ...choice({ content: 'x' }), usage: { prompt_tokens: 10, completion_tokens: 4, total_tokens: 99, cost: 0.02 } });
    expect(withCost.usage).toEqual({ prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 });
    expect(withCost.costUsd).toBe(0.02);
    const junk = normaliseCompletion({ ...choice({ content: 'x' }), usage: { prompt_tokens: 'many', completion_tokens: -3, cost: 'free' } });
    expect(junk.usage).toEqual({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
    expect(junk.costUsd).toBeNull();
    expect(normaliseCompletion({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 0, cost: 0 } })).toMatchObject({
      usage: { prompt_tokens: 5, total_tokens: 5 },
      costUsd: 0,
    });
  });
});

describe('assistantHistoryMessage', () => {
  it('keeps role, content, tool calls and reasoning, and drops everything else', () => {
    const message = {
      role: 'assistant',
      content: 'done',
      refusal: null,
      annotations: [],
      audio: null,
      function_call: null,
      tool_calls: [{ id: 'c', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }],
      reasoning: 'short',
      reasoning_details: [{ type: 'reasoning.text', text: 'short' }],
    } as unknown as AssistantMessage;
    expect(assistantHistoryMessage(message)).toEqual({
      role: 'assistant',
      content: 'done',
      tool_calls: message.tool_calls,
      reasoning: 'short',
      reasoning_details: [{ type: 'reasoning.text', text: 'short' }],
    });
  });

  it('leaves out empty tool calls and absent reasoning', () => {
    const message: AssistantMessage = { role: 'assistant', content: 'hi', refusal: null, tool_calls: [], reasoning: null };
    expect(assistantHistoryMessage(message)).toEqual({ role: 'assistant', content: 'hi' });
  });
});

describe('normalisation of real reply shapes (docs/provider-shapes.md)', () => {
  const calls = (message: Record<string, unknown>) => normaliseCompletion(choice(message, 'tool_calls')).message.tool_calls ?? [];
  const fn = (c: unknown) => (c as { function: { name: string; arguments: string } }).function;

  it('serialises arguments sent as a JSON object (llama.cpp, proxies) and treats missing ones as {}', () => {
    const [a, b] = calls({
      content: null,
      tool_calls: [
        { id: 'x', type: 'function', function: { name: 'glob', arguments: { pattern: '*.ts' } } },
        { id: 'y', type: 'function', function: { name: 'glob' } },
      ],
    });
    expect(fn(a).arguments).toBe('{"pattern":"*.ts"}');
    expect(fn(b).arguments).toBe('{}');
  });

  it('gives a call without an id, with an empty id or with a repeated id a fresh 9-character id', () => {
    const out = calls({
      tool_calls: [
        { type: 'function', function: { name: 'a', arguments: '{}' } },
        { id: '', type: 'function', function: { name: 'b', arguments: '{}' } },
        { id: 'same', function: { name: 'c', arguments: '{}' } },
        { id: 'same', function: { name: 'd', arguments: '{}' } },
      ],
    });
    expect(out.map((c) => c.id.length)).toEqual([9, 9, 4, 9]);
    expect(new Set(out.map((c) => c.id)).size).toBe(4);
    expect(out.every((c) => /^[A-Za-z0-9]+$/.test(c.id))).toBe(true);
  });

  it('takes a call without "type" as a function call (Mistral) and drops one without a name', () => {
    const out = calls({
      tool_calls: [
        { id: 'abcdefghi', function: { name: 'glob', arguments: '{}' } },
        { id: 'q', function: { arguments: '{}' } },
      ],
    });
    expect(out).toEqual([{ id: 'abcdefghi', type: 'function', function: { name: 'glob', arguments: '{}' } }]);
  });

  it('keeps provider fields on a call for the echo (Gemini thought signatures)', () => {
    const [c] = calls({
      tool_calls: [{ id: 'g1', type: 'function', function: { name: 'glob', arguments: '{}' }, extra_content: { google: { thought_signature: 'abc' } } }],
    });
    expect(c).toMatchObject({ extra_content: { google: { thought_signature: 'abc' } } });
    expect(assistantHistoryMessage(normaliseCompletion(choice({ tool_calls: [c] })).message).tool_calls?.[0]).toMatchObject({
      extra_content: { google: { thought_signature: 'abc' } },
    });
  });

  it('joins content sent as chunks (Magistral), leaving thinking chunks to the reasoning', () => {
    const reply = normaliseCompletion(
      choice({
        content: [
          { type: 'thinking', thinking: [{ type: 'text', text: 'Let me see.' }] },
          { type: 'text', text: 'Hello ' },
          { type: 'text', text: 'there' },
        ],
      }),
    );
    expect(reply.health).toBe('ok');
    expect(reply.message.content).toBe('Hello there');
    expect(reasoningText(reply.message)).toBe('Let me see.');
  });

  it('keeps reasoning in the spelling it came in, and echoes it so', () => {
    const deepseek = normaliseCompletion(
      choice({ content: null, reasoning_content: 'plan', tool_calls: [{ id: 'c', type: 'function', function: { name: 'glob', arguments: '{}' } }] }),
    ).message;
    expect(reasoningText(deepseek)).toBe('plan');
    expect(assistantHistoryMessage(deepseek, 'here')).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: deepseek.tool_calls,
      reasoning_content: 'plan',
      tilth_from: 'here',
    });
    const openrouter = normaliseCompletion(choice({ content: 'x', reasoning: 'r', reasoning_details: [{ type: 'reasoning.encrypted', data: 'e' }] })).message;
    expect(assistantHistoryMessage(openrouter)).toEqual({
      role: 'assistant',
      content: 'x',
      reasoning: 'r',
      reasoning_details: [{ type: 'reasoning.encrypted', data: 'e' }],
    });
  });

  it('sends blank text beside tool calls back as null', () => {
    const m = normaliseCompletion(choice({ content: '', tool_calls: [{ id: 'c', type: 'function', function: { name: 'glob', arguments: '{}' } }] })).message;
    expect(assistantHistoryMessage(m).content).toBeNull();
  });

  it('flags an empty reply the content filter caused (Azure), and only that', () => {
    expect(normaliseCompletion(choice({ content: null }, 'content_filter'))).toMatchObject({ health: 'empty', filtered: true });
    expect(normaliseCompletion(choice({ content: 'partial' }, 'content_filter'))).toMatchObject({ health: 'ok', filtered: false });
    expect(normaliseCompletion(choice({ content: null }, 'length'))).toMatchObject({ health: 'empty', filtered: false });
  });

  it('says when a body had no usage at all', () => {
    expect(normaliseCompletion(choice({ content: 'x' })).usageReported).toBe(false);
    expect(normaliseCompletion({ ...choice({ content: 'x' }), usage: { prompt_tokens: 1, completion_tokens: 1 } }).usageReported).toBe(true);
  });
});
