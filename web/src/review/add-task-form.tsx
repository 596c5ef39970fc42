/**
 * Adding a task after the run (issue 15): the reviewer names it and its criteria; the interview's
 * model writes its acceptance test, which is checked and proven to fail before the work. The
 * session is then stopped, and Resume builds the new task.
 *
 * While the model works the session is held (issue 27): Cancel ends it and nothing is added. An
 * add-task this page did not start (another tab, a reload) shows from the session detail, with its
 * own Cancel and its time so far; its outcome — added, declined, cancelled, cut short — is kept
 * beside the session (`add-task.json`), so a reload finds it too.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { DEMO_ADDABLE } from '../../../shared/demo.ts';
import { ERROR_CODES } from '../../../shared/errors.ts';
import type { AddedTask, AddTaskState } from '../../../shared/review.ts';
import { formatDuration } from '../../../shared/format.ts';
import { useNow } from '../use-now.ts';
import { queryKeys } from '../api/queries.ts';
import { Link } from '../router.tsx';
import { paths } from '../paths.ts';
import { review } from './review-api.ts';
import { reviewKeys } from './queries.ts';
import { actionError } from './use-review-actions.ts';

export interface AddTaskFormProps {
  sessionId: string;
  /** The session detail says a task is being added (by this page or another). */
  inProgress: boolean;
  /** The session's last add-task, as the server keeps it. */
  last: AddTaskState | null;
  /** The plan's tasks still pending: an added task's notice stays until it is built. */
  pendingIds: ReadonlySet<string>;
  /** A demo session: the scripted model can add only the tasks it has code for, so the form offers those. */
  demo?: boolean;
}

/** What an add-task ended with, however this page learnt it (its own request, or the session's record). */
type Outcome =
  | { kind: 'added'; taskId: string; title: string; testFile: string; red: number }
  | { kind: 'cancelled' }
  | { kind: 'failed'; code: string; message: string };

/** The session's record of an add-task this page did not see end (a reload, another tab); null when there is nothing to say. */
function recorded(last: AddTaskState | null, pendingIds: ReadonlySet<string>): Outcome | null {
  if (last === null) return null;
  if (last.state === 'added')
    return pendingIds.has(last.task_id) ? { kind: 'added', taskId: last.task_id, title: last.title, testFile: last.test_file, red: last.red } : null;
  if (last.state === 'failed')
    return last.code === ERROR_CODES.add_task_cancelled ? { kind: 'cancelled' } : { kind: 'failed', code: last.code, message: last.message };
  if (last.state === 'interrupted') {
    return {
      kind: 'failed',
      code: 'add_task_interrupted',
      message: `Adding “${last.title}” was cut short: the server stopped before it finished. Check the plan below, and add it again if it is not there.`,
    };
  }
  return null;
}

const seenKey = (sessionId: string) => `tilth.add-task.seen.${sessionId}`;

