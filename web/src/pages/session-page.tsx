import { useQuery } from '@tanstack/react-query';
import { sessionsQuery } from '../api/queries.ts';
import { EventList } from '../components/event-list.tsx';
import { StatusBadge } from '../components/status-badge.tsx';
import { sessionLabel } from '../format.ts';
import { Link, paths } from '../router.tsx';
import { useSessionEvents } from '../stream/hooks.ts';

/** Minimal for now: the session's live event stream. The dashboard grows from here. */
export function SessionPage({ sessionId }: { sessionId: string }) {
  const stream = useSessionEvents(sessionId);
  const summary = useQuery({
    ...sessionsQuery(),
    select: (data) => data.sessions.find((s) => s.id === sessionId) ?? null,
  });
  const { view } = stream;
  const status = view.status ?? summary.data?.status ?? null;

  return (
    <section className="page" data-testid="session-page" data-session-id={sessionId}>
      <p className="breadcrumb">
        <Link to={paths.sessions}>← Sessions</Link>
      </p>
      <div className="page-head">
        <h1>{summary.data ? sessionLabel(summary.data) : 'Session'}</h1>
        {status !== null && <StatusBadge status={status} />}
      </div>
      <p className="muted mono small">{sessionId}</p>

      {stream.error !== null && (
        <div className="callout callout-error" role="alert" data-testid="session-stream-error" data-code={stream.error.code}>
          {stream.error.message}
        </div>
      )}

      <div className="stream-bar">
        <span data-testid="session-stream-status" data-caught-up={String(stream.caughtUp)}>
          {stream.caughtUp ? 'Following live' : 'Loading history…'}
        </span>
        <span className="muted" data-testid="event-count" data-count={view.lastSeq}>
          {view.lastSeq} {view.lastSeq === 1 ? 'event' : 'events'}
        </span>
      </div>

      {view.lastSeq === 0 && stream.caughtUp ? (
        <p className="muted" data-testid="event-list-empty">
          No events yet.
        </p>
      ) : (
        <EventList events={view.recent} total={view.lastSeq} />
      )}
    </section>
  );
}
