import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { resumePlanQuery } from '../state/queries.ts';

/**
 * What Resume will do, asked of the server first (GET …/resume-plan), then one button to do it.
 * Nothing starts until the user has read the plan and confirmed.
 */
export function ResumeConfirm(props: { sessionId: string; resuming: boolean; onConfirm: () => void; onCancel: () => void }) {
  const plan = useQuery(resumePlanQuery(props.sessionId));
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const p = plan.data;
  return (
    <section className="panel resume-confirm" role="dialog" aria-labelledby="resume-title" data-testid="resume-confirm">
      <h2 id="resume-title" ref={heading} tabIndex={-1}>
        Resume this run?
      </h2>
      {plan.isPending && <p className="muted">Working out what Resume would do…</p>}
      {plan.isError && (
        <p className="field-error" role="alert" data-testid="resume-plan-error">
          {plan.error.message}
        </p>
      )}
      {p !== undefined && (
        <>
          <p data-testid="resume-plan">{p.plan}</p>
          <ul className="resume-steps">
            {p.retried.length > 0 && <li>Retry {p.retried.join(', ')} with a fresh budget (iterations and evaluator calls start again).</li>}
            {p.pending.length > 0 && <li>Then work on {p.pending.join(', ')}, in order.</li>}
            {p.repaired.length > 0 && <li>Mark {p.repaired.join(', ')} done: committed before the stop.</li>}
            {p.unwind && <li>Fold back the placeholder commit the failed task left.</li>}
            {p.worktree_missing && <li>Re-create the worktree from the session branch (it is missing).</li>}
            <li>Spend so far is kept: the dollar and token caps count the whole session; the wall clock starts again.</li>
          </ul>
        </>
      )}
      <div className="actions">
        <button type="button" className="button" data-testid="resume-confirm-button" disabled={p === undefined || props.resuming} onClick={props.onConfirm}>
          {props.resuming ? 'Resuming…' : 'Resume now'}
        </button>
        <button type="button" className="button button-secondary" data-testid="resume-cancel" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </section>
  );
}
