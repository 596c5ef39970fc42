import { useEffect, useRef, useState, type RefObject } from 'react';
import type { MergeResult, MergeStrategy } from '../../../shared/review.ts';
import { mergeGate, type MergeGate } from './merge-gate.ts';
import { shortSha } from './review-format.ts';
import type { ActionError, ReviewActions } from './use-review-actions.ts';
import { ModalDialog } from '../components/modal-dialog.tsx';
import { CopyButton } from '../components/copy-button.tsx';
import { MergePreviewRun, MergePreviewView, MergeStrategies } from './merge-preview.tsx';

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
  const endRef = useScrollToRefusal(error);

  const choose = (next: MergeStrategy) => {
    setStrategy(next);
    setOverride(false);
    preview.reset();
    merge.reset();
  };

  return (
    <ModalDialog open={open} title={`Merge ${branch} into ${into}`} onClose={onClose} busy={busy} testId="merge-dialog">
      {result !== null ? (
        <MergeDone result={result} onClose={onClose} />
      ) : (
        <>
          <MergeStrategies strategy={strategy} busy={busy} onChoose={choose} />
          <MergePreviewRun
            again={shown !== null}
            busy={busy}
            running={preview.pending}
            onRun={() => {
              merge.reset();
              preview.run(strategy);
            }}
          />
          {shown !== null && <MergePreviewView preview={shown} needsOverride={gate.needsOverride} override={override} onOverride={setOverride} busy={busy} />}

          {error !== null && (
            <div className="callout callout-error merge-error" role="alert" data-testid="merge-error" data-code={error.code}>
              {error.message}
            </div>
          )}

          <MergeConfirm
            endRef={endRef}
            into={into}
            gate={gate}
            busy={busy}
            merging={merge.pending}
            onMerge={() => merge.run({ strategy, override: gate.needsOverride && override })}
            onCancel={onClose}
          />
        </>
      )}
    </ModalDialog>
  );
}

/** A refusal lands below the test output: scroll to the end, where it sits above the buttons. */
function useScrollToRefusal(error: ActionError | null): RefObject<HTMLDivElement | null> {
  const endRef = useRef<HTMLDivElement>(null);
  // A different refusal, not the same one's object rebuilt, is what scrolls.
  const refusal = error === null ? null : `${error.code}\n${error.message}`;
  useEffect(() => {
    if (refusal !== null) endRef.current?.scrollIntoView({ block: 'nearest' });
  }, [refusal]);
  return endRef;
}

/** The last step: Merge, red when it goes past what the preview found wrong; why it is disabled beside it. */
function MergeConfirm(props: {
  endRef: RefObject<HTMLDivElement | null>;
  into: string;
  gate: MergeGate;
  busy: boolean;
  merging: boolean;
  onMerge: () => void;
  onCancel: () => void;
}) {
  const { gate, busy } = props;
  return (
    <div className="actions modal-actions" ref={props.endRef}>
      <button
        type="button"
        className={gate.needsOverride ? 'button button-danger' : 'button'}
        data-testid="merge-confirm"
        disabled={!gate.canMerge}
        title={gate.reason ?? undefined}
        onClick={props.onMerge}
      >
        {props.merging ? 'Merging…' : `Merge into ${props.into}`}
      </button>
      <button type="button" className="button button-plain" onClick={props.onCancel} disabled={busy}>
        Cancel
      </button>
      {gate.reason !== null && !busy && <span className="muted small">{gate.reason}</span>}
    </div>
  );
}

/** The merge is done: where it went, the backup of the old base, and how to undo it. */
function MergeDone({ result, onClose }: { result: MergeResult; onClose: () => void }) {
  return (
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
  );
}
