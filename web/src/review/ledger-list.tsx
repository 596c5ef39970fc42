import type { LedgerEntry } from '../../../shared/files.ts';
import { words } from './review-format.ts';
import { MiniMarkdown } from '../components/mini-markdown.tsx';
import { formatTime } from '../../../shared/format.ts';
import { ScrollRegion } from '../components/scroll-region.tsx';

/** Every evaluator verdict on the task, oldest first, with what it judged. */
export function LedgerList({ ledger }: { ledger: readonly LedgerEntry[] }) {
  if (ledger.length === 0) {
    return (
      <p className="muted" data-testid="ledger-empty">
        The evaluator has not judged this task yet.
      </p>
    );
  }
  return (
    <ol className="ledger" data-testid="ledger">
      {ledger.map((entry, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the ledger is append-only and a logged entry never changes; two can share a time or text
        <LedgerItem key={`${entry.ts}-${i}`} entry={entry} n={i + 1} />
      ))}
    </ol>
  );
}

function LedgerItem({ entry, n }: { entry: LedgerEntry; n: number }) {
  const { verdict } = entry;
  const accepted = verdict.verdict === 'accept';
  return (
    <li
      className={`ledger-entry ledger-${verdict.verdict}`}
      data-testid="ledger-entry"
      data-verdict={verdict.verdict}
      data-category={verdict.rejection_category ?? ''}
      data-revision={entry.revision ?? 1}
    >
      <div className="ledger-head">
        <span className="ledger-n">#{n}</span>
        <span className={`badge verdict-${verdict.verdict}`} data-testid="ledger-verdict">
          {accepted ? 'accepted' : 'rejected'}
        </span>
        {verdict.rejection_category !== undefined && (
          <span className="badge ledger-category" data-testid="ledger-category">
            {words(verdict.rejection_category)}
          </span>
        )}
        {entry.revision !== undefined && (
          <span className="badge ledger-revision" data-testid="ledger-revision">
            revision {entry.revision}
          </span>
        )}
        {verdict.parse_failed === true && (
          <span className="badge ledger-parse-failed" title="The evaluator's answer could not be read twice; the harness rejected to stay safe.">
            unreadable answer
          </span>
        )}
        <span className="muted small ledger-when">
          iteration {entry.iter} · <time dateTime={entry.ts}>{formatTime(entry.ts)}</time>
        </span>
      </div>
      <dl className="ledger-body">
        <dt data-testid="ledger-concern-label">{accepted ? 'Why accepted' : 'Why rejected'}</dt>
        <dd data-testid="ledger-concern">{verdict.concern}</dd>
        {verdict.evidence.length > 0 && (
          <>
            <dt>Evidence</dt>
            <dd>
              <ul className="ledger-evidence" data-testid="ledger-evidence">
                {verdict.evidence.map((e, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: the ledger is append-only and a logged entry never changes; two can share a time or text
                  <li key={i}>{e}</li>
                ))}
              </ul>
            </dd>
          </>
        )}
        {verdict.next_step !== undefined && verdict.next_step !== '' && (
          <>
            <dt>Next step</dt>
            <dd data-testid="ledger-next-step">{verdict.next_step}</dd>
          </>
        )}
      </dl>
      {(entry.case !== null || entry.diff_summary !== '') && (
        <details className="ledger-more">
          <summary>What it judged</summary>
          {entry.case !== null && (
            <div className="ledger-case">
              <h4 className="section-label">The case</h4>
              <MiniMarkdown text={entry.case.summary} />
            </div>
          )}
          {entry.diff_summary !== '' && (
            <>
              <h4 className="section-label">The diff it saw</h4>
              <ScrollRegion as="pre" label="The diff it saw" className="check-output">
                {entry.diff_summary}
              </ScrollRegion>
            </>
          )}
        </details>
      )}
    </li>
  );
}
