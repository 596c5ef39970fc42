import type { PrdEntry } from '../../../shared/files.ts';
import type { RewindPlan } from '../../../shared/review.ts';
import { shortSha } from './review-format.ts';

/** Where a rewind may go back to: after the seed, first, or after any done task. */
export function RewindTargets(props: { done: readonly PrdEntry[]; after: string | null; busy: boolean; onChoose: (after: string) => void }) {
  return (
    <fieldset className="merge-strategies" disabled={props.busy}>
      <legend className="field-label">Go back to</legend>
      {[
        { value: 'seed', label: 'After the seed', hint: 'Every task is done again.' },
        ...props.done.map((t) => ({ value: t.id, label: `After ${t.id}`, hint: t.title })),
      ].map((o) => (
        <label key={o.value} className={`option ${props.after === o.value ? 'option-selected' : ''}`}>
          <input
            type="radio"
            name="rewind-after"
            value={o.value}
            checked={props.after === o.value}
            onChange={() => props.onChoose(o.value)}
            data-testid={`rewind-after-${o.value}`}
          />
          <span>
            <strong>{o.label}</strong>
            <span className="muted small option-hint">{o.hint}</span>
          </span>
        </label>
      ))}
    </fieldset>
  );
}

/** What the server says the chosen rewind will do, before anything changes; or that there is nothing to rewind. */
export function RewindPlanView({ plan: p }: { plan: RewindPlan }) {
  return (
    <div className="rewind-plan" data-testid="rewind-plan" data-nothing={p.nothing_to_do}>
      {p.nothing_to_do ? (
        <p>
          The branch is already at <code>{shortSha(p.target.sha)}</code> {p.target.subject}, and nothing after it would be reset: there is nothing to rewind.
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
  );
}
