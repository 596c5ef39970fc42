import { describe, expect, it } from 'vitest';
import type { MergePreview } from '../../../shared/review.ts';
import { mergeGate } from './merge-gate.ts';

const preview = (passed: boolean, strategy: MergePreview['strategy'] = 'merge'): MergePreview => ({
  strategy,
  into: 'main',
  base_sha: 'a'.repeat(40),
  head_sha: 'b'.repeat(40),
  tests: [{ name: 'tests/t001_double.test.js', passed }],
  passed,
  criteria_problems: [],
  survivors: [],
  mutation_gate: false,
});

describe('mergeGate', () => {
  it('wants a preview of the chosen strategy before anything', () => {
    expect(mergeGate({ strategy: 'merge', preview: null, override: false, busy: false })).toMatchObject({ canMerge: false, needsOverride: false });
    expect(mergeGate({ strategy: 'squash', preview: preview(true, 'merge'), override: false, busy: false }).canMerge).toBe(false);
  });

  it('allows the merge when the tests pass on the merge result', () => {
    expect(mergeGate({ strategy: 'merge', preview: preview(true), override: false, busy: false })).toEqual({
      canMerge: true,
      needsOverride: false,
      reason: null,
    });
  });

  it('asks for the explicit override when the tests fail, and allows it once ticked', () => {
    const without = mergeGate({ strategy: 'merge', preview: preview(false), override: false, busy: false });
    expect(without).toMatchObject({ canMerge: false, needsOverride: true });
    expect(without.reason).toMatch(/merge anyway/);
    expect(mergeGate({ strategy: 'merge', preview: preview(false), override: true, busy: false })).toMatchObject({ canMerge: true, needsOverride: true });
  });

  it('asks for the override when a criterion is unproven, even with the tests passing', () => {
    const unproven: MergePreview = {
      ...preview(true),
      criteria_problems: [{ task_id: 'T-001', criterion: 'double(2) is 4', problem: 'not_red', detail: 'its tests passed before any work' }],
    };
    const without = mergeGate({ strategy: 'merge', preview: unproven, override: false, busy: false });
    expect(without).toMatchObject({ canMerge: false, needsOverride: true });
    expect(without.reason).toBe('1 acceptance criterion is not backed by evidence; tick "merge anyway" to merge regardless.');
    expect(mergeGate({ strategy: 'merge', preview: unproven, override: true, busy: false }).canMerge).toBe(true);
  });

  it('asks for the override for surviving mutants only when the mutation gate is on', () => {
    const survived: MergePreview = { ...preview(true), survivors: [{ task_id: 'T-001', file: 'src/double.js', line: 2, description: 'returns 0' }] };
    expect(mergeGate({ strategy: 'merge', preview: survived, override: false, busy: false })).toMatchObject({ canMerge: true, needsOverride: false });
    const gated = mergeGate({ strategy: 'merge', preview: { ...survived, mutation_gate: true }, override: false, busy: false });
    expect(gated).toMatchObject({ canMerge: false, needsOverride: true });
    expect(gated.reason).toBe('The mutation gate is on and 1 mutant went unnoticed by the tests; tick "merge anyway" to merge regardless.');
    expect(mergeGate({ strategy: 'merge', preview: { ...survived, mutation_gate: true }, override: true, busy: false }).canMerge).toBe(true);
  });

  it('never allows a second click while a request is in flight', () => {
    expect(mergeGate({ strategy: 'merge', preview: preview(true), override: false, busy: true }).canMerge).toBe(false);
  });
});
