import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { ConfigResponse, ConfigUpdate, ModelRole } from '../../../shared/api.ts';
import { ApiError } from '../api/client.ts';
import { settings } from '../api/mutations.ts';
import { configQuery, contextWindowsQuery, queryKeys } from '../api/queries.ts';
import { ConfigTable } from './config-table.tsx';
import { ConnectionTests, type TestState } from './connection-tests.tsx';
import { ProviderBanner } from './provider-banner.tsx';
import { Loading, QueryError } from '../components/query-status.tsx';
import { CapsSection, ModelFactsSection, OverridesSection, ProviderSection, type SectionProps } from './settings-sections.tsx';
import type { SaveState } from './settings-form.tsx';
import { Link, useSearch } from '../router.tsx';
import { backTarget, type Route } from '../paths.ts';
import { EMPTY_DRAFT, isDirty, sectionUpdate, withoutSection, type SectionName, type SettingsDraft } from './settings-draft.ts';
import './settings.css';
import { formatDuration } from '../../../shared/format.ts';

/** Where "back" goes, in words: the page that sent the user here to fix the provider. */
function backLabel(route: Route): string {
  switch (route.name) {
    case 'new-session':
      return 'the new session — your brief is kept';
    case 'session':
      return 'the session';
    case 'session-review':
    case 'task-review':
      return 'the review';
    default:
      return 'where you were';
  }
}

export function SettingsPage() {
  const config = useQuery(configQuery());
  const back = backTarget(useSearch());
  return (
    <section className="page settings-page" data-testid="settings-page">
      {back !== null && (
        <p className="breadcrumb">
          <Link to={back.to} testId="settings-back">
            ← Back to {backLabel(back.route)}
          </Link>
        </p>
      )}
      <div className="page-head">
        <h1>Settings</h1>
      </div>
      {config.isPending ? (
        <Loading what="settings" />
      ) : config.isError ? (
        <QueryError error={config.error} what="settings" onRetry={() => void config.refetch()} />
      ) : (
        <SettingsEditor config={config.data} />
      )}
    </section>
  );
}

function SettingsEditor({ config }: { config: ConfigResponse }) {
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<SettingsDraft>(EMPTY_DRAFT);
  const [tests, setTests] = useState<Partial<Record<ModelRole, TestState>>>({});
  const windows = useQuery({ ...contextWindowsQuery(), enabled: config.provider_configured });

  const save = useMutation({
    mutationFn: (input: { section: SectionName; update: ConfigUpdate }) => settings.saveConfig(input.update),
    onSuccess: (next, { section }) => {
      queryClient.setQueryData(queryKeys.config, next);
      setDraft((d) => withoutSection(d, section));
      setTests({}); // they tested the endpoints as they were
      void queryClient.invalidateQueries({ queryKey: queryKeys.contextWindows });
    },
  });

  // Each problem the server tied to a field is shown at that field; the form says only how many.
  const fieldErrors = save.error instanceof ApiError ? save.error.fields : {};

  const saveState = (section: SectionName): SaveState => {
    if (save.variables?.section !== section) return { state: 'idle' };
    if (save.isPending) return { state: 'saving' };
    if (save.isError) return { state: 'error', message: save.error.message, fields: Object.keys(fieldErrors).length, at: save.submittedAt };
    if (save.isSuccess && !isDirty(config.entries, draft, section)) return { state: 'saved' };
    return { state: 'idle' };
  };

  const test = async (role: ModelRole) => {
    setTests((t) => ({ ...t, [role]: { state: 'testing' } }));
    try {
      const result = await settings.testConnection(role);
      setTests((t) => ({ ...t, [role]: { state: 'done', ok: result.ok, detail: result.detail } }));
    } catch (err) {
      setTests((t) => ({ ...t, [role]: { state: 'done', ok: false, detail: err instanceof Error ? err.message : String(err) } }));
    }
  };

  const sectionProps: SectionProps = {
    entries: config.entries,
    draft,
    onDraft: setDraft,
    save: saveState,
    onSave: (section) => save.mutate({ section, update: sectionUpdate(config.entries, draft, section) }),
    configFile: config.paths.config_file,
    errors: fieldErrors,
  };
  const unsaved = (['provider', 'overrides'] as const).some((s) => isDirty(config.entries, draft, s));

  return (
    <>
      {!config.provider_configured && <ProviderBanner paths={config.paths} />}
      <p className="muted settings-lead">
        Saving writes <code data-testid="config-file">{config.paths.config_file}</code> (readable only by you). A value set by a command-line flag, the
        environment or <code>{config.paths.dotenv}</code> wins over that file; each field says where its value comes from. API keys go in and never come back:
        the page only knows whether one is set.
      </p>
      <p data-testid="sandbox-status" data-available={config.sandbox.available}>
        <strong>Shell sandbox:</strong> {config.sandbox.available ? 'on (bubblewrap)' : <span className="warning-text">off — {config.sandbox.detail}</span>}
      </p>
      <QueueStatus queue={config.queue} />
      {config.warnings.length > 0 && (
        <div className="callout callout-warning settings-lead" data-testid="config-warnings" role="note">
          {config.warnings.map((warning) => (
            <p key={warning}>{warning}</p>
          ))}
        </div>
      )}
      <div className="settings-grid">
        <ProviderSection {...sectionProps} />
        <ConnectionTests roles={config.roles} results={tests} unsaved={unsaved} onTest={(role) => void test(role)} />
        <OverridesSection {...sectionProps} />
        <ModelFactsSection {...sectionProps} roles={config.roles} windows={windows} />
        <CapsSection {...sectionProps} />
      </div>
      <h2 className="settings-all-title">Everything Tilth reads</h2>
      <p className="muted">Including what only the environment, .env or a hand-edited config.json sets; those take effect at the next start.</p>
      <ConfigTable entries={config.entries} />
    </>
  );
}

/** Where runs execute: in this server, or on the queue's workers (TILTH_QUEUE; set at launch). */
function QueueStatus({ queue }: { queue: ConfigResponse['queue'] }) {
  if (queue === null) {
    return (
      <p data-testid="queue-status" data-mode="local">
        <strong>Runs:</strong> inside this server, waiting runs kept in memory. Set <code>TILTH_QUEUE</code> to a Redis URL to run them on{' '}
        <code>tilth worker</code> processes that outlive a restart.
      </p>
    );
  }
  const { workers } = queue;
  return (
    <div data-testid="queue-status" data-mode="queue" data-workers={workers.length}>
      <p>
        <strong>Runs:</strong> through the queue at <code>{queue.url}</code>;{' '}
        {queue.problem !== null ? (
          <span className="warning-text">its workers could not be listed: {queue.problem}</span>
        ) : workers.length === 0 ? (
          <span className="warning-text">no worker is connected, so queued runs wait: start one with tilth worker.</span>
        ) : (
          `${workers.length} worker${workers.length === 1 ? '' : 's'} connected:`
        )}
      </p>
      {workers.length > 0 && (
        <ul className="small" data-testid="queue-workers">
          {workers.map((w) => (
            <li key={w.name}>
              <span className="mono">{w.name}</span>, connected {formatDuration(w.connected_s * 1000)}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
