import { describe, expect, it } from 'vitest';
import type { EventInput } from './events.ts';
import { compactArgs, describeEvent, EVENT_NAMES, eventLine, headLine, oneLine, progressLine } from './event-text.ts';
import { eventLog } from './test-events.ts';

const ids = { trace_id: 'a'.repeat(32), span_id: 'b'.repeat(16) };
const describe1 = (input: EventInput) => describeEvent(eventLog(input)[0]!);

describe('describeEvent', () => {
  it('names the task, the iteration, the tool and its arguments for a worker tool call', () => {
    expect(describe1({ type: 'tool_call', data: { task_id: 'T-001', iter: 3, ...ids, tool: 'read_file', args: { path: 'src/x.js' } } })).toBe(
      'T-001 iter 3 read_file {"path":"src/x.js"}',
    );
  });

  it("shows a file's content by its start and size, so a write stays one short line", () => {
    const content = 'export function double(n) {\n  return n * 2;\n}\n'.repeat(20);
    const line = describe1({ type: 'tool_call', data: { task_id: 'T-001', iter: 1, ...ids, tool: 'write_file', args: { path: 'src/double.js', content } } });
    expect(line).toMatch(/^T-001 iter 1 write_file \{"path":"src\/double.js","content":"export function double\(n\) \{\\n.*… \(920 chars\)"\}$/);
    expect(line).not.toContain('\n');
  });

  it('says plainly whether the shell of a run is sandboxed', () => {
    const start = (sandbox: { available: boolean; network: boolean; detail: string }) =>
      describe1({ type: 'session_start', data: { source: '/r', phase: 'run', worktree: '/w', branch: 'b', sandbox } });
    expect(start({ available: true, network: false, detail: 'on' })).toBe('run · shell sandboxed, no network');
    expect(start({ available: false, network: true, detail: 'bubblewrap (bwrap) is not installed' })).toBe(
      'run · shell NOT sandboxed: bubblewrap (bwrap) is not installed',
    );
  });

  it('says which checks failed', () => {
    const results = [
      { name: 'acceptance', passed: false, output: 'not ok 1' },
      { name: 'lint', passed: true },
    ];
    expect(describe1({ type: 'validator_run', data: { task_id: 'T-001', iter: 2, ...ids, passed: false, results } })).toBe('T-001 FAILED acceptance');
    expect(describe1({ type: 'validator_run', data: { task_id: 'T-001', iter: 3, ...ids, passed: true, results: [] } })).toBe('T-001 passed');
  });

  it("gives the evaluator's verdict with its category and concern", () => {
    const reject: EventInput = {
      type: 'evaluator_verdict',
      data: {
        task_id: 'T-001',
        iter: 2,
        ...ids,
        schema_version: 1,
        verdict: 'reject',
        rejection_category: 'half_finished',
        concern: 'No doc\ncomment.',
        evidence: [],
      },
    };
    expect(describe1(reject)).toBe('T-001 reject · half_finished — No doc comment.');
    const accept: EventInput = {
      type: 'evaluator_verdict',
      data: { task_id: 'T-001', iter: 3, ...ids, schema_version: 1, verdict: 'accept', concern: '', evidence: [] },
    };
    expect(describe1(accept)).toBe('T-001 accept');
  });

  it('words the run’s milestones: status, resume, failure, commit, guidance and stop', () => {
    expect(describe1({ type: 'status_changed', data: { from: 'running', to: 'stopped', reason: 'iter_cap' } })).toBe(
      'running → stopped (iteration cap reached)',
    );
    expect(
      describe1({
        type: 'session_resume',
        data: { session_id: 's', last_stop: 'iter_cap', retried: ['T-001'], pending: ['T-001', 'T-002'], unwound_commit: true, plan: '…' },
      }),
    ).toBe('after iter_cap · retrying T-001 · pending T-001, T-002');
    expect(describe1({ type: 'task_failed', data: { task_id: 'T-001', ...ids, reason: 'iter_cap' } })).toBe('T-001 iter_cap');
    expect(describe1({ type: 'commit', data: { task_id: 'T-001', trace_id: ids.trace_id, sha: '0123456789abcdef0123' } })).toBe('T-001 0123456789ab');
    expect(describe1({ type: 'steering_note', data: { note_id: 'n1', text: 'Keep it small', consumed_by: { task_id: 'T-002', iter: 4 } } })).toBe(
      '“Keep it small” read by T-002 iter 4',
    );
    expect(describe1({ type: 'stop', data: { reason: 'iter_cap', phase: 'run', error: 'T-001 failed.' } })).toBe('run iteration cap reached — T-001 failed.');
  });

  it('marks a model call with its phase and spend', () => {
    expect(
      describe1({
        type: 'model_call',
        data: {
          task_id: 'T-001',
          iter: 1,
          phase: 'evaluator',
          role: 'evaluator',
          model: 'judge',
          prompt_tokens: 200,
          eval_tokens: 30,
          tokens_used_total: 230,
          cost_usd: 0.02,
        },
      }),
    ).toBe('evaluator T-001 iter 1 judge 200+30 tokens $0.02');
    expect(
      describe1({
        type: 'model_call',
        data: {
          task_id: 'T-001',
          iter: 0,
          phase: 'self_improve',
          role: 'worker',
          model: 'w',
          prompt_tokens: 50,
          eval_tokens: 5,
          tokens_used_total: 55,
          cost_usd: 0.004,
          health: 'empty',
        },
      }),
    ).toBe('learnings T-001 worker w 50+5 tokens $0.0040 health empty');
  });
});

