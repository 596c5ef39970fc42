import type { SessionStatus } from '../../../shared/events.ts';

const LABELS: Record<SessionStatus, string> = {
  interviewing: 'interviewing',
  prepared: 'prepared',
  running: 'running',
  stopped: 'stopped',
  failed: 'failed',
  all_done: 'all done',
  merged: 'merged',
  archived: 'archived',
};

export function StatusBadge({ status }: { status: SessionStatus }) {
  return (
    <span className={`badge status-${status}`} data-testid="status-badge" data-status={status}>
      {LABELS[status]}
    </span>
  );
}
