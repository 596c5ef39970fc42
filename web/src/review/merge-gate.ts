/**
 * When the merge dialog's Merge button may be pressed: after a preview of the chosen strategy,
 * and — when that preview's tests failed, a done task has a criterion whose evidence falls short,
 * or the mutation gate is on and a mutant survived — only with the explicit "merge anyway" override.
 */
import type { MergePreview, MergeStrategy } from '../../../shared/review.ts';

export interface MergeGate {
  canMerge: boolean;
  /** The tests failed on the merge result, or a criterion is unproven: the override checkbox is shown. */
  needsOverride: boolean;
  /** Why Merge is disabled, in words; null when it is not. */
  reason: string | null;
}

export function mergeGate(input: { strategy: MergeStrategy; preview: MergePreview | null; override: boolean; busy: boolean }): MergeGate {
  const { strategy, preview, override, busy } = input;
  if (preview === null || preview.strategy !== strategy) {
    return { canMerge: false, needsOverride: false, reason: 'Build and test the merge first.' };
  }
  const unproven = preview.criteria_problems.length;
  const gated = preview.mutation_gate ? preview.survivors.length : 0;
  const needsOverride = !preview.passed || unproven > 0 || gated > 0;
  if (busy) return { canMerge: false, needsOverride, reason: 'Working…' };
  if (needsOverride && !override) {
    const why = !preview.passed
      ? 'The acceptance tests fail on the merge result'
      : unproven > 0
        ? `${unproven} acceptance ${unproven === 1 ? 'criterion is' : 'criteria are'} not backed by evidence`
        : `The mutation gate is on and ${gated} ${gated === 1 ? 'mutant' : 'mutants'} went unnoticed by the tests`;
    return { canMerge: false, needsOverride, reason: `${why}; tick "merge anyway" to merge regardless.` };
  }
  return { canMerge: true, needsOverride, reason: null };
}

export const STRATEGIES: { value: MergeStrategy; label: string; hint: string }[] = [
  { value: 'merge', label: 'Merge commit', hint: 'Keeps every task commit and adds a merge commit on top.' },
  { value: 'squash', label: 'Squash', hint: 'One commit holding the whole session, listing its tasks.' },
  { value: 'ff', label: 'Fast-forward', hint: 'Moves the base branch to the session branch; only when the base has not moved.' },
];
