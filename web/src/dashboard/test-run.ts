/**
 * For unit tests: a small run's events, written the way the engine writes them. `RunLog` hands
 * out seqs and a clock that advances one second per event unless told otherwise.
 */
import type { EventInput, TilthEvent } from '../../../shared/events.ts';

const TRACE = 'a'.repeat(32);
const SPAN = 'b'.repeat(16);

/** Where an event inside a task's iteration happened. */
const at = (taskId: string, iter: number) => ({ task_id: taskId, trace_id: TRACE, span_id: SPAN, iter });

export const CAPS = { max_iterations_per_task: 10, max_wall_clock_minutes: 60, max_tokens: 100_000, max_dollars: 1, max_evaluator_calls_per_task: 4 };

export class RunLog {
  readonly events: TilthEvent[] = [];
  private clock = Date.UTC(2026, 4, 25, 10, 0, 0);

  add(input: EventInput, advanceMs = 1000): TilthEvent {
    this.clock += advanceMs;
    const event = { ...input, seq: this.events.length + 1, ts: new Date(this.clock).toISOString() } as TilthEvent;
    this.events.push(event);
    return event;
  }

  start(): this {
    this.add({
      type: 'session_start',
      data: {
        source: '/repo',
        phase: 'run',
        worktree: '/wt',
        branch: 'session/x',
        caps: CAPS,
        models: { worker: 'w-model', evaluator: 'e-model' },
        sandbox: { available: false, network: true, detail: 'bwrap is not installed' },
      },
    });
    return this;
  }

  task(id: string): this {
    this.add({ type: 'context_reset', data: { task_id: id, trace_id: TRACE, span_id: SPAN } });
    return this;
  }

  workerCall(id: string, iter: number, promptTokens = 1000, cost = 0.01): this {
    this.add({
      type: 'model_call',
      data: {
        ...at(id, iter),
        role: 'worker',
        model: 'w-model',
        prompt_tokens: promptTokens,
        eval_tokens: 100,
        tokens_used_total: promptTokens + 100,
        cost_usd: cost,
        cached_tokens: 10,
        reasoning_tokens: 5,
        reasoning: `thinking about ${id} step ${iter}`,
      },
    });
    return this;
  }

  tool(id: string, iter: number, tool: string, args: Record<string, unknown>, preview = 'ok'): this {
    this.add({ type: 'tool_call', data: { ...at(id, iter), tool, args } });
    this.add({ type: 'tool_result', data: { ...at(id, iter), tool, result_preview: preview, result_chars: preview.length } });
    return this;
  }

  checks(id: string, iter: number, passed: boolean, output = passed ? 'ok 1 - works' : 'not ok 1 - works\n  expected 4, got 5'): this {
    this.add({
      type: 'validator_run',
      data: {
        ...at(id, iter),
        passed,
        results: [{ name: `tests/${id}.test.js`, passed, exit_code: passed ? 0 : 1, output }],
      },
    });
    return this;
  }

  verdict(id: string, iter: number, verdict: 'accept' | 'reject', category?: 'acceptance_gap' | 'weak_test'): this {
    this.add({
      type: 'model_call',
      data: {
        ...at(id, iter),
        role: 'evaluator',
        phase: 'evaluator',
        model: 'e-model',
        prompt_tokens: 2000,
        eval_tokens: 50,
        tokens_used_total: 2050,
        cost_usd: 0.02,
      },
    });
    this.add({
      type: 'evaluator_verdict',
      data: {
        ...at(id, iter),
        schema_version: 1,
        verdict,
        ...(category ? { rejection_category: category } : {}),
        concern: verdict === 'accept' ? 'Looks right.' : 'A criterion is not met.',
        evidence: ['ran the test'],
        ...(verdict === 'reject' ? { next_step: 'Handle the empty case.' } : {}),
      },
    });
    return this;
  }

  done(id: string): this {
    this.add({ type: 'task_done', data: { task_id: id, trace_id: TRACE, span_id: SPAN, summary: 'done' } });
    this.add({ type: 'commit', data: { task_id: id, trace_id: TRACE, sha: 'abcdef1234567890' } });
    return this;
  }

  failed(id: string, reason: 'iter_cap' | 'evaluator_cap'): this {
    this.add({ type: 'task_failed', data: { task_id: id, trace_id: TRACE, reason } });
    return this;
  }

  stop(reason: 'all_done' | 'dollar_cap' | 'interrupted' | 'iter_cap'): this {
    this.add({ type: 'stop', data: { reason, phase: 'run' } });
    return this;
  }
}

/** T-001: a reject then an accept; T-002: one accepted iteration. */
export function twoTaskRun(): RunLog {
  return new RunLog()
    .start()
    .task('T-001')
    .workerCall('T-001', 1, 1000)
    .tool('T-001', 1, 'write_file', { path: 'src/a.js', content: 'export const a = 1;' })
    .workerCall('T-001', 2, 1500)
    .tool('T-001', 2, 'submit_case', { summary: 'done' })
    .checks('T-001', 2, true)
    .verdict('T-001', 2, 'reject', 'acceptance_gap')
    .workerCall('T-001', 3, 2000)
    .tool('T-001', 3, 'bash', { command: 'node --test' }, 'tests pass')
    .checks('T-001', 3, true)
    .verdict('T-001', 3, 'accept')
    .done('T-001')
    .task('T-002')
    .workerCall('T-002', 1, 900)
    .tool('T-002', 1, 'read_file', { path: 'src/a.js' })
    .checks('T-002', 1, true)
    .verdict('T-002', 1, 'accept')
    .done('T-002')
    .stop('all_done');
}
