import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import {
  CHARS_PER_TOKEN,
  CHECKS_FAILED_PREFIX,
  elideForWindow,
  elisionPlaceholder,
  estimateMessageTokens,
  estimateTokens,
  MESSAGE_OVERHEAD_TOKENS,
  TruncationWatch,
  type Message,
} from './context.ts';

const text = (chars: number, fill = 'x') => fill.repeat(chars);

/** A worker conversation: system, task, then `turns` pairs of (assistant tool call, tool result of `outputChars`). */
function conversation(turns: number, outputChars: number, tool = 'read_file'): Message[] {
  const messages: Message[] = [
    { role: 'system', content: 'You are the worker. ' + text(200) },
    { role: 'user', content: 'Task: add a --verbose flag. ' + text(200) },
  ];
  for (let i = 0; i < turns; i++) {
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: `call_${i}`, type: 'function', function: { name: tool, arguments: JSON.stringify({ path: `src/file-${i}.ts` }) } }],
    });
    messages.push({ role: 'tool', tool_call_id: `call_${i}`, content: `output ${i} ` + text(outputChars) });
  }
  return messages;
}

const TOOLS: ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'read_file',
      description: 'Read a file of the workspace.',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
  },
];

describe('estimateTokens', () => {
  it('counts content at CHARS_PER_TOKEN characters a token, plus a per-message overhead', () => {
    expect(estimateTokens([{ role: 'user', content: text(350) }])).toBe(100 + MESSAGE_OVERHEAD_TOKENS);
    expect(estimateTokens([{ role: 'user', content: text(351) }])).toBe(Math.ceil(351 / CHARS_PER_TOKEN) + MESSAGE_OVERHEAD_TOKENS);
    expect(estimateTokens([])).toBe(0);
  });

  it('counts the tool schemas as they go out, as JSON', () => {
    const without = estimateTokens([{ role: 'user', content: 'hi' }]);
    const withTools = estimateTokens([{ role: 'user', content: 'hi' }], TOOLS);
    expect(withTools - without).toBe(Math.ceil(JSON.stringify(TOOLS).length / CHARS_PER_TOKEN));
    expect(estimateTokens([{ role: 'user', content: 'hi' }], [])).toBe(without);
  });

  it("counts a tool call's name, id and arguments, whether the arguments are a string or an object", () => {
    const args = JSON.stringify({ path: text(700) });
    const asString: Message = {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: args } }],
    };
    expect(estimateMessageTokens(asString)).toBe(Math.ceil(('c1'.length + 'read_file'.length + args.length) / CHARS_PER_TOKEN) + MESSAGE_OVERHEAD_TOKENS);
    // Some providers return the arguments as an object; they go back out as JSON, the same size.
    const asObject = {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: { path: text(700) } } }],
    } as unknown as Message;
    expect(estimateMessageTokens(asObject)).toBe(estimateMessageTokens(asString));
  });

  it('counts reasoning echoed back to the provider in every spelling', () => {
    const plain = estimateMessageTokens({ role: 'assistant', content: 'done' });
    const withReasoning = { role: 'assistant', content: 'done', reasoning: text(350) } as Message;
    const withContent = { role: 'assistant', content: 'done', reasoning_content: text(350) } as Message;
    const withDetails = { role: 'assistant', content: 'done', reasoning_details: [{ type: 'reasoning.text', text: text(300) }] } as Message;
    expect(estimateMessageTokens(withReasoning)).toBeGreaterThanOrEqual(plain + 99);
    expect(estimateMessageTokens(withContent)).toBeGreaterThanOrEqual(plain + 99);
    expect(estimateMessageTokens(withDetails)).toBeGreaterThan(plain + 85);
  });

  it('reads content given as an array of text parts', () => {
    const parts: Message = {
      role: 'user',
      content: [
        { type: 'text', text: text(200) },
        { type: 'text', text: text(150) },
      ],
    };
    expect(estimateMessageTokens(parts)).toBe(estimateMessageTokens({ role: 'user', content: text(350) }));
  });
});

