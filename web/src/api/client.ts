/**
 * The one way the SPA talks REST. Every response body is parsed with a shared zod schema, and
 * every failure (HTTP error, network error, a body that does not match) becomes an `ApiError`,
 * so callers and TanStack Query handle one error type.
 */
import type { z } from 'zod';
import { ERROR_CODES } from '../../../shared/errors.ts';
import { ErrorBodySchema } from '../../../shared/api.ts';

/**
 * `status` is the HTTP status, or 0 when no response arrived. `code` is the server's stable
 * snake_case code, or one of the client's own: `network_error`, `http_error` (an error status
 * without the standard body), `bad_response` (a body that does not match its schema).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ApiError';
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
  get<S extends z.ZodType>(path: string, schema: S, init?: { signal?: AbortSignal }): Promise<z.infer<S>>;
  post<S extends z.ZodType>(path: string, body: unknown, schema: S, init?: { signal?: AbortSignal }): Promise<z.infer<S>>;
  put<S extends z.ZodType>(path: string, body: unknown, schema: S, init?: { signal?: AbortSignal }): Promise<z.infer<S>>;
  delete<S extends z.ZodType>(path: string, schema: S, init?: { signal?: AbortSignal }): Promise<z.infer<S>>;
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  const baseUrl = options.baseUrl ?? '';

  async function request<S extends z.ZodType>(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    schema: S,
    body: unknown,
    signal: AbortSignal | undefined,
  ): Promise<z.infer<S>> {
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
    return parsed.data;
  }

  return {
    get: (path, schema, init) => request('GET', path, schema, undefined, init?.signal),
    post: (path, body, schema, init) => request('POST', path, schema, body, init?.signal),
    put: (path, body, schema, init) => request('PUT', path, schema, body, init?.signal),
    delete: (path, schema, init) => request('DELETE', path, schema, undefined, init?.signal),
  };
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
  if (body.success) return new ApiError(status, body.data.error.code, body.data.error.message);
  return new ApiError(status, ERROR_CODES.http_error, `${method} ${path} failed with HTTP ${status}.`);
}
