import type { ActionError } from './use-review-actions.ts';
import { formatDuration } from '../../../shared/format.ts';
import { useNow } from '../use-now.ts';
import { Link } from '../router.tsx';
import { paths } from '../paths.ts';
import type { Outcome } from './use-add-task.ts';

/** The model is at work: whose request it is, for how long, and that Cancel leaves the session as it was. */
export function AddTaskWorking({ own, title, since }: { own: boolean; title: string; since: number | null }) {
  return (
    <p className="action-pending small" role="status" data-testid="add-task-working">
      <span className="spinner" aria-hidden="true" />{' '}
      <span>
        {own ? 'The model is writing its test' : `The model is writing the test of “${title}” (started before this page)`}
        {since !== null && <Elapsed since={since} />}; nothing else can change the session until it ends. Cancel leaves the session as it was.
      </span>
    </p>
  );
}

/** Seconds so far, ticking: a long model call still shows it is alive. */
function Elapsed({ since }: { since: number }) {
  const now = useNow(1_000);
  return <span data-testid="add-task-elapsed"> · {formatDuration(Math.max(0, now - since))}</span>;
}

/** The task is in the plan with its failing test; the session waits to be run. */
export function AddTaskAdded({ sessionId, added }: { sessionId: string; added: Extract<Outcome, { kind: 'added' }> }) {
  return (
    <div className="callout" role="status" data-testid="add-task-done" data-task-id={added.taskId}>
      <p>
        {added.taskId} ({added.title}) is added with <span className="mono">{added.testFile}</span>
        {added.red > 0 ? `; its ${added.red === 1 ? 'test case fails' : `${added.red} test cases fail`} before the work, as they should` : ''}. The session is
        stopped until you run it.
      </p>
      <Link to={paths.session(sessionId)} className="button button-small" testId="add-task-go-run">
        Go to the session to run it
      </Link>
    </div>
  );
}

/** Cancelled, as the reviewer asked: said plainly, not as an error. `onDismiss` is null for this page's own outcome. */
export function AddTaskCancelled({ onDismiss }: { onDismiss: (() => void) | null }) {
  return (
    <p className="callout" role="status" data-testid="add-task-cancelled">
      Cancelled: nothing was added, and the session is as it was.
      {onDismiss !== null && <DismissButton onClick={onDismiss} />}
    </p>
  );
}

/** Declined, failed or cut short, in the server's words; one from the session's record can be dismissed. */
export function AddTaskError({ error, onDismiss }: { error: ActionError; onDismiss: (() => void) | null }) {
  return (
    <p className="field-error" role="alert" data-testid="add-task-error" data-code={error.code}>
      {error.message}
      {onDismiss !== null && <DismissButton onClick={onDismiss} />}
    </p>
  );
}

/** Hides an outcome read from the session's record, which would otherwise show on every visit. */
function DismissButton({ onClick }: { onClick: () => void }) {
  return (
    <button type="button" className="button button-small button-secondary add-task-dismiss" data-testid="add-task-dismiss" onClick={onClick}>
      Dismiss
    </button>
  );
}
