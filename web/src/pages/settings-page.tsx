import { useQuery } from '@tanstack/react-query';
import { configQuery } from '../api/queries.ts';
import { ConfigTable } from '../components/config-table.tsx';
import { ProviderBanner } from '../components/provider-banner.tsx';
import { Loading, QueryError } from '../components/query-status.tsx';

export function SettingsPage() {
  const config = useQuery(configQuery());
  return (
    <section className="page" data-testid="settings-page">
      <div className="page-head">
        <h1>Settings</h1>
      </div>
      {config.isPending ? (
        <Loading what="settings" />
      ) : config.isError ? (
        <QueryError error={config.error} what="settings" onRetry={() => void config.refetch()} />
      ) : (
        <>
          {!config.data.provider_configured && <ProviderBanner paths={config.data.paths} />}
          <p className="muted">
            Read-only for now. Each value shows where it came from: a command-line flag, the environment, the{' '}
            <code>.env</code> file (<code>{config.data.paths.dotenv}</code>), the config file (
            <code>{config.data.paths.config_file}</code>) or the default. API keys are masked and never sent to the
            browser in full.
          </p>
          <p data-testid="sandbox-status" data-available={config.data.sandbox.available}>
            <strong>Shell sandbox:</strong>{' '}
            {config.data.sandbox.available ? (
              'on (bubblewrap)'
            ) : (
              <span className="warning-text">off — {config.data.sandbox.detail}</span>
            )}
          </p>
          <ConfigTable entries={config.data.entries} />
        </>
      )}
    </section>
  );
}
