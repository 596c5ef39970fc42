import { useMutation } from '@tanstack/react-query';
import { seeding } from '../api/mutations.ts';
import { Link, navigate } from '../router.tsx';
import { paths } from '../paths.ts';

export function SessionsEmpty({ sessionsPath }: { sessionsPath: string | null }) {
  return (
    <div className="panel empty-state" data-testid="sessions-empty">
      <h2>No sessions yet</h2>
      <p>
        A session is Tilth building one feature in one git repository. You point Tilth at a repo and describe the feature; it asks you a few questions, writes a
        plan and tests, then codes on its own branch while you watch. Nothing reaches your branch until you review and merge it.
      </p>
      <p>
        Start one with <strong>New session</strong>: pick a repository and describe the feature (or name a spec file in it). This list then shows every session
        Tilth finds on disk and updates live.
      </p>
      <p className="empty-actions">
        <Link to={paths.newSession} className="button" testId="new-session-button">
          New session
        </Link>
        <TryDemo />
      </p>
      <p className="muted">
        No model provider yet? <strong>Try the demo</strong> runs the whole journey on a copy of a small example repository with a scripted model (not AI), or
        set a provider on the <Link to={paths.settings}>settings page</Link>.
      </p>
      <p className="muted" data-testid="sessions-path">
        Sessions are stored in {sessionsPath === null ? <span>the sessions folder</span> : <code>{sessionsPath}</code>}.
      </p>
    </div>
  );
}

/** Starts a demo session (scripted model, a copy of the bundled example) and opens it. */
export function TryDemo() {
  const demo = useMutation({ mutationFn: () => seeding.startDemo(), onSuccess: (session) => navigate(paths.session(session.id)) });
  return (
    <>
      <button type="button" className="button button-secondary" data-testid="try-demo" disabled={demo.isPending} onClick={() => demo.mutate()}>
        {demo.isPending ? 'Starting the demo…' : 'Try the demo'}
      </button>
      {demo.error && <span className="inline-error">The demo did not start: {demo.error.message}</span>}
    </>
  );
}
