import type { SessionStatus } from '../../../shared/events.ts';
import { hiddenArchived, statusCounts, type SessionFilter } from './session-filter.ts';

const STATUS_ORDER: SessionStatus[] = ['interviewing', 'prepared', 'running', 'stopped', 'failed', 'all_done', 'merged', 'archived'];

/** Status filter and the archived toggle above the sessions list. */
export function SessionsFilterBar(props: { sessions: readonly { status: SessionStatus }[]; filter: SessionFilter; onChange: (filter: SessionFilter) => void }) {
  const { sessions, filter, onChange } = props;
  const counts = statusCounts(sessions);
  const archived = counts.get('archived') ?? 0;
  const hidden = hiddenArchived(sessions, filter);
  return (
    <search className="sessions-filter" aria-label="Filter sessions">
      <label className="inline-field">
        <span className="small muted">Status</span>
        <select
          className="input select-small"
          value={filter.status}
          data-testid="sessions-status-filter"
          onChange={(e) => onChange({ ...filter, status: e.target.value as SessionFilter['status'] })}
        >
          <option value="all">All ({filter.showArchived ? sessions.length : sessions.length - archived})</option>
          {STATUS_ORDER.filter((s) => counts.has(s) || s === filter.status).map((s) => (
            <option key={s} value={s}>
              {s.replace('_', ' ')} ({counts.get(s) ?? 0})
            </option>
          ))}
        </select>
      </label>
      <label className="inline-field sessions-archived-toggle">
        <input
          type="checkbox"
          checked={filter.showArchived}
          data-testid="sessions-show-archived"
          disabled={filter.status !== 'all'}
          onChange={(e) => onChange({ ...filter, showArchived: e.target.checked })}
        />
        <span className="small">Show archived ({archived})</span>
      </label>
      {hidden > 0 && (
        <span className="small muted" data-testid="sessions-archived-hidden">
          {hidden} archived {hidden === 1 ? 'session' : 'sessions'} hidden
        </span>
      )}
    </search>
  );
}
