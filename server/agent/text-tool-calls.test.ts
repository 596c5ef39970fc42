import { describe, expect, it } from 'vitest';
import { parseTextToolCalls } from './text-tool-calls.ts';

const TOOLS = ['read_file', 'glob', 'submit_case'];

describe('tool calls written as text', () => {
  it('reads a bare JSON object, in a fence or alone, with "arguments" or "parameters"', () => {
    expect(parseTextToolCalls('{"name": "read_file", "arguments": {"path": "a.ts"}}', TOOLS)).toEqual([{ name: 'read_file', arguments: '{"path":"a.ts"}' }]);
    expect(parseTextToolCalls('I will look.\n```json\n{"name": "glob", "parameters": {"pattern": "*.md"}}\n```', TOOLS)).toEqual([
      { name: 'glob', arguments: '{"pattern":"*.md"}' },
    ]);
    expect(parseTextToolCalls('[{"name": "glob", "arguments": {"pattern": "a"}}, {"name": "glob", "arguments": {"pattern": "b"}}]', TOOLS)).toHaveLength(2);
  });

  it('reads <tool_call> blocks (Hermes, Qwen), several per reply', () => {
    const text =
      'Let me check.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "x"}}\n</tool_call>\n<tool_call>{"name": "glob", "arguments": "{\\"pattern\\": \\"*\\"}"}</tool_call>';
    expect(parseTextToolCalls(text, TOOLS)).toEqual([
      { name: 'read_file', arguments: '{"path":"x"}' },
      { name: 'glob', arguments: '{"pattern": "*"}' },
    ]);
  });

  it('reads <function=name> with JSON (Llama 3.1) or <parameter=…> tags (Qwen3-Coder)', () => {
    expect(parseTextToolCalls('<function=read_file>{"path": "src/a.ts"}</function>', TOOLS)).toEqual([{ name: 'read_file', arguments: '{"path":"src/a.ts"}' }]);
    const xml = '<tool_call>\n<function=read_file>\n<parameter=path>\nsrc/a.ts\n</parameter>\n</function>\n</tool_call>';
    expect(parseTextToolCalls(xml, TOOLS)).toEqual([{ name: 'read_file', arguments: '{"path":"src/a.ts"}' }]);
    const list = '<function=glob>\n<parameter=pattern>\n*.md\n</parameter>\n<parameter=options>\n["a", "b"]\n</parameter>\n</function>';
    expect(parseTextToolCalls(list, TOOLS)).toEqual([{ name: 'glob', arguments: '{"pattern":"*.md","options":["a","b"]}' }]);
  });

  it('reads Mistral [TOOL_CALLS] in both spellings', () => {
    expect(parseTextToolCalls('[TOOL_CALLS][{"name": "glob", "arguments": {"pattern": "*"}}]', TOOLS)).toEqual([
      { name: 'glob', arguments: '{"pattern":"*"}' },
    ]);
    expect(parseTextToolCalls('[TOOL_CALLS]glob{"pattern": "*"}', TOOLS)).toEqual([{ name: 'glob', arguments: '{"pattern": "*"}' }]);
  });

  it('ignores tools that were not offered, prose, broken JSON, and replies when no tools were offered', () => {
    expect(parseTextToolCalls('{"name": "rm_rf", "arguments": {}}', TOOLS)).toEqual([]);
    expect(parseTextToolCalls('The file defines {"name": "read_file"} as an example… maybe', TOOLS)).toEqual([]);
    expect(parseTextToolCalls('<tool_call>{"name": "glob", "arguments": {</tool_call>', TOOLS)).toEqual([]);
    expect(parseTextToolCalls('{"name": "glob", "arguments": {}}', [])).toEqual([]);
    expect(parseTextToolCalls('{"learning": "use pnpm"}', TOOLS)).toEqual([]);
  });

  it('with one tool offered, reads a bare object that fits its arguments as a call to it', () => {
    const fits = (_name: string, args: unknown) => typeof args === 'object' && args !== null && 'verdict' in args;
    expect(parseTextToolCalls('```json\n{"verdict": "accept", "concern": "ok", "evidence": []}\n```', ['submit_verdict'], fits)).toEqual([
      { name: 'submit_verdict', arguments: '{"verdict":"accept","concern":"ok","evidence":[]}' },
    ]);
    expect(parseTextToolCalls('{"other": 1}', ['submit_verdict'], fits)).toEqual([]);
  });
});
