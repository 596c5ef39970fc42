import { useState } from 'react';
import type { SessionListItem } from '../../../shared/api.ts';
import { Link } from '../router.tsx';
import { paths } from '../paths.ts';
import { DiscardConfirm } from '../components/discard-confirm.tsx';
import { StatusBadge } from '../components/status-badge.tsx';
import { formatAge, sessionLabel } from '../../../shared/format.ts';

export interface ExistingSessionsProps {
  sessions: readonly SessionListItem[];
  now: number;
  /** Resolves when the session is gone; a rejection's message is shown beside it. */
  onDiscard: (id: string) => Promise<void>;
  onStartAlongside: () => void;
  /** Why "start alongside" cannot be pressed yet (e.g. no brief), or null when it can. */
  alongsideBlocked: string | null;
  starting: boolean;
}

/** The repo already has open sessions: open one, discard it, or start a new one alongside. */
export function ExistingSessions(props: ExistingSessionsProps) {
  const { sessions, now } = props;
  const n = sessions.length;
  return (
    <section className="panel existing-sessions" data-testid="existing-sessions" aria-label="Open sessions on this repository">
      <h2>This repository already has {n === 1 ? 'an open session' : `${n} open sessions`}</h2>
      <p className="muted">Open it to carry on, discard it, or start a new session alongside (each session works on its own branch and worktree).</p>
      <ul className="existing-list">
        {sessions.map((session) => (
          <ExistingSessionItem key={session.id} session={session} now={now} onDiscard={props.onDiscard} />
        ))}
      </ul>
      <div className="actions">
        <button
          type="button"
          className="button button-secondary"
          data-testid="start-alongside"
          disabled={props.alongsideBlocked !== null || props.starting}
          title={props.alongsideBlocked ?? undefined}
          onClick={props.onStartAlongside}
        >
          {props.starting ? 'Starting…' : 'Start alongside'}
        </button>
        {props.alongsideBlocked !== null && <span className="muted small">{props.alongsideBlocked}</span>}
      </div>
    </section>
  );
}

function ExistingSessionItem(props: { session: SessionListItem; now: number; onDiscard: (id: string) => Promise<void> }) {
  const { session } = props;
  const [confirming, setConfirming] = useState(false);
  return (
    <li className="existing-item" data-session-id={session.id}>
      <div className="existing-head">
        <div>
          <strong>{sessionLabel(session)}</strong> <StatusBadge status={session.status} needsYou={session.needs_you} />
          <div className="mono small muted">
            {session.id} · {formatAge(session.created_at, props.now)}
          </div>
        </div>
        <div className="actions">
          <Link to={paths.session(session.id)} className="button button-secondary" testId="open-existing">
            Open
          </Link>
          <button
            type="button"
            className="button button-danger-outline"
            data-testid="discard-existing"
            aria-expanded={confirming}
            onClick={() => setConfirming((c) => !c)}
          >
            Discard…
          </button>
        </div>
      </div>
      {confirming && <DiscardConfirm id={session.id} onCancel={() => setConfirming(false)} onConfirm={() => props.onDiscard(session.id)} />}
    </li>
  );
}
