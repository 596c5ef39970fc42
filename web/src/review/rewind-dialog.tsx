import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { PrdEntry } from '../../../shared/files.ts';
import type { RewindResult } from '../../../shared/review.ts';
import { ModalDialog } from '../components/modal-dialog.tsx';
import { paths } from '../paths.ts';
import { Link } from '../router.tsx';
import { rewindPlanQuery } from './queries.ts';
import { shortSha } from './review-format.ts';
import type { ReviewActions } from './use-review-actions.ts';
import { RewindPlanView, RewindTargets } from './rewind-plan.tsx';

export interface RewindDialogProps {
  open: boolean;
  onClose: () => void;
  sessionId: string;
  tasks: readonly PrdEntry[];
  rewind: ReviewActions['rewind'];
}

/**
 * Rewind in two steps, like Resume: choose where to go back to (after the seed, or after a done
 * task), read what the server says that will do (GET …/rewind-plan), then confirm. Nothing is
 * chosen at first: every choice undoes work, and "after the seed", the first in the list, undoes
 * all of it. The session ends stopped; the session page resumes it.
 */
export function RewindDialog({ open, onClose, sessionId, tasks, rewind }: RewindDialogProps) {
  const done = tasks.filter((t) => t.status === 'done');
  const [after, setAfter] = useState<string | null>(null);
  const plan = useQuery({ ...rewindPlanQuery(sessionId, after ?? 'seed'), enabled: open && after !== null && rewind.data === null });
  const p = plan.data;
  const result = rewind.data;
  const busy = rewind.pending;

  return (
    <ModalDialog open={open} title="Rewind the session branch" onClose={onClose} busy={busy} testId="rewind-dialog">
      {result !== null ? (
        <RewindDone result={result} sessionId={sessionId} onClose={onClose} />
      ) : (
        <>
          <RewindTargets
            done={done}
            after={after}
            busy={busy}
            onChoose={(value) => {
              setAfter(value);
              rewind.reset();
            }}
          />

          {after === null && (
            <p className="muted" data-testid="rewind-choose">
              Choose where to go back to: what the rewind would do shows here before anything changes.
            </p>
          )}
          {after !== null && plan.isPending && <p className="muted">Working out what the rewind would do…</p>}
          {plan.isError && (
            <p className="field-error" role="alert" data-testid="rewind-plan-error">
              {plan.error.message}
            </p>
          )}
          {p !== undefined && <RewindPlanView plan={p} />}

          {rewind.error !== null && (
            <div className="callout callout-error merge-error" role="alert" data-testid="rewind-error" data-code={rewind.error.code}>
              {rewind.error.message}
            </div>
          )}

          <RewindConfirm
            busy={busy}
            ready={after !== null && p !== undefined && !p.nothing_to_do}
            onRewind={() => {
              if (after !== null) rewind.run(after);
            }}
            onCancel={onClose}
          />
        </>
      )}
    </ModalDialog>
  );
}

/** Rewind, once a plan with something to undo is shown; neither button while one runs. */
function RewindConfirm(props: { busy: boolean; ready: boolean; onRewind: () => void; onCancel: () => void }) {
  return (
    <div className="actions modal-actions">
      <button type="button" className="button button-danger" data-testid="rewind-confirm" disabled={props.busy || !props.ready} onClick={props.onRewind}>
        {props.busy ? 'Rewinding…' : 'Rewind'}
      </button>
      <button type="button" className="button button-plain" data-testid="rewind-cancel" onClick={props.onCancel} disabled={props.busy}>
        Cancel
      </button>
    </div>
  );
}

/** The rewind is done and the session stopped: what is pending again, the backup of the old tip, and the way to resume. */
function RewindDone({ result, sessionId, onClose }: { result: RewindResult; sessionId: string; onClose: () => void }) {
  return (
    <div className="merge-result" data-testid="rewind-result" role="status">
      <p className="merge-done">
        ✓ Rewound to after {result.after === 'seed' ? 'the seed' : result.after} (<code>{shortSha(result.to_sha)}</code>). The session is stopped.
      </p>
      <p>
        {result.tasks.length > 0 ? <>Pending again: {result.tasks.join(', ')}. </> : null}
        The old tip is kept as <code>{result.backup_ref}</code>.
      </p>
      <div className="actions modal-actions">
        <Link to={paths.session(sessionId)} className="button" testId="rewind-resume-link">
          Go to the session to resume
        </Link>
        <button type="button" className="button button-plain" data-testid="rewind-close" onClick={onClose}>
          Done
        </button>
      </div>
    </div>
  );
}
