/**
 * The browser's instances: one auth store and one API client per tab. Kept apart from
 * `client.ts` and `auth.ts` so those stay testable in node with an injected fetch.
 */
import { AuthStore } from './auth.ts';
import { createApiClient } from './client.ts';

export const authStore = new AuthStore();

export const api = createApiClient({
  // Wrapped so `fetch` is called with the window as `this`.
  fetch: (input, init) => fetch(input, init),
  onUnauthorized: () => authStore.reportUnauthorized(),
});
