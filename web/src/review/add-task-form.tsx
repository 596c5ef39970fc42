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
import { DEMO_ADDABLE } from '../../../shared/demo.ts';
import type { AddTaskState } from '../../../shared/review.ts';
import { AddTaskAdded, AddTaskCancelled, AddTaskError, AddTaskWorking } from './add-task-progress.tsx';
import { useAddTask, useAddTaskOutcome, useTaskDraft, type TaskDraft, type TaskDraftState } from './use-add-task.ts';

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

export function AddTaskForm({ sessionId, inProgress, last, pendingIds, demo = false }: AddTaskFormProps) {
  const draft = useTaskDraft();
  const request = useAddTask(sessionId, draft, inProgress);
  const { add, cancel, working } = request;
  const { shown, cancelled, error, dismiss } = useAddTaskOutcome({ sessionId, last, pendingIds, request });
  const since = add.isPending ? add.submittedAt : last?.state === 'running' ? Date.parse(last.started_at) : null;
  return (
    // Held open while it has something to say: a render that drops `open` would fold the form, and an error with it.
    <details className="add-task" data-testid="add-task" open={shown !== null || working || cancelled || error !== null || undefined}>
      <summary>Add a task…</summary>
      {shown !== null && <AddTaskAdded sessionId={sessionId} added={shown} />}
      {cancelled && !working && <AddTaskCancelled onDismiss={dismiss} />}
      <form
        className="send-back"
        data-testid="add-task-form"
        aria-busy={working}
        onSubmit={(e) => {
          e.preventDefault();
          if (draft.ready && !working) add.mutate();
        }}
      >
        <p className="muted">
          The interview's model writes the new task's acceptance test from your criteria, checked like the seed's and proven to fail before the work; it is
          committed as “seed: added”, and Resume builds the task.
        </p>
        {demo && <DemoPicks disabled={working} onPick={draft.fill} />}
        <TaskFields draft={draft} readOnly={add.isPending} />
        {working && <AddTaskWorking own={add.isPending} title={last?.title ?? 'a new task'} since={since} />}
        {error !== null && <AddTaskError error={error} onDismiss={dismiss} />}
        <div className="actions">
          <button type="submit" className="button" data-testid="add-task-submit" disabled={!draft.ready || working}>
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

/** The tasks the demo's scripted model has code for, each filling in the form. */
function DemoPicks({ disabled, onPick }: { disabled: boolean; onPick: (draft: TaskDraft) => void }) {
  return (
    <p className="muted small demo-choices" data-testid="add-task-demo">
      The demo model is scripted, not AI: it has code only for these tasks. Pick one to fill in the form:{' '}
      {DEMO_ADDABLE.map((a) => (
        <button
          key={a.title}
          type="button"
          className="button button-small button-secondary"
          data-testid="add-task-demo-pick"
          disabled={disabled}
          onClick={() => onPick({ title: a.title, description: a.description, criteria: a.criteria.join('\n') })}
        >
          {a.title}
        </button>
      ))}
    </p>
  );
}

/** The task's title, description and criteria; read-only while this page's request runs, so what is sent is what shows. */
function TaskFields({ draft, readOnly }: { draft: TaskDraftState; readOnly: boolean }) {
  return (
    <>
      <label className="field">
        <span className="field-label">Title</span>
        <input
          className="input"
          value={draft.title}
          maxLength={200}
          data-testid="add-task-title"
          readOnly={readOnly}
          onChange={(e) => draft.setTitle(e.target.value)}
        />
      </label>
      <label className="field">
        <span className="field-label">Description</span>
        <textarea
          className="input textarea"
          rows={3}
          value={draft.description}
          data-testid="add-task-description"
          readOnly={readOnly}
          onChange={(e) => draft.setDescription(e.target.value)}
        />
      </label>
      <label className="field">
        <span className="field-label">Acceptance criteria, one per line</span>
        <textarea
          className="input textarea"
          rows={3}
          value={draft.criteria}
          data-testid="add-task-criteria"
          readOnly={readOnly}
          onChange={(e) => draft.setCriteria(e.target.value)}
        />
      </label>
    </>
  );
}
