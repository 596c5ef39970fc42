import { Link, paths } from '../router.tsx';

export function SessionsEmpty({ sessionsPath }: { sessionsPath: string | null }) {
  return (
    <div className="panel empty-state" data-testid="sessions-empty">
      <h2>No sessions yet</h2>
      <p>
        A session is Tilth building one feature in one git repository. You point Tilth at a repo and describe the
        feature; it asks you a few questions, writes a plan and tests, then codes on its own branch while you watch.
        Nothing reaches your branch until you review and merge it.
      </p>
      <p>
        Start one with <strong>New session</strong>: pick a repository and describe the feature (or name a spec file
        in it). This list then shows every session Tilth finds on disk and updates live.
      </p>
      <p>
        <Link to={paths.newSession} className="button" testId="new-session-button">
          New session
        </Link>
      </p>
      <p className="muted" data-testid="sessions-path">
        Sessions are stored in{' '}
        {sessionsPath === null ? <span>the sessions folder</span> : <code>{sessionsPath}</code>}.
      </p>
    </div>
  );
}