describe('eventLine', () => {
  it('prefixes the seq, the time and the type, like a log line', () => {
    const event = eventLog({ type: 'task_done', data: { task_id: 'T-001', ...ids, summary: 'Added double().' } })[0]!;
    expect(eventLine(event)).toMatch(/^#1 \d{1,2}:\d{2}:\d{2} task_done T-001 Added double\(\)\.$/);
  });
});

describe('helpers', () => {
  it('squeezes text onto one clipped line', () => {
    expect(oneLine('a\n\n  b\tc')).toBe('a b c');
    expect(oneLine('x'.repeat(10), 5)).toBe('xxxx…');
  });

  it('never throws on arguments JSON cannot show', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(compactArgs(cyclic)).toBe('(arguments not shown)');
    expect(compactArgs('raw text')).toBe('"raw text"');
  });
});

describe('progressLine', () => {
  it('says a finished run is finished, and any other stop in words', () => {
    expect(progressLine(eventLog({ type: 'stop', data: { phase: 'run', reason: 'all_done' } })[0]!)).toBe('finished: all tasks done');
    expect(progressLine(eventLog({ type: 'stop', data: { phase: 'run', reason: 'sent_back' } })[0]!)).toBe('stopped: a task was sent back');
    expect(progressLine(eventLog({ type: 'stop', data: { phase: 'run', reason: 'error', error: 'boom' } })[0]!)).toBe('stopped: an error — boom');
  });

  it("shows a model retry with the next attempt, the wait and the provider's words, worded as on the web", () => {
    const retry = eventLog({
      type: 'model_retry',
      data: {
        role: 'worker',
        model: 'qwen3:8b',
        attempt: 1,
        max_attempts: 6,
        wait_ms: 2_400,
        reason: 'HTTP 429: Provider returned error (Venice: rate-limited upstream)',
        status: 429,
      },
    })[0]!;
    expect(progressLine(retry)).toBe(
      '  worker provider busy, retrying in 2 s — attempt 2 of 6: HTTP 429: Provider returned error (Venice: rate-limited upstream)',
    );
  });

  it('prints the task milestones and stays quiet for the rest', () => {
    const [done, call, interviewCall] = eventLog(
      { type: 'task_done', data: { task_id: 'T-001', ...ids, summary: 'Added double().' } },
      { type: 'model_call', data: { task_id: 'T-001', iter: 1, role: 'worker', model: 'w', prompt_tokens: 1, eval_tokens: 1, tokens_used_total: 2 } },
      { type: 'tool_call', data: { phase: 'interview', trace_id: ids.trace_id, tool: 'read_file', args: {} } },
    );
    expect(progressLine(done!)).toBe('✓ T-001 done');
    expect(progressLine(call!)).toBeNull();
    expect(progressLine(interviewCall!)).toBeNull();
  });
});

describe('the card head', () => {
  it('shows a model call by model, tokens in and out, and cost', () => {
    const call = eventLog({
      type: 'model_call',
      data: { task_id: 'T-001', iter: 1, role: 'worker', model: 'w', prompt_tokens: 45_600, eval_tokens: 300, tokens_used_total: 45_900, cost_usd: 0.0042 },
    })[0]!;
    expect(headLine(call)).toBe('w · 45.6k in / 300 out · $0.0042');
  });
});

describe('event names on screen', () => {
  it('are words, never a log name with underscores', () => {
    for (const [type, name] of Object.entries(EVENT_NAMES)) {
      expect(name, type).not.toContain('_');
      expect(name, type).toMatch(/^[a-z]/);
    }
    expect(EVENT_NAMES.steering_note).toBe('your note');
    expect(EVENT_NAMES.prompt_assembled).toBe('instructions sent');
  });

  it('say the learnings step and its outcome in words, not self_improve or no_proposal', () => {
    const prompt = eventLog({
      type: 'prompt_assembled',
      data: { task_id: 'T-001', iter: 0, ...ids, role: 'self_improve', content: 'x', chars: 1764, truncated: false },
    })[0]!;
    expect(headLine(prompt)).toBe('learnings prompt, 1,764 characters');
    expect(describeEvent(prompt)).toBe('T-001 learnings prompt, 1764 chars');
    expect(describe1({ type: 'proposed_learnings', data: { task_id: 'T-001', ...ids, emitted: false, reason: 'no_proposal' } })).toBe(
      'T-001 no learning (none proposed)',
    );
  });
});
