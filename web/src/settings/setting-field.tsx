import { useId, type ReactNode } from 'react';
import type { ConfigEntry, ConfigSource } from '../../../shared/api.ts';
import type { SecretChange } from '../../../shared/api.ts';
import { ProviderPresetPicker } from './provider-preset-picker.tsx';
import { overrideNote } from './settings-draft.ts';

export const SOURCE_NAMES: Record<ConfigSource, string> = {
  flag: 'flag',
  env: 'environment',
  dotenv: '.env',
  file: 'config.json',
  default: 'default',
};

/** Where the value in effect comes from; a key says only whether one is set. */
export function SourceBadge({ entry }: { entry: ConfigEntry }) {
  const from = entry.source === 'default' ? 'default' : `from ${SOURCE_NAMES[entry.source]}`;
  return (
    <span
      className={`badge source-${entry.value === null ? 'default' : entry.source}`}
      data-testid="setting-source"
      title={`Where the value of ${entry.key} in effect comes from`}
    >
      {entry.secret ? (
        <>
          <span data-testid="secret-status">{entry.value === null ? 'not set' : 'set'}</span>
          {entry.value !== null && ` · ${from}`}
        </>
      ) : entry.value === null ? (
        'not set'
      ) : (
        from
      )}
    </span>
  );
}

/** What the last save found wrong with a field, and the ids that tie the message to its input. */
function fieldError(inputId: string, error: string | undefined) {
  const id = `${inputId}-error`;
  return {
    error,
    id,
    /** For the input: marked invalid and described by the message while there is one. */
    aria: error === undefined ? {} : { 'aria-invalid': true as const, 'aria-describedby': id },
  };
}

function FieldShell(props: {
  entry: ConfigEntry;
  label: string;
  inputId: string;
  hint: ReactNode;
  problem: ReturnType<typeof fieldError>;
  children: ReactNode;
}) {
  const { entry, label, inputId, hint, problem, children } = props;
  const note = overrideNote(entry);
  return (
    <div
      className={`field setting${problem.error === undefined ? '' : ' setting-invalid'}`}
      data-testid="setting"
      data-key={entry.key}
      data-source={entry.source}
      data-overridden={entry.overridden}
    >
      <div className="setting-head">
        <label className="field-label" htmlFor={inputId}>
          {label}
        </label>
        <SourceBadge entry={entry} />
      </div>
      {children}
      {problem.error !== undefined && (
        <p id={problem.id} className="field-error" data-testid="setting-error">
          {label} {problem.error}.
        </p>
      )}
      <p className="field-hint muted">
        <code className="setting-key">{entry.key}</code>
        {hint !== null && <> — {hint}</>}
      </p>
      {note !== null && (
        <p className="field-hint setting-override" data-testid="override-note">
          {note}
        </p>
      )}
    </div>
  );
}

/** A plain value; `presets` adds the provider presets (a select filling the URL, and each one's requirements). */
export function TextSetting(props: {
  entry: ConfigEntry;
  label: string;
  value: string;
  onChange: (value: string) => void;
  /** Shown in an empty field; by default the value in effect, else `example`. */
  placeholder?: string;
  example?: string;
  hint?: ReactNode;
  presets?: boolean;
  numeric?: boolean;
  /** What the last save found wrong with this value. */
  error?: string | undefined;
}) {
  const id = useId();
  const { entry } = props;
  const problem = fieldError(id, props.error);
  return (
    <FieldShell entry={entry} label={props.label} inputId={id} hint={props.hint ?? null} problem={problem}>
      {props.presets === true && (
        <ProviderPresetPicker fieldLabel={props.label} baseUrl={props.value !== '' ? props.value : (entry.value ?? '')} onPick={props.onChange} />
      )}
      <input
        id={id}
        className={`input${props.numeric === true ? ' input-number' : ' mono'}`}
        data-testid="setting-input"
        value={props.value}
        onChange={(event) => props.onChange(event.target.value)}
        placeholder={props.placeholder ?? entry.value ?? props.example ?? ''}
        inputMode={props.numeric === true ? 'decimal' : undefined}
        autoComplete="off"
        spellCheck={false}
        {...problem.aria}
      />
    </FieldShell>
  );
}

/**
 * An API key: write-only. The field starts empty whatever is saved; typing replaces the saved
 * key on save, and "Remove" deletes it from config.json. The page never learns the key itself.
 */
export function SecretSetting(props: {
  entry: ConfigEntry;
  label: string;
  change: SecretChange | undefined;
  onChange: (change: SecretChange | null) => void;
  hint?: ReactNode;
  /** What the last save found wrong with this key. */
  error?: string | undefined;
}) {
  const id = useId();
  const { entry, change } = props;
  const problem = fieldError(id, props.error);
  const saved = entry.file_value !== null;
  const removing = change !== undefined && 'clear' in change;
  const typed = change !== undefined && 'set' in change ? change.set : '';
  return (
    <FieldShell entry={entry} label={props.label} inputId={id} hint={props.hint ?? null} problem={problem}>
      <div className="secret-row">
        <input
          id={id}
          type="password"
          className="input mono"
          data-testid="secret-input"
          value={typed}
          disabled={removing}
          onChange={(event) => props.onChange(event.target.value === '' ? null : { set: event.target.value })}
          placeholder={
            saved ? 'A key is saved — type a new one to replace it' : entry.value !== null ? 'Set elsewhere — type one to save it here' : 'Paste the key'
          }
          autoComplete="off"
          spellCheck={false}
          {...problem.aria}
        />
        {saved &&
          (removing ? (
            <button type="button" className="button button-plain button-small" data-testid="secret-keep" onClick={() => props.onChange(null)}>
              Keep it
            </button>
          ) : (
            <button
              type="button"
              className="button button-danger-outline button-small"
              data-testid="secret-remove"
              onClick={() => props.onChange({ clear: true })}
            >
              Remove saved key
            </button>
          ))}
      </div>
      {removing && (
        <p className="field-hint warning-text" data-testid="secret-removing">
          The key in config.json will be removed when you save.
        </p>
      )}
    </FieldShell>
  );
}