export function AddTaskForm({ sessionId, inProgress, last, pendingIds, demo = false }: AddTaskFormProps) {
  const queryClient = useQueryClient();
  const [title, setTitle] = useState('');
  const [description, setDescription] = useState('');
  const [criteria, setCriteria] = useState('');
  const [added, setAdded] = useState<AddedTask | null>(null);
  const lines = criteria
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: reviewKeys.session(sessionId) }),
      queryClient.invalidateQueries({ queryKey: queryKeys.sessionDetail(sessionId) }),
      queryClient.invalidateQueries({ queryKey: queryKeys.sessions }),
    ]);
  const cancel = useMutation({ mutationFn: () => review.cancelAddTask(sessionId), onSettled: refresh });
  const add = useMutation({
    mutationFn: () => review.addTask({ sessionId, task: { title, description, acceptance_criteria: lines } }),
    onMutate: () => {
      setAdded(null);
      cancel.reset();
    },
    onSuccess: (result) => {
      setAdded(result);
      setTitle('');
      setDescription('');
      setCriteria('');
    },
    onSettled: refresh,
  });
  const failed = actionError(add.error);
  const working = add.isPending || inProgress;
  // One started elsewhere (or before a reload) ended: the plan and the review have moved on.
  const wasWorking = useRef(inProgress);
  useEffect(() => {
    if (wasWorking.current && !inProgress) void refresh();
    wasWorking.current = inProgress;
  });
  // The outcome of this page's own request; else the session's record of the last one, until dismissed.
  const [seen, setSeen] = useState(() => localStorage.getItem(seenKey(sessionId)));
  const dismiss = () => {
    if (last === null) return;
    localStorage.setItem(seenKey(sessionId), last.started_at);
    setSeen(last.started_at);
  };
  const fromRecord = !working && add.status === 'idle' && last !== null && last.started_at !== seen ? recorded(last, pendingIds) : null;
  // A cancel is what the reviewer asked for: said plainly, not as an error.
  const cancelled =
    fromRecord?.kind === 'cancelled' ||
    failed?.code === ERROR_CODES.add_task_cancelled ||
    (cancel.data?.cancelled === true && !add.isPending && failed === null);
  const error = fromRecord?.kind === 'failed' ? fromRecord : cancelled ? null : (failed ?? actionError(cancel.error));
  const shown: Outcome | null =
    added !== null
      ? { kind: 'added', taskId: added.task.id, title: added.task.title, testFile: added.test_file, red: added.red.length }
      : fromRecord?.kind === 'added'
        ? fromRecord
        : null;
  const since = add.isPending ? add.submittedAt : last?.state === 'running' ? Date.parse(last.started_at) : null;
  const ready = title.trim() !== '' && description.trim() !== '' && lines.length > 0;
  return (
    // Held open while it has something to say: a render that drops `open` would fold the form, and an error with it.
    <details className="add-task" data-testid="add-task" open={shown !== null || working || cancelled || error !== null || undefined}>
      <summary>Add a task…</summary>
      {shown?.kind === 'added' && (
        <div className="callout" role="status" data-testid="add-task-done" data-task-id={shown.taskId}>
          <p>
            {shown.taskId} ({shown.title}) is added with <span className="mono">{shown.testFile}</span>
            {shown.red > 0 ? `; its ${shown.red === 1 ? 'test case fails' : `${shown.red} test cases fail`} before the work, as they should` : ''}. The session
            is stopped until you run it.
          </p>
          <Link to={paths.session(sessionId)} className="button button-small" testId="add-task-go-run">
            Go to the session to run it
          </Link>
        </div>
      )}
      {cancelled && !working && (
        <p className="callout" role="status" data-testid="add-task-cancelled">
          Cancelled: nothing was added, and the session is as it was.
          {fromRecord !== null && <DismissButton onClick={dismiss} />}
        </p>
      )}
      <form
        className="send-back"
        data-testid="add-task-form"
        aria-busy={working}
        onSubmit={(e) => {
          e.preventDefault();
          if (ready && !working) add.mutate();
        }}
      >
        <p className="muted">
          The interview's model writes the new task's acceptance test from your criteria, checked like the seed's and proven to fail before the work; it is
          committed as “seed: added”, and Resume builds the task.
        </p>
        {demo && (
          <p className="muted small demo-choices" data-testid="add-task-demo">
            The demo model is scripted, not AI: it has code only for these tasks. Pick one to fill in the form:{' '}
            {DEMO_ADDABLE.map((a) => (
              <button
                key={a.title}
                type="button"
                className="button button-small button-secondary"
                data-testid="add-task-demo-pick"
                disabled={working}
                onClick={() => {
                  setTitle(a.title);
                  setDescription(a.description);
                  setCriteria(a.criteria.join('\n'));
                }}
              >
                {a.title}
              </button>
            ))}
          </p>
        )}
        <label className="field">
          <span className="field-label">Title</span>
          <input
            className="input"
            value={title}
            maxLength={200}
            data-testid="add-task-title"
            readOnly={add.isPending}
            onChange={(e) => setTitle(e.target.value)}
          />
        </label>
        <label className="field">
          <span className="field-label">Description</span>
          <textarea
            className="input textarea"
            rows={3}
            value={description}
            data-testid="add-task-description"
            readOnly={add.isPending}
            onChange={(e) => setDescription(e.target.value)}
          />
        </label>
        <label className="field">
          <span className="field-label">Acceptance criteria, one per line</span>
          <textarea
            className="input textarea"
            rows={3}
            value={criteria}
            data-testid="add-task-criteria"
            readOnly={add.isPending}
            onChange={(e) => setCriteria(e.target.value)}
          />
        </label>
        {working && (
          <p className="action-pending small" role="status" data-testid="add-task-working">
            <span className="spinner" aria-hidden="true" />{' '}
            <span>
              {add.isPending ? 'The model is writing its test' : `The model is writing the test of “${last?.title ?? 'a new task'}” (started before this page)`}
              {since !== null && <Elapsed since={since} />}; nothing else can change the session until it ends. Cancel leaves the session as it was.
            </span>
          </p>
        )}
        {error !== null && (
          <p className="field-error" role="alert" data-testid="add-task-error" data-code={error.code}>
            {error.message}
            {fromRecord !== null && <DismissButton onClick={dismiss} />}
          </p>
        )}
        <div className="actions">
          <button type="submit" className="button" data-testid="add-task-submit" disabled={!ready || working}>
            {add.isPending ? 'The model is writing its test…' : 'Add the task'}
          </button>
          {working && (
            <button type="button" className="button button-secondary" data-testid="add-task-cancel" disabled={cancel.isPending} onClick={() => cancel.mutate()}>
              {cancel.isPending ? 'Cancelling…' : 'Cancel'}
            </button>
          )}
        </div>
      </form>
    </details>
  );
}

/** Seconds so far, ticking: a long model call still shows it is alive. */
function Elapsed({ since }: { since: number }) {
  const now = useNow(1_000);
  return <span data-testid="add-task-elapsed"> · {formatDuration(Math.max(0, now - since))}</span>;
}

function DismissButton({ onClick }: { onClick: () => void }) {
  return (
    <button type="button" className="button button-small button-secondary add-task-dismiss" data-testid="add-task-dismiss" onClick={onClick}>
      Dismiss
    </button>
  );
}
