import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ModelClient, type RetryNotice } from '../llm/client.ts';
import { startScriptedModel, type ScriptedModel } from '../scripted-model/model-server.ts';
import type { HistoryMessage } from './history.ts';
import { Agent, TEXT_RESULTS_HEADER, textResults, type CallInfo } from './runtime.ts';
import { defineTool } from './tools.ts';

const GLOB = defineTool('glob', 'List files.', z.object({ pattern: z.string().min(1) }));
const ECHO = defineTool('echo', 'Echo.', z.object({ text: z.string() }));

let fake: ScriptedModel;
let llm: ModelClient;
beforeEach(async () => {
  fake = await startScriptedModel();
  llm = new ModelClient({
    endpoints: { worker: { baseUrl: fake.baseURL, apiKey: 'k', model: 'm' } },
    retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 1 },
  });
});
afterEach(() => fake.close());

function agent(messages: HistoryMessage[], extra: Partial<ConstructorParameters<typeof Agent>[0]> = {}) {
  const calls: CallInfo[] = [];
  const retries: RetryNotice[] = [];
  const a = new Agent({
    llm,
    role: 'worker',
    messages,
    tools: [GLOB, ECHO],
    emptyBackoffMs: () => 0,
    hooks: { onModelCall: (_r, info) => calls.push(info), onRetry: (n) => retries.push(n) },
    ...extra,
  });
  return { a, calls, retries };
}

describe('the agent runtime', () => {
  it('reads tool calls written as text, and answers them in one user message', async () => {
    fake.enqueue('m', {
      content:
        '<tool_call>{"name": "glob", "arguments": {"pattern": "*.md"}}</tool_call>\n<tool_call>{"name": "echo", "arguments": {"text": "hi"}}</tool_call>',
    });
    const messages: HistoryMessage[] = [{ role: 'user', content: 'go' }];
    const { a, calls } = agent(messages);
    const turn = await a.turn();
    expect(turn.kind).toBe('reply');
    if (turn.kind !== 'reply') return;
    expect(turn.calls.map((c) => [c.name, c.fromText])).toEqual([
      ['glob', true],
      ['echo', true],
    ]);
    expect(calls[0]).toMatchObject({ text_tool_calls: 2 });
    for (const c of turn.calls) a.answer(c, `ran ${c.name}`);
    expect(messages.at(-2)).not.toHaveProperty('tool_calls');
    expect(messages.at(-1)).toEqual({ role: 'user', content: `${TEXT_RESULTS_HEADER}\n\n### Result 1: glob\nran glob\n\n### Result 2: echo\nran echo` });
    expect(textResults(messages.at(-1)!.content as string)).toEqual(['ran glob', 'ran echo']);
  });

  it('checks arguments against the declared schema and says what is wrong', async () => {
    fake.enqueue('m', {
      tool_calls: [
        { name: 'glob', arguments: { pattern: '' } },
        { name: 'nope', arguments: {} },
        { name: 'echo', arguments: '{"text": ' },
      ],
    });
    const { a } = agent([{ role: 'user', content: 'go' }]);
    const turn = await a.turn();
    if (turn.kind !== 'reply') throw new Error('expected a reply');
    const [glob, nope, echo] = turn.calls.map((c) => a.check(c));
    expect(glob).toMatchObject({ ok: false, message: expect.stringContaining("'pattern'") });
    expect(nope).toMatchObject({ ok: false, message: "ERROR: unknown tool 'nope'. Available: glob, echo." });
    expect(echo).toMatchObject({ ok: false, message: expect.stringContaining('not valid JSON') });
  });

  it('reports every retry, then returns the reply', async () => {
    fake.enqueue('m', { fault: 'rate_limit', retry_after: 0 }, { fault: 'server_error', error_message: 'overloaded' }, { content: 'fine' });
    const { a, retries } = agent([{ role: 'user', content: 'go' }]);
    const turn = await a.turn();
    expect(turn).toMatchObject({ kind: 'reply', text: 'fine' });
    expect(retries.map((r) => [r.attempt, r.status])).toEqual([
      [1, 429],
      [2, 500],
    ]);
    expect(retries[1]!.reason).toContain('overloaded');
  });

  it('gives up after the empty streak, naming reasoning-only replies for what they are', async () => {
    fake.enqueue('m', { content: '', reasoning: 'hmm' }, { content: '', reasoning: 'hmm' }, { content: '', reasoning: 'still thinking' });
    const messages: HistoryMessage[] = [{ role: 'user', content: 'go' }];
    const turn = await agent(messages).a.turn();
    expect(turn).toMatchObject({ kind: 'empty', streak: 3 });
    if (turn.kind === 'empty')
      expect(turn.detail).toBe('the worker model returned 3 empty replies in a row: it sent only reasoning, with no answer and no tool call');
    expect(messages).toHaveLength(1); // no empty turn entered the conversation
  });

  it('estimates the cost from the role prices when the provider reports none, and says once that a cap needs prices', async () => {
    fake.enqueue(
      'm',
      { content: 'a', usage: { prompt_tokens: 1_000_000, completion_tokens: 1_000_000 } },
      { content: 'b', usage: { prompt_tokens: 10, completion_tokens: 10 } },
    );
    const notices: string[] = [];
    const costs: (number | null)[] = [];
    const priced = new Agent({
      llm,
      role: 'worker',
      messages: [{ role: 'user', content: 'go' }],
      tools: [],
      price: { input_per_million: 2, output_per_million: 8 },
      hooks: { onModelCall: (r) => costs.push(r.costUsd) },
    });
    await priced.turn();
    expect(costs).toEqual([10]);
    const set = new Set<string>();
    const unpriced = new Agent({
      llm,
      role: 'worker',
      messages: [{ role: 'user', content: 'go' }],
      tools: [],
      dollarCapSet: true,
      notices: set,
      hooks: { onNotice: (k) => notices.push(k) },
    });
    await unpriced.turn();
    expect(notices).toEqual(['price_missing']);
  });
});

describe('the context window', () => {
  it('refuses, before any call, a request that cannot fit, saying how to make room', async () => {
    const { a } = agent([{ role: 'user', content: 'x'.repeat(20_000) }], { contextWindow: 4_096 });
    await expect(a.turn()).rejects.toThrow(
      /about \d+ tokens, more than its context window of 4096 tokens leaves room for \(3072 with 1024 kept for the reply\)\. Raise the model server's context length \(Ollama: OLLAMA_CONTEXT_LENGTH/,
    );
    expect(fake.requests).toHaveLength(0);
  });

  it('records the window on each call that fits', async () => {
    fake.enqueue('m', { content: 'ok' });
    const { a, calls } = agent([{ role: 'user', content: 'short' }], { contextWindow: 32_768 });
    await a.turn();
    expect(calls[0]).toMatchObject({ context_window: 32_768 });
    expect(calls[0]!.prompt_estimate).toBeGreaterThan(0);
  });
});
