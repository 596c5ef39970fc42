import { useQuery } from '@tanstack/react-query';
import { configQuery, sessionsQuery } from '../api/queries.ts';
import { ProviderBanner } from '../components/provider-banner.tsx';
import { Loading, QueryError } from '../components/query-status.tsx';
import { SessionsEmpty } from '../components/sessions-empty.tsx';
import { SessionsTable } from '../components/sessions-table.tsx';
import { Link, paths } from '../router.tsx';
import { useNow } from '../use-now.ts';

/** The list is kept live by `useLiveSessionsList` in the app shell (stream invalidations). */
export function SessionsPage() {
  const sessions = useQuery(sessionsQuery());
  const config = useQuery(configQuery());
  const now = useNow();

  return (
    <section className="page" data-testid="sessions-page">
      <div className="page-head">
        <h1>Sessions</h1>
        {sessions.data !== undefined && sessions.data.sessions.length > 0 && (
          <span className="muted" data-testid="sessions-count">
            {sessions.data.sessions.length} {sessions.data.sessions.length === 1 ? 'session' : 'sessions'}
          </span>
        )}
        <Link to={paths.newSession} className="button page-head-action" testId="new-session-button">
          New session
        </Link>
      </div>
      {config.data !== undefined && !config.data.provider_configured && (
        <ProviderBanner paths={config.data.paths} compact />
      )}
      {sessions.isPending ? (
        <Loading what="sessions" />
      ) : sessions.isError ? (
        <QueryError error={sessions.error} what="sessions" onRetry={() => void sessions.refetch()} />
      ) : sessions.data.sessions.length === 0 ? (
        <SessionsEmpty sessionsPath={config.data?.paths.sessions ?? null} />
      ) : (
        <SessionsTable sessions={sessions.data.sessions} now={now} />
      )}
    </section>
  );
}
