import { describe, expect, it } from 'vitest';
import { endpointTag, messagesFor, type HistoryMessage } from './history.ts';

const call = { id: 'c1', type: 'function', function: { name: 'glob', arguments: '{}' }, extra_content: { google: { thought_signature: 'sig' } } };
const turn = (from: string): HistoryMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: [call],
  reasoning_content: 'think',
  reasoning: 'think',
  reasoning_details: [{ type: 'reasoning.text', text: 'think' }],
  tilth_from: from,
});

describe('the history sent back', () => {
  const here = endpointTag({ baseUrl: 'https://api.deepseek.com', model: 'deepseek-reasoner' });
  const there = endpointTag({ baseUrl: 'http://127.0.0.1:11434/v1', model: 'qwen3' });

  it('echoes reasoning and provider fields, in their own spelling, to the endpoint that wrote them', () => {
    const [sent] = messagesFor([turn(here)], here) as unknown as Record<string, unknown>[];
    expect(sent).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [call],
      reasoning_content: 'think',
      reasoning: 'think',
      reasoning_details: [{ type: 'reasoning.text', text: 'think' }],
    });
  });

  it('sends plain turns to any other endpoint, and never the marker', () => {
    const [sent] = messagesFor([turn(here)], there) as unknown as Record<string, unknown>[];
    expect(sent).toEqual({ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'glob', arguments: '{}' } }] });
  });

  it('leaves other messages, and turns recorded before markers existed, as they are', () => {
    const old: HistoryMessage = { role: 'assistant', content: 'hi', reasoning: 'r' };
    const user: HistoryMessage = { role: 'user', content: 'q' };
    expect(messagesFor([old, user], there)).toEqual([old, user]);
  });
});
