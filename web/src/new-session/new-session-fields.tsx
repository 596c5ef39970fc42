import type { ChecksPreset } from '../../../shared/seed.ts';
import { WorkspaceCheckView, type WorkspaceCheckState } from './workspace-check-view.tsx';
import { PRESET_ORDER, presetLabel, presetOrigin } from '../seed/presets.ts';

/** The repository path, with what the check found under it as the user types. */
export function WorkspaceField({
  id,
  value,
  onChange,
  check,
}: {
  id: string;
  value: string;
  onChange: (workspace: string) => void;
  check: WorkspaceCheckState;
}) {
  return (
    <div className="field">
      <label className="field-label" htmlFor={id}>
        Workspace
      </label>
      <input
        id={id}
        className="input mono"
        data-testid="workspace-input"
        value={value}
        onChange={(event) => onChange(event.target.value)}
        placeholder="/home/you/code/my-repo"
        autoComplete="off"
        spellCheck={false}
        // biome-ignore lint/a11y/noAutofocus: the repository path is the first thing this page asks, and the page opens on request
        autoFocus
      />
      <WorkspaceCheckView check={check} />
    </div>
  );
}

/** What the feature is, in the user's words: where the interview starts. */
export function BriefField({ id, value, onChange }: { id: string; value: string; onChange: (brief: string) => void }) {
  return (
    <div className="field">
      <label className="field-label" htmlFor={id}>
        Brief
      </label>
      <textarea
        id={id}
        className="input textarea"
        data-testid="brief-input"
        value={value}
        onChange={(event) => onChange(event.target.value)}
        rows={6}
        placeholder="What should the feature do, for whom, and why?"
      />
      <p className="field-hint muted">
        A few sentences are enough: the interviewer reads the code and asks about the rest, one question at a time. If a spec already exists, name the file
        (e.g. <code>docs/export-spec.md</code>): the interview reads it first and only asks about what it leaves open.
      </p>
    </div>
  );
}

/** The checks preset: the user's choice, else the one the workspace check detected, else "detect". */
export function PresetField({
  id,
  preset,
  check,
  onChange,
}: {
  id: string;
  preset: ChecksPreset | null;
  check: WorkspaceCheckState;
  onChange: (preset: ChecksPreset | null) => void;
}) {
  const env = check.state === 'done' ? check.check.env : null;
  return (
    <div className="field">
      <label className="field-label" htmlFor={id}>
        Checks
      </label>
      <select
        id={id}
        className="input select"
        data-testid="preset-select"
        value={preset ?? ''}
        onChange={(event) => onChange(event.target.value === '' ? null : (event.target.value as ChecksPreset))}
      >
        {preset === null && <option value="">Detect from the repository</option>}
        {PRESET_ORDER.map((p) => (
          <option key={p} value={p}>
            {presetLabel(p, env)}
          </option>
        ))}
      </select>
      <p className="field-hint muted">
        How the acceptance tests are named and run.
        {check.state === 'done' && check.check.preset !== null && <> {presetOrigin(check.check.preset, check.check.env)}</>}
      </p>
    </div>
  );
}
