import { useEffect, useState } from 'react';
import type { MergePreview, MergeStrategy } from '../../../shared/review.ts';
import { STRATEGIES } from './merge-gate.ts';
import { shortSha } from './review-format.ts';
import { CheckResultView } from './check-attempts.tsx';
import { CriteriaProblems, MutationSurvivors } from './criteria-problems.tsx';

/** The merge dialog's first step: how the session branch goes into the base. */
export function MergeStrategies({ strategy, busy, onChoose }: { strategy: MergeStrategy; busy: boolean; onChoose: (strategy: MergeStrategy) => void }) {
  return (
    <fieldset className="merge-strategies" disabled={busy}>
      <legend className="field-label">Strategy</legend>
      {STRATEGIES.map((s) => (
        <label key={s.value} className={`option ${strategy === s.value ? 'option-selected' : ''}`}>
          <input
            type="radio"
            name="merge-strategy"
            value={s.value}
            checked={strategy === s.value}
            onChange={() => onChoose(s.value)}
            data-testid={`merge-strategy-${s.value}`}
          />
          <span>
            <strong>{s.label}</strong>
            <span className="muted small option-hint">{s.hint}</span>
          </span>
        </label>
      ))}
    </fieldset>
  );
}

/** The second step: build and test the merge, again after a preview; the time it takes while it runs. */
export function MergePreviewRun(props: { again: boolean; busy: boolean; running: boolean; onRun: () => void }) {
  return (
    <div className="merge-step">
      <button type="button" className="button button-secondary" data-testid="merge-preview-run" disabled={props.busy} onClick={props.onRun}>
        {props.again ? 'Build and test again' : 'Build and test the merge'}
      </button>
      {props.running && <Progress />}
    </div>
  );
}

/**
 * What building and testing the merge found: the done tasks' tests on it, the criteria short of
 * evidence, the surviving mutants; and the "merge anyway" override when any of them holds the merge.
 */
export function MergePreviewView(props: {
  preview: MergePreview;
  needsOverride: boolean;
  override: boolean;
  onOverride: (override: boolean) => void;
  busy: boolean;
}) {
  const shown = props.preview;
  return (
    <div className="merge-preview" data-testid="merge-preview" data-passed={shown.passed}>
      <p className={shown.passed ? 'merge-preview-pass' : 'merge-preview-fail'} role="status">
        {shown.tests.length === 0
          ? `The merge builds cleanly on ${shown.into} (${shortSha(shown.base_sha)}); no task is done, so there are no acceptance tests to run.`
          : shown.passed
            ? `The merge builds cleanly on ${shown.into} (${shortSha(shown.base_sha)}), and the done tasks' acceptance tests pass on it.`
            : `The merge builds on ${shown.into} (${shortSha(shown.base_sha)}), but the done tasks' acceptance tests fail on it: read why below.`}
      </p>
      <div className="merge-tests">
        {shown.tests.map((t, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: one preview's test results, fixed once loaded; two checks can share a name
          <CheckResultView key={`${t.name}-${i}`} result={t} testId="merge-test" />
        ))}
      </div>
      <CriteriaProblems problems={shown.criteria_problems} />
      <MutationSurvivors survivors={shown.survivors} gated={shown.mutation_gate} />
      {props.needsOverride && (
        <label className="merge-override">
          <input
            type="checkbox"
            checked={props.override}
            onChange={(e) => props.onOverride(e.target.checked)}
            data-testid="merge-override"
            disabled={props.busy}
          />
          <span>Merge anyway: I have read why {shown.passed ? 'the evidence falls short' : 'the tests fail'}.</span>
        </label>
      )}
    </div>
  );
}

/** A merge preview runs the acceptance tests: seconds, sometimes more. Say so and count. */
function Progress() {
  const [seconds, setSeconds] = useState(0);
  useEffect(() => {
    const started = Date.now();
    const timer = setInterval(() => setSeconds(Math.floor((Date.now() - started) / 1000)), 500);
    return () => clearInterval(timer);
  }, []);
  return (
    <span className="merge-progress" role="status" data-testid="merge-preview-progress">
      <span className="spinner" aria-hidden="true" />
      Building the merge in a scratch worktree and running the acceptance tests… {seconds > 0 && `${seconds} s`}
    </span>
  );
}
