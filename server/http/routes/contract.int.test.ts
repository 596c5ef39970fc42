/**
 * The HTTP contract (shared/routes.ts) and the server agree: every API route Fastify has is in
 * the list and every entry is registered, and a handler that answers a shape its schema refuses
 * is a 500 `response_invalid` with a log line, not a body the web would choke on.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorBodySchema } from '../../../shared/api.ts';
import { errorStatus } from '../../../shared/errors.ts';
import { ROUTES, STREAM_ROUTE } from '../../../shared/routes.ts';
import { buildApp } from '../app.ts';
import { auth, makeTestApp, type TestApp } from '../../testing/test-app.ts';

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(async () => {
  await t.close();
});

describe('the HTTP contract', () => {
  it('lists every registered API route, and every listed endpoint is registered', () => {
    // HEAD routes are Fastify's automatic twins of the GET routes.
    const registered = t.app.routeTable
      .filter((r) => r.method !== 'HEAD' && (r.url === '/api' || r.url.startsWith('/api/')))
      .map((r) => `${r.method} ${r.url}`)
      .sort();
    const declared = [...Object.values(ROUTES), STREAM_ROUTE].map((e) => `${e.method} ${e.path}`).sort();
    expect(registered).toEqual(declared);
  });

  it('answers a handler’s wrongly shaped response with a 500 response_invalid and logs where it came from', async () => {
    const lines: string[] = [];
    // The health handler reads the version on each request: a number where the schema wants a string.
    const app = await buildApp({
      ...t.deps,
      version: 42 as unknown as string,
      logger: { level: 'error', stream: { write: (line: string) => lines.push(line) } },
    });
    try {
      const res = await app.inject({ method: 'GET', url: '/api/health', headers: auth });
      expect(res.statusCode).toBe(errorStatus('response_invalid'));
      const { error } = ErrorBodySchema.parse(res.json());
      expect(error.code).toBe('response_invalid');
      // A 5xx hides its details on the wire; the log has them.
      expect(error.message).not.toContain('version');
      const logged = lines.map((line) => JSON.parse(line) as { msg: string; endpoint?: string; err?: { message: string } });
      expect(logged.some((l) => l.endpoint === 'getHealth' && l.msg.includes('does not match its schema'))).toBe(true);
    } finally {
      await app.close();
    }
  });

  it('refuses a query string on an endpoint that declares none', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/sessions?x=1', headers: auth });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: { code: 'invalid_request' } });
  });
});
