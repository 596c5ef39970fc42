/**
 * The web's addresses in one place: every route as a pattern to match (`matchRoute`) and as a
 * link to build (`paths`), so a page and the links to it cannot drift apart. Pure.
 */
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