describe('elideForWindow', () => {
  it('leaves a conversation that fits alone, returning the same array', () => {
    const messages = conversation(3, 100);
    const result = elideForWindow(messages, { windowTokens: 100_000, reserveTokens: 4_000 });
    expect(result.messages).toBe(messages);
    expect(result).toMatchObject({ dropped: { messages: 0, chars: 0 }, fits: true });
    expect(result.estimatedAfter).toBe(result.estimatedBefore);
    expect(result.estimatedBefore).toBe(estimateTokens(messages));
  });

  it('replaces old tool outputs, oldest first, with a placeholder naming the tool, until under the target', () => {
    const messages = conversation(10, 3_500); // ~1,000 tokens per output
    const before = estimateTokens(messages);
    const window = before - 1_500; // over by ~1,500 with no reserve; the target (80%) asks for more
    const result = elideForWindow(messages, { windowTokens: window, reserveTokens: 0 });
    expect(result.fits).toBe(true);
    expect(result.estimatedBefore).toBe(before);
    expect(result.estimatedAfter).toBe(estimateTokens(result.messages));
    expect(result.estimatedAfter).toBeLessThanOrEqual(Math.floor(window * 0.8));
    const elided = result.messages.map((m, i) => (m.role === 'tool' && m.content === elisionPlaceholder('read_file') ? i : -1)).filter((i) => i >= 0);
    expect(elided.length).toBe(result.dropped.messages);
    // Oldest first: the elided ones are exactly the first tool messages.
    const toolIndexes = messages.map((m, i) => (m.role === 'tool' ? i : -1)).filter((i) => i >= 0);
    expect(elided).toEqual(toolIndexes.slice(0, elided.length));
    expect(result.dropped.chars).toBe(elided.reduce((sum, i) => sum + (messages[i]!.content as string).length, 0));
    expect(result.messages[elided[0]!]!.content).toBe('[output of read_file elided to fit the context window]');
  });

  it('never changes the input, and keeps untouched messages as the same objects', () => {
    const messages = conversation(10, 3_500);
    const copy = structuredClone(messages);
    const result = elideForWindow(messages, { windowTokens: 5_000, reserveTokens: 500 });
    expect(messages).toEqual(copy);
    expect(result.messages).not.toBe(messages);
    result.messages.forEach((m, i) => {
      if (m.role !== 'tool' || m.content !== messages[i]!.content) return;
      expect(m).toBe(messages[i]);
    });
  });

  it('keeps the system prompt, the task, every assistant turn, the newest six messages and failed-check reports', () => {
    const messages = conversation(10, 3_500);
    // Turn 2's result reports failed checks: the worker still needs it.
    const failed = 2 + 2 * 2 + 1;
    messages[failed] = { role: 'tool', tool_call_id: 'call_2', content: `${CHECKS_FAILED_PREFIX}\n\n### unit: FAILED (exit 1)\n${text(3_500)}` };
    const result = elideForWindow(messages, { windowTokens: 1_000, reserveTokens: 0 });
    expect(result.fits).toBe(false); // the kept parts alone are over 1,000
    expect(result.messages[0]).toBe(messages[0]);
    expect(result.messages[1]).toBe(messages[1]);
    result.messages.forEach((m, i) => {
      if (m.role === 'assistant') expect(m).toBe(messages[i]);
    });
    for (const i of [messages.length - 6, messages.length - 5, messages.length - 4, messages.length - 3, messages.length - 2, messages.length - 1]) {
      expect(result.messages[i]).toBe(messages[i]);
    }
    expect(result.messages[failed]).toBe(messages[failed]);
    // Every other old tool output is gone.
    const oldTools = result.messages.slice(0, messages.length - 6).filter((m, i) => m.role === 'tool' && i !== failed);
    expect(oldTools.every((m) => m.content === elisionPlaceholder('read_file'))).toBe(true);
    expect(result.dropped.messages).toBe(oldTools.length);
  });

  it('keeps every tool call paired with its result: no message is removed, ids and order stay', () => {
    const messages = conversation(12, 2_000);
    const result = elideForWindow(messages, { windowTokens: 2_000, reserveTokens: 200 });
    expect(result.messages.length).toBe(messages.length);
    result.messages.forEach((m, i) => {
      expect(m.role).toBe(messages[i]!.role);
      if (m.role === 'tool') expect(m.tool_call_id).toBe((messages[i] as { tool_call_id: string }).tool_call_id);
    });
  });

  it('says fits=false, eliding what it may, when even the kept messages are over the window', () => {
    const messages: Message[] = [
      { role: 'system', content: text(35_000) },
      { role: 'user', content: 'the task' },
    ];
    const result = elideForWindow(messages, { windowTokens: 8_000, reserveTokens: 1_000 });
    expect(result).toMatchObject({ fits: false, dropped: { messages: 0, chars: 0 } });
    expect(result.messages).toBe(messages);
    expect(result.estimatedAfter).toBe(result.estimatedBefore);
  });

  it('counts the tool schemas against the window', () => {
    const messages = conversation(8, 350);
    const plain = estimateTokens(messages);
    const schemas = estimateTokens([], TOOLS);
    const withoutTools = elideForWindow(messages, { windowTokens: plain + schemas - 1, reserveTokens: 0 });
    expect(withoutTools.dropped.messages).toBe(0);
    const withTools = elideForWindow(messages, { windowTokens: plain + schemas - 1, reserveTokens: 0, tools: TOOLS });
    expect(withTools.estimatedBefore).toBe(plain + schemas);
    expect(withTools.dropped.messages).toBeGreaterThan(0);
  });

  it('is stable: eliding an elided conversation again changes nothing more while it fits', () => {
    const messages = conversation(10, 3_500);
    const first = elideForWindow(messages, { windowTokens: 9_000, reserveTokens: 1_000 });
    expect(first.dropped.messages).toBeGreaterThan(0);
    const second = elideForWindow(first.messages, { windowTokens: 9_000, reserveTokens: 1_000 });
    expect(second.messages).toBe(first.messages);
    expect(second.dropped.messages).toBe(0);
  });

  it('does not count an output elided earlier as dropped again', () => {
    const messages = conversation(10, 3_500);
    const first = elideForWindow(messages, { windowTokens: 9_000, reserveTokens: 1_000 });
    // The conversation grows; the next elision goes on from where the first stopped.
    const grown = [
      ...first.messages,
      ...(conversation(3, 3_500)
        .slice(2)
        .map((m) =>
          m.role === 'assistant'
            ? { ...m, tool_calls: m.tool_calls!.map((c) => ({ ...c, id: `n${c.id}` })) }
            : { ...m, tool_call_id: `n${(m as { tool_call_id: string }).tool_call_id}` },
        ) as Message[]),
    ];
    const second = elideForWindow(grown, { windowTokens: 9_000, reserveTokens: 1_000 });
    const placeholders = (ms: Message[]) => ms.filter((m) => m.role === 'tool' && typeof m.content === 'string' && m.content.startsWith('[output of')).length;
    expect(placeholders(second.messages)).toBe(placeholders(first.messages) + second.dropped.messages);
  });

  it('names the tool from its call, and falls back to a generic placeholder for an unknown call id', () => {
    const messages: Message[] = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'task' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'bash', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'a', content: text(7_000) },
      { role: 'tool', tool_call_id: 'orphan', content: text(7_000) },
      ...Array.from({ length: 6 }, (_, i): Message => ({ role: 'user', content: `note ${i}` })),
    ];
    const result = elideForWindow(messages, { windowTokens: 1_500, reserveTokens: 0 });
    expect(result.messages[3]!.content).toBe('[output of bash elided to fit the context window]');
    expect(result.messages[4]!.content).toBe('[tool output elided to fit the context window]');
    expect(result.fits).toBe(true);
  });

  it('leaves a tool output shorter than its placeholder as it is', () => {
    const messages = conversation(4, 0);
    messages[3] = { role: 'tool', tool_call_id: 'call_0', content: 'ok' };
    const result = elideForWindow(messages, { windowTokens: 50, reserveTokens: 0, keepRecent: 0 });
    expect(result.messages[3]).toBe(messages[3]);
  });

  it('honours keepRecent and targetRatio', () => {
    const messages = conversation(6, 3_500);
    const all = elideForWindow(messages, { windowTokens: 100, reserveTokens: 0, keepRecent: 0 });
    expect(all.dropped.messages).toBe(6);
    const budget = estimateTokens(messages) - 10;
    const gentle = elideForWindow(messages, { windowTokens: budget, reserveTokens: 0, targetRatio: 1 });
    expect(gentle.dropped.messages).toBe(1);
  });
});

