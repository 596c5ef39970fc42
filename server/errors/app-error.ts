/**
 * Errors with stable snake_case codes from the catalogue in `shared/errors.ts`, which also gives
 * each code its HTTP status. Route code throws these; the one error handler in `app.ts` turns
 * them into `{error: {code, message}}`. A 4xx says exactly what to fix; a 5xx hides internals and
 * is logged.
 */
import type { ZodError } from 'zod';
import { type ErrorCode, type ErrorCodeWithStatus, errorStatus } from '../../shared/errors.ts';

export class AppError extends Error {
  readonly status: number;
  /** Per request-body field, what is wrong with it (see `ErrorBody`); absent when no field is to blame. */
  readonly fields: Readonly<Record<string, string>> | undefined;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown; fields?: Readonly<Record<string, string>> },
  ) {
    super(message, options);
    this.name = new.target.name;
    this.status = errorStatus(code);
    this.fields = options?.fields;
  }

  /**
   * Whether the message may go on the wire. A 5xx is hidden by default (it may carry internals);
   * the few that are written for the user (a corrupt file's name, a provider's own words) say so.
   */
  get expose(): boolean {
    return this.status < 500;
  }
}

export class ValidationError extends AppError {
  constructor(message: string) {
    super('invalid_request', message);
  }
}

export class NotFoundError extends AppError {
  constructor(code: ErrorCodeWithStatus<404>, message: string) {
    super(code, message);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'Missing or wrong token. Open the link that `tilth serve` printed in your terminal, or send Authorization: Bearer <token>.') {
    super('unauthorized', message);
  }
}

export class ForbiddenError extends AppError {
  constructor(code: ErrorCodeWithStatus<403>, message: string) {
    super(code, message);
  }
}

export class ConflictError extends AppError {
  constructor(code: ErrorCodeWithStatus<409>, message: string) {
    super(code, message);
  }
}

/** The run queue's Redis did not answer: said to the user as is (a 503 whose words are written for them). */
export class QueueUnavailableError extends AppError {
  constructor(message: string) {
    super('queue_unavailable', message);
  }

  override get expose(): boolean {
    return true;
  }
}

/** A file under the sessions root exists but does not match its schema or is not valid JSON. */
export class CorruptFileError extends AppError {
  constructor(
    readonly file: string,
    detail: string,
  ) {
    super('corrupt_file', `${file} is corrupt: ${detail}`);
  }

  override get expose(): boolean {
    return true;
  }
}

/** Renders zod issues as one readable line: `limit: must be between 1 and 5000; after: …`. */
export function describeZodError(error: ZodError, prefix?: string): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.map(String).join('.');
      const where = [prefix, path].filter(Boolean).join('.');
      return where ? `${where}: ${issue.message}` : issue.message;
    })
    .join('; ');
}
