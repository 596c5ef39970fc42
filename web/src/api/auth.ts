/**
 * The token handshake. `tilth serve` prints `http://127.0.0.1:PORT/#token=…`; the fragment never
 * reaches the server in a request line or a Referer, so the SPA reads it, swaps it for an HttpOnly
 * SameSite=Strict cookie via `POST /api/auth`, and removes it from the address bar and history.
 *
 * The outcome lives in a tiny external store (React reads it with useSyncExternalStore) so that a
 * 401 anywhere later — a REST call, or the stream failing after the server restarted with a new
 * token — flips the whole app to the "open the link" page.
 */
import { ApiError, type ApiClient } from './client.ts';

export type AuthState =
  | { status: 'checking' }
  | { status: 'ok' }
  /**
   * `no_token`: opened without the link; `stale_link`: the link's token was refused (an older
   * launch); `expired`: we were in, and the server stopped accepting the cookie (it restarted).
   */
  | { status: 'required'; reason: 'no_token' | 'stale_link' | 'expired' }
  | { status: 'unreachable'; message: string };

type Listener = () => void;

export class AuthStore {
  private state: AuthState = { status: 'checking' };
  private readonly listeners = new Set<Listener>();

  readonly get = (): AuthState => this.state;

  readonly subscribe = (listener: Listener): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  set(state: AuthState): void {
    this.state = state;
    for (const listener of this.listeners) listener();
  }

  /** A 401 after we were signed in. During the handshake the handshake decides instead. */
  reportUnauthorized(): void {
    if (this.state.status === 'ok') this.set({ status: 'required', reason: 'expired' });
  }
}

/** The token in a `#token=…` fragment (other `&`-separated fragment parameters are allowed). */
export function readTokenFromHash(hash: string): string | null {
  const params = new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash);
  const token = params.get('token');
  return token === null || token === '' ? null : token;
}

/** The same URL without the token parameter (and without `#` if nothing else remains). */
export function urlWithoutToken(url: { pathname: string; search: string; hash: string }): string {
  const params = new URLSearchParams(url.hash.startsWith('#') ? url.hash.slice(1) : url.hash);
  params.delete('token');
  const rest = params.toString();
  return url.pathname + url.search + (rest === '' ? '' : `#${rest}`);
}

export interface HandshakeEnv {
  api: ApiClient;
  store: AuthStore;
  location: { pathname: string; search: string; hash: string };
  /** `history.replaceState(history.state, '', url)` in the browser. */
  replaceUrl: (url: string) => void;
}

/** Runs on load and whenever the fragment changes to one with a token. Never throws. */
export async function runHandshake(env: HandshakeEnv): Promise<void> {
  const { api, store } = env;
  const token = readTokenFromHash(env.location.hash);
  store.set({ status: 'checking' });
  if (token !== null) {
    try {
      await api.call('postAuth', { body: { token } });
      store.set({ status: 'ok' });
      return;
    } catch (error) {
      if (!isRefusal(error)) {
        store.set(unreachable(error));
        return;
      }
      // A refused token may still come with a valid cookie (an old bookmark opened after the
      // new link was used): let the health check decide before showing the stale-link page.
      await checkCookie(env, 'stale_link');
    } finally {
      // Drop the token from the address bar and history whatever the outcome: it is a secret.
      env.replaceUrl(urlWithoutToken(env.location));
    }
    return;
  }
  await checkCookie(env, 'no_token');
}

async function checkCookie(env: HandshakeEnv, reasonIfRefused: 'no_token' | 'stale_link'): Promise<void> {
  try {
    await env.api.call('getHealth', {});
    env.store.set({ status: 'ok' });
  } catch (error) {
    env.store.set(error instanceof ApiError && error.isUnauthorized ? { status: 'required', reason: reasonIfRefused } : unreachable(error));
  }
}

function isRefusal(error: unknown): boolean {
  return error instanceof ApiError && (error.status === 400 || error.status === 401 || error.status === 403);
}

function unreachable(error: unknown): AuthState {
  return { status: 'unreachable', message: error instanceof Error ? error.message : 'Unknown error.' };
}
