import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { PrdEntry } from '../../../shared/files.ts';
import { ModalDialog } from '../components/modal-dialog.tsx';
import { paths } from '../paths.ts';
import { Link } from '../router.tsx';
import { rewindPlanQuery } from './queries.ts';
import { shortSha } from './review-format.ts';
import type { ReviewActions } from './use-review-actions.ts';

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
      ) : (
        <>
          <fieldset className="merge-strategies" disabled={busy}>
            <legend className="field-label">Go back to</legend>
            {[
              { value: 'seed', label: 'After the seed', hint: 'Every task is done again.' },
              ...done.map((t) => ({ value: t.id, label: `After ${t.id}`, hint: t.title })),
            ].map((o) => (
              <label key={o.value} className={`option ${after === o.value ? 'option-selected' : ''}`}>
                <input
                  type="radio"
                  name="rewind-after"
                  value={o.value}
                  checked={after === o.value}
                  onChange={() => {
                    setAfter(o.value);
                    rewind.reset();
                  }}
                  data-testid={`rewind-after-${o.value}`}
                />
                <span>
                  <strong>{o.label}</strong>
                  <span className="muted small option-hint">{o.hint}</span>
                </span>
              </label>
            ))}
          </fieldset>

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
          {p !== undefined && (
            <div className="rewind-plan" data-testid="rewind-plan" data-nothing={p.nothing_to_do}>
              {p.nothing_to_do ? (
                <p>
                  The branch is already at <code>{shortSha(p.target.sha)}</code> {p.target.subject}, and nothing after it would be reset: there is nothing to
                  rewind.
                </p>
              ) : (
                <dl className="merge-facts">
                  <dt>Moves the branch to</dt>
                  <dd data-testid="rewind-target">
                    <code>{shortSha(p.target.sha)}</code> {p.target.subject}
                  </dd>
                  <dt>Leaving the branch</dt>
                  <dd>
                    {p.leaving.length === 0 ? (
                      'no commit'
                    ) : (
                      <ul className="rewind-list" data-testid="rewind-leaving">
                        {p.leaving.map((c) => (
                          <li key={c.sha}>
                            <code>{shortSha(c.sha)}</code> {c.subject}
                          </li>
                        ))}
                      </ul>
                    )}
                  </dd>
                  {p.replayed.length > 0 && (
                    <>
                      <dt>Put back on top</dt>
                      <dd data-testid="rewind-replayed">
                        {p.replayed.map((c) => c.subject).join(', ')} (the tests of tasks added after the run; the tasks stay, pending)
                      </dd>
                    </>
                  )}
                  <dt>Back to pending</dt>
                  <dd data-testid="rewind-tasks">{p.tasks.length === 0 ? 'none' : p.tasks.join(', ')}</dd>
                  {p.archived.length > 0 && (
                    <>
                      <dt>Kept as earlier attempts</dt>
                      <dd className="mono small">{p.archived.join(', ')}</dd>
                    </>
                  )}
                  {p.uncommitted.length > 0 && (
                    <>
                      <dt>Uncommitted changes discarded</dt>
                      <dd className="mono small">{p.uncommitted.join(', ')}</dd>
                    </>
                  )}
                  <dt>Old tip kept as</dt>
                  <dd className="mono" data-testid="rewind-backup">
                    {p.backup_ref}
                  </dd>
                </dl>
              )}
            </div>
          )}

          {rewind.error !== null && (
            <div className="callout callout-error merge-error" role="alert" data-testid="rewind-error" data-code={rewind.error.code}>
              {rewind.error.message}
            </div>
          )}

          <div className="actions modal-actions">
            <button
              type="button"
              className="button button-danger"
              data-testid="rewind-confirm"
              disabled={busy || after === null || p === undefined || p.nothing_to_do}
              onClick={() => {
                if (after !== null) rewind.run(after);
              }}
            >
              {busy ? 'Rewinding…' : 'Rewind'}
            </button>
            <button type="button" className="button button-plain" data-testid="rewind-cancel" onClick={onClose} disabled={busy}>
              Cancel
            </button>
          </div>
        </>
      )}
    </ModalDialog>
  );
}
