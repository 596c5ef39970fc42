import { useState } from 'react';

/** A note for the worker, read once at its next iteration. `onSend`'s callback clears the box once the server has it. */
export function GuidanceBox(props: { sending: boolean; error: string | null; onSend: (text: string, onSent: () => void) => void }) {
  const [text, setText] = useState('');
  const [sent, setSent] = useState(false);
  const empty = text.trim() === '';
  return (
    <form
      className="panel guidance"
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
        Guidance for the next iteration
      </label>
      <p className="field-hint muted small">The worker reads it once, at its next turn, and it is recorded in the event stream.</p>
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
      <div className="actions guidance-actions">
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
