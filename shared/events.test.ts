import { describe, expect, it } from 'vitest';
import { boundCheckOutput, CHECK_OUTPUT_CAP, EVENT_TYPES, LOG_VERSION, TilthEventSchema, upgradeEvent } from './events.ts';

const ts = '2026-05-25T10:31:49.000Z';
const ids = { task_id: 'T-001', trace_id: 'a'.repeat(32), span_id: 'b'.repeat(16), iter: 3 };

describe('the event taxonomy', () => {
  it('keeps the Python edition names and adds this edition’s', () => {
    for (const name of [
      'session_start',
      'model_call',
      'tool_call',
      'tool_result',
      'pre_tool_block',
      'validator_run',
      'evaluator_verdict',
      'ledger_appended',
      'task_done',
      'task_failed',
      'commit',
      'stop',
      'question_asked',
      'question_answered',
      'seed_written',
      'seed_edited',
      'steering_note',
      'merge',
      'push',
    ]) {
      expect(EVENT_TYPES).toContain(name);
    }
  });

  it('parses a worker event and rejects one with a bad task id', () => {
    const good = {
      seq: 5,
      ts,
      type: 'evaluator_verdict',
      data: { ...ids, schema_version: 1, verdict: 'reject', rejection_category: 'weak_test', concern: 'c', evidence: ['e'], next_step: 'n' },
    };
    expect(TilthEventSchema.parse(good)).toEqual(good);
    expect(TilthEventSchema.safeParse({ ...good, data: { ...good.data, task_id: 'task-1' } }).success).toBe(false);
    expect(TilthEventSchema.safeParse({ ...good, data: { ...good.data, rejection_category: 'vibes' } }).success).toBe(false);
  });

  it('rejects unknown types, a zero seq and a bad timestamp', () => {
    expect(TilthEventSchema.safeParse({ seq: 1, ts, type: 'mystery', data: {} }).success).toBe(false);
    expect(TilthEventSchema.safeParse({ seq: 0, ts, type: 'stop', data: { reason: 'all_done' } }).success).toBe(false);
    expect(TilthEventSchema.safeParse({ seq: 1, ts: 'yesterday', type: 'stop', data: { reason: 'all_done' } }).success).toBe(false);
  });

  it('carries check output so the UI can show it', () => {
    const event = {
      seq: 2,
      ts,
      type: 'validator_run',
      data: { ...ids, passed: false, results: [{ name: 'acceptance', passed: false, exit_code: 1, output: 'AssertionError: 2 != 3' }] },
    };
    expect(TilthEventSchema.parse(event)).toEqual(event);
  });

  it('refuses to upgrade a log from a newer version', () => {
    expect(upgradeEvent({ a: 1 }, LOG_VERSION)).toEqual({ a: 1 });
    expect(() => upgradeEvent({}, LOG_VERSION + 1)).toThrow(/newer/);
  });
});

describe('boundCheckOutput', () => {
  it('bounds long output, keeping its start and end', () => {
    const long = `${'a'.repeat(CHECK_OUTPUT_CAP)}${'b'.repeat(500)}END`;
    const b = boundCheckOutput(long);
    expect(b.output_chars).toBe(long.length);
    expect(b.output.length).toBeLessThan(CHECK_OUTPUT_CAP + 100);
    expect(b.output.startsWith('aaa')).toBe(true);
    expect(b.output.endsWith('END')).toBe(true);
  });
});
