import type { ReactNode } from 'react';
import type { ActionError } from './use-review-actions.ts';

/** The actions that open a yes/no confirmation before they run. */
export type AskAction = 'push' | 'pr' | 'cleanse';

/** Opens the action's confirmation; disabled while the server says no or while it runs. */
export function AskButton(props: { action: AskAction; label: string; allowed: boolean; pending: boolean; onAsk: (action: AskAction) => void }) {
  return (
    <button
      type="button"
      className="button button-secondary"
      data-testid={`action-${props.action}`}
      disabled={!props.allowed || props.pending}
      onClick={() => props.onAsk(props.action)}
    >
      {props.label}
    </button>
  );
}

/** One action of the review: what it does, why not now, how it went, and its button. */
export function ActionRow(props: {
  name: string;
  title: string;
  hint: string;
  allowed: boolean;
  reason: string | null;
  button: ReactNode;
  pending?: string | null;
  error?: ActionError | null;
  result?: ReactNode;
}) {
  return (
    <div className="action-row" data-testid={`action-row-${props.name}`} data-allowed={props.allowed}>
      <div className="action-text">
        <h3>{props.title}</h3>
        <p className="muted small">{props.hint}</p>
        {!props.allowed && props.reason !== null && (
          <p className="action-reason small" data-testid={`action-${props.name}-reason`}>
            Not now: {props.reason}.
          </p>
        )}
        {props.pending != null && (
          <p className="action-pending small" role="status">
            <span className="spinner" aria-hidden="true" /> {props.pending}
          </p>
        )}
        {props.error != null && (
          <p className="field-error" role="alert" data-testid="action-error" data-action={props.name} data-code={props.error.code}>
            {props.error.message}
          </p>
        )}
        {props.result}
      </div>
      <div className="action-button">{props.button}</div>
    </div>
  );
}
