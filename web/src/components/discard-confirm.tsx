import { useState } from 'react';
import './discard-confirm.css';

/** Discarding deletes a worktree and a branch, so the id is typed, not clicked. */
export function DiscardConfirm(props: { id: string; onCancel: () => void; onConfirm: () => Promise<void> }) {
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const matches = typed.trim() === props.id;
  const confirm = () => {
    if (!matches || busy) return;
    setBusy(true);
    setError(null);
    props.onConfirm().catch((err: unknown) => {
      setError(err instanceof Error ? err.message : String(err));
      setBusy(false);
    });
  };
  return (
    // Not a <form>: this sits inside the new-session form, and forms do not nest.
    <div className="discard-confirm">
      <label className="field-label" htmlFor={`discard-${props.id}`}>
        This removes the session's worktree, its branch <code>session/{props.id}</code> and its folder. Type the session id to confirm:
      </label>
      <div className="inline-field">
        <input
          id={`discard-${props.id}`}
          className="input mono"
          data-testid="discard-confirm-input"
          value={typed}
          autoComplete="off"
          spellCheck={false}
          onChange={(event) => setTyped(event.target.value)}
          onKeyDown={(event) => {
            if (event.key !== 'Enter') return;
            event.preventDefault(); // not the outer form's submit
            confirm();
          }}
          // biome-ignore lint/a11y/noAutofocus: the user just asked to discard; the field they must type the name into is the next step
          autoFocus
        />
        <button type="button" className="button button-danger" data-testid="discard-confirm" disabled={!matches || busy} onClick={confirm}>
          {busy ? 'Discarding…' : 'Discard session'}
        </button>
        <button type="button" className="button button-plain" onClick={props.onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
      {error !== null && (
        <p className="field-error" role="alert" data-testid="discard-error">
          {error}
        </p>
      )}
    </div>
  );
}
