import { ERROR_CODES } from '../../../shared/errors.ts';
import { ApiError } from '../api/client.ts';

export function Loading({ what }: { what: string }) {
  return (
    <p className="muted loading" data-testid="loading">
      Loading {what}…
    </p>
  );
}

export function QueryError({ error, what, onRetry }: { error: Error; what: string; onRetry: () => void }) {
  const code = error instanceof ApiError ? error.code : ERROR_CODES.client_error;
  return (
    <div className="panel panel-error" role="alert" data-testid="query-error" data-code={code}>
      <h2>Could not load {what}</h2>
      <p>{error.message}</p>
      <button type="button" className="button" onClick={onRetry}>
        Try again
      </button>
    </div>
  );
}
