/**
 * What the run view says and offers, from the session's status, its run state and its last stop.
 * Pure, so the wording and the choice of buttons are tested without a browser.
 */
import type { RunState } from '../../../shared/api.ts';
import type { SessionStatus, StopReason } from '../../../shared/events.ts';
import type { Caps, PrdEntry, Usage } from '../../../shared/files.ts';
import { formatCost } from '../format.ts';

export interface RunStatusInput {
  status: SessionStatus | null;
  run: RunState;
  lastStop: StopReason | null;
  /** The server's sentence about the stop, when it has one. */
  lastError: string | null;
}

/** Said when a stop comes without the server's own sentence. */
const STOP_NOTES: Partial<Record<StopReason, string>> = {
  interrupted: 'you stopped it. Resume continues where it left off.',
  crash: 'the server stopped during the run. Resume continues where it left off.',
};

/** One line: "Running", "Queued (position 2)", "Stopped — iter_cap: T-001 failed: …". */
export function runHeadline(input: RunStatusInput): string {
  const { status, run, lastStop, lastError } = input;
  if (run.state === 'queued') {
    const place = run.queue_position === null ? '' : ` (position ${run.queue_position})`;
    return `Queued${place} — it starts when a run slot is free`;
  }
  if (run.state === 'running' || status === 'running') return 'Running';
  switch (status) {
    case 'stopped': {
      if (lastStop === null) return lastError === null ? 'Stopped' : `Stopped: ${lastError}`;
      const why = lastError ?? STOP_NOTES[lastStop];
      return why === undefined ? `Stopped — ${lastStop}` : `Stopped — ${lastStop}: ${why}`;
    }
    case 'all_done':
      return 'All tasks done';
    case 'prepared':
      return 'Prepared — not started yet';
    case 'merged':
      return 'Merged';
    case 'archived':
      return 'Archived';
    default:
      return status ?? 'Loading…';
  }
}

export interface RunControls {
  stop: boolean;
  resume: boolean;
  /** Guidance is read by the worker of a run ahead: before it, during it, or while paused. */
  notes: boolean;
}

const NOTE_STATUSES = new Set<SessionStatus>(['prepared', 'running', 'stopped']);

export function runControls(status: SessionStatus | null, run: RunState['state']): RunControls {
  const active = run !== 'idle' || status === 'running';
  return {
    stop: active,
    resume: !active && status === 'stopped',
    notes: status !== null && NOTE_STATUSES.has(status),
  };
}

/** "$0.02 of $5.00 · 7 model calls · 1,234 tokens": the run's spend, against the dollar cap. */
export function spendLine(usage: Usage, caps: Caps | null): string {
  const cap = caps !== null && caps.max_dollars > 0 ? ` of $${caps.max_dollars.toFixed(2)}` : '';
  const calls = `${usage.calls.toLocaleString('en-US')} model ${usage.calls === 1 ? 'call' : 'calls'}`;
  return `${formatCost(usage.cost_usd)}${cap} · ${calls} · ${usage.total_tokens.toLocaleString('en-US')} tokens`;
}

export type TaskShownStatus = PrdEntry['status'] | 'interrupted';

export const TASK_STATUS_LABELS: Record<TaskShownStatus, string> = {
  pending: 'pending',
  in_progress: 'in progress',
  interrupted: 'interrupted',
  done: 'done',
  failed: 'failed',
};

/**
 * The plan keeps `in_progress` on a task a stop cut short (resume starts it again), so with no run
 * going it shows as interrupted rather than claiming work is happening.
 */
export function taskShownStatus(status: PrdEntry['status'], runActive: boolean): TaskShownStatus {
  return status === 'in_progress' && !runActive ? 'interrupted' : status;
}

/** "1 of 3 done". */
export function taskProgress(tasks: readonly PrdEntry[]): string {
  const done = tasks.filter((t) => t.status === 'done').length;
  return `${done} of ${tasks.length} done`;
}
