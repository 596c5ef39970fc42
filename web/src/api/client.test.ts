import { describe, expect, it } from 'vitest';
import { ApiError, createApiClient, endpointUrl } from './client.ts';

type Call = { url: string; init: RequestInit | undefined };

function fakeFetch(respond: (call: Call) => Response | Promise<Response>) {
  const calls: Call[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const call = { url: String(input), init };
    calls.push(call);
    return respond(call);
  };
  return { calls, fetch: fetch as typeof globalThis.fetch };
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

async function caught(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

describe('api client', () => {
  it('returns the parsed body of a successful response', async () => {
    const { fetch, calls } = fakeFetch(() => json(200, { ok: true, name: 'tilth', version: '0.1.0', uptime_s: 3 }));
    const api = createApiClient({ fetch });
    await expect(api.call('getHealth', {})).resolves.toEqual({
      ok: true,
      name: 'tilth',
      version: '0.1.0',
      uptime_s: 3,
    });
    expect(calls[0]?.url).toBe('/api/health');
    expect(calls[0]?.init?.credentials).toBe('same-origin');
  });

  it('sends a JSON body on POST', async () => {
    const { fetch, calls } = fakeFetch(() => json(200, { ok: true }));
    await createApiClient({ fetch }).call('postAuth', { body: { token: 'abc' } });
    expect(calls[0]?.init?.method).toBe('POST');
    expect(calls[0]?.init?.body).toBe('{"token":"abc"}');
    expect(new Headers(calls[0]?.init?.headers).get('content-type')).toBe('application/json');
  });

  it('sends a JSON body, {} for an empty one, and DELETE without a body', async () => {
    const { fetch, calls } = fakeFetch(({ init }) => (init?.method === 'DELETE' ? json(200, { ok: true }) : json(200, { url: 'u', via: 'gh' })));
    const api = createApiClient({ fetch });
    await api.call('openPr', { params: { id: 'a' }, body: { remote: 'origin' } });
    await api.call('openPr', { params: { id: 'a' } });
    await api.call('discardSession', { params: { id: 'a' }, query: { confirm: 'a' } });
    expect(calls.map((c) => [c.init?.method, c.init?.body])).toEqual([
      ['POST', '{"remote":"origin"}'],
      ['POST', '{}'],
      ['DELETE', undefined],
    ]);
    expect(new Headers(calls[2]?.init?.headers).get('content-type')).toBeNull();
  });

  it('turns the standard error body into an ApiError with its status, code and message', async () => {
    const { fetch } = fakeFetch(() => json(404, { error: { code: 'session_not_found', message: 'No session 123' } }));
    const error = await caught(createApiClient({ fetch }).call('getSession', { params: { id: 'x' } }));
    expect(error).toMatchObject({ status: 404, code: 'session_not_found', message: 'No session 123', fields: {} });
  });

  it('keeps what the server says about each field, for a form to show beside it', async () => {
    const body = { error: { code: 'invalid_config', message: 'Not saved: TILTH_MAX_DOLLARS …', fields: { TILTH_MAX_DOLLARS: 'must be a number, got "x"' } } };
    const { fetch } = fakeFetch(() => json(400, body));
    const error = await caught(createApiClient({ fetch }).call('putConfig', { body: { TILTH_MAX_DOLLARS: 'x' } }));
    expect(error.fields).toEqual({ TILTH_MAX_DOLLARS: 'must be a number, got "x"' });
  });

  it('reports an error status without the standard body as http_error', async () => {
    const { fetch } = fakeFetch(() => new Response('<html>Bad Gateway</html>', { status: 502 }));
    const error = await caught(createApiClient({ fetch }).call('listSessions', {}));
    expect(error).toMatchObject({ status: 502, code: 'http_error' });
    expect(error.message).toContain('HTTP 502');
  });

  it('reports a successful response of the wrong shape as bad_response, naming the field', async () => {
    const { fetch } = fakeFetch(() => json(200, { sessions: [{ id: 'nope' }] }));
    const error = await caught(createApiClient({ fetch }).call('listSessions', {}));
    expect(error).toMatchObject({ status: 200, code: 'bad_response' });
    expect(error.message).toContain('sessions.0');
  });

  it('reports a failed request as network_error with status 0', async () => {
    const { fetch } = fakeFetch(() => Promise.reject(new TypeError('fetch failed')));
    const error = await caught(createApiClient({ fetch }).call('getHealth', {}));
    expect(error).toMatchObject({ status: 0, code: 'network_error' });
  });

  it('calls onUnauthorized on a 401 and still throws', async () => {
    const { fetch } = fakeFetch(() => json(401, { error: { code: 'unauthorized', message: 'Missing or wrong token.' } }));
    const seen: ApiError[] = [];
    const api = createApiClient({ fetch, onUnauthorized: (e) => seen.push(e) });
    const error = await caught(api.call('getHealth', {}));
    expect(error.isUnauthorized).toBe(true);
    expect(seen).toEqual([error]);
  });

  it('fills in path parameters encoded, and the query without its unset values', () => {
    expect(endpointUrl('getTaskDiff', { params: { id: 'a b', taskId: 'T-001' } })).toBe('/api/sessions/a%20b/tasks/T-001/diff');
    expect(endpointUrl('getEvents', { params: { id: 's' }, query: { after: '3', limit: '10', tail: undefined } })).toBe(
      '/api/sessions/s/events?after=3&limit=10',
    );
    expect(endpointUrl('checkWorkspace', { query: { path: '/a b&c' } })).toBe('/api/workspaces/check?path=%2Fa+b%26c');
  });
});
