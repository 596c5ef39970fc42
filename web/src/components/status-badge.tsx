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

/** A session's status; `needsYou` (a question waits for the user's answer) outranks it. */
export function StatusBadge({ status, needsYou = false }: { status: SessionStatus; needsYou?: boolean }) {
  if (needsYou) {
    return (
      <span className="badge status-needs-you" data-testid="status-badge" data-status="needs_you" title={`${LABELS[status]}: a question waits for your answer`}>
        needs you
      </span>
    );
  }
  return (
    <span className={`badge status-${status}`} data-testid="status-badge" data-status={status}>
      {LABELS[status]}
    </span>
  );
}
