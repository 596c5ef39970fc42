import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../errors/app-error.ts';
import {
  allowedHosts,
  authCookie,
  authenticate,
  checkHost,
  checkOrigin,
  CONTENT_SECURITY_POLICY,
  cookieName,
  mintToken,
  tokensEqual,
  type AuthMethod,
  type SecurityPolicy,
} from './security.ts';

const TOKEN = 'the-launch-token';
const policy = (port: number, boundHost?: string): SecurityPolicy => ({ token: TOKEN, port: () => port, ...(boundHost ? { boundHost } : {}) });
const ON_4173 = policy(4173);
const ON_80 = policy(80);

/** The error a check throws, as `code: message`, or null when it passes. */
function refusal(check: () => unknown): string | null {
  try {
    check();
    return null;
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return `${err.status} ${err.code}: ${err.message}`;
  }
}
const originRefusal = (origin: string | undefined, p: SecurityPolicy, method: AuthMethod | null = 'cookie', extra: IncomingHttpHeaders = {}) =>
  refusal(() => checkOrigin({ ...(origin !== undefined ? { origin } : {}), ...extra }, p, method));

describe('the Origin check', () => {
  it('accepts our own page, on our port, over http', () => {
    expect(originRefusal('http://127.0.0.1:4173', ON_4173)).toBeNull();
    expect(originRefusal('http://localhost:4173', ON_4173)).toBeNull();
    expect(originRefusal('http://[::1]:4173', ON_4173)).toBeNull();
    expect(originRefusal('http://localhost', ON_80)).toBeNull();
    expect(originRefusal('http://LOCALHOST:4173', ON_4173)).toBeNull();
  });

  it('refuses a page on another loopback port: the port is part of the origin', () => {
    // Any other local server (a dev server an agent started, another app) is another origin.
    expect(originRefusal('http://localhost:3000', ON_80)).toMatch(/^403 bad_origin: Requests from origin "http:\/\/localhost:3000" are not allowed/);
    expect(originRefusal('http://127.0.0.1:3000', ON_80)).toMatch(/bad_origin/);
    expect(originRefusal('http://127.0.0.1:3000', ON_4173)).toMatch(/bad_origin/);
    expect(originRefusal('http://127.0.0.1', ON_4173)).toMatch(/bad_origin/);
  });

  it('refuses other schemes, other hosts and origins that are not URLs', () => {
    expect(originRefusal('https://127.0.0.1:4173', ON_4173)).toMatch(/bad_origin/);
    expect(originRefusal('ws://127.0.0.1:4173', ON_4173)).toMatch(/bad_origin/);
    expect(originRefusal('http://evil.example', ON_80)).toMatch(/bad_origin/);
    expect(originRefusal('http://127.0.0.1.evil.example:4173', ON_4173)).toMatch(/bad_origin/);
    expect(originRefusal('null', ON_4173)).toMatch(/bad_origin/);
    expect(originRefusal('', ON_4173)).toMatch(/bad_origin/);
  });

  it('judges a wrong Origin before the credential: a bearer script cannot send a foreign one', () => {
    expect(originRefusal('http://evil.example', ON_80, 'bearer')).toMatch(/bad_origin/);
  });

  it('without an Origin, lets only a bearer script through, and never a cross-site fetch', () => {
    expect(originRefusal(undefined, ON_4173, 'bearer')).toBeNull();
    expect(originRefusal(undefined, ON_4173, 'bearer', { 'sec-fetch-site': 'same-origin' })).toBeNull();
    expect(originRefusal(undefined, ON_4173, 'bearer', { 'sec-fetch-site': 'none' })).toBeNull();
    for (const site of ['cross-site', 'same-site']) {
      expect(originRefusal(undefined, ON_4173, 'bearer', { 'sec-fetch-site': site })).toBe('403 bad_origin: Cross-site requests are not allowed.');
    }
    expect(originRefusal(undefined, ON_4173, 'cookie')).toMatch(
      /^403 bad_origin: This request needs an Origin header from Tilth's page, or Authorization: Bearer <token>/,
    );
    expect(originRefusal(undefined, ON_4173, null)).toMatch(/^403 bad_origin: This request needs an Origin header/);
    expect(originRefusal(undefined, ON_4173, 'cookie', { 'sec-fetch-site': 'same-origin' })).toMatch(/needs an Origin header/);
  });
});

describe('the Host check', () => {
  const hostRefusal = (host: string | undefined, p: SecurityPolicy = ON_4173) => refusal(() => checkHost(host === undefined ? [] : ['Host', host], p));

  it('accepts the loopback names with our port, in any case', () => {
    for (const host of ['127.0.0.1:4173', 'localhost:4173', '[::1]:4173', 'LocalHost:4173']) expect(hostRefusal(host)).toBeNull();
    expect(hostRefusal('localhost', ON_80)).toBeNull();
    expect(hostRefusal('localhost:80', ON_80)).toBeNull();
  });

  it('refuses other names (DNS rebinding), other ports and a missing Host, saying where to go', () => {
    expect(hostRefusal('evil.example:4173')).toBe(
      '403 bad_host: Host "evil.example:4173" is not allowed; open Tilth as http://127.0.0.1:4173/ (this check stops DNS-rebinding attacks).',
    );
    expect(hostRefusal('localhost:3000')).toMatch(/^403 bad_host/);
    expect(hostRefusal('localhost')).toMatch(/^403 bad_host/);
    expect(hostRefusal(undefined)).toBe('403 bad_host: Host "" is not allowed; open Tilth as http://127.0.0.1:4173/ (this check stops DNS-rebinding attacks).');
    expect(hostRefusal('')).toMatch(/^403 bad_host: Host ""/);
  });

  it('adds a host bound with --host, bracketing an IPv6 address, but never 0.0.0.0', () => {
    expect([...allowedHosts(policy(4173, '192.168.1.5'))]).toEqual(['127.0.0.1:4173', 'localhost:4173', '[::1]:4173', '192.168.1.5:4173']);
    expect([...allowedHosts(policy(4173, 'fe80::1'))]).toContain('[fe80::1]:4173');
    expect([...allowedHosts(policy(4173, '0.0.0.0'))]).toEqual(['127.0.0.1:4173', 'localhost:4173', '[::1]:4173']);
    expect([...allowedHosts(policy(4173, 'localhost'))]).toEqual(['127.0.0.1:4173', 'localhost:4173', '[::1]:4173']);
    expect([...allowedHosts(ON_80)]).toEqual(['127.0.0.1:80', '127.0.0.1', 'localhost:80', 'localhost', '[::1]:80', '[::1]']);
  });
});

