import { describe, expect, it } from 'vitest';
import { argFields, caseView, lineCount, reasoningText, whereOf } from './card-text.ts';
import { twoTaskRun } from '../test-run.ts';

const usage = { prompt_tokens: 1, eval_tokens: 1, tokens_used_total: 2 };

describe('card text', () => {
  it('takes the reasoning text, or the text parts of reasoning_details', () => {
    expect(reasoningText({ ...usage, reasoning: 'because' })).toBe('because');
    expect(
      reasoningText({ ...usage, reasoning_details: [{ type: 'reasoning.text', text: 'one' }, { summary: 'two' }, { type: 'encrypted', data: 'x' }] }),
    ).toBe('one\n\ntwo');
    expect(reasoningText(usage)).toBe('');
  });

  it('shows file contents and commands as blocks and short arguments inline, never as one JSON blob', () => {
    expect(argFields({ path: 'src/a.js', content: 'line 1\nline 2' })).toEqual([
      { name: 'path', value: 'src/a.js', block: false },
      { name: 'content', value: 'line 1\nline 2', block: true },
    ]);
    expect(argFields({ command: 'ls' })[0]!.block).toBe(true);
    expect(argFields({ limit: 5 })).toEqual([{ name: 'limit', value: '5', block: false }]);
  });

  it('reads a case: summary, each criterion with what addresses it, work-arounds and doubts', () => {
    expect(
      caseView({ summary: 'Done.', ac_coverage: [{ criterion: 'a works', addressed_by: 'src/a.js', evidence: 'test passes' }], uncertainties: ['edge cases'] }),
    ).toEqual({
      summary: 'Done.',
      coverage: [{ criterion: 'a works', addressedBy: 'src/a.js', evidence: 'test passes' }],
      workArounds: [],
      uncertainties: ['edge cases'],
    });
    expect(caseView({ path: 'x' })).toBeNull();
  });

  it('says where an event happened', () => {
    const events = twoTaskRun().events;
    expect(whereOf(events.find((e) => e.type === 'tool_call')!)).toBe('T-001 · iteration 1');
    expect(whereOf(events.find((e) => e.type === 'model_call' && e.data.role === 'evaluator')!)).toBe('evaluator · T-001 · iteration 2');
    expect(whereOf(events.find((e) => e.type === 'stop')!)).toBe('run');
  });

  it('counts lines', () => {
    expect(lineCount('')).toBe(0);
    expect(lineCount('a')).toBe(1);
    expect(lineCount('a\nb\n')).toBe(2);
  });
});
