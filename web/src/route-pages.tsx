import { lazy } from 'react';

// Every page but the sessions list (where the app opens) is a chunk of its own, fetched the first
// time its route is shown: a tab opened on the list does not load the dashboard, the review pages
// or the settings. main.tsx renders them inside a Suspense with a loading line.
export const NewSessionPage = lazy(async () => ({ default: (await import('./new-session/new-session-page.tsx')).NewSessionPage }));
export const SessionPage = lazy(async () => ({ default: (await import('./sessions/session-page.tsx')).SessionPage }));
export const SessionReviewPage = lazy(async () => ({ default: (await import('./review/session-review-page.tsx')).SessionReviewPage }));
export const SettingsPage = lazy(async () => ({ default: (await import('./settings/settings-page.tsx')).SettingsPage }));
export const TaskReviewPage = lazy(async () => ({ default: (await import('./review/task-review-page.tsx')).TaskReviewPage }));
