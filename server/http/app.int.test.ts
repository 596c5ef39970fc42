import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigResponseSchema, ErrorBodySchema, EventsPageSchema, SessionListSchema } from '../../shared/api.ts';
import { auth, makeTestApp, TEST_TOKEN, type TestApp } from '../testing/test-app.ts';

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp({ env: { TILTH_BASE_URL: 'http://127.0.0.1:9/v1', TILTH_API_KEY: 'sk-secret-abcdefgh1234', TILTH_WORKER_MODEL: 'm' } });
});
afterEach(async () => {
  await t.close();
});

function errorCode(body: string): string {
  return ErrorBodySchema.parse(JSON.parse(body)).error.code;
}

function makeSession(title = 'A feature') {
  return t.store.create({ source: '/repo', brief: 'Add a thing', title, baseBranch: 'main', baseSha: 'abc123', status: 'prepared' }).session_id;
}

describe('access control', () => {
  it('refuses API requests without a token with 401 and the error shape', async () => {
    const res = await t.app.inject({ url: '/api/health' });
    expect(res.statusCode).toBe(401);
    expect(errorCode(res.body)).toBe('unauthorized');
    expect(res.json().error.message).toMatch(/link that `tilth serve` printed/);
  });

  it('refuses every API route without the token, however the path is spelled', async () => {
    const id = makeSession();
    const routes = t.app.printRoutes({ commonPrefix: false });
    expect(routes).toContain('/api/sessions');
    const paths = ['/api/health', '/api/config', '/api/sessions', `/api/sessions/${id}/events`, '/api/stream', '/api/nope'];
    const spellings = (p: string) => [
      p,
      p.replace('/api', '/%61pi'),
      p.replace('/api', '/ap%69'),
      p.replace('/api', '//api'),
      p.replace('/api', '/API'),
      `${p}?x=1`,
    ];
    for (const path of paths) {
      for (const url of spellings(path)) {
        const res = await t.app.inject({ url });
        expect([401, 404], url).toContain(res.statusCode);
        if (res.statusCode === 404) expect(res.json().error.code, url).toBe('not_found');
        expect(res.body, url).not.toContain(id);
      }
    }
  });

  it('refuses a request target that is not a path', async () => {
    const res = await t.app.inject({ url: '/api/%E0%A4%A', headers: auth });
    expect(res.statusCode).toBe(400);
  });

  it('refuses a wrong bearer token', async () => {
    const res = await t.app.inject({ url: '/api/sessions', headers: { authorization: 'Bearer nope' } });
    expect(res.statusCode).toBe(401);
  });

  it('accepts the bearer token', async () => {
    const res = await t.app.inject({ url: '/api/health', headers: auth });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, name: 'tilth' });
  });

  it('swaps the token for an HttpOnly SameSite=Strict cookie that then authenticates', async () => {
    const login = await t.app.inject({ method: 'POST', url: '/api/auth', payload: { token: TEST_TOKEN }, headers: { origin: 'http://localhost' } });
    expect(login.statusCode).toBe(200);
    const setCookie = String(login.headers['set-cookie']);
    expect(setCookie).toMatch(/^tilth_token_80=/);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    const cookie = setCookie.split(';')[0]!;
    const res = await t.app.inject({ url: '/api/sessions', headers: { cookie } });
    expect(res.statusCode).toBe(200);
  });

  it('refuses a wrong token at the handshake', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/auth', payload: { token: 'old' }, headers: { origin: 'http://localhost' } });
    expect(res.statusCode).toBe(401);
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('rejects a Host that is not loopback with our port (DNS rebinding)', async () => {
    for (const host of ['evil.example:80', 'localhost:81', '127.0.0.1:8080', 'localhost.evil.example']) {
      const res = await t.app.inject({ url: '/api/health', headers: { ...auth, host } });
      expect(res.statusCode, host).toBe(403);
      expect(errorCode(res.body)).toBe('bad_host');
    }
    const page = await t.app.inject({ url: '/', headers: { host: 'evil.example' } });
    expect(page.statusCode).toBe(403);
  });

  it('rejects a state-changing request from a foreign Origin even with a valid cookie', async () => {
    const cookie = `tilth_token_80=${TEST_TOKEN}`;
    const res = await t.app.inject({ method: 'POST', url: '/api/sessions', payload: {}, headers: { cookie, origin: 'http://evil.example' } });
    expect(res.statusCode).toBe(403);
    expect(errorCode(res.body)).toBe('bad_origin');
    const noOrigin = await t.app.inject({ method: 'POST', url: '/api/sessions', payload: {}, headers: { cookie } });
    expect(noOrigin.statusCode).toBe(403);
    const handshake = await t.app.inject({ method: 'POST', url: '/api/auth', payload: { token: TEST_TOKEN }, headers: { origin: 'http://evil.example' } });
    expect(handshake.statusCode).toBe(403);
  });

  it('lets scripts with the bearer token post without an Origin', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/nothing-here', payload: {}, headers: auth });
    expect(res.statusCode).toBe(404);
    expect(errorCode(res.body)).toBe('not_found');
  });
});

