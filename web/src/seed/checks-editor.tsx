import { writesJunit } from '../../../shared/files.ts';
import type { ProjectEnv } from '../../../shared/project-env.ts';
import { testFileRule, type ChecksPreset } from '../../../shared/seed.ts';
import type { SeedDraft } from './seed-edit.ts';
import { PRESET_ORDER, presetLabel } from './presets.ts';

/** How the acceptance tests run: a preset, or the user's own commands ({files}, and {junit} for a report); and the worktree's setup command. */
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
          <CommandField
            field="customTest"
            label="Test command ({files} is replaced by the test files; {junit} by where it writes a JUnit XML report)"
            testId="edit-custom-test"
            placeholder="bun test {files} --reporter=junit --reporter-outfile={junit}"
            checks={checks}
            onChange={onChange}
          />
          <p className="muted small" data-testid="custom-evidence">
            {writesJunit(checks.customTest)
              ? 'Each case is read from the JUnit report: the acceptance check, and the red and green proofs of each named case.'
              : 'Without {junit} only the exit code speaks: no per-case results, no red or green proofs.'}
          </p>
          <CommandField
            field="customCase"
            label="One-case command (optional; needs {junit}): {file}, {case} or {case_pattern} (the name as an anchored regex), {junit}. Without it a case's proof runs its whole file."
            testId="edit-custom-case"
            placeholder="bun test {file} -t {case_pattern} --reporter=junit --reporter-outfile={junit}"
            checks={checks}
            onChange={onChange}
          />
          <CommandField
            field="customLint"
            label="Lint command (optional)"
            testId="edit-custom-lint"
            placeholder="npx eslint {files}"
            checks={checks}
            onChange={onChange}
          />
        </>
      )}
      <CommandField
        field="setup"
        label="Setup command (optional): runs in the worktree before the worker, instead of linking your installed dependencies or a committed .tilth/setup"
        testId="edit-setup-command"
        placeholder="npm ci --offline"
        checks={checks}
        onChange={onChange}
      />
    </section>
  );
}

/** One of the command lines, edited in place in the checks. */
function CommandField({
  field,
  label,
  testId,
  placeholder,
  checks,
  onChange,
}: {
  field: 'customTest' | 'customLint' | 'customCase' | 'setup';
  label: string;
  testId: string;
  placeholder: string;
  checks: SeedDraft['checks'];
  onChange: (checks: SeedDraft['checks']) => void;
}) {
  return (
    <label className="field">
      <span>{label}</span>
      <input
        className="mono"
        data-testid={testId}
        value={checks[field]}
        placeholder={placeholder}
        onChange={(e) => onChange({ ...checks, [field]: e.target.value })}
      />
    </label>
  );
}
