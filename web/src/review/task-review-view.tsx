import { useMemo, type ReactNode } from 'react';
import type { MutationReport } from '../../../shared/files.ts';
import type { TaskReview } from '../../../shared/review.ts';
import type { TaskSummary } from '../../../shared/summary.ts';
import { matchCoverage } from '../../../shared/coverage.ts';
import { subjectRevision } from '../../../shared/session-rules.ts';
import { words } from './review-format.ts';
import './review.css';
import { CaseCoverage } from './case-coverage.tsx';
import { CheckAttempts } from './check-attempts.tsx';
import { CommitList } from './commit-list.tsx';
import { MayChangeTestSetup } from './proof-badge.tsx';
import { LedgerList } from './ledger-list.tsx';
import { mutationSentence, SurvivorList } from '../components/survivor-list.tsx';
import { SendBackHistory } from './send-back.tsx';
import { formatDuration, formatInt, formatUsd } from '../../../shared/format.ts';

export interface TaskReviewViewProps {
  review: TaskReview;
  /** The evidence receipt's status and gaps: shown first. */
  evidence?: ReactNode;
  /** The diff section's content: the viewer, or its loading or error state. */
  diff: ReactNode;
  /** The line comments section, and how many it lists (for the section links). */
  comments: ReactNode;
  commentCount: number;
  /** The send-back form, when the task may be sent back now; null otherwise. */
  sendBack: ReactNode | null;
  /** Puts a note in the send-back form and brings it into view; absent when the task cannot be sent back now. */
  onSendBackWith?: ((note: string) => void) | undefined;
}

/** One task as a reviewer reads it: the case against the criteria, the change, the verdicts, the checks. */
export function TaskReviewView({ review, evidence, diff, comments, commentCount, sendBack, onSendBackWith }: TaskReviewViewProps) {
  const { task, stats } = review;
  const coverage = useMemo(() => matchCoverage(task.acceptance_criteria, review.final_case), [task.acceptance_criteria, review.final_case]);
  const sections = [
    { id: 'task-case', label: 'Case' },
    { id: 'task-mutation', label: 'Mutation probe' },
    { id: 'task-changes', label: 'Changes' },
    { id: 'task-comments', label: `Comments (${commentCount})` },
    { id: 'task-ledger', label: `Verdicts (${review.ledger.length})` },
    { id: 'task-checks', label: `Checks (${review.checks.length})` },
    ...(sendBack !== null || review.send_backs.length > 0 ? [{ id: 'task-send-back', label: 'Send back' }] : []),
    ...(review.earlier_attempts.length > 0 ? [{ id: 'task-earlier', label: `Earlier attempts (${review.earlier_attempts.length})` }] : []),
  ];
  return (
    <div className="task-review">
      {evidence}
      <TaskStats stats={stats} />
      <p className="task-description">{task.description}</p>
      <MayChangeTestSetup paths={task.may_change_test_setup} />
      <nav className="review-jump" aria-label="Sections">
        {sections.map((s) => (
          <button
            key={s.id}
            type="button"
            className="button button-plain button-small"
            onClick={() => document.getElementById(s.id)?.scrollIntoView({ block: 'start' })}
          >
            {s.label}
          </button>
        ))}
      </nav>

      <section id="task-case" className="review-section" aria-labelledby="task-case-title">
        <h2 id="task-case-title">The worker's case</h2>
        <CaseCoverage finalCase={review.final_case} coverage={coverage} accepted={task.status === 'done'} proofs={review.criteria} />
      </section>

      <section id="task-mutation" className="review-section" aria-labelledby="task-mutation-title">
        <h2 id="task-mutation-title">What the tests would not notice</h2>
        <MutationPanel report={review.mutation} accepted={task.status === 'done'} onSendBackWith={onSendBackWith} />
      </section>

      <section id="task-changes" className="review-section" aria-labelledby="task-changes-title">
        <h2 id="task-changes-title">Changes</h2>
        <CommitList
          commits={review.commits}
          emptyText={
            task.status === 'done' ? 'No commit found for this task on the session branch.' : 'Nothing committed yet: a task is committed when it is accepted.'
          }
        />
        {diff}
      </section>

      {comments}

      <section id="task-ledger" className="review-section" aria-labelledby="task-ledger-title">
        <h2 id="task-ledger-title">The evaluator's verdicts</h2>
        <LedgerList ledger={review.ledger} />
      </section>

      <section id="task-checks" className="review-section" aria-labelledby="task-checks-title">
        <h2 id="task-checks-title">Checks, attempt by attempt</h2>
        <CheckAttempts attempts={review.checks} />
      </section>

      {(sendBack !== null || review.send_backs.length > 0) && (
        <section id="task-send-back" className="review-section" aria-labelledby="task-send-back-title">
          <h2 id="task-send-back-title">Send it back</h2>
          <SendBackHistory sendBacks={review.send_backs} unchanged={unchangedRevisions(review)} />
          {sendBack}
        </section>
      )}

      {review.earlier_attempts.length > 0 && (
        <section id="task-earlier" className="review-section" aria-labelledby="task-earlier-title">
          <h2 id="task-earlier-title">Earlier attempts</h2>
          <p className="muted small">What the task's attempts before a rewind left: kept as they were, never judged again.</p>
          {review.earlier_attempts.map((a) => (
            <details key={a.rewind} className="earlier-attempt" data-testid="earlier-attempt" data-rewind={a.rewind}>
              <summary>
                Earlier attempts (before rewind {a.rewind}): {a.ledger.length} {a.ledger.length === 1 ? 'verdict' : 'verdicts'}, {a.checks.length}{' '}
                {a.checks.length === 1 ? 'check run' : 'check runs'}
              </summary>
              <h3 className="section-label">The evaluator's verdicts</h3>
              <LedgerList ledger={a.ledger} />
              <h3 className="section-label">Checks, attempt by attempt</h3>
              <CheckAttempts attempts={a.checks} />
            </details>
          ))}
        </section>
      )}
    </div>
  );
}