describe('authentication', () => {
  /** The credential the request carries, or why it was refused. */
  const auth = (headers: IncomingHttpHeaders, p: SecurityPolicy = ON_4173) => {
    let method: AuthMethod | undefined;
    return refusal(() => (method = authenticate(headers, p))) ?? method;
  };
  const UNAUTHORIZED = /^401 unauthorized: Missing or wrong token/;

  it('takes the token from an Authorization: Bearer header', () => {
    expect(auth({ authorization: `Bearer ${TOKEN}` })).toBe('bearer');
    expect(auth({ authorization: `bearer   ${TOKEN}` })).toBe('bearer');
  });

  it('refuses a wrong or malformed Authorization header even when a good cookie comes with it', () => {
    const cookie = `${cookieName(4173)}=${TOKEN}`;
    expect(auth({ authorization: 'Bearer wrong', cookie })).toMatch(UNAUTHORIZED);
    expect(auth({ authorization: `Bearer ${TOKEN} extra`, cookie })).toMatch(UNAUTHORIZED);
    expect(auth({ authorization: `Basic ${TOKEN}`, cookie })).toMatch(UNAUTHORIZED);
    expect(auth({ authorization: `xBearer ${TOKEN}`, cookie })).toMatch(UNAUTHORIZED);
    expect(auth({ authorization: `Bearer ${TOKEN}x`, cookie })).toMatch(UNAUTHORIZED);
    expect(auth({ authorization: '', cookie })).toMatch(UNAUTHORIZED);
  });

  it('takes the token from this port’s cookie, among others', () => {
    expect(auth({ cookie: `${cookieName(4173)}=${TOKEN}` })).toBe('cookie');
    expect(auth({ cookie: `theme=dark; flag; ${cookieName(4173)} = ${TOKEN} ; other=1` })).toBe('cookie');
  });

  it('reads a cookie part without "=" as no value, even one spelling the name and the token', () => {
    // Were the part read as `name=value` with the "=" missing, `tilth_token_4173x` would pass.
    const odd = policy(4173);
    odd.token = `${cookieName(4173)}x`;
    expect(auth({ cookie: odd.token }, odd)).toMatch(UNAUTHORIZED);
    expect(auth({ cookie: `${odd.token}; ${cookieName(4173)}=${odd.token}` }, odd)).toBe('cookie');
  });

  it('refuses another port’s cookie, a wrong token and no credential at all', () => {
    expect(auth({ cookie: `${cookieName(3000)}=${TOKEN}` })).toMatch(UNAUTHORIZED);
    expect(auth({ cookie: `${cookieName(4173)}=wrong` })).toMatch(UNAUTHORIZED);
    expect(auth({ cookie: `x${cookieName(4173)}=${TOKEN}` })).toMatch(UNAUTHORIZED);
    expect(auth({ cookie: `${cookieName(4173)}` })).toMatch(UNAUTHORIZED);
    expect(auth({ cookie: '' })).toMatch(UNAUTHORIZED);
    expect(auth({})).toMatch(UNAUTHORIZED);
  });

  it('names the cookie after the port and sets it HttpOnly and SameSite=Strict', () => {
    expect(cookieName(4173)).toBe('tilth_token_4173');
    // It outlives the browser's session: the token is kept between launches.
    expect(authCookie(4173, 'abc')).toBe('tilth_token_4173=abc; Path=/; Max-Age=2592000; HttpOnly; SameSite=Strict');
  });

  it('compares tokens exactly, whatever their lengths', () => {
    expect(tokensEqual(TOKEN, TOKEN)).toBe(true);
    expect(tokensEqual(TOKEN, `${TOKEN}x`)).toBe(false);
    expect(tokensEqual('', TOKEN)).toBe(false);
    expect(tokensEqual('a', 'b')).toBe(false);
  });

  it('mints a fresh 256-bit url-safe token per launch', () => {
    const a = mintToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(mintToken()).not.toBe(a);
  });
});

describe('the Content-Security-Policy', () => {
  it('allows only our own origin, no inline script, no framing', () => {
    expect(CONTENT_SECURITY_POLICY.split('; ')).toEqual([
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self' 'unsafe-inline'",
      "connect-src 'self'",
      "img-src 'self' data:",
      "font-src 'self'",
      "object-src 'none'",
      "base-uri 'none'",
      "form-action 'self'",
      "frame-ancestors 'none'",
    ]);
  });
});
