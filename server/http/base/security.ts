/**
 * Access control for a server on loopback. "Only I can reach 127.0.0.1" is false: any web page
 * the user opens can send requests to it. So:
 *
 * - Token: minted once and kept in $TILTH_HOME/token (mode 0600) so a restart keeps tabs signed
 *   in; `tilth token --rotate` replaces it, TILTH_TOKEN pins one for scripts. The printed URL carries it
 *   in the fragment, which browsers never send to servers or put in Referer; the SPA swaps it for
 *   an HttpOnly SameSite=Strict cookie. Scripts send `Authorization: Bearer <token>`. Compared in
 *   constant time.
 * - Host: must be a loopback name with our port. A DNS-rebinding page has its own host name in
 *   Host, so it is refused even though its requests land on 127.0.0.1.
 * - Origin: a state-changing request or a WebSocket upgrade that carries an Origin must carry
 *   ours (stops CSRF and cross-site WebSocket hijacking). With no Origin at all it must be a
 *   script using the Bearer header: browsers always send Origin on those requests.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { AppError, ForbiddenError, UnauthorizedError } from '../../errors/app-error.ts';

export function mintToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Constant-time comparison; hashing first makes the lengths equal so length does not leak. */
export function tokensEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/**
 * Cookies ignore ports, so two servers on one machine get separate cookie names. The same fact
 * means the browser also sends this cookie to any other server on 127.0.0.1 it visits (say, a
 * dev server an agent started). The issue asks for the cookie, so it stays; the mitigations are
 * that `tilth token --rotate` ends every copy of the token, and worker processes run sandboxed
 * without network.
 */
export function cookieName(port: number): string {
  return `tilth_token_${port}`;
}

/**
 * How long the sign-in lasts in the browser: the token is kept between launches (launch-token.ts),
 * so closing the browser should not sign the user out; a month, and a rotated token ends it sooner.
 */
export const AUTH_COOKIE_MAX_AGE_S = 30 * 24 * 60 * 60;

export function authCookie(port: number, token: string): string {
  return `${cookieName(port)}=${token}; Path=/; Max-Age=${AUTH_COOKIE_MAX_AGE_S}; HttpOnly; SameSite=Strict`;
}

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

export interface SecurityPolicy {
  token: string;
  /** The port we listen on; a getter because `--port 0` is only known after listen. */
  port: () => number;
  /** A non-loopback host the user bound explicitly with --host. */
  boundHost?: string | undefined;
}

export function allowedHosts(policy: SecurityPolicy): Set<string> {
  const port = policy.port();
  const names = [...LOOPBACK_NAMES];
  if (policy.boundHost && !LOOPBACK_NAMES.includes(policy.boundHost) && policy.boundHost !== '0.0.0.0') {
    names.push(policy.boundHost.includes(':') ? `[${policy.boundHost}]` : policy.boundHost);
  }
  const hosts = new Set<string>();
  for (const name of names) {
    hosts.add(`${name}:${port}`);
    if (port === 80) hosts.add(name);
  }
  return hosts;
}

/**
 * Takes the raw header list because Node keeps only the first of several Host headers: a request
 * with ours first and another after would pass a check of `headers.host`, while a proxy or cache
 * in between may have used the other one. RFC 9112 §3.2 says such a request gets a 400.
 */
export function checkHost(rawHeaders: readonly string[], policy: SecurityPolicy): void {
  let host: string | undefined;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]!.toLowerCase() !== 'host') continue;
    if (host !== undefined) throw new AppError('duplicate_host', 'The request has more than one Host header; send exactly one.');
    host = rawHeaders[i + 1]!;
  }
  if (!host || !allowedHosts(policy).has(host.toLowerCase())) {
    throw new ForbiddenError(
      'bad_host',
      `Host "${host ?? ''}" is not allowed; open Tilth as http://127.0.0.1:${policy.port()}/ (this check stops DNS-rebinding attacks).`,
    );
  }
}

function originOk(origin: string, policy: SecurityPolicy): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return url.protocol === 'http:' && allowedHosts(policy).has(url.host.toLowerCase());
}

function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export type AuthMethod = 'bearer' | 'cookie';

/** Which credential the request carries, if a valid one; throws 401 otherwise. */
export function authenticate(headers: IncomingHttpHeaders, policy: SecurityPolicy): AuthMethod {
  const auth = headers.authorization;
  if (auth !== undefined) {
    const match = /^Bearer\s+(\S+)$/i.exec(auth);
    if (match && tokensEqual(match[1]!, policy.token)) return 'bearer';
    throw new UnauthorizedError();
  }
  const cookie = readCookie(headers.cookie, cookieName(policy.port()));
  if (cookie !== undefined && tokensEqual(cookie, policy.token)) return 'cookie';
  throw new UnauthorizedError();
}

/** For state-changing requests and WebSocket upgrades. */
export function checkOrigin(headers: IncomingHttpHeaders, policy: SecurityPolicy, method: AuthMethod | null): void {
  const origin = headers.origin;
  if (origin !== undefined) {
    if (!originOk(origin, policy)) {
      throw new ForbiddenError('bad_origin', `Requests from origin "${origin}" are not allowed; only Tilth's own page may do this.`);
    }
    return;
  }
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    throw new ForbiddenError('bad_origin', 'Cross-site requests are not allowed.');
  }
  if (method !== 'bearer') {
    throw new ForbiddenError('bad_origin', "This request needs an Origin header from Tilth's page, or Authorization: Bearer <token> from a script.");
  }
}

/** The SPA's Content-Security-Policy: no inline script, nothing from other origins. */
export const CONTENT_SECURITY_POLICY = [
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
].join('; ');