describe('errors', () => {
  it('answers unknown API routes with not_found', async () => {
    const res = await t.app.inject({ url: '/api/nope', headers: auth });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: { code: 'not_found', message: 'No route GET /api/nope.' } });
  });

  it('answers malformed JSON with invalid_json', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth',
      headers: { origin: 'http://localhost', 'content-type': 'application/json' },
      payload: '{oops',
    });
    expect(res.statusCode).toBe(400);
    expect(errorCode(res.body)).toBe('invalid_json');
  });

  it('answers an oversized body with body_too_large', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth',
      headers: { origin: 'http://localhost', 'content-type': 'application/json' },
      payload: JSON.stringify({ token: 'x'.repeat(1_100_000) }),
    });
    expect(res.statusCode).toBe(413);
    expect(errorCode(res.body)).toBe('body_too_large');
  });

  it('explains a missing handshake field', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/auth', headers: { origin: 'http://localhost' }, payload: {} });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'invalid_request' });
    expect(res.json().error.message).toMatch(/token/);
  });
});

describe('config', () => {
  it('shows resolved values with sources, a key only as "set"', async () => {
    const res = await t.app.inject({ url: '/api/config', headers: auth });
    const body = ConfigResponseSchema.parse(res.json());
    expect(res.body).not.toContain('sk-secret-abcdefgh1234');
    expect(body.entries.find((e) => e.key === 'TILTH_API_KEY')).toMatchObject({ value: 'set', source: 'env' });
    expect(res.body).not.toContain('1234');
    expect(body.entries.find((e) => e.key === 'TILTH_MAX_DOLLARS')).toMatchObject({ value: '10', source: 'default' });
    expect(body.provider_configured).toBe(true);
  });
});

