import { useEffect, useRef, useState } from 'react';
import type { MergeStrategy } from '../../../shared/review.ts';
import { mergeGate, STRATEGIES } from './merge-gate.ts';
import { shortSha } from './review-format.ts';
import type { ReviewActions } from './use-review-actions.ts';
import { CheckResultView } from './check-attempts.tsx';
import { ModalDialog } from '../components/modal-dialog.tsx';
import { CopyButton } from '../components/copy-button.tsx';
import { CriteriaProblems, MutationSurvivors } from './criteria-problems.tsx';

export interface MergeDialogProps {
  open: boolean;
  onClose: () => void;
  into: string;
  branch: string;
  preview: ReviewActions['preview'];
  merge: ReviewActions['merge'];
}

/**
 * Merge in three steps: choose a strategy; build and test it (the server merges in a scratch
 * worktree and runs the done tasks' acceptance tests there); then merge — with an explicit
 * "merge anyway" when those tests failed. Refusals (a dirty checkout, a conflict, …) are shown
 * here as the server words them.
 */
export function MergeDialog({ open, onClose, into, branch, preview, merge }: MergeDialogProps) {
  const [strategy, setStrategy] = useState<MergeStrategy>('merge');
  const [override, setOverride] = useState(false);
  const busy = preview.pending || merge.pending;
  const shown = preview.data !== null && preview.data.strategy === strategy ? preview.data : null;
  const gate = mergeGate({ strategy, preview: shown, override, busy });
  const result = merge.data;
  const error = merge.error ?? preview.error;
  // A refusal lands below the test output: scroll to the end, where it sits above the buttons.
  const endRef = useRef<HTMLDivElement>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: scroll when a different refusal arrives, not each time the same one's object is rebuilt
  useEffect(() => {
    if (error !== null) endRef.current?.scrollIntoView({ block: 'nearest' });
  }, [error?.code, error?.message]);

  const choose = (next: MergeStrategy) => {
    setStrategy(next);
    setOverride(false);
    preview.reset();
    merge.reset();
  };

  return (
    <ModalDialog open={open} title={`Merge ${branch} into ${into}`} onClose={onClose} busy={busy} testId="merge-dialog">
      {result !== null ? (
        <div className="merge-result" data-testid="merge-result" role="status">
          <p className="merge-done">
            ✓ Merged into <strong>{result.into}</strong> at <code data-testid="merge-result-sha">{shortSha(result.sha)}</code>.
          </p>
          <dl className="merge-facts">
            <dt>Commit</dt>
            <dd className="mono">{result.sha}</dd>
            <dt>Backup of the old {result.into}</dt>
            <dd className="mono" data-testid="merge-result-backup">
              {result.backup_ref}
            </dd>
            <dt>Undo with</dt>
            <dd>
              <code className="copyable" data-testid="merge-result-undo">
                {result.undo}
              </code>
              <CopyButton text={result.undo} label="Copy the undo command" testId="merge-result-undo-copy" />
            </dd>
          </dl>
          {!result.passed && <p className="warning-text">Merged with failing acceptance tests, as you chose.</p>}
          <div className="actions modal-actions">
            {/* biome-ignore lint/a11y/noAutofocus: the merge just finished inside this dialog; focus moves from the vanished merge button to its one way out */}
            <button type="button" className="button" data-testid="merge-close" onClick={onClose} autoFocus>
              Done
            </button>
          </div>
        </div>
      ) : (
        <>
          <fieldset className="merge-strategies" disabled={busy}>
            <legend className="field-label">Strategy</legend>
            {STRATEGIES.map((s) => (
              <label key={s.value} className={`option ${strategy === s.value ? 'option-selected' : ''}`}>
                <input
                  type="radio"
                  name="merge-strategy"
                  value={s.value}
                  checked={strategy === s.value}
                  onChange={() => choose(s.value)}
                  data-testid={`merge-strategy-${s.value}`}
                />
                <span>
                  <strong>{s.label}</strong>
                  <span className="muted small option-hint">{s.hint}</span>
                </span>
              </label>
            ))}
          </fieldset>

          <div className="merge-step">
            <button
              type="button"
              className="button button-secondary"
              data-testid="merge-preview-run"
              disabled={busy}
              onClick={() => {
                merge.reset();
                preview.run(strategy);
              }}
            >
              {shown === null ? 'Build and test the merge' : 'Build and test again'}
            </button>
            {preview.pending && <Progress />}
          </div>

          {shown !== null && (
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
              {gate.needsOverride && (
                <label className="merge-override">
                  <input type="checkbox" checked={override} onChange={(e) => setOverride(e.target.checked)} data-testid="merge-override" disabled={busy} />
                  <span>Merge anyway: I have read why {shown.passed ? 'the evidence falls short' : 'the tests fail'}.</span>
                </label>
              )}
            </div>
          )}

          {error !== null && (
            <div className="callout callout-error merge-error" role="alert" data-testid="merge-error" data-code={error.code}>
              {error.message}
            </div>
          )}

          <div className="actions modal-actions" ref={endRef}>
            <button
              type="button"
              className={gate.needsOverride ? 'button button-danger' : 'button'}
              data-testid="merge-confirm"
              disabled={!gate.canMerge}
              title={gate.reason ?? undefined}
              onClick={() => merge.run({ strategy, override: gate.needsOverride && override })}
            >
              {merge.pending ? 'Merging…' : `Merge into ${into}`}
            </button>
            <button type="button" className="button button-plain" onClick={onClose} disabled={busy}>
              Cancel
            </button>
            {gate.reason !== null && !busy && <span className="muted small">{gate.reason}</span>}
          </div>
        </>
      )}
    </ModalDialog>
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
