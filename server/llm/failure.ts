/**
 * What a failed request to a provider says, safe to show: the status and the provider's own
 * message, connection errors down to their root cause, and never the key or URL credentials.
 * Shared by model calls (client.ts) and connection tests (probe.ts).
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { isRetryableStatus, retryAfterMs } from './retry.ts';

export type AttemptFailure = {
  retryable: boolean;
  status: number | null;
  retryAfterMs: number | null;
  description: string;
  cause: unknown;
};

/** A base URL fit for messages and logs: no user:password, no query string. */
export function displayUrl(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return '(invalid URL)';
  }
}

export function describeFailure(err: unknown, timeoutMs: number, scrub: (text: string) => string): AttemptFailure {
  // Order matters: the timeout error is a connection error, which is an APIError.
  if (err instanceof APIConnectionTimeoutError) return timeoutFailure(timeoutMs, err);
  if (err instanceof APIConnectionError) {
    return { retryable: true, status: null, retryAfterMs: null, description: scrub(`connection failed: ${causeChain(err)}`), cause: err };
  }
  if (err instanceof APIError && typeof err.status === 'number') {
    return {
      retryable: isRetryableStatus(err.status),
      status: err.status,
      retryAfterMs: retryAfterMs(err.headers),
      description: scrub(`HTTP ${err.status}: ${err.message.replace(/^\d{3}\s+/, '')}`),
      cause: err,
    };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { retryable: false, status: null, retryAfterMs: null, description: scrub(`unexpected error: ${message}`), cause: err };
}

export function timeoutFailure(timeoutMs: number, cause: unknown): AttemptFailure {
  return { retryable: true, status: null, retryAfterMs: null, description: `no complete answer within ${timeoutMs} ms`, cause };
}

/**
 * The SDK's "Connection error." wraps fetch's "fetch failed", which wraps what actually happened
 * ("connect ECONNREFUSED 127.0.0.1:1", "getaddrinfo ENOTFOUND …"): name the causes, not the wrapper.
 */
function causeChain(err: Error): string {
  const messages: string[] = [];
  for (let cause = err.cause; cause instanceof Error && messages.length < 5; cause = cause.cause) messages.push(cause.message);
  return messages.length > 0 ? messages.join(': ') : err.message;
}

/** Removes the key and any `user:password@` in URLs (the SDK quotes the URL in some errors). */
export function scrubSecret(text: string, secret: string): string {
  const withoutUserinfo = text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^/\s@]+@/gi, '$1');
  // Short "keys" like "none" or "x" are placeholders for local servers, not secrets.
  return secret.length >= 8 ? withoutUserinfo.split(secret).join('[redacted]') : withoutUserinfo;
}
