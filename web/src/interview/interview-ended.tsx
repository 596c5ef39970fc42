import { useState } from 'react';
import type { StopReason } from '../../../shared/events.ts';
import { interviewEndedTitle } from './interview-state.ts';
import { Link } from '../router.tsx';
import { paths } from '../paths.ts';
import { DiscardConfirm } from '../components/discard-confirm.tsx';

export interface InterviewEndedActions {
  sessionId: string;
  retrying: boolean;
  retryError: { code: string; message: string } | null;
  onRetry: () => void;
  /** Resolves once the session is gone; rejects with the server's reason. */
  onDiscard: () => Promise<void>;
}

/**
 * A failed or stopped interview: why, in the provider's (or the server's) words, and the three
 * ways on — Retry the same session, fix the provider in Settings and come back, or Discard.
 */
export function InterviewEnded(props: { phase: 'failed' | 'stopped'; failure: string | null; stopReason: StopReason | null; actions: InterviewEndedActions }) {
  const { phase, failure, stopReason, actions } = props;
  const [discarding, setDiscarding] = useState(false);
  const provider = stopReason === 'provider_failure';
  return (
    <section
      className="panel interview-ended"
      data-testid={phase === 'failed' ? 'interview-failed' : 'interview-stopped'}
      data-reason={stopReason ?? ''}
      aria-labelledby="interview-ended-title"
    >
      <div role="alert">
        <h2 id="interview-ended-title">{interviewEndedTitle(phase, stopReason)}</h2>
        {failure !== null && (
          <p className="interview-reason" data-testid="interview-reason">
            {failure}
          </p>
        )}
      </div>
      <p className="small interview-ended-advice">
        Nothing is lost: the brief, your answers and what the interviewer read are kept. <strong>Retry</strong> continues from there in this session
        {provider ? ' once the provider answers again (Tilth checks that first)' : ''}.
        {provider ? ' If the base URL, key or model needs changing, do it in the provider settings; they bring you back here.' : ''}
      </p>
      <div className="actions">
        <button type="button" className="button" data-testid="interview-retry" onClick={actions.onRetry} disabled={actions.retrying}>
          {actions.retrying ? 'Checking the provider…' : 'Retry'}
        </button>
        <Link to={paths.settingsThenBack(paths.session(actions.sessionId))} className="button button-secondary" testId="interview-settings-link">
          Provider settings
        </Link>
        <button
          type="button"
          className="button button-danger-outline"
          data-testid="interview-discard"
          onClick={() => setDiscarding(true)}
          disabled={discarding}
        >
          Discard…
        </button>
      </div>
      {actions.retryError !== null && (
        <p className="field-error interview-retry-error" role="alert" data-testid="interview-retry-error" data-code={actions.retryError.code}>
          {actions.retryError.message}
        </p>
      )}
      {discarding && <DiscardConfirm id={actions.sessionId} onCancel={() => setDiscarding(false)} onConfirm={actions.onDiscard} />}
    </section>
  );
}
