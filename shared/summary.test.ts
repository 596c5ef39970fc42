import { describe, expect, it } from 'vitest';
import type { EventInput, TilthEvent } from './events.ts';
import { addToSummary, emptySummary, SummaryFileSchema, SummarySchema, type Summary } from './summary.ts';

const TRACE = 'a'.repeat(32);
const SPAN = 'b'.repeat(16);
const base = { task_id: 'T-001', trace_id: TRACE, span_id: SPAN };

function fold(items: [string, EventInput][]) {
  const s = emptySummary('s1');
  for (const [i, [ts, input]] of items.entries()) addToSummary(s, { seq: i + 1, ts, ...input } as TilthEvent);
  return SummarySchema.parse(s);
}

const call = (iter: number, cost: number, role: 'worker' | 'evaluator' = 'worker'): EventInput => ({
  type: 'model_call',
  data: {
    ...base,
    iter,
    role,
    ...(role === 'evaluator' ? { phase: 'evaluator' as const } : {}),
    prompt_tokens: 10,
    eval_tokens: 2,
    tokens_used_total: 12,
    cost_usd: cost,
  },
});

describe('the summary fold', () => {
  it('puts a rewound task back to pending, keeping what it spent', () => {
    const s = fold([
      ['2026-01-01T00:00:00.000Z', { type: 'context_reset', data: base }],
      ['2026-01-01T00:00:01.000Z', call(1, 0.01)],
      [
        '2026-01-01T00:00:01.500Z',
        { type: 'evaluator_verdict', data: { ...base, span_id: 'b'.repeat(16), iter: 1, schema_version: 1, verdict: 'accept', concern: 'fine', evidence: [] } },
      ],
      ['2026-01-01T00:00:02.000Z', { type: 'task_done', data: { ...base, summary: 'ok' } }],
      ['2026-01-01T00:00:03.000Z', { type: 'commit', data: { task_id: 'T-001', trace_id: TRACE, sha: 'abc' } }],
      [
        '2026-01-01T00:00:04.000Z',
        {
          type: 'rewound',
          data: { after: 'seed', rewind: 1, from_sha: 'abc', to_sha: 'def', backup_ref: 'refs/tilth/backups/s1-rewind-1', tasks: ['T-001', 'T-002'] },
        },
      ],
    ]);
    // Its verdict was on the work set aside: the board shows none, not "accepted" beside "pending".
    expect(s.tasks['T-001']).toMatchObject({ status: 'pending', commit: null, failure_reason: null, iterations: 1, last_verdict: null, accepts: 1 });
    expect(s.tasks['T-001']!.cost_usd).toBeCloseTo(0.01);
    expect(s.tasks['T-002']).toBeUndefined();
  });

  it("counts a task's time and the run's only while they work: not a send-back minutes later, nor the stop it makes", () => {
    const s = fold([
      ['2026-01-01T00:00:00.000Z', { type: 'session_start', data: { source: '/r', phase: 'run', worktree: '/w', branch: 'b' } } as never],
      ['2026-01-01T00:00:01.000Z', { type: 'context_reset', data: base }],
      ['2026-01-01T00:00:04.000Z', call(1, 0.02)],
      ['2026-01-01T00:00:05.000Z', { type: 'task_done', data: { ...base, summary: 'ok' } }],
      ['2026-01-01T00:00:05.100Z', { type: 'commit', data: { task_id: 'T-001', trace_id: TRACE, sha: 'abc' } }],
      ['2026-01-01T00:00:09.000Z', { type: 'stop', data: { reason: 'all_done', phase: 'run' } }],
      // Six minutes of review, then a send-back: it stops the session again, without a run.
      ['2026-01-01T00:06:09.000Z', { type: 'task_sent_back', data: { task_id: 'T-001', revision: 2, note: 'x', comments: 0 } }],
      ['2026-01-01T00:06:09.000Z', { type: 'stop', data: { reason: 'sent_back', phase: 'run' } }],
    ]);
    expect(s.tasks['T-001']!.duration_ms).toBe(4_000);
    expect(s.run_ended_at).toBe('2026-01-01T00:00:09.000Z');
    expect(s.stop?.reason).toBe('sent_back');
  });

  it('puts a task sent back to pending, keeping its commit and what it spent', () => {
    const s = fold([
      ['2026-01-01T00:00:00.000Z', { type: 'context_reset', data: base }],
      ['2026-01-01T00:00:01.000Z', call(1, 0.02)],
      ['2026-01-01T00:00:02.000Z', { type: 'task_done', data: { ...base, summary: 'ok' } }],
      ['2026-01-01T00:00:03.000Z', { type: 'commit', data: { task_id: 'T-001', trace_id: TRACE, sha: 'abc' } }],
      ['2026-01-01T00:00:04.000Z', { type: 'task_sent_back', data: { task_id: 'T-001', revision: 2, note: 'Keep the comment line.', comments: 0 } }],
    ]);
    expect(s.tasks['T-001']).toMatchObject({ status: 'pending', commit: 'abc', failure_reason: null, iterations: 1 });
    expect(s.tasks['T-001']!.cost_usd).toBeCloseTo(0.02);
  });

  it('counts a retried task that ends done without its old failure, and not the pause between attempts', () => {
    const s = fold([
      ['2026-01-01T00:00:00.000Z', { type: 'context_reset', data: base }],
      ['2026-01-01T00:00:01.000Z', call(1, 0.01)],
      ['2026-01-01T00:00:02.000Z', { type: 'task_failed', data: { ...base, reason: 'iter_cap' } }],
      // an hour later, resumed
      ['2026-01-01T01:00:02.000Z', { type: 'context_reset', data: base }],
      ['2026-01-01T01:00:05.000Z', call(1, 0.01)],
      ['2026-01-01T01:00:06.000Z', call(1, 0.02, 'evaluator')],
      [
        '2026-01-01T01:00:06.500Z',
        {
          type: 'evaluator_verdict',
          data: { ...base, iter: 1, schema_version: 1, verdict: 'reject', rejection_category: 'weak_test', concern: 'c', evidence: [] },
        },
      ],
      ['2026-01-01T01:00:07.000Z', { type: 'task_done', data: { ...base, summary: 'ok' } }],
      ['2026-01-01T01:00:08.000Z', { type: 'tool_call', data: { phase: 'interview', tool: 'glob', args: {} } }],
    ]);
    const t = s.tasks['T-001']!;
    expect(t.status).toBe('done');
    expect(t.failure_reason).toBeNull();
    expect(t.duration_ms).toBe(2_000 + 5_000);
    expect(t.iterations).toBe(1);
    expect(t.evaluator_calls).toBe(1);
    expect(t.cost_usd).toBeCloseTo(0.04);
    expect(s.verdicts).toEqual({ accepts: 0, rejects: 1, rejection_categories: { weak_test: 1 } });
    expect(s.roles.evaluator!.calls).toBe(1);
    expect(s.tool_calls).toEqual({});
    // The timeline: two attempts (failed, then done), the worker calls as iteration ticks, the verdict as a mark.
    expect(s.timeline.attempts.map((a) => [a[0], a[4]])).toEqual([
      ['T-001', 'failed'],
      ['T-001', 'done'],
    ]);
    expect(s.timeline.iterations.map((i) => i[3])).toEqual([1, 1]);
    expect(s.timeline.other_calls.map((c) => c[3])).toEqual(['evaluator']);
    expect(s.timeline.verdicts.map((v) => [v[2], v[3], v[4]])).toEqual([['T-001', 'reject', 'weak_test']]);
  });

  it('ignores events it has already folded', () => {
    const s = emptySummary('s1');
    const e = { seq: 1, ts: '2026-01-01T00:00:00.000Z', ...call(1, 0.5) } as TilthEvent;
    addToSummary(s, e);
    addToSummary(s, e);
    expect(s.roles.worker!.calls).toBe(1);
  });

  it("records each role's context window when calls first report it and when it changes, not on every call", () => {
    const withWindow = (iter: number, window: number | undefined, role: 'worker' | 'evaluator' = 'worker'): EventInput => {
      const input = call(iter, 0, role) as { type: 'model_call'; data: Record<string, unknown> };
      return { ...input, data: { ...input.data, ...(window === undefined ? {} : { context_window: window }) } } as EventInput;
    };
    const s = fold([
      ['2026-01-01T00:00:00.000Z', withWindow(1, undefined)],
      ['2026-01-01T00:00:01.000Z', withWindow(2, 32_768)],
      ['2026-01-01T00:00:02.000Z', withWindow(3, 32_768)],
      ['2026-01-01T00:00:03.000Z', withWindow(3, 128_000, 'evaluator')],
      ['2026-01-01T00:00:04.000Z', withWindow(4, 32_768)],
      ['2026-01-01T00:00:05.000Z', withWindow(5, 65_536)],
    ]);
    expect(s.timeline.windows).toEqual([
      [2, 'worker', 32_768],
      [4, 'evaluator', 128_000],
      [6, 'worker', 65_536],
    ]);
  });

  it('reads a summary written before windows were recorded', () => {
    const old = emptySummary('s1') as unknown as { timeline: Record<string, unknown> };
    delete old.timeline.windows;
    expect(SummarySchema.parse(old).timeline.windows).toEqual([]);
  });
});

