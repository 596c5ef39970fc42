import type { CheckAttempt } from '../../../shared/review.ts';
import { formatDuration, formatInt, formatTime } from '../../../shared/format.ts';
import { ScrollRegion } from '../components/scroll-region.tsx';

type CheckResult = CheckAttempt['results'][number];

/** The checks run on each case the worker made, in order, with every check's full output. */
export function CheckAttempts({ attempts }: { attempts: readonly CheckAttempt[] }) {
  if (attempts.length === 0) {
    return (
      <p className="muted" data-testid="checks-empty">
        No checks have run for this task.
      </p>
    );
  }
  return (
    <ol className="check-attempts" data-testid="check-attempts">
      {attempts.map((a, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: logged check runs never change or reorder, and two can share a name and time
        <li key={`${a.ts}-${i}`} className="check-attempt" data-testid="check-attempt" data-passed={a.passed} data-iter={a.iter}>
          <div className="check-attempt-head">
            <span className="ledger-n">Attempt {i + 1}</span>
            <span className={`badge ${a.passed ? 'check-pass' : 'check-fail'}`}>{a.passed ? 'passed' : 'failed'}</span>
            <span className="muted small">
              iteration {a.iter} · <time dateTime={a.ts}>{formatTime(a.ts)}</time>
            </span>
          </div>
          {a.results.length === 0 ? (
            <p className="muted small">No checks were configured.</p>
          ) : (
            // biome-ignore lint/suspicious/noArrayIndexKey: logged check runs never change or reorder, and two can share a name and time
            a.results.map((r, j) => <CheckResultView key={`${r.name}-${j}`} result={r} where={`attempt ${i + 1}`} />)
          )}
        </li>
      ))}
    </ol>
  );
}

/**
 * One check's result and output. `where` tells its output's region from the same check's in
 * another attempt ("Output of acceptance, attempt 2"): a page's regions need names of their own.
 */
export function CheckResultView({ result, testId = 'check-result', where }: { result: CheckResult; testId?: string; where?: string }) {
  const output = result.output ?? '';
  // The server keeps the head and the tail of a very long output and says where it cut.
  const cut = result.output_chars !== undefined && result.output_chars > output.length;
  return (
    <div className="check-result" data-testid={testId} data-name={result.name} data-passed={result.passed}>
      <div className="check-result-head">
        <span className={`check-mark ${result.passed ? 'check-mark-pass' : 'check-mark-fail'}`} aria-hidden="true">
          {result.passed ? '✓' : '✗'}
        </span>
        <span className="mono check-name">{result.name}</span>
        <span className="muted small">
          {result.passed ? 'passed' : 'failed'}
          {result.exit_code !== undefined && result.exit_code !== null && <> · exit {result.exit_code}</>}
          {result.duration_ms !== undefined && <> · {formatDuration(result.duration_ms)}</>}
        </span>
      </div>
      {output === '' ? (
        <p className="muted small check-no-output">No output.</p>
      ) : (
        <ScrollRegion as="pre" label={`Output of ${result.name}${where ? `, ${where}` : ''}`} className="check-output" testId="check-output">
          {output}
        </ScrollRegion>
      )}
      {cut && <p className="muted small">The output was {formatInt(result.output_chars ?? 0)} characters long; its beginning and end are kept.</p>}
    </div>
  );
}
