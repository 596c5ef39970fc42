import type { SeedView } from '../../../shared/seed.ts';
import { summarizeEnv, undrivenNote } from './presets.ts';
import { formatTokens } from '../../../shared/format.ts';

export interface SeedToolbarProps {
  seed: SeedView;
  /** The tasks on screen: the draft's while editing. */
  taskCount: number;
  editing: boolean;
  /** The contract check found that the tests cannot run in this environment: Run stays off. */
  blocked: boolean;
  /** What the draft changes, in words; Save needs at least one. */
  changes: readonly string[];
  saving: boolean;
  onEdit: () => void;
  onCancel: () => void;
  onSave: () => void;
  onRun: () => void;
  starting: boolean;
}

/** The plan at a glance (tasks, checks, environment) beside Edit, or Cancel and Save while editing, and Run. */
export function SeedToolbar({ seed, taskCount, editing, blocked, changes, saving, onEdit, onCancel, onSave, onRun, starting }: SeedToolbarProps) {
  const runTitle = editing
    ? 'Save or cancel the edit first'
    : blocked
      ? 'The acceptance tests cannot run in this environment; see the contract check'
      : undefined;
  const runnerNote = seed.meta.project_env ? undrivenNote(seed.meta.project_env) : null;
  return (
    <div className="seed-toolbar">
      <div className="seed-toolbar-text">
        <strong data-testid="seed-task-count">
          {taskCount} {taskCount === 1 ? 'task' : 'tasks'}
        </strong>{' '}
        <span className="muted">
          · checks: {seed.meta.checks_preset} · interview {formatTokens(seed.meta.tokens.total)}
        </span>
        {seed.meta.project_env && (
          <div className="muted small seed-env" data-testid="seed-env">
            {summarizeEnv(seed.meta.project_env)}
          </div>
        )}
        {runnerNote !== null && (
          <div className="small warning-text" data-testid="seed-env-note">
            {runnerNote}
          </div>
        )}
      </div>
      <div className="actions">
        {editing ? (
          <>
            <span className="muted small" data-testid="seed-changes">
              {changes.length === 0 ? 'No changes yet' : `Changed: ${changes.join(', ')}`}
            </span>
            <button type="button" className="button button-plain" data-testid="cancel-edit" onClick={onCancel} disabled={saving}>
              Cancel
            </button>
            <button type="button" className="button" data-testid="save-seed" onClick={onSave} disabled={saving || changes.length === 0}>
              {saving ? 'Saving and checking…' : 'Save'}
            </button>
          </>
        ) : (
          <button type="button" className="button button-secondary" data-testid="edit-seed" onClick={onEdit}>
            Edit
          </button>
        )}
        {/* A disabled button shows no tooltip in some browsers; the wrapper carries it too. */}
        <span title={runTitle}>
          <button type="button" className="button" data-testid="run-button" onClick={onRun} disabled={editing || blocked || starting}>
            {starting ? 'Starting…' : 'Run'}
          </button>
        </span>
      </div>
    </div>
  );
}
