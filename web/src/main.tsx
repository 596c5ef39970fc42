/**
 * Entry: the token handshake, then providers (TanStack Query, the stream), the router and an
 * error boundary per page.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode, Suspense, useSyncExternalStore } from 'react';
import { createRoot } from 'react-dom/client';
import { z } from 'zod';
// The global tokens and layout first: each feature's own CSS, imported by its components, comes after and wins ties.
import './styles.css';
// Sets the page's theme before the first render (theme-boot.js already did before the first paint).
import './theme.ts';
import { readTokenFromHash, runHandshake } from './api/auth.ts';
import { api, authStore } from './api/browser.ts';
import { ApiError } from './api/client.ts';
import { AppHeader } from './components/app-header.tsx';
import { AuthRequired } from './components/auth-required.tsx';
import { DemoBanner } from './components/demo-banner.tsx';
import { ErrorBoundary } from './components/error-boundary.tsx';
import { FullPageMessage } from './components/full-page-message.tsx';
import { ServerUnreachable } from './components/server-unreachable.tsx';
import { NotFoundPage } from './components/not-found-page.tsx';
import { SessionsPage } from './sessions/sessions-page.tsx';
import { NewSessionPage, preloadPage, SessionPage, SessionReviewPage, SettingsPage, TaskReviewPage } from './route-pages.tsx';
import { Loading } from './components/query-status.tsx';
import { usePathname } from './router.tsx';
import { matchRoute, type Route } from './paths.ts';
import { useConnectionState, useLiveSessionsList, useOnStreamTrouble } from './stream/hooks.ts';
import { StreamProvider } from './stream/stream-provider.tsx';

// The CSP has no 'unsafe-eval'. Zod would probe `new Function` on first parse, and the browser
// reports that as a policy violation even though zod recovers; jitless skips the probe.
z.config({ jitless: true });

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A 4xx will not change by asking again; a 5xx or a dropped connection might.
      retry: (failures, error) => !(error instanceof ApiError && error.status >= 400 && error.status < 500) && failures < 2,
    },
  },
});

function handshake(): void {
  void runHandshake({
    api,
    store: authStore,
    location: window.location,
    replaceUrl: (url) => window.history.replaceState(window.history.state, '', url),
  });
}

// Signing in again (e.g. after a server restart) makes everything cached suspect.
authStore.subscribe(() => {
  if (authStore.get().status === 'ok') void queryClient.invalidateQueries();
});

/** Asks REST whether we are still signed in; a 401 flips the app via `onUnauthorized`. */
function probeAuth(): void {
  api.call('getHealth', {}).catch(() => {});
}

function App() {
  const auth = useSyncExternalStore(authStore.subscribe, authStore.get);
  switch (auth.status) {
    case 'checking':
      return (
        <FullPageMessage testId="auth-checking" title="Connecting to Tilth…">
          <p className="muted">Signing in with this launch's link.</p>
        </FullPageMessage>
      );
    case 'required':
      return <AuthRequired reason={auth.reason} />;
    case 'unreachable':
      return <ServerUnreachable message={auth.message} onRetry={handshake} />;
    case 'ok':
      return (
        <StreamProvider>
          <Shell />
        </StreamProvider>
      );
  }
}

function Shell() {
  const pathname = usePathname();
  const route = matchRoute(pathname);
  const connection = useConnectionState();
  useLiveSessionsList();
  useOnStreamTrouble(probeAuth);
  return (
    <div className="app">
      <AppHeader route={route} connection={connection} />
      <DemoBanner route={route} />
      <main className="main" id="main" tabIndex={-1}>
        {/* Keyed by path so an error in one page is forgotten when you navigate away. */}
        <ErrorBoundary key={pathname}>
          <Suspense fallback={<Loading what="the page" />}>
            <Page route={route} />
          </Suspense>
        </ErrorBoundary>
      </main>
    </div>
  );
}

function Page({ route }: { route: Route }) {
  switch (route.name) {
    case 'sessions':
      return <SessionsPage />;
    case 'settings':
      return <SettingsPage />;
    case 'new-session':
      return <NewSessionPage />;
    case 'session':
      return <SessionPage key={route.id} sessionId={route.id} />;
    case 'session-review':
      return <SessionReviewPage key={route.id} sessionId={route.id} />;
    case 'task-review':
      return <TaskReviewPage key={`${route.id}/${route.taskId}`} sessionId={route.id} taskId={route.taskId} />;
    case 'not-found':
      return <NotFoundPage path={route.path} />;
  }
}

// Pasting a new `#token=` link into an open tab changes only the fragment: no reload happens.
window.addEventListener('hashchange', () => {
  if (readTokenFromHash(window.location.hash) !== null) handshake();
});
handshake();
// The page the tab opens on is fetched (alongside the handshake) before the first render, so it
// shows without a loading line and without React's throttle on revealing it (route-pages.tsx).
await preloadPage(matchRoute(window.location.pathname));

const container = document.getElementById('root');
if (container === null) throw new Error('index.html has no #root element');
createRoot(container).render(
  <StrictMode>
    <ErrorBoundary>
      <QueryClientProvider client={queryClient}>
        <App />
      </QueryClientProvider>
    </ErrorBoundary>
  </StrictMode>,
);
