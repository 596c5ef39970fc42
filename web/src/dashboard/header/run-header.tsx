import type { EventData } from '../../../../shared/events.ts';
import { Link } from '../../router.tsx';
import { paths } from '../../paths.ts';
import { NotifyToggle } from './notify-toggle.tsx';
import { useClock } from '../state/timing.ts';
import { formatDuration, formatInt } from '../../../../shared/format.ts';

export interface Staff {
  worker: string | null;
  evaluator: string | null;
  interviewer: string | null;
}

/** The staff line's roles, in the order they are shown. */
const STAFF_ROLES = ['worker', 'evaluator', 'interviewer'] as const satisfies readonly (keyof Staff)[];

export interface RunHeaderProps {
  sessionId: string;
  headline: string;
  tone: string;
  /** Elapsed time of the run: a fixed figure, or counted from `since` while running. */
  elapsed: { fixedMs: number } | { since: number };
  staff: Staff;
  sandbox: EventData<'session_start'>['sandbox'] | null;
  /** The queue worker running it (`worker host:pid`), when runs go through a queue. */
  runner: string | null;
  eventCount: number;
  controls: { stop: boolean; resume: boolean };
  stopping: boolean;
  resuming: boolean;
  actionError: string | null;
  onStop: () => void;
  onResume: () => void;
  /** The server is not answering: Stop and Resume wait for it. */
  offline?: boolean;
}

function Elapsed({ elapsed }: { elapsed: RunHeaderProps['elapsed'] }) {
  // Ticks only while running; a finished run's figure is fixed.
  const now = useClock('since' in elapsed ? 1000 : 3_600_000);
  const ms = 'since' in elapsed ? now - elapsed.since : elapsed.fixedMs;
  return <span data-testid="run-elapsed">{formatDuration(ms)}</span>;
}

function sandboxWords(sandbox: RunHeaderProps['sandbox']): { text: string; on: boolean | null } {
  if (sandbox === null || sandbox === undefined) return { text: 'shell sandbox: not recorded for this run', on: null };
  if (!sandbox.available) return { text: `shell sandbox OFF: ${sandbox.detail} — the worker's commands run unconfined on this machine`, on: false };
  return { text: `shell sandboxed (bubblewrap), ${sandbox.network ? 'network allowed' : 'no network'}`, on: true };
}

export function RunHeader(props: RunHeaderProps) {
  const { staff } = props;
  const sandbox = sandboxWords(props.sandbox);
  return (
    <section className={`panel run-header tone-${props.tone}`} aria-label="Run" data-testid="run-header">
      <div className="run-header-main">
        <div className="run-header-text">
          <p className="run-headline" role="status" data-testid="run-headline" data-tone={props.tone}>
            {props.headline}
          </p>
          <p className="run-meta small">
            <span>
              run time <Elapsed elapsed={props.elapsed} />
            </span>
            <span data-testid="event-count" data-count={props.eventCount}>
              {formatInt(props.eventCount)} events
            </span>
            <Link to={paths.sessionReview(props.sessionId)} testId="review-link">
              Review the session →
            </Link>
          </p>
        </div>
        <div className="actions run-actions">
          {props.controls.stop && (
            <button
              type="button"
              className="button button-danger-outline"
              data-testid="stop-button"
              onClick={props.onStop}
              disabled={props.stopping || props.offline === true}
              title={props.offline === true ? 'The server is not answering; Stop works again once it is back.' : undefined}
            >
              {props.stopping ? 'Stopping…' : 'Stop'}
            </button>
          )}
          {props.controls.resume && (
            <button type="button" className="button" data-testid="resume-button" onClick={props.onResume} disabled={props.resuming || props.offline === true}>
              {props.resuming ? 'Resuming…' : 'Resume…'}
            </button>
          )}
          <NotifyToggle />
        </div>
      </div>
      <div className="run-facts">
        <dl className="staff small" data-testid="staff">
          {STAFF_ROLES.map((role) => (
            <div key={role}>
              <dt>{role}</dt>
              <dd className="mono" data-testid={`staff-${role}`}>
                {staff[role] ?? '—'}
              </dd>
            </div>
          ))}
        </dl>
        <p
          className={`sandbox small sandbox-${sandbox.on === null ? 'unknown' : sandbox.on ? 'on' : 'off'}`}
          data-testid="sandbox"
          data-on={String(sandbox.on)}
        >
          {sandbox.text}
        </p>
        {props.runner !== null && (
          <p className="small" data-testid="runner">
            runs on <span className="mono">{props.runner}</span>
          </p>
        )}
      </div>
      {props.actionError !== null && (
        <div className="callout callout-error" role="alert" data-testid="run-action-error">
          {props.actionError}
        </div>
      )}
    </section>
  );
}
