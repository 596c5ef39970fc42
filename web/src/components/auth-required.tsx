import { FullPageMessage } from './full-page-message.tsx';

export type AuthRequiredReason = 'no_token' | 'stale_link' | 'expired';

const NOTES: Record<AuthRequiredReason, string | null> = {
  no_token: null,
  stale_link:
    'The link you opened is from an older launch of Tilth, so its token is no longer accepted. ' + 'Use the link from the most recent `tilth serve` output.',
  expired:
    'Tilth was restarted (or its token changed) while this tab was open, so this tab is no longer signed in. ' +
    'Your sessions are safe; open the new link to carry on.',
};

export function AuthRequired({ reason }: { reason: AuthRequiredReason }) {
  const note = NOTES[reason];
  return (
    <FullPageMessage testId="auth-required" reason={reason} title="Open the link printed in your terminal">
      {note !== null && (
        <p className="callout callout-warning" data-testid="auth-note">
          {note}
        </p>
      )}
      <p>
        When <code>tilth serve</code> starts it prints a link like <code>http://127.0.0.1:PORT/#token=…</code>. Open that exact link in this browser.
      </p>
      <p className="muted">
        Tilth only accepts that link. Its token is kept between launches (<code>tilth token --rotate</code> replaces it) and is swapped for a cookie, so other
        web pages you visit cannot reach your Tilth server, your repositories or your API keys.
      </p>
    </FullPageMessage>
  );
}