export function TaskStatusBadge({ status }: { status: TaskReview['task']['status'] }) {
  return (
    <span className={`badge task-${status}`} data-testid="task-status" data-status={status}>
      {words(status)}
    </span>
  );
}

function TaskStats({ stats }: { stats: TaskSummary | null }) {
  if (stats === null) {
    return (
      <p className="muted" data-testid="task-stats" data-ran="false">
        This task has not run yet.
      </p>
    );
  }
  const items: [string, string][] = [
    ['Iterations', String(stats.iterations)],
    ['Evaluator calls', `${stats.evaluator_calls} (${stats.accepts} accepted, ${stats.rejects} rejected)`],
    ['Cost', formatUsd(stats.cost_usd)],
    ['Duration', formatDuration(stats.duration_ms)],
    ['Tokens', formatInt(stats.prompt_tokens + stats.completion_tokens)],
    ['Tool calls', String(Object.values(stats.tool_calls).reduce((a, b) => a + b, 0))],
  ];
  if (stats.guard_blocks > 0) items.push(['Guard blocks', String(stats.guard_blocks)]);
  if (stats.failure_reason !== null) items.push(['Failed', words(stats.failure_reason)]);
  return (
    <dl className="stat-band" data-testid="task-stats" data-ran="true" data-iterations={stats.iterations}>
      {items.map(([label, value]) => (
        <div key={label} className="stat">
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * The mutation probe of the accepted task: how many one-place changes of its lines the task's
 * tests caught, and each one they did not (these hold for every criterion: no test of the task
 * noticed them).
 */
/** The send-back note that asks for the tests the probe found missing: one line per survivor. */
export function survivorNote(survivors: MutationReport['survivors']): string {
  return [
    "The mutation probe found changes to this task's code that no test notices. Add test cases to the project's own tests (the acceptance tests are locked) that fail for each:",
    ...survivors.map((s) => `- ${s.file}:${s.line}: no test notices if it ${s.description}`),
  ].join('\n');
}

function MutationPanel({
  report,
  accepted,
  onSendBackWith,
}: {
  report: MutationReport | null;
  accepted: boolean;
  onSendBackWith?: ((note: string) => void) | undefined;
}) {
  if (report === null) {
    return (
      <p className="muted" data-testid="mutation-panel" data-status="none">
        {accepted ? 'No mutation probe ran for this task.' : 'The mutation probe runs once the task is accepted.'}
      </p>
    );
  }
  return (
    <div data-testid="mutation-panel" data-status={report.status} data-killed={report.killed} data-survived={report.survived}>
      <p className="muted small" data-testid="mutation-what">
        A mutant is a small deliberate change to the task's code — a <code>&gt;=</code> turned into <code>&gt;</code>, a value into another — made after the
        accept. The task's tests run against each one: a mutant they fail on is caught; one they pass with is a mistake they would not notice.
      </p>
      <p>
        {mutationSentence(report)}
        {report.status === 'done' && <span className="muted"> (the probe took {formatDuration(report.duration_ms)})</span>}
      </p>
      <SurvivorList survivors={report.survivors} />
      {report.survivors.length > 0 && onSendBackWith !== undefined && (
        <button
          type="button"
          className="button button-small button-secondary"
          data-testid="mutation-send-back"
          onClick={() => onSendBackWith(survivorNote(report.survivors))}
        >
          Send back with these as the note…
        </button>
      )}
    </div>
  );
}

/**
 * The sent-back revisions that were accepted with nothing committed: settled (the task is done at
 * it, or sent back again since) and without a commit of their own.
 */
export function unchangedRevisions(review: Pick<TaskReview, 'task' | 'commits' | 'send_backs'>): number[] {
  const now = review.task.revision ?? 1;
  const committed = new Set(review.commits.map((c) => subjectRevision(c.subject, review.task.id)));
  return review.send_backs.map((s) => s.revision).filter((r) => (r < now || (r === now && review.task.status === 'done')) && !committed.has(r));
}
