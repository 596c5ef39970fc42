import { FullPageMessage } from './full-page-message.tsx';

export function ServerUnreachable({ message, onRetry }: { message: string; onRetry: () => void }) {
  return (
    <FullPageMessage testId="server-unreachable" title="Tilth is not answering">
      <p>
        The page loaded, but the Tilth server did not answer. Check that <code>tilth serve</code> is still running in your terminal.
      </p>
      <pre className="error-detail">{message}</pre>
      <button type="button" className="button" onClick={onRetry}>
        Try again
      </button>
    </FullPageMessage>
  );
}
