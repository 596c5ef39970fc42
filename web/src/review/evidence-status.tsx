import type { Evidence, EvidenceStatus } from '../../../shared/evidence.ts';
import { countByStatus } from '../../../shared/evidence.ts';
import { ERROR_CODES } from '../../../shared/errors.ts';
import type { PrdEntry } from '../../../shared/files.ts';
import type { TaskEvidenceStatus } from '../../../shared/review.ts';
import { ApiError } from '../api/client.ts';
import { QueryError } from '../components/query-status.tsx';
import { shortSha } from './review-format.ts';

/**
 * The evidence receipt's status in words. The status rests on what the harness ran (red before,
 * green after, the test machinery, the mutants), never on what the models said.
 */
const STATUS: Record<EvidenceStatus, { label: string; tone: string; callout: string; lead: string }> = {
  verified: {
    label: 'Verified',
    tone: 'good',
    callout: 'callout-success',
    lead: 'Every criterion has a test that failed before the change and passes after it, on test machinery the worker did not touch, and the tests caught every mutant tried.',
  },
  with_gaps: {
    label: 'With gaps',
    tone: 'warning',
    callout: 'callout-warning',
    lead: 'Nothing contradicts the accept, but the evidence does not cover everything:',
  },
  not_verified: {
    label: 'Not verified',
    tone: 'error',
    callout: 'callout-error',
    lead: 'The evidence contradicts the accept:',
  },
};

export function EvidenceBadge({ status }: { status: EvidenceStatus }) {
  return (
    <span className={`badge proof proof-${STATUS[status].tone}`} data-testid="evidence-badge" data-evidence={status}>
      {STATUS[status].label}
    </span>
  );
}

/** The task review's first word: the receipt's status and each gap in one sentence, then the facts behind it. */
export function EvidenceSummary({
  evidence,
  error,
  pending,
  onRetry,
}: {
  evidence: Evidence | undefined;
  error: Error | null;
  pending: boolean;
  onRetry: () => void;
}) {
  if (pending) return <p className="muted evidence-summary">Reading the evidence receipt…</p>;
  if (error instanceof ApiError && error.code === ERROR_CODES.evidence_not_found) {
    return (
      <p className="muted evidence-summary" data-testid="evidence-summary" data-evidence="none">
        No evidence receipt yet: the harness writes one when the task is accepted and committed.
      </p>
    );
  }
  if (error !== null || evidence === undefined) return <QueryError error={error ?? new Error('no receipt')} what="the evidence receipt" onRetry={onRetry} />;
  const s = STATUS[evidence.status];
  return (
    <section
      className={`callout ${s.callout} evidence-summary`}
      aria-labelledby="evidence-title"
      data-testid="evidence-summary"
      data-evidence={evidence.status}
    >
      <h2 id="evidence-title">
        Evidence: <EvidenceBadge status={evidence.status} />
        {evidence.revision > 1 && <span className="muted small"> revision {evidence.revision}</span>}
      </h2>
      <p>{s.lead}</p>
      {evidence.gaps.length > 0 && (
        <ul className="evidence-gaps">
          {evidence.gaps.map((gap) => (
            <li key={gap} data-testid="evidence-gap">
              {gap}
            </li>
          ))}
        </ul>
      )}
      <details className="evidence-receipt" data-testid="evidence-receipt">
        <summary>The receipt</summary>
        <ReceiptFacts evidence={evidence} />
      </details>
    </section>
  );
}

function ReceiptFacts({ evidence }: { evidence: Evidence }) {
  const reds = evidence.red.filter((p) => p.result === 'failed').length;
  const greens = evidence.green.filter((p) => p.result === 'passed').length;
  const m = evidence.mutation;
  const facts: [string, string][] = [
    ['Seed commit', evidence.seed_commit === null ? 'not found' : shortSha(evidence.seed_commit)],
    ['Task commit', shortSha(evidence.task_commit)],
    ['Diff sha256', evidence.diff_sha256.slice(0, 16)],
    [
      'Commands',
      evidence.commands.length === 0
        ? 'none'
        : evidence.commands
            .map((c) => `${c.name}: ${c.passed ? 'passed' : 'failed'}${c.exit_code === null || c.exit_code === undefined ? '' : ` (exit ${c.exit_code})`}`)
            .join('; '),
    ],
    ['Red before', `${reds} of ${evidence.red.length} named cases failed on the seed commit`],
    ['Green after', `${greens} of ${evidence.green.length} named cases passed, each run alone`],
    ['Test machinery', evidence.machinery.ran ? (evidence.machinery.passed ? 'untouched' : 'changed') : 'not checked'],
    ['Mutants', m.status === 'done' ? `${m.killed} killed, ${m.survived} survived` : m.status === 'none' ? 'no probe' : m.status],
  ];
  return (
    <>
      <dl className="evidence-facts">
        {facts.map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd className={label.includes('commit') || label.startsWith('Diff') ? 'mono' : undefined}>{value}</dd>
          </div>
        ))}
      </dl>
      <h3 className="section-label">What the models said (not evidence)</h3>
      <ul className="evidence-claims">
        <li>Worker: {evidence.claims.worker_case?.summary ?? 'no case'}</li>
        <li>
          Evaluator: {evidence.claims.verdict.verdict} — {evidence.claims.verdict.concern}
        </li>
      </ul>
    </>
  );
}

/** The session review's count of done tasks per receipt status. */
export function EvidenceCounts({ tasks, evidence }: { tasks: PrdEntry[]; evidence: TaskEvidenceStatus[] }) {
  const done = tasks.filter((t) => t.status === 'done');
  if (done.length === 0) return null;
  const byTask = new Map(evidence.map((e) => [e.task_id, e.status]));
  const counts = countByStatus(done.map((t) => byTask.get(t.id) ?? null));
  const parts: [string, number, string][] = [
    ['verified', counts.verified, 'verified'],
    ['with_gaps', counts.with_gaps, 'with gaps'],
    ['not_verified', counts.not_verified, 'not verified'],
    ['none', counts.none, 'without a receipt'],
  ];
  return (
    <p
      className="evidence-counts"
      data-testid="evidence-counts"
      data-verified={counts.verified}
      data-with-gaps={counts.with_gaps}
      data-not-verified={counts.not_verified}
    >
      <strong>Evidence of the {done.length === 1 ? 'done task' : `${done.length} done tasks`}:</strong>{' '}
      {parts
        .filter(([key, n]) => n > 0 || key !== 'none')
        .map(([key, n, label], i) => (
          <span key={key} data-testid={`evidence-count-${key}`}>
            {i > 0 && '· '}
            {n} {label}
          </span>
        ))}
    </p>
  );
}
