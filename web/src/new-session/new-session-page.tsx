import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { ERROR_CODES } from '../../../shared/errors.ts';
import { ApiError } from '../api/client.ts';
import { configQuery } from '../api/queries.ts';
import { ExistingSessions } from './existing-sessions.tsx';
import { InterviewProviderNote } from '../settings/provider-banner.tsx';
import { BriefField, PresetField, WorkspaceField } from './new-session-fields.tsx';
import { useCreateSession } from './use-create-session.ts';
import { useNewSessionDraft } from './use-new-session-draft.ts';
import { useWorkspaceCheck } from './use-workspace-check.ts';
import { Link } from '../router.tsx';
import { paths } from '../paths.ts';
import { useNow } from '../use-now.ts';
import './new-session.css';

/** Refusals that are fixed on the settings page, not in this form, with a heading for the two the provider gave. */
const PROVIDER_CODES = new Set<string>([ERROR_CODES.provider_not_configured, ERROR_CODES.provider_unreachable, ERROR_CODES.provider_refused]);
const PROVIDER_HEADINGS: Record<string, string> = {
  [ERROR_CODES.provider_unreachable]: 'The model provider did not answer',
  [ERROR_CODES.provider_refused]: 'The model provider refused the request',
};

/** Workspace (checked as you type), brief and checks preset → a new session and its interview. */
export function NewSessionPage() {
  const now = useNow();
  const config = useQuery(configQuery());
  const noInterviewer = config.data !== undefined && !config.data.roles.prep.configured;
  const ids = { workspace: useId(), brief: useId(), preset: useId() };
  const draft = useNewSessionDraft(config.data?.default_workspace);
  const path = draft.workspace.trim();
  const checkState = useWorkspaceCheck(path);
  const ready = checkState.state === 'done' && checkState.check.ok;
  const existing = checkState.state === 'done' ? checkState.check.existing : [];
  const preset = draft.presetChoice ?? (checkState.state === 'done' ? checkState.check.preset : null);
  const { create, discard } = useCreateSession();

  const blocked = !ready ? 'Choose a workspace the check accepts first.' : draft.brief.trim() === '' ? 'Write the brief first.' : null;
  const submit = (alongside: boolean) => {
    if (blocked !== null || create.isPending) return;
    create.mutate({
      workspace: path,
      brief: draft.brief.trim(),
      ...(alongside ? { alongside: true } : {}),
      ...(preset !== null ? { checks_preset: preset } : {}),
    });
  };

  return (
    <section className="page new-session-page" data-testid="new-session-page">
      <p className="breadcrumb">
        <Link to={paths.sessions}>← Sessions</Link>
      </p>
      <div className="page-head">
        <h1>New session</h1>
      </div>
      {noInterviewer && <InterviewProviderNote />}
      <form
        className="panel form"
        onSubmit={(event) => {
          event.preventDefault();
          submit(false);
        }}
      >
        <WorkspaceField id={ids.workspace} value={draft.workspace} onChange={draft.setWorkspace} check={checkState} />

        <BriefField id={ids.brief} value={draft.brief} onChange={draft.setBrief} />

        <PresetField id={ids.preset} preset={preset} check={checkState} onChange={draft.setPresetChoice} />

        {existing.length > 0 && (
          <ExistingSessions
            sessions={existing}
            now={now}
            onDiscard={discard}
            onStartAlongside={() => submit(true)}
            alongsideBlocked={blocked}
            starting={create.isPending && create.variables.alongside === true}
          />
        )}

        {create.isError && <CreateError error={create.error} />}

        <div className="actions">
          <button type="submit" className="button" data-testid="create-session" disabled={blocked !== null || create.isPending} title={blocked ?? undefined}>
            {create.isPending ? 'Creating…' : 'Create session'}
          </button>
          <span className="muted small">Creates the branch and worktree, then starts the interview.</span>
        </div>
      </form>
    </section>
  );
}

/** Why the session was not created; a refusal about the provider links to where it is fixed. */
function CreateError({ error }: { error: Error }) {
  return (
    <div
      className="callout callout-error create-error"
      role="alert"
      data-testid="create-error"
      data-code={error instanceof ApiError ? error.code : ERROR_CODES.client_error}
    >
      {error instanceof ApiError && PROVIDER_HEADINGS[error.code] !== undefined && <h2>{PROVIDER_HEADINGS[error.code]}</h2>}
      <p className="create-error-message">{error.message}</p>
      {error instanceof ApiError && PROVIDER_CODES.has(error.code) && (
        <p className="actions">
          <Link to={paths.settingsThenBack(paths.newSession)} className="button button-secondary button-small" testId="create-error-settings-link">
            {error.code === ERROR_CODES.provider_not_configured ? 'Set up a provider' : 'Open the provider settings'}
          </Link>
          <span className="muted small">Your workspace and brief stay here while you do.</span>
        </p>
      )}
    </div>
  );
}