describe('TruncationWatch', () => {
  it('suspects truncation when the reported prompt tokens stay flat over three calls while the estimate grows by more than a quarter', () => {
    const watch = new TruncationWatch();
    expect(watch.observe(3_000, 2_040)).toEqual({ suspected: false });
    expect(watch.observe(3_500, 2_045)).toEqual({ suspected: false });
    const verdict = watch.observe(4_000, 2_048);
    expect(verdict).toMatchObject({ suspected: true, reason: 'stuck', estimated: 4_000, reported: 2_048 });
    if (!verdict.suspected) throw new Error('expected a suspicion');
    expect(verdict.message).toContain('OLLAMA_CONTEXT_LENGTH=32768');
    expect(verdict.message).toContain('PARAMETER num_ctx 32768');
  });

  it('does not suspect a provider whose count grows with the conversation', () => {
    const watch = new TruncationWatch();
    const verdicts = [1_000, 1_600, 2_400, 3_000, 3_900].map((e) => watch.observe(e, Math.round(e * 0.9)));
    expect(verdicts.every((v) => !v.suspected)).toBe(true);
  });

  it('does not call a flat count stuck when the estimate barely grew either', () => {
    const watch = new TruncationWatch();
    watch.observe(3_000, 2_900);
    watch.observe(3_300, 2_920);
    expect(watch.observe(3_700, 2_950).suspected).toBe(false); // +23%: under the 25% bar
  });

  it('allows the reported count 2% of drift and no more', () => {
    const flat = new TruncationWatch();
    flat.observe(3_000, 4_000);
    flat.observe(3_500, 4_040);
    expect(flat.observe(4_000, 4_080).suspected).toBe(true); // exactly +2%
    const growing = new TruncationWatch();
    growing.observe(3_000, 4_000);
    growing.observe(3_500, 4_050);
    expect(growing.observe(4_000, 4_100).suspected).toBe(false); // +2.5%
  });

  it('looks only at the last three calls', () => {
    const watch = new TruncationWatch();
    watch.observe(1_000, 900);
    watch.observe(2_000, 1_800);
    watch.observe(3_000, 2_700);
    expect(watch.observe(3_100, 2_700).suspected).toBe(false);
    expect(watch.observe(3_200, 2_700).suspected).toBe(false); // 3,000 → 3,200: +7%
  });

  it('suspects a report under 40% of the estimate on a request over 2,000 estimated tokens', () => {
    const watch = new TruncationWatch();
    const verdict = watch.observe(12_000, 4_096);
    expect(verdict).toMatchObject({ suspected: true, reason: 'undercount', estimated: 12_000, reported: 4_096 });
    if (verdict.suspected) expect(verdict.message).toMatch(/counted 4096 prompt tokens for a request Tilth estimates at about 12000/);
    expect(new TruncationWatch().observe(12_000, 4_801).suspected).toBe(false); // 40.0%
    // Small requests are mostly template overhead and the estimate's error: no judgement.
    expect(new TruncationWatch().observe(2_000, 100).suspected).toBe(false);
  });

  it('skips calls without reported usage', () => {
    const watch = new TruncationWatch();
    watch.observe(3_000, 2_048);
    expect(watch.observe(3_500, null)).toEqual({ suspected: false });
    expect(watch.observe(3_600, undefined)).toEqual({ suspected: false });
    watch.observe(3_500, 2_048);
    expect(watch.observe(4_000, 2_048).suspected).toBe(true);
  });

  it('starts afresh after reset, as a new conversation does', () => {
    const watch = new TruncationWatch();
    watch.observe(3_000, 2_048);
    watch.observe(3_500, 2_048);
    watch.reset();
    expect(watch.observe(4_000, 2_048).suspected).toBe(false);
  });
});
