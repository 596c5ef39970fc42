import { useEffect, useRef, type ReactNode } from 'react';

/** `fields`: how many fields the failed save marked, each with its own message; `at`: when it was sent. */
export type SaveState = { state: 'idle' } | { state: 'saving' } | { state: 'saved' } | { state: 'error'; message: string; fields: number; at: number };

/** One section of the settings page: its fields, a Save for just those, and how the save went. */
export function SettingsForm(props: {
  name: string;
  /** Left out when the form sits inside a panel that already has one (a <details> summary). */
  title?: string;
  intro?: ReactNode;
  dirty: boolean;
  save: SaveState;
  configFile: string;
  onSave: () => void;
  children: ReactNode;
}) {
  const { save } = props;
  const form = useRef<HTMLFormElement>(null);
  const refusedAt = save.state === 'error' && save.fields > 0 ? save.at : null;
  // A refused save takes the keyboard to the first field it marked, whose message is read with it.
  useEffect(() => {
    if (refusedAt !== null) form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [refusedAt]);
  return (
    <form
      ref={form}
      className={`form settings-form${props.title !== undefined ? ' panel' : ''}`}
      data-testid={`settings-form-${props.name}`}
      onSubmit={(event) => {
        event.preventDefault();
        if (props.dirty && save.state !== 'saving') props.onSave();
      }}
    >
      {props.title !== undefined && <h2>{props.title}</h2>}
      {props.intro !== undefined && <p className="muted settings-intro">{props.intro}</p>}
      {props.children}
      <div className="actions">
        <button type="submit" className="button" data-testid="settings-save" disabled={!props.dirty || save.state === 'saving'}>
          {save.state === 'saving' ? 'Saving…' : 'Save'}
        </button>
        {save.state === 'idle' && props.dirty && <span className="muted small">Unsaved changes.</span>}
        {save.state === 'saved' && (
          <span className="save-ok" role="status" data-testid="settings-saved">
            Saved to <code>{props.configFile}</code>. New sessions and runs use it now; runs already going keep what they started with.
          </span>
        )}
      </div>
      {save.state === 'error' && (
        <div className="callout callout-error settings-error" role="alert" data-testid="settings-error">
          {save.fields === 0
            ? save.message
            : `Not saved: ${save.fields === 1 ? 'one field needs' : `${save.fields} fields need`} fixing; each says what is wrong beside it.`}
        </div>
      )}
    </form>
  );
}
