import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { ERROR_CODES } from '../../../shared/errors.ts';
import type { ChecksPreset } from '../../../shared/seed.ts';
import { ApiError } from '../api/client.ts';
import { seeding, type CreateSessionInput } from '../api/mutations.ts';
import { configQuery, queryKeys, workspaceCheckQuery } from '../api/queries.ts';
import { ExistingSessions } from './existing-sessions.tsx';
import { InterviewProviderNote } from '../settings/provider-banner.tsx';
import { WorkspaceCheckView, type WorkspaceCheckState } from './workspace-check-view.tsx';
import { clearDraft, loadDraft, saveDraft, shownWorkspace, tabStorage } from './draft.ts';
import { PRESET_ORDER, presetLabel, presetOrigin } from '../seed/presets.ts';
import { Link, navigate } from '../router.tsx';
import { paths } from '../paths.ts';
import { useDebouncedValue } from '../use-debounced-value.ts';
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
  const queryClient = useQueryClient();
  const now = useNow();
  const config = useQuery(configQuery());
  const noInterviewer = config.data !== undefined && !config.data.roles.prep.configured;
  const ids = { workspace: useId(), brief: useId(), preset: useId() };
  // What was typed before the user left (for the settings page, say) comes back with the form.
  const [initial] = useState(() => loadDraft(tabStorage()));
  // null until the user types: the field then shows the repository `tilth serve` was started in.
  const [typedWorkspace, setWorkspace] = useState(initial.workspace);
  const workspace = shownWorkspace(typedWorkspace, config.data?.default_workspace);
  const [brief, setBrief] = useState(initial.brief);
  const [presetChoice, setPresetChoice] = useState<ChecksPreset | null>(initial.checks_preset);
  useEffect(() => saveDraft(tabStorage(), { workspace: typedWorkspace, brief, checks_preset: presetChoice }), [typedWorkspace, brief, presetChoice]);

  const path = workspace.trim();
  const settledPath = useDebouncedValue(path, 300);
  const check = useQuery({ ...workspaceCheckQuery(settledPath), enabled: settledPath !== '' });
  const checkState: WorkspaceCheckState =
    path === ''
      ? { state: 'idle' }
      : path !== settledPath || check.isPending
        ? { state: 'checking' }
        : check.isError
          ? { state: 'error', message: check.error.message }
          : { state: 'done', check: check.data };
  const ready = checkState.state === 'done' && checkState.check.ok;
  const existing = checkState.state === 'done' ? checkState.check.existing : [];
  const preset = presetChoice ?? (checkState.state === 'done' ? checkState.check.preset : null);
  const env = checkState.state === 'done' ? checkState.check.env : null;

  const create = useMutation({
    mutationFn: (input: CreateSessionInput) => seeding.createSession(input),
    onSuccess: (session) => {
      clearDraft(tabStorage());
      void queryClient.invalidateQueries({ queryKey: queryKeys.sessions });
      navigate(paths.session(session.id));
    },
    onError: (error) => {
      // The check may be older than the other session: ask again so the choices appear.
      if (error instanceof ApiError && error.code === ERROR_CODES.workspace_has_sessions) {
        void queryClient.invalidateQueries({ queryKey: queryKeys.workspaceChecks });
      }
    },
  });

  const blocked = !ready ? 'Choose a workspace the check accepts first.' : brief.trim() === '' ? 'Write the brief first.' : null;
  const submit = (alongside: boolean) => {
    if (blocked !== null || create.isPending) return;
    create.mutate({
      workspace: path,
      brief: brief.trim(),
      ...(alongside ? { alongside: true } : {}),
      ...(preset !== null ? { checks_preset: preset } : {}),
    });
  };

  const discard = async (id: string) => {
    await seeding.discardSession(id);
    create.reset();
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: queryKeys.workspaceChecks }),
      queryClient.invalidateQueries({ queryKey: queryKeys.sessions }),
    ]);
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
        <div className="field">
          <label className="field-label" htmlFor={ids.workspace}>
            Workspace
          </label>
          <input
            id={ids.workspace}
            className="input mono"
            data-testid="workspace-input"
            value={workspace}
            onChange={(event) => setWorkspace(event.target.value)}
            placeholder="/home/you/code/my-repo"
            autoComplete="off"
            spellCheck={false}
            // biome-ignore lint/a11y/noAutofocus: the repository path is the first thing this page asks, and the page opens on request
            autoFocus
          />
          <WorkspaceCheckView check={checkState} />
        </div>

        <div className="field">
          <label className="field-label" htmlFor={ids.brief}>
            Brief
          </label>
          <textarea
            id={ids.brief}
            className="input textarea"
            data-testid="brief-input"
            value={brief}
            onChange={(event) => setBrief(event.target.value)}
            rows={6}
            placeholder="What should the feature do, for whom, and why?"
          />
          <p className="field-hint muted">
            A few sentences are enough: the interviewer reads the code and asks about the rest, one question at a time. If a spec already exists, name the file
            (e.g. <code>docs/export-spec.md</code>): the interview reads it first and only asks about what it leaves open.
          </p>
        </div>

        <div className="field">
          <label className="field-label" htmlFor={ids.preset}>
            Checks
          </label>
          <select
            id={ids.preset}
            className="input select"
            data-testid="preset-select"
            value={preset ?? ''}
            onChange={(event) => setPresetChoice(event.target.value === '' ? null : (event.target.value as ChecksPreset))}
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
            {checkState.state === 'done' && checkState.check.preset !== null && <> {presetOrigin(checkState.check.preset, checkState.check.env)}</>}
          </p>
        </div>

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

        {create.isError && (
          <div
            className="callout callout-error create-error"
            role="alert"
            data-testid="create-error"
            data-code={create.error instanceof ApiError ? create.error.code : ERROR_CODES.client_error}
          >
            {create.error instanceof ApiError && PROVIDER_HEADINGS[create.error.code] !== undefined && <h2>{PROVIDER_HEADINGS[create.error.code]}</h2>}
            <p className="create-error-message">{create.error.message}</p>
            {create.error instanceof ApiError && PROVIDER_CODES.has(create.error.code) && (
              <p className="actions">
                <Link to={paths.settingsThenBack(paths.newSession)} className="button button-secondary button-small" testId="create-error-settings-link">
                  {create.error.code === ERROR_CODES.provider_not_configured ? 'Set up a provider' : 'Open the provider settings'}
                </Link>
                <span className="muted small">Your workspace and brief stay here while you do.</span>
              </p>
            )}
          </div>
        )}

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
