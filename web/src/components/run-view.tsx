import { useState } from 'react';
import type { Caps, PrdEntry, Usage } from '../../../shared/files.ts';
import { runControls, runHeadline, spendLine, TASK_STATUS_LABELS, taskProgress, taskShownStatus, type RunStatusInput } from '../run/run-status.ts';

export interface RunViewProps extends RunStatusInput {
  /** Null until the session's detail has loaded. */
  usage: Usage | null;
  caps: Caps | null;
  tasks: readonly PrdEntry[];
  stopping: boolean;
  resuming: boolean;
  sendingNote: boolean;
  /** The server's message when Stop or Resume was refused. */
  actionError: string | null;
  noteError: string | null;
  onStop: () => void;
  onResume: () => void;
  /** `onSent` clears the box once the server has the note. */
  onSendNote: (text: string, onSent: () => void) => void;
}

/**
 * A minimal run view: where the run stands, the plan's tasks, Stop / Resume and a guidance box.
 * The event stream sits below it on the page. The full dashboard replaces this.
 */
export function RunView(props: RunViewProps) {
  const { status, run, usage, caps, tasks } = props;
  const controls = runControls(status, run.state);
  const headline = runHeadline(props);
  const tone = run.state === 'queued' ? 'queued' : status === 'stopped' && run.state === 'idle' ? 'stopped' : (status ?? 'unknown');

  return (
    <div className="run-view" data-testid="run-view">
      <div className={`panel run-head run-head-${tone}`}>
        <div className="run-head-text">
          <p className="run-headline" data-testid="run-headline" data-run-state={run.state} role="status">
            {headline}
          </p>
          <p className="muted small" data-testid="run-spend">
            {usage === null ? 'Spend: loading…' : `Spend so far: ${spendLine(usage, caps)}`}
            {tasks.length > 0 && <> · tasks {taskProgress(tasks)}</>}
          </p>
        </div>
        <div className="actions">
          {controls.stop && (
            <button type="button" className="button button-danger-outline" data-testid="stop-button" onClick={props.onStop} disabled={props.stopping}>
              {props.stopping ? 'Stopping…' : 'Stop'}
            </button>
          )}
          {controls.resume && (
            <button type="button" className="button" data-testid="resume-button" onClick={props.onResume} disabled={props.resuming}>
              {props.resuming ? 'Resuming…' : 'Resume'}
            </button>
          )}
        </div>
      </div>

      {props.actionError !== null && (
        <div className="callout callout-error" role="alert" data-testid="run-action-error">
          {props.actionError}
        </div>
      )}

      <section className="run-tasks" aria-label="Tasks">
        <h2>Tasks</h2>
        {tasks.length === 0 ? (
          <p className="muted">No tasks loaded yet.</p>
        ) : (
          <ol className="run-task-list">
            {tasks.map((task) => {
              const shown = taskShownStatus(task.status, controls.stop);
              return (
                <li key={task.id} className="run-task" data-testid="run-task" data-task-id={task.id} data-status={task.status}>
                  <span className="task-id mono">{task.id}</span>
                  <span className="run-task-title">{task.title}</span>
                  <span className={`badge task-${shown}`} data-testid="run-task-status">
                    {TASK_STATUS_LABELS[shown]}
                  </span>
                </li>
              );
            })}
          </ol>
        )}
      </section>

      {controls.notes && (
        <GuidanceBox sending={props.sendingNote} error={props.noteError} onSend={props.onSendNote} />
      )}
    </div>
  );
}

function GuidanceBox(props: { sending: boolean; error: string | null; onSend: RunViewProps['onSendNote'] }) {
  const [text, setText] = useState('');
  const [sent, setSent] = useState(false);
  const empty = text.trim() === '';
  return (
    <form
      className="run-guidance"
      aria-label="Guidance"
      onSubmit={(e) => {
        e.preventDefault();
        if (empty || props.sending) return;
        props.onSend(text, () => {
          setText('');
          setSent(true);
        });
      }}
    >
      <label className="field-label" htmlFor="guidance-input">
        Guidance for the worker
      </label>
      <p className="field-hint muted">The worker reads it once, at its next iteration.</p>
      <textarea
        id="guidance-input"
        className="input textarea"
        data-testid="guidance-input"
        rows={2}
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          setSent(false);
        }}
      />
      <div className="actions run-guidance-actions">
        <button type="submit" className="button button-secondary" data-testid="guidance-send" disabled={empty || props.sending}>
          {props.sending ? 'Sending…' : 'Send'}
        </button>
        {sent && (
          <span className="muted small" role="status" data-testid="guidance-sent">
            Sent.
          </span>
        )}
      </div>
      {props.error !== null && (
        <p className="field-error" role="alert" data-testid="guidance-error">
          {props.error}
        </p>
      )}
    </form>
  );
}
