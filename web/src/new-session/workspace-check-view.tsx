import type { WorkspaceCheck } from '../../../shared/api.ts';
import { envNote, summarizeEnv } from '../seed/presets.ts';

export type WorkspaceCheckState = { state: 'idle' } | { state: 'checking' } | { state: 'error'; message: string } | { state: 'done'; check: WorkspaceCheck };

/** What the workspace check found, in words: where the session would branch from, or the problem. */
export function WorkspaceCheckView({ check }: { check: WorkspaceCheckState }) {
  switch (check.state) {
    case 'idle':
      return (
        <p className="field-hint" data-testid="workspace-check" data-kind="idle" data-ok="false">
          The absolute path of a local git repository, or any folder inside one.
        </p>
      );
    case 'checking':
      return (
        <p className="field-hint muted" data-testid="workspace-check" data-kind="checking" data-ok="false" aria-live="polite">
          Checking…
        </p>
      );
    case 'error':
      return (
        <p className="field-hint field-error" data-testid="workspace-check" data-kind="error" data-ok="false" role="alert">
          Could not check this path: {check.message}
        </p>
      );
    case 'done':
      return <CheckResult check={check.check} />;
  }
}

/** For a usable repo the server's message says the same as the facts shown, so only they are. */
function CheckResult({ check }: { check: WorkspaceCheck }) {
  if (!check.ok) {
    return (
      <p className="field-hint field-error" data-testid="workspace-check" data-kind={check.kind} data-ok="false" aria-live="polite">
        {check.message}
      </p>
    );
  }
  return (
    <div className="field-hint workspace-ok" data-testid="workspace-check" data-kind={check.kind} data-ok="true" aria-live="polite">
      <span className="check-mark" aria-hidden="true">
        ✓
      </span>{' '}
      Git repository <code>{check.root ?? check.path}</code>
      {check.branch !== null && (
        <>
          {' '}
          on branch <code data-testid="workspace-branch">{check.branch}</code>
        </>
      )}
      {check.head !== null && (
        <>
          {' '}
          at <code data-testid="workspace-head">{check.head.slice(0, 7)}</code>
        </>
      )}
      . {check.clean === true && <span>Working tree clean.</span>}
      {check.clean === false && (
        <span className="warning-text" data-testid="workspace-dirty">
          Uncommitted changes: the interview reads them, but the session branches from the last commit.
        </span>
      )}
      {check.env !== null && <EnvLine env={check.env} />}
    </div>
  );
}

/** What the repository runs its tests with, as detected: one line, plus a note when it cannot run yet. */
function EnvLine({ env }: { env: NonNullable<WorkspaceCheck['env']> }) {
  const note = envNote(env);
  return (
    <>
      <span className="workspace-env" data-testid="workspace-env">
        Detected: {summarizeEnv(env)}
      </span>
      {note !== null && (
        <span className="warning-text workspace-env-note" data-testid="workspace-env-note">
          {note}
        </span>
      )}
    </>
  );
}
