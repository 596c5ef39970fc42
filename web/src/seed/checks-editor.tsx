import type { ProjectEnv } from '../../../shared/project-env.ts';
import { testFileRule, type ChecksPreset } from '../../../shared/seed.ts';
import type { SeedDraft } from './seed-edit.ts';
import { PRESET_ORDER, presetLabel } from './presets.ts';

/** How the acceptance tests run: a preset, or the user's own commands with a {files} placeholder; and the worktree's setup command. */
export function ChecksEditor({
  checks,
  env,
  onChange,
}: {
  checks: SeedDraft['checks'];
  env: ProjectEnv | null;
  onChange: (checks: SeedDraft['checks']) => void;
}) {
  return (
    <section className="panel checks-editor" aria-label="Checks" data-testid="checks-editor">
      <h2>Checks</h2>
      <label className="field">
        <span>How acceptance tests run</span>
        <select data-testid="edit-preset" value={checks.preset} onChange={(e) => onChange({ ...checks, preset: e.target.value as ChecksPreset })}>
          {PRESET_ORDER.map((p) => (
            <option key={p} value={p}>
              {presetLabel(p, env)}
            </option>
          ))}
        </select>
      </label>
      <p className="muted small">Test files must be named {testFileRule(checks.preset, env).describe}; rename them below if the preset changes.</p>
      {checks.preset === 'custom' && (
        <>
          <label className="field">
            <span>Test command ({'{files}'} is replaced by the test files)</span>
            <input
              className="mono"
              data-testid="edit-custom-test"
              value={checks.customTest}
              placeholder="npx vitest run {files}"
              onChange={(e) => onChange({ ...checks, customTest: e.target.value })}
            />
          </label>
          <label className="field">
            <span>Lint command (optional)</span>
            <input
              className="mono"
              data-testid="edit-custom-lint"
              value={checks.customLint}
              placeholder="npx eslint {files}"
              onChange={(e) => onChange({ ...checks, customLint: e.target.value })}
            />
          </label>
        </>
      )}
      <label className="field">
        <span>
          Setup command (optional): runs in the worktree before the worker, instead of linking your installed dependencies or a committed .tilth/setup
        </span>
        <input
          className="mono"
          data-testid="edit-setup-command"
          value={checks.setup}
          placeholder="npm ci --offline"
          onChange={(e) => onChange({ ...checks, setup: e.target.value })}
        />
      </label>
    </section>
  );
}
