/**
 * The one way the SPA talks REST: `api.call('getSession', { params: { id } })`, by an endpoint's
 * name in the contract (shared/routes.ts), which gives the method, the path, the input types and
 * the schema every response body is parsed with. Every failure (HTTP error, network error, a body
 * that does not match) becomes an `ApiError`, so callers and TanStack Query handle one error type.
 */
import { ErrorBodySchema } from '../../../shared/api.ts';
import { ERROR_CODES } from '../../../shared/errors.ts';
import { buildPath, ROUTES, type EndpointInput, type EndpointName, type EndpointResponse } from '../../../shared/routes.ts';

/**
 * `status` is the HTTP status, or 0 when no response arrived. `code` is the server's stable
 * snake_case code, or one of the client's own: `network_error`, `http_error` (an error status
 * without the standard body), `bad_response` (a body that does not match its schema).
 */
export class ApiError extends Error {
  /** Per request-body field, what the server found wrong with it (empty when no field is to blame). */
  readonly fields: Readonly<Record<string, string>>;

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    options?: { cause?: unknown; fields?: Readonly<Record<string, string>> | undefined },
  ) {
    super(message, options);
    this.name = 'ApiError';
    this.fields = options?.fields ?? {};
  }

  get isUnauthorized(): boolean {
    return this.status === 401;
  }
}

export interface ApiClientOptions {
  fetch: typeof fetch;
  /** Origin to resolve paths against; the browser build leaves it empty (same origin). */
  baseUrl?: string;
  /** Called on every 401, after the error is built and before it is thrown. */
  onUnauthorized?: (error: ApiError) => void;
}

export interface ApiClient {
  call<N extends EndpointName>(name: N, input: EndpointInput<N>, init?: { signal?: AbortSignal | undefined }): Promise<EndpointResponse<N>>;
}

/** The request target of a call: the path with its parameters filled in, then the query. */
export function endpointUrl<N extends EndpointName>(name: N, input: EndpointInput<N>): string {
  const { params, query } = input as { params?: Record<string, string>; query?: Record<string, string | undefined> };
  const path = buildPath(ROUTES[name].path, params);
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined) search.set(key, value);
  const qs = search.toString();
  return qs === '' ? path : `${path}?${qs}`;
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  const baseUrl = options.baseUrl ?? '';

  async function call<N extends EndpointName>(name: N, input: EndpointInput<N>, how?: { signal?: AbortSignal | undefined }): Promise<EndpointResponse<N>> {
    const { method, response: schema } = ROUTES[name];
    const path = endpointUrl(name, input);
    // A POST or PUT whose endpoint takes an empty body still sends `{}`: the server wants an object.
    const body: unknown = (input as { body?: unknown }).body ?? (method === 'POST' || method === 'PUT' ? {} : undefined);
    const signal = how?.signal;
    const init: RequestInit = {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
    };
    if (body !== undefined) init.body = JSON.stringify(body);
    if (signal !== undefined) init.signal = signal;

    let response: Response;
    try {
      response = await options.fetch(baseUrl + path, init);
    } catch (cause) {
      if (signal?.aborted) throw cause; // let TanStack Query see its own cancellation
      throw new ApiError(0, ERROR_CODES.network_error, `Could not reach the Tilth server (${method} ${path}).`, { cause });
    }

    const text = await response.text();
    const json = parseJson(text);

    if (!response.ok) {
      const error = errorFromResponse(response.status, json, method, path);
      if (error.isUnauthorized) options.onUnauthorized?.(error);
      throw error;
    }

    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      throw new ApiError(
        response.status,
        ERROR_CODES.bad_response,
        `${method} ${path} answered with an unexpected shape: ${parsed.error.issues
          .slice(0, 3)
          .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
          .join('; ')}`,
        { cause: parsed.error },
      );
    }
    return parsed.data as EndpointResponse<N>;
  }

  return { call };
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function errorFromResponse(status: number, json: unknown, method: string, path: string): ApiError {
  const body = ErrorBodySchema.safeParse(json);
  if (body.success) return new ApiError(status, body.data.error.code, body.data.error.message, { fields: body.data.error.fields });
  return new ApiError(status, ERROR_CODES.http_error, `${method} ${path} failed with HTTP ${status}.`);
}
