/**
 * Adding a task after the run (issue 15): the reviewer names it and its criteria; the interview's
 * model writes its acceptance test, which is checked and proven to fail before the work. The
 * session is then stopped, and Resume builds the new task.
 *
 * While the model works the session is held (issue 27): Cancel ends it and nothing is added. An
 * add-task this page did not start (another tab, a reload) shows from the session detail, with its
 * own Cancel.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { DEMO_ADDABLE } from '../../../shared/demo.ts';
import { ERROR_CODES } from '../../../shared/errors.ts';
import type { AddedTask } from '../../../shared/review.ts';
import { queryKeys } from '../api/queries.ts';
import { Link } from '../router.tsx';
import { paths } from '../paths.ts';
import { review } from './calls.ts';
import { reviewKeys } from './queries.ts';
import { actionError } from './use-review-actions.ts';

/**
 * `inProgress`: the session detail says a task is being added (by this page or another). `demo`:
 * the scripted model can add only the tasks it has code for, so the form offers those.
 */
export function AddTaskForm({ sessionId, inProgress, demo = false }: { sessionId: string; inProgress: boolean; demo?: boolean }) {
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
  // A cancel is what the reviewer asked for: said plainly, not as an error.
  const cancelled = failed?.code === ERROR_CODES.add_task_cancelled || (cancel.data?.cancelled === true && !add.isPending && failed === null);
  const error = cancelled ? null : (failed ?? actionError(cancel.error));
  const working = add.isPending || inProgress;
  const ready = title.trim() !== '' && description.trim() !== '' && lines.length > 0;
  return (
    // Held open while it has something to say: a render that drops `open` would fold the form, and an error with it.
    <details className="add-task" data-testid="add-task" open={added !== null || working || cancelled || error !== null || undefined}>
      <summary>Add a task…</summary>
      {added !== null && (
        <div className="callout" role="status" data-testid="add-task-done" data-task-id={added.task.id}>
          <p>
            {added.task.id} ({added.task.title}) is added with <span className="mono">{added.test_file}</span>
            {added.red.length > 0
              ? `; its ${added.red.length === 1 ? 'test case fails' : `${added.red.length} test cases fail`} before the work, as they should`
              : ''}
            . The session is stopped until you run it.
          </p>
          <Link to={paths.session(sessionId)} className="button button-small" testId="add-task-go-run">
            Go to the session to run it
          </Link>
        </div>
      )}
      {cancelled && !working && (
        <p className="callout" role="status" data-testid="add-task-cancelled">
          Cancelled: nothing was added, and the session is as it was.
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
            {add.isPending ? 'The model is writing its test' : 'A task is being added to this session (started elsewhere)'}; nothing else can change the session
            until it ends. Cancel leaves the session as it was.
          </p>
        )}
        {error !== null && (
          <p className="field-error" role="alert" data-testid="add-task-error" data-code={error.code}>
            {error.message}
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
