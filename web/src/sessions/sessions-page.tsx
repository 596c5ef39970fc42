import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { configQuery, sessionsQuery } from '../api/queries.ts';
import { ProviderBanner } from '../settings/provider-banner.tsx';
import { Loading, QueryError } from '../components/query-status.tsx';
import { SessionsEmpty, TryDemo } from './sessions-empty.tsx';
import { SessionsFilterBar } from './sessions-filter-bar.tsx';
import { SessionsTable } from './sessions-table.tsx';
import { Link } from '../router.tsx';
import { paths } from '../paths.ts';
import { countLine, DEFAULT_FILTER, filterSessions, hiddenLine, SHOW_EVERYTHING, sortSessions } from './session-filter.ts';
import { useNow } from '../use-now.ts';
import './sessions.css';

/** The list is kept live by `useLiveSessionsList` in the app shell (stream invalidations). */
export function SessionsPage() {
  const sessions = useQuery(sessionsQuery());
  const config = useQuery(configQuery());
  const now = useNow();
  const [filter, setFilter] = useState(DEFAULT_FILTER);
  const all = sessions.data?.sessions ?? [];
  const shown = sortSessions(filterSessions(all, filter));

  return (
    <section className="page" data-testid="sessions-page">
      <div className="page-head sessions-head">
        <h1>Sessions</h1>
        {all.length > 0 && (
          <span className="muted" data-testid="sessions-count">
            {countLine(all.length, shown.length)}
          </span>
        )}
        <div className="page-head-action sessions-head-actions">
          {/* The empty list offers the demo in its own text; once sessions exist it stays here. */}
          {all.length > 0 && <TryDemo />}
          <Link to={paths.newSession} className="button" testId="new-session-button">
            New session
          </Link>
        </div>
      </div>
      {config.data !== undefined && !config.data.provider_configured && <ProviderBanner paths={config.data.paths} compact />}
      {sessions.isPending ? (
        <Loading what="sessions" />
      ) : sessions.isError ? (
        <QueryError error={sessions.error} what="sessions" onRetry={() => void sessions.refetch()} />
      ) : all.length === 0 ? (
        <SessionsEmpty sessionsPath={config.data?.paths.sessions ?? null} />
      ) : (
        <>
          <SessionsFilterBar sessions={all} filter={filter} onChange={setFilter} />
          {shown.length === 0 ? (
            <div className="panel sessions-none-shown" data-testid="sessions-none-shown">
              <p>
                No session matches this filter. <span data-testid="sessions-hidden-line">{hiddenLine(all, filter)}</span>
              </p>
              <button type="button" className="button button-secondary button-small" data-testid="sessions-show-all" onClick={() => setFilter(SHOW_EVERYTHING)}>
                Show all sessions ({all.length})
              </button>
            </div>
          ) : (
            <SessionsTable sessions={shown} now={now} />
          )}
        </>
      )}
    </section>
  );
}
