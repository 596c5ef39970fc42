import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { configQuery, sessionsQuery } from '../api/queries.ts';
import { ProviderBanner } from '../settings/provider-banner.tsx';
import { Loading, QueryError } from '../components/query-status.tsx';
import { SessionsEmpty } from './sessions-empty.tsx';
import { SessionsFilterBar } from './sessions-filter-bar.tsx';
import { SessionsTable } from './sessions-table.tsx';
import { Link } from '../router.tsx';
import { paths } from '../paths.ts';
import { DEFAULT_FILTER, filterSessions } from './session-filter.ts';
import { useNow } from '../use-now.ts';
import './sessions.css';

/** The list is kept live by `useLiveSessionsList` in the app shell (stream invalidations). */
export function SessionsPage() {
  const sessions = useQuery(sessionsQuery());
  const config = useQuery(configQuery());
  const now = useNow();
  const [filter, setFilter] = useState(DEFAULT_FILTER);
  const shown = sessions.data === undefined ? [] : filterSessions(sessions.data.sessions, filter);

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
      {config.data !== undefined && !config.data.provider_configured && <ProviderBanner paths={config.data.paths} compact />}
      {sessions.isPending ? (
        <Loading what="sessions" />
      ) : sessions.isError ? (
        <QueryError error={sessions.error} what="sessions" onRetry={() => void sessions.refetch()} />
      ) : sessions.data.sessions.length === 0 ? (
        <SessionsEmpty sessionsPath={config.data?.paths.sessions ?? null} />
      ) : (
        <>
          <SessionsFilterBar sessions={sessions.data.sessions} filter={filter} onChange={setFilter} />
          {shown.length === 0 ? (
            <p className="muted" data-testid="sessions-none-shown">
              No sessions match this filter.{' '}
              <button type="button" className="button button-plain button-small" onClick={() => setFilter(DEFAULT_FILTER)}>
                Show all
              </button>
            </p>
          ) : (
            <SessionsTable sessions={shown} now={now} />
          )}
        </>
      )}
    </section>
  );
}
