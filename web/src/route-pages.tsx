import { lazy, type ComponentType } from 'react';
import type { Route } from './paths.ts';

// Every page but the sessions list (where the app opens) is a chunk of its own, fetched the first
// time its route is shown: a tab opened on the list does not load the dashboard, the review pages
// or the settings. main.tsx renders them inside a Suspense with a loading line.

/**
 * A page in its own chunk. Once `preload` has fetched it, it renders straight away instead of
 * suspending: React holds back a page revealed out of a Suspense fallback until 300 ms after the
 * fallback appeared, and a tab opened on a session waited that out (its dashboard mounted 250–450
 * ms later than it could).
 */
export function chunkPage<P extends object>(load: () => Promise<ComponentType<P>>) {
  let loaded: ComponentType<P> | null = null;
  let loading: Promise<ComponentType<P>> | null = null;
  const preload = () => (loading ??= load().then((component) => (loaded = component)));
  const Lazy = lazy(async () => ({ default: await preload() }));
  // biome-ignore lint/correctness/noComponentHookFactories: made once per page at module level, never during a render
  function Page(props: P) {
    const Component = loaded ?? Lazy;
    return <Component {...props} />;
  }
  return { Page, preload };
}

const newSession = chunkPage(async () => (await import('./new-session/new-session-page.tsx')).NewSessionPage);
const session = chunkPage(async () => (await import('./sessions/session-page.tsx')).SessionPage);
const sessionReview = chunkPage(async () => (await import('./review/session-review-page.tsx')).SessionReviewPage);
const settings = chunkPage(async () => (await import('./settings/settings-page.tsx')).SettingsPage);
const taskReview = chunkPage(async () => (await import('./review/task-review-page.tsx')).TaskReviewPage);

export const NewSessionPage = newSession.Page;
export const SessionPage = session.Page;
export const SessionReviewPage = sessionReview.Page;
export const SettingsPage = settings.Page;
export const TaskReviewPage = taskReview.Page;

const chunks: Partial<Record<Route['name'], { preload: () => Promise<unknown> }>> = {
  'new-session': newSession,
  session,
  'session-review': sessionReview,
  settings,
  'task-review': taskReview,
};

/** Fetches the chunk of the route's page, if it has one; a failed fetch is left to the page's own load to report. */
export async function preloadPage(route: Route): Promise<void> {
  await chunks[route.name]?.preload().catch(() => {});
}
