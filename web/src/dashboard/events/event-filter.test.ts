import { describe, expect, it } from 'vitest';
import type { TilthEvent } from '../../../../shared/events.ts';
import { eventKind, isDialogue, isProblem } from '../../../../shared/event-text.ts';
import { DEFAULT_FILTER, eventMatcher, refilter, type EventFilter } from './event-filter.ts';
import { RunLog, twoTaskRun } from '../test-run.ts';

const types = (events: readonly TilthEvent[]) => events.map((e) => e.type);

describe('presets', () => {
  const events = twoTaskRun().events;

  it('worker ↔ evaluator keeps the cases, checks, evaluator calls, verdicts and task boundaries', () => {
    const picked = events.filter(isDialogue);
    expect(picked.every((e) => e.type !== 'tool_call' || e.data.tool === 'submit_case')).toBe(true);
    expect(types(picked)).toContain('evaluator_verdict');
    expect(types(picked)).toContain('validator_run');
    expect(picked.filter((e) => e.type === 'model_call').every((e) => e.type === 'model_call' && e.data.role === 'evaluator')).toBe(true);
    expect(picked.some((e) => e.type === 'tool_call' && e.data.tool === 'write_file')).toBe(false);
  });

  it('problems only keeps rejects, failed checks, blocks and stops that are not the end of the work', () => {
    const log = new RunLog()
      .start()
      .task('T-001')
      .checks('T-001', 1, false)
      .verdict('T-001', 1, 'reject', 'weak_test')
      .failed('T-001', 'iter_cap')
      .stop('iter_cap');
    log.add({
      type: 'pre_tool_block',
      data: { task_id: 'T-001', trace_id: 'a'.repeat(32), span_id: 'b'.repeat(16), iter: 1, tool: 'bash', result_preview: 'blocked', result_chars: 7 },
    });
    expect(types(log.events.filter(isProblem))).toEqual(['validator_run', 'evaluator_verdict', 'task_failed', 'stop', 'pre_tool_block']);
    log.add({
      type: 'model_retry',
      data: { task_id: 'T-001', iter: 2, role: 'worker', model: 'm', attempt: 1, max_attempts: 6, wait_ms: 8000, reason: 'HTTP 429: slow down', status: 429 },
    });
    log.add({ type: 'provider_notice', data: { role: 'worker', model: 'm', kind: 'usage_missing', message: 'no usage' } });
    expect(types(log.events.filter(isProblem)).slice(-2)).toEqual(['model_retry', 'provider_notice']);
    expect(eventKind(log.events.at(-1)!)).toBe('model');
    expect(
      twoTaskRun()
        .events.filter(isProblem)
        .map((e) => e.type),
    ).toEqual(['evaluator_verdict']);
  });
});

describe('eventMatcher', () => {
  const events = twoTaskRun().events;
  const filter = (f: Partial<EventFilter>) => events.filter(eventMatcher({ ...DEFAULT_FILTER, ...f }));

  it('hides switched-off kinds', () => {
    const shown = filter({ hiddenKinds: new Set(['tools', 'model']) });
    expect(shown.some((e) => eventKind(e) === 'tools' || eventKind(e) === 'model')).toBe(false);
    expect(shown.length).toBeGreaterThan(0);
  });

  it('searches every word, case-insensitively, in everything an event says', () => {
    expect(types(filter({ search: 'NODE --test' }))).toEqual(['tool_call']);
    expect(filter({ search: 'expected got' })).toEqual([]);
    expect(types(filter({ search: 'handle the empty' }))).toEqual(['evaluator_verdict']);
    expect(filter({ search: `#${events[3]!.seq}` })[0]).toBe(events[3]);
  });

  it('combines preset, kinds and search', () => {
    expect(types(filter({ preset: 'dialogue', search: 'T-002', hiddenKinds: new Set(['checks']) }))).toEqual([
      'context_reset',
      'model_call',
      'evaluator_verdict',
      'task_done',
    ]);
  });
});

describe('refilter', () => {
  const all = twoTaskRun().events;
  const filter: EventFilter = { ...DEFAULT_FILTER, preset: 'dialogue' };
  const full = (events: readonly TilthEvent[]) => events.filter(eventMatcher(filter));

  it('tests only appended or prepended events and gives the same rows as filtering everything', () => {
    let memo = refilter(null, all.slice(10, 20), filter);
    expect(memo.rows).toEqual(full(all.slice(10, 20)));
    const appended = all.slice(10, 30);
    memo = refilter(memo, appended, filter);
    expect(memo.rows).toEqual(full(appended));
    const prepended = all.slice(0, 30);
    memo = refilter(memo, prepended, filter);
    expect(memo.rows).toEqual(full(prepended));
  });

  it('returns the same rows when nothing new matched, and refilters after a trim', () => {
    const events = all.slice(0, 5);
    const memo = refilter(null, events, filter);
    expect(refilter(memo, events, filter)).toBe(memo);
    // write_file's call and result, then a worker call: nothing for worker ↔ evaluator.
    const grown = all.slice(0, 6);
    expect(grown.slice(5).some(eventMatcher(filter))).toBe(false);
    expect(refilter(memo, grown, filter).rows).toBe(memo.rows);
    const trimmed = all.slice(3, 12);
    expect(refilter(memo, trimmed, filter).rows).toEqual(full(trimmed));
  });

  it('shows the events themselves when nothing filters', () => {
    const events = all.slice(0, 7);
    expect(refilter(null, events, DEFAULT_FILTER).rows).toBe(events);
  });
});
