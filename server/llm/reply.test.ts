import { describe, expect, it } from 'vitest';
import { assistantHistoryMessage, normaliseCompletion } from './reply.ts';
import type { AssistantMessage } from './types.ts';

const choice = (message: Record<string, unknown>, finish_reason: string | null = 'stop', extra: Record<string, unknown> = {}) => ({
  choices: [{ index: 0, message: { role: 'assistant', refusal: null, ...message }, finish_reason, ...extra }],
});

describe('normaliseCompletion', () => {
  it('calls a reply with content or tool calls ok', () => {
    expect(normaliseCompletion(choice({ content: 'hi' })).health).toBe('ok');
    const tools = normaliseCompletion(choice({ content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'x', arguments: '{}' } }] }, 'tool_calls'));
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