describe('sessions and events', () => {
  it('lists sessions on disk newest first, and shows a broken one with its problem', async () => {
    const a = makeSession('first');
    const b = makeSession('second');
    const broken = '20200101-000000-000000';
    fs.mkdirSync(path.join(t.store.root, broken));
    fs.writeFileSync(path.join(t.store.root, broken, 'checkpoint.json'), '{"status": 3}');
    fs.mkdirSync(path.join(t.store.root, 'not-a-session'));
    const res = await t.app.inject({ url: '/api/sessions', headers: auth });
    const { sessions } = SessionListSchema.parse(res.json());
    expect(sessions.map((s) => s.id)).toEqual([a, b].sort().reverse().concat(broken));
    expect(sessions[0]).toMatchObject({ status: 'prepared', source: '/repo', tasks: { total: 0, done: 0 }, problem: null });
    expect(sessions.at(-1)!.problem).toMatch(/checkpoint\.json is corrupt/);
  });

  it('pages through events with after and limit', async () => {
    const id = makeSession();
    for (let i = 0; i < 20; i++) t.store.session(id).emit({ type: 'question_answered', data: { question_id: `q${i}`, answer: 'a' } });
    const total = t.store.session(id).log().lastSeq;
    const seen: number[] = [];
    let after = 0;
    for (;;) {
      const res = await t.app.inject({ url: `/api/sessions/${id}/events?after=${after}&limit=7`, headers: auth });
      const page = EventsPageSchema.parse(res.json());
      seen.push(...page.events.map((e) => e.seq));
      expect(page.last_seq).toBe(total);
      after = page.next_after;
      if (!page.has_more) break;
    }
    expect(seen).toEqual(Array.from({ length: total }, (_, i) => i + 1));
  });

  it('opens a long session at its newest page and pages backwards from there', async () => {
    const id = makeSession();
    for (let i = 0; i < 20; i++) t.store.session(id).emit({ type: 'question_answered', data: { question_id: `q${i}`, answer: 'a' } });
    const total = t.store.session(id).log().lastSeq;
    const tail = EventsPageSchema.parse((await t.app.inject({ url: `/api/sessions/${id}/events?tail=1&limit=5`, headers: auth })).json());
    expect(tail.events.map((e) => e.seq)).toEqual([total - 4, total - 3, total - 2, total - 1, total]);
    expect(tail).toMatchObject({ has_more: false, has_earlier: true, next_after: total, last_seq: total });
    const earlier = EventsPageSchema.parse((await t.app.inject({ url: `/api/sessions/${id}/events?before=${total - 4}&limit=5`, headers: auth })).json());
    expect(earlier.events.map((e) => e.seq)).toEqual([total - 9, total - 8, total - 7, total - 6, total - 5]);
    expect(earlier.has_more).toBe(true);
    const first = EventsPageSchema.parse((await t.app.inject({ url: `/api/sessions/${id}/events?before=3`, headers: auth })).json());
    expect(first.events.map((e) => e.seq)).toEqual([1, 2]);
    expect(first.has_earlier).toBe(false);
  });

  it('validates the session id, after and limit', async () => {
    const bad = [
      ['/api/sessions/..%2F..%2Fetc/events', /not a session id|id: /],
      ['/api/sessions/20260101-000000-abcdef/events?limit=0', /limit must be between 1 and 5000/],
      ['/api/sessions/20260101-000000-abcdef/events?after=-1', /after must be a whole number/],
      ['/api/sessions/20260101-000000-abcdef/events?after=abc', /after must be a whole number/],
      ['/api/sessions/20260101-000000-abcdef/events?bogus=1', /bogus/],
      ['/api/sessions/20260101-000000-abcdef/events?after=1&before=5', /at most one of after, before and tail/],
      ['/api/sessions/20260101-000000-abcdef/events?before=0', /before must be between 1/],
      ['/api/sessions/20260101-000000-abcdef/events?tail=yes', /tail/],
    ] as const;
    for (const [url, message] of bad) {
      const res = await t.app.inject({ url, headers: auth });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
      expect(res.json().error.message, url).toMatch(message);
    }
  });

  it('answers an unknown session with session_not_found', async () => {
    const res = await t.app.inject({ url: '/api/sessions/20260101-000000-abcdef/events', headers: auth });
    expect(res.statusCode).toBe(404);
    expect(errorCode(res.body)).toBe('session_not_found');
  });

  it('reports a corrupt event log by name instead of crashing', async () => {
    const id = makeSession();
    fs.appendFileSync(path.join(t.store.session(id).dir, 'events.jsonl'), 'garbage\n{"also":"bad"}\n');
    const res = await t.app.inject({ url: `/api/sessions/${id}/events`, headers: auth });
    expect(res.statusCode).toBe(500);
    expect(res.json().error.code).toBe('corrupt_file');
    expect(res.json().error.message).toMatch(/events\.jsonl is corrupt: line 3 is not valid JSON/);
  });
});

describe('the SPA', () => {
  it('serves a page without a token, with a strict Content-Security-Policy', async () => {
    const res = await t.app.inject({ url: '/sessions/whatever' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.headers['content-security-policy']).toMatch(/script-src 'self'/);
    expect(res.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
  });

  it('serves a built app: files as they are on disk, deep links as index.html, never dotfiles, API misses as JSON', async () => {
    const web = fs.mkdtempSync(path.join(t.home, 'web-'));
    fs.mkdirSync(path.join(web, 'assets'));
    fs.writeFileSync(path.join(web, 'index.html'), '<!doctype html><div id="root"></div>');
    fs.writeFileSync(path.join(web, 'assets', 'app-1a2b.js'), 'console.log(1)');
    fs.writeFileSync(path.join(web, '.env'), 'SECRET=1');
    const built = await makeTestApp({ webRoot: web });
    try {
      const asset = await built.app.inject({ url: '/assets/app-1a2b.js' });
      expect(asset.statusCode).toBe(200);
      expect(asset.body).toBe('console.log(1)');
      expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      // Written after the start: served too (files are looked up per request, not listed at the start).
      fs.writeFileSync(path.join(web, 'assets', 'late-3c4d.js'), 'console.log(2)');
      expect((await built.app.inject({ url: '/assets/late-3c4d.js' })).body).toBe('console.log(2)');
      for (const url of ['/sessions/whatever', '/', '/.env', '/assets', '/assets/', '/assets/missing-9z.js', '/sessions/x/']) {
        const page = await built.app.inject({ url });
        expect(page.statusCode, url).toBe(200);
        expect(page.body, url).toBe('<!doctype html><div id="root"></div>');
        expect(page.headers['content-security-policy'], url).toMatch(/script-src 'self'/);
        expect(page.headers['cache-control'], url).toBe('no-store');
      }
      const api = await built.app.inject({ url: '/api/nope', headers: auth });
      expect(api.statusCode).toBe(404);
      expect(errorCode(api.body)).toBe('not_found');
    } finally {
      await built.close();
    }
  });
});
