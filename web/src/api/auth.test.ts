import { describe, expect, it } from 'vitest';
import { AuthStore, readTokenFromHash, runHandshake, urlWithoutToken } from './auth.ts';
import { createApiClient } from './client.ts';

const HEALTH = { ok: true, name: 'tilth', version: '0.1.0', uptime_s: 1 };
const UNAUTHORIZED = { error: { code: 'unauthorized', message: 'Missing or wrong token.' } };

/** A server with one valid token; a successful POST /api/auth sets the "cookie". */
function fakeServer(validToken: string, cookie = false) {
  let signedIn = cookie;
  const requests: string[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const path = String(input);
    requests.push(`${init?.method ?? 'GET'} ${path}`);
    const reply = (status: number, body: unknown) => new Response(JSON.stringify(body), { status });
    if (path === '/api/auth') {
      const { token } = JSON.parse(String(init?.body)) as { token: string };
      if (token !== validToken) return reply(401, UNAUTHORIZED);
      signedIn = true;
      return reply(200, { ok: true });
    }
    return signedIn ? reply(200, HEALTH) : reply(401, UNAUTHORIZED);
  };
  return { requests, api: createApiClient({ fetch: fetch as typeof globalThis.fetch }) };
}

async function handshake(server: ReturnType<typeof fakeServer>, hash: string) {
  const store = new AuthStore();
  const urls: string[] = [];
  await runHandshake({
    api: server.api,
    store,
    location: { pathname: '/sessions/20260525-103149-3800ea', search: '', hash },
    replaceUrl: (url) => urls.push(url),
  });
  return { state: store.get(), urls, store };
}

describe('token handshake', () => {
  it('exchanges the fragment token for a cookie and removes the token from the URL', async () => {
    const server = fakeServer('good');
    const { state, urls } = await handshake(server, '#token=good');
    expect(state).toEqual({ status: 'ok' });
    expect(server.requests).toEqual(['POST /api/auth']);
    expect(urls).toEqual(['/sessions/20260525-103149-3800ea']);
  });

  it('asks for the link when there is no token and no valid cookie', async () => {
    const { state, urls } = await handshake(fakeServer('good'), '');
    expect(state).toEqual({ status: 'required', reason: 'no_token' });
    expect(urls).toEqual([]);
  });

  it('goes straight in without a token when the cookie is still valid', async () => {
    const { state } = await handshake(fakeServer('good', true), '');
    expect(state).toEqual({ status: 'ok' });
  });

  it('explains a stale link when the token is refused, and still removes it from the URL', async () => {
    const { state, urls } = await handshake(fakeServer('good'), '#token=old');
    expect(state).toEqual({ status: 'required', reason: 'stale_link' });
    expect(urls).toEqual(['/sessions/20260525-103149-3800ea']);
  });

  it('lets a valid cookie win over a refused old token', async () => {
    const { state } = await handshake(fakeServer('good', true), '#token=old');
    expect(state).toEqual({ status: 'ok' });
  });

  it('reports an unreachable server rather than asking for the link', async () => {
    const api = createApiClient({ fetch: () => Promise.reject(new TypeError('fetch failed')) });
    const store = new AuthStore();
    await runHandshake({ api, store, location: { pathname: '/', search: '', hash: '' }, replaceUrl: () => {} });
    expect(store.get().status).toBe('unreachable');
  });

  it('flips to the expired page on a later 401, but not during the handshake', () => {
    const store = new AuthStore();
    store.reportUnauthorized();
    expect(store.get()).toEqual({ status: 'checking' });
    store.set({ status: 'ok' });
    store.reportUnauthorized();
    expect(store.get()).toEqual({ status: 'required', reason: 'expired' });
  });
});

describe('fragment parsing', () => {
  it('reads the token from the fragment', () => {
    expect(readTokenFromHash('#token=XYZ')).toBe('XYZ');
    expect(readTokenFromHash('#a=1&token=abc%2Bdef')).toBe('abc+def');
    expect(readTokenFromHash('#token=')).toBeNull();
    expect(readTokenFromHash('')).toBeNull();
    expect(readTokenFromHash('#tokens=1')).toBeNull();
  });

  it('removes only the token, keeping the path, query and other fragment parameters', () => {
    expect(urlWithoutToken({ pathname: '/', search: '', hash: '#token=XYZ' })).toBe('/');
    expect(urlWithoutToken({ pathname: '/settings', search: '?q=1', hash: '#token=XYZ&tab=2' })).toBe('/settings?q=1#tab=2');
  });
});
