import { AppError } from '../errors/app-error.ts';
import type { FailureKind } from './failure.ts';
import type { ReplyHealth, Role } from './types.ts';

const ROLE_VARS: Record<Role, string> = {
  worker: 'TILTH_BASE_URL, TILTH_API_KEY and TILTH_WORKER_MODEL',
  evaluator:
    "TILTH_EVALUATOR_BASE_URL, TILTH_EVALUATOR_API_KEY and TILTH_EVALUATOR_MODEL (each falls back to the worker's TILTH_BASE_URL, TILTH_API_KEY and TILTH_WORKER_MODEL)",
  prep: "TILTH_PREP_BASE_URL, TILTH_PREP_API_KEY and TILTH_PREP_MODEL (each falls back to the worker's TILTH_BASE_URL, TILTH_API_KEY and TILTH_WORKER_MODEL)",
};

/** A role was called with no endpoint configured. 409: the request is fine, the setup is not. */
export class ProviderNotConfiguredError extends AppError {
  constructor(readonly role: Role) {
    super(
      'provider_not_configured',
      `No model endpoint is configured for the ${role} role. Set ${ROLE_VARS[role]} — in the environment, $TILTH_HOME/.env or on the settings page.`,
    );
  }
}

/** A 200 reply that cannot be used; the cause of a ProviderFailureError when retries run out. */
export class UnhealthyReplyError extends Error {
  constructor(
    readonly health: Exclude<ReplyHealth, 'ok'>,
    readonly finishReason: string | null,
    detail: string | null,
  ) {
    super(`unhealthy reply (${health}${finishReason ? `, finish_reason "${finishReason}"` : ''})${detail ? `: ${detail}` : ''}`);
    this.name = 'UnhealthyReplyError';
  }
}

export type ProviderFailureDetails = {
  role: Role;
  model: string;
  /** The base URL without credentials or query, safe to show. */
  endpoint: string;
  attempts: number;
  /** Health of the last reply, or null when the last attempt got no reply (HTTP error, timeout). */
  health: ReplyHealth | null;
  /** HTTP status of the last attempt's error, when there was one. */
  status: number | null;
  /** False when the last error is one retrying cannot fix (a 4xx such as 400 or 401). */
  retryable: boolean;
  /** What kind of failure the last one was (see classifyFailure). */
  kind: FailureKind;
  /** What went wrong, in the provider's words, at most ~500 characters, without the key. */
  reason: string;
  /** One sentence on what to change ("Restart llama-server with --jinja: …"), when known. */
  fix: string | null;
  cause: unknown;
};

/**
 * The provider did not give a usable reply: retries exhausted, retry budget spent, or an error
 * that retrying cannot fix. Carries the last cause, its kind, and the sentence on what to change
 * when one is known (the message ends with it too). 502: the fault is upstream.
 */
export class ProviderFailureError extends AppError {
  readonly role: Role;
  readonly model: string;
  readonly endpoint: string;
  readonly attempts: number;
  readonly health: ReplyHealth | null;
  readonly httpStatus: number | null;
  readonly retryable: boolean;
  readonly kind: FailureKind;
  readonly reason: string;
  readonly fix: string | null;

  constructor(summary: string, details: ProviderFailureDetails) {
    super('provider_failure', summary, { cause: details.cause });
    this.role = details.role;
    this.model = details.model;
    this.endpoint = details.endpoint;
    this.attempts = details.attempts;
    this.health = details.health;
    this.httpStatus = details.status;
    this.retryable = details.retryable;
    this.kind = details.kind;
    this.reason = details.reason;
    this.fix = details.fix;
  }
}

/**
 * A provider that failed the quick check made before work starts (creating a session, retrying
 * an interview). 502 with the provider's own words on the wire: they are what the user fixes.
 * `provider_unreachable`: nothing answered, or the provider answered with a server error;
 * `provider_refused`: it answered and said no (a wrong key, an unknown model, a bad URL).
 */
export class ProviderCheckError extends AppError {
  constructor(code: 'provider_unreachable' | 'provider_refused', message: string) {
    super(code, message);
  }

  override get expose(): boolean {
    return true;
  }
}
