/**
 * A pathname router small enough to read in one go: four routes do not need a library.
 * `history.pushState` changes the URL; a tiny store tells React about it.
 */
import { useSyncExternalStore, type MouseEvent, type ReactNode } from 'react';
import { SESSION_ID_PATTERN } from '../../shared/files.ts';

export type Route =
  | { name: 'sessions' }
  | { name: 'settings' }
  | { name: 'new-session' }
  | { name: 'session'; id: string }
  | { name: 'not-found'; path: string };

export function matchRoute(pathname: string): Route {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  if (path === '/' || path === '' || path === '/sessions') return { name: 'sessions' };
  if (path === '/settings') return { name: 'settings' };
  if (path === '/new') return { name: 'new-session' };
  const session = /^\/sessions\/([^/]+)$/.exec(path);
  if (session?.[1] !== undefined) {
    const id = safeDecode(session[1]);
    if (id !== null && SESSION_ID_PATTERN.test(id)) return { name: 'session', id };
  }
  return { name: 'not-found', path: pathname };
}

export const paths = {
  sessions: '/',
  settings: '/settings',
  newSession: '/new',
  session: (id: string) => `/sessions/${encodeURIComponent(id)}`,
};

function safeDecode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

const listeners = new Set<() => void>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  window.addEventListener('popstate', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('popstate', listener);
  };
}

export function navigate(to: string): void {
  if (to === window.location.pathname + window.location.search) return;
  window.history.pushState(null, '', to);
  window.scrollTo(0, 0);
  for (const listener of listeners) listener();
}

export function usePathname(): string {
  return useSyncExternalStore(subscribe, () => window.location.pathname);
}

export function useRoute(): Route {
  return matchRoute(usePathname());
}

/** An ordinary link (middle-click, copy address and new tab keep working) that navigates in place. */
export function Link(props: {
  to: string;
  className?: string;
  children: ReactNode;
  current?: boolean;
  testId?: string;
}) {
  const { to, children, className, current, testId } = props;
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return (
    <a
      href={to}
      onClick={onClick}
      className={className}
      aria-current={current === true ? 'page' : undefined}
      data-testid={testId}
    >
      {children}
    </a>
  );
}
