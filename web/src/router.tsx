/**
 * A pathname router small enough to read in one go: a handful of routes do not need a library
 * (the routes themselves are in `paths.ts`).
 * `history.pushState` changes the URL; a tiny store tells React about it.
 */
import { useSyncExternalStore, type MouseEvent, type ReactNode } from 'react';
import { matchRoute, type Route } from './paths.ts';

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
