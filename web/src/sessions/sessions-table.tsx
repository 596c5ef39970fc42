import type { SessionListItem } from '../../../shared/api.ts';
import { Link } from '../router.tsx';
import { paths } from '../paths.ts';
import { offersReview } from './session-filter.ts';
import { sessionStopLine } from './session-stop.ts';
import { StatusBadge } from '../components/status-badge.tsx';
import { baseName, formatAge, formatUsd, sessionLabel } from '../../../shared/format.ts';
import { ScrollRegion } from '../components/scroll-region.tsx';

export function SessionsTable({ sessions, now }: { sessions: readonly SessionListItem[]; now: number }) {
  return (
    <ScrollRegion className="table-wrap" label="Sessions">
      <table className="table sessions-table" data-testid="sessions-list">
        <thead>
          <tr>
            <th scope="col">Feature</th>
            <th scope="col">Status</th>
            <th scope="col">Repository</th>
            <th scope="col" className="num">
              Tasks
            </th>
            <th scope="col" className="num">
              Cost
            </th>
            <th scope="col" className="num">
              Age
            </th>
          </tr>
        </thead>
        <tbody>
          {sessions.map((session) => (
            <SessionRow key={session.id} session={session} now={now} />
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}

function SessionRow({ session, now }: { session: SessionListItem; now: number }) {
  const { done, total } = session.tasks;
  const label = sessionLabel(session);
  const stop = sessionStopLine(session);
  return (
    <tr data-testid="session-row" data-session-id={session.id} data-status={session.status} data-needs-you={session.needs_you}>
      <td className="session-feature">
        <Link to={paths.session(session.id)} className="session-title" testId="session-title">
          <span className={label === 'untitled' ? 'muted' : undefined}>{label}</span>
        </Link>
        <div className="session-id mono" data-testid="session-id">
          {session.id}
        </div>
        {session.problem !== null && (
          <div className="session-problem" data-testid="session-problem" role="note">
            {session.problem}
          </div>
        )}
      </td>
      <td data-label="Status">
        <StatusBadge status={session.status} needsYou={session.needs_you} />
        {session.needs_you && (
          <div>
            <Link to={paths.session(session.id)} className="session-review-link small" testId="session-answer-link">
              Answer →
            </Link>
          </div>
        )}
        {offersReview(session.status) && (
          <div>
            <Link to={paths.sessionReview(session.id)} className="session-review-link small" testId="session-review-link">
              Review →
            </Link>
          </div>
        )}
        {stop !== null && (
          <div className="small session-last-stop" data-testid="session-last-stop" data-reason={session.last_stop}>
            <span>{stop.text}</span>
            {stop.detail !== null && (
              <span className="session-stop-detail" data-testid="session-stop-detail" title={stop.detail}>
                {stop.detail}
              </span>
            )}
          </div>
        )}
      </td>
      <td className="mono small" title={session.source} data-testid="session-source" data-label="Repository">
        {baseName(session.source)}
      </td>
      <td className="num" data-testid="session-tasks" data-done={done} data-total={total} data-label="Tasks">
        <span>
          {done}/{total}
        </span>
        <progress className="task-progress" max={Math.max(total, 1)} value={done} aria-label={`${done} of ${total} tasks done`} />
      </td>
      <td className="num" data-testid="session-cost" data-label="Cost">
        {formatUsd(session.cost_usd)}
      </td>
      <td className="num" title={`created ${session.created_at}, updated ${session.updated_at}`} data-testid="session-age" data-label="Age">
        {formatAge(session.created_at, now)}
      </td>
    </tr>
  );
}
