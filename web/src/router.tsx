/**
 * A pathname router small enough to read in one go: a handful of routes do not need a library.
 * `history.pushState` changes the URL; a tiny store tells React about it.
 */
import { useSyncExternalStore, type MouseEvent, type ReactNode } from 'react';
import { SESSION_ID_PATTERN } from '../../shared/files.ts';

const TASK_ID_PATTERN = /^T-\d{3,}$/;

export type Route =
  | { name: 'sessions' }
  | { name: 'settings' }
  | { name: 'new-session' }
  | { name: 'session'; id: string }
  | { name: 'session-review'; id: string }
  | { name: 'task-review'; id: string; taskId: string }
  | { name: 'not-found'; path: string };

export function matchRoute(pathname: string): Route {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  if (path === '/' || path === '' || path === '/sessions') return { name: 'sessions' };
  if (path === '/settings') return { name: 'settings' };
  if (path === '/new') return { name: 'new-session' };
  const session = /^\/sessions\/([^/]+)(?:\/(review)|\/tasks\/([^/]+))?$/.exec(path);
  if (session?.[1] !== undefined) {
    const id = safeDecode(session[1]);
    if (id !== null && SESSION_ID_PATTERN.test(id)) {
      if (session[2] === 'review') return { name: 'session-review', id };
      if (session[3] === undefined) return { name: 'session', id };
      const taskId = safeDecode(session[3]);
      if (taskId !== null && TASK_ID_PATTERN.test(taskId)) return { name: 'task-review', id, taskId };
    }
  }
  return { name: 'not-found', path: pathname };
}

export const paths = {
  sessions: '/',
  settings: '/settings',
  newSession: '/new',
  session: (id: string) => `/sessions/${encodeURIComponent(id)}`,
  sessionReview: (id: string) => `/sessions/${encodeURIComponent(id)}/review`,
  taskReview: (id: string, taskId: string) => `/sessions/${encodeURIComponent(id)}/tasks/${encodeURIComponent(taskId)}`,
  /** Settings, offering a way back to `back` (the page that sent the user to fix the provider). */
  settingsThenBack: (back: string) => `/settings?${new URLSearchParams({ back }).toString()}`,
};

/**
 * The page a settings link came from, read from `?back=`: only a path of this app that names a
 * page (a session, the new-session form…), never another origin (`//host`, `https:`), so a
 * crafted link cannot use the back button to send the user elsewhere.
 */
export function backTarget(search: string): { to: string; route: Route } | null {
  const back = new URLSearchParams(search).get('back');
  if (back === null || !back.startsWith('/') || back.startsWith('//') || back.includes('\\')) return null;
  const route = matchRoute(back);
  return route.name === 'not-found' || route.name === 'settings' ? null : { to: back, route };
}

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

export function useSearch(): string {
  return useSyncExternalStore(subscribe, () => window.location.search);
}

export function useRoute(): Route {
  return matchRoute(usePathname());
}

/** An ordinary link (middle-click, copy address and new tab keep working) that navigates in place. */
export function Link(props: { to: string; className?: string; children: ReactNode; current?: boolean; testId?: string }) {
  const { to, children, className, current, testId } = props;
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return (
    <a href={to} onClick={onClick} className={className} aria-current={current === true ? 'page' : undefined} data-testid={testId}>
      {children}
    </a>
  );
}
