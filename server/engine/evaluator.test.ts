import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ModelClient } from '../llm/client.ts';
import { startScriptedModel, type ScriptedModel } from '../scripted-model/model-server.ts';
import { evaluate, evaluatorUserPrompt, JUDGE_DIFF_MAX_CHARS, type EvaluationInput } from './evaluator.ts';

let fake: ScriptedModel;
let llm: ModelClient;
beforeEach(async () => {
  fake = await startScriptedModel();
  llm = new ModelClient({ endpoints: { evaluator: { baseUrl: fake.baseURL, apiKey: 'k', model: 'judge' } }, retry: { maxAttempts: 1 } });
});
afterEach(() => fake.close());

const input: EvaluationInput = {
  task: {
    id: 'T-001',
    title: 'Add due dates',
    description: 'Add setDue.',
    acceptance_criteria: ['setDue stores the date', 'bad dates throw'],
    status: 'in_progress',
  },
  contextFiles: [{ name: 'AGENTS.md', text: 'Functions are pure.\n' }],
  ledger: [
    {
      ts: '2026-05-25T10:00:00.000Z',
      iter: 3,
      diff_summary: '',
      case: null,
      verdict: { verdict: 'reject', rejection_category: 'weak_test', concern: 'Too thin.', evidence: [], next_step: 'Assert the error.' },
    },
  ],
  case: { summary: 'Added setDue.', ac_coverage: [{ criterion: 'setDue stores the date', addressed_by: 'src/todo.js setDue' }], uncertainties: ['time zones'] },
  tests: { 'tests/t001_due.test.js': "test('due', () => {});" },
  checks: [{ name: 'acceptance', passed: true, exit_code: 0, output: '# pass 2' }],
  diff: '+export function setDue() {}',
};

const verdict = (args: Record<string, unknown>) => ({ tool_calls: [{ name: 'submit_verdict', arguments: args }] });

describe('the evaluator', () => {
  it('sees task, criteria, context, earlier verdicts, case, test, check output and diff', () => {
    const prompt = evaluatorUserPrompt(input);
    for (const part of [
      '# Task to evaluate: T-001 — Add due dates',
      '1. setDue stores the date',
      '2. bad dates throw',
      '## Project context (AGENTS.md)',
      'Functions are pure.',
      'iteration 3: reject (weak_test) — Too thin. Next step given: Assert the error.',
      'Added setDue.',
      'time zones',
      '`tests/t001_due.test.js`:',
      '### acceptance — PASS',
      '# pass 2',
      '+export function setDue() {}',
    ]) {
      expect(prompt, part).toContain(part);
    }
    expect(evaluatorUserPrompt({ ...input, diff: '' })).toContain('(empty diff)');
    expect(evaluatorUserPrompt({ ...input, diff: 'x'.repeat(JUDGE_DIFF_MAX_CHARS + 10) })).toContain(`[truncated, total ${JUDGE_DIFF_MAX_CHARS + 10} chars]`);
  });

  it('returns an accept, and the prompt reaches the model with only the verdict tool', async () => {
    fake.enqueue('judge', {
      ...verdict({ verdict: 'accept', rejection_category: null, concern: 'All criteria met.', evidence: ['tests pass'], next_step: null }),
      expect: { tools_include: ['submit_verdict'], last_message_contains: 'Task to evaluate: T-001' },
    });
    const r = await evaluate(llm, input);
    expect(r).toMatchObject({ attempts: 1, verdict: { verdict: 'accept', concern: 'All criteria met.', evidence: ['tests pass'] } });
    expect(fake.requests[0]!.tools).toHaveLength(1);
    fake.assertDone();
  });

  it('keeps its word per criterion, and sends back an accept that calls a criterion unmet or names one the task lacks', async () => {
    const words = [
      { n: 1, met: true, note: 'setDue stores it (src/todo.js:3).' },
      { n: 2, met: false, note: 'Nothing throws.' },
    ];
    fake.enqueue(
      'judge',
      verdict({ verdict: 'accept', concern: 'Fine.', evidence: [], criteria: words }),
      verdict({ verdict: 'accept', concern: 'Fine.', evidence: [], criteria: [{ n: 3, met: true, note: 'x' }] }),
    );
    const errors: string[] = [];
    const unusable = await evaluate(llm, input, { events: { onParseError: (_a, e) => errors.push(e) } });
    expect(unusable.verdict).toMatchObject({ verdict: 'reject', parse_failed: true });
    expect(errors).toEqual([
      'an accept may not call a criterion unmet (you said 2 is not met): reject, or mark it met',
      'criteria names criterion 3, but the task has 2',
    ]);

    fake.enqueue(
      'judge',
      verdict({ verdict: 'reject', rejection_category: 'acceptance_gap', concern: 'No throw.', evidence: [], next_step: 'Throw.', criteria: words }),
    );
    expect((await evaluate(llm, input)).verdict.criteria).toEqual(words);
    fake.enqueue('judge', verdict({ verdict: 'accept', concern: 'Fine.', evidence: [], criteria: null }));
    expect((await evaluate(llm, input)).verdict).not.toHaveProperty('criteria');
  });

  it('retries once after an unusable answer, and reports the parse error', async () => {
    fake.enqueue(
      'judge',
      { content: 'Looks good to me!' },
      verdict({
        verdict: 'reject',
        rejection_category: 'acceptance_gap',
        concern: 'Bad dates do not throw.',
        evidence: ['src/todo.js:4'],
        next_step: 'Throw a RangeError for invalid dates.',
      }),
    );
    const errors: string[] = [];
    const r = await evaluate(llm, input, { events: { onParseError: (_a, e) => errors.push(e) } });
    expect(r.attempts).toBe(2);
    expect(r.verdict).toMatchObject({ verdict: 'reject', rejection_category: 'acceptance_gap', next_step: 'Throw a RangeError for invalid dates.' });
    expect(errors).toEqual(['expected exactly one submit_verdict call, got 0']);
  });

  it('fails closed: two unusable answers make a reject marked parse_failed', async () => {
    fake.enqueue('judge', verdict({ verdict: 'reject', concern: 'no category' }), {
      fault: 'malformed_tool_args',
      tool_calls: [{ name: 'submit_verdict', arguments: {} }],
    });
    const r = await evaluate(llm, input);
    expect(r.verdict).toMatchObject({ verdict: 'reject', parse_failed: true });
    expect(r.verdict.next_step).toBeTruthy();
    expect(r.unreadable).toMatch(
      /^the evaluator model answered 2 times in a row without a usable submit_verdict call; the last time it sent a submit_verdict call that could not be used \(submit_verdict arguments are not valid JSON\)$/,
    );
  });

  it('reads a verdict the model wrote as text instead of a tool call', async () => {
    fake.enqueue('judge', { content: '```json\n{"verdict": "accept", "concern": "All met.", "evidence": ["tests pass"]}\n```' });
    const r = await evaluate(llm, input);
    expect(r).toMatchObject({ attempts: 1, verdict: { verdict: 'accept', concern: 'All met.' } });
    expect(r.unreadable).toBeUndefined();
  });
});
