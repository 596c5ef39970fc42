import { Link } from '../router.tsx';
import { paths, type Route } from '../paths.ts';
import type { ConnectionState } from '../stream/stream-client.ts';
import { ConnectionIndicator } from './connection-indicator.tsx';
import { ThemePicker } from './theme-picker.tsx';

export function AppHeader({ route, connection }: { route: Route; connection: ConnectionState }) {
  const inSessions =
    route.name === 'sessions' || route.name === 'session' || route.name === 'session-review' || route.name === 'task-review' || route.name === 'new-session';
  const inSettings = route.name === 'settings';
  return (
    <header className="app-header">
      {/* The first thing Tab reaches: past the header to the page itself. */}
      <a href="#main" className="skip-link" data-testid="skip-link">
        Skip to content
      </a>
      <div className="app-header-inner">
        <Link to={paths.sessions} className="brand">
          Tilth
        </Link>
        <nav className="nav" aria-label="Main">
          <Link to={paths.sessions} className="nav-link" current={inSessions} testId="nav-sessions">
            Sessions
          </Link>
          <Link to={paths.settings} className="nav-link" current={inSettings} testId="nav-settings">
            Settings
          </Link>
        </nav>
        <ConnectionIndicator state={connection} />
        <ThemePicker />
      </div>
    </header>
  );
}
