import type { ConnectionState } from '../stream/stream-client.ts';
import './connection-indicator.css';

const LABELS: Record<ConnectionState, { label: string; title: string }> = {
  connecting: { label: 'Connecting…', title: 'Opening the live connection to the Tilth server.' },
  open: { label: 'Live', title: 'Connected: sessions update as they happen.' },
  reconnecting: { label: 'Reconnecting…', title: 'The connection dropped; retrying. Nothing is lost.' },
  offline: {
    label: 'Offline',
    title: 'The Tilth server is not reachable. Still retrying; updates resume where they left off.',
  },
};

export function ConnectionIndicator({ state }: { state: ConnectionState }) {
  const { label, title } = LABELS[state];
  return (
    <span className={`connection connection-${state}`} data-testid="connection-indicator" data-state={state} title={title} role="status" aria-live="polite">
      <span className="connection-dot" aria-hidden="true" />
      <span className="connection-label">{label}</span>
    </span>
  );
}