describe('SummaryFileSchema (the cheap timeline check)', () => {
  const good = () => {
    const s = emptySummary('20260101-000000-abcdef');
    s.timeline.attempts.push(['T-001', 2, 1000, null, null]);
    s.timeline.iterations.push([3, 1100, 'T-001', 1, 900]);
    s.timeline.other_calls.push([4, 1200, null, 'evaluator', 300]);
    s.timeline.verdicts.push([5, 1300, 'T-001', 'reject', 'weak_test']);
    s.timeline.windows.push([3, 'worker', 128_000]);
    return s;
  };

  it('reads what SummarySchema reads, an older summary without windows included', () => {
    expect(SummaryFileSchema.parse(good())).toEqual(SummarySchema.parse(good()));
    const older = good() as unknown as { timeline: Record<string, unknown> };
    delete older.timeline.windows;
    expect(SummaryFileSchema.parse(older).timeline.windows).toEqual([]);
    expect(SummaryFileSchema.parse({ ...good(), timeline: undefined }).timeline.iterations).toEqual([]);
  });

  it.each([
    ['an iteration with a string seq', (s: Summary) => (s.timeline.iterations[0]![0] = '3' as unknown as number), 'timeline.iterations[0]'],
    ['a verdict that is neither', (s: Summary) => (s.timeline.verdicts[0]![3] = 'maybe' as 'accept'), 'timeline.verdicts[0]'],
    ['an attempt with a bad outcome', (s: Summary) => (s.timeline.attempts[0]![4] = 'won' as 'done'), 'timeline.attempts[0]'],
    ['a window of 0 tokens', (s: Summary) => (s.timeline.windows[0]![2] = 0), 'timeline.windows[0]'],
    [
      'a series that is not a list',
      (s: Summary) => ((s.timeline as unknown as Record<string, unknown>).other_calls = {}),
      'timeline.other_calls must be a list',
    ],
  ])('refuses %s, as SummarySchema does', (_what, damage, message) => {
    const s = good();
    damage(s);
    expect(SummarySchema.safeParse(s).success).toBe(false);
    const cheap = SummaryFileSchema.safeParse(s);
    expect(cheap.success).toBe(false);
    expect(cheap.error?.issues[0]?.message).toContain(message);
  });
});
