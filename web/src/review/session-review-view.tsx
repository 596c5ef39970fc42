import type { ReactNode } from 'react';
import type { SessionReview } from '../../../shared/review.ts';
import { shortSha, words } from './review-format.ts';
import './review.css';
import { Link } from '../router.tsx';
import { paths } from '../paths.ts';
import { CommitList } from './commit-list.tsx';
import { MiniMarkdown } from '../components/mini-markdown.tsx';
import { CopyButton } from '../components/copy-button.tsx';
import { CriteriaProblems, MutationSurvivors } from './criteria-problems.tsx';
import { EvidenceBadge, EvidenceCounts } from './evidence-status.tsx';

export interface SessionReviewViewProps {
  sessionId: string;
  review: SessionReview;
  /** The actions panel (it owns dialogs and state). */
  actions: ReactNode;
  /** The diff section's content. */
  diff: ReactNode;
  /** Every line comment of the session, listed. */
  comments: ReactNode;
  /** The form that adds a task after the run, when the session allows it; null otherwise. */
  addTask: ReactNode | null;
}

/** The whole session: where it stands, what may be done with it, its tasks, commits, learnings and diff. */
export function SessionReviewView({ sessionId, review, actions, diff, comments, addTask }: SessionReviewViewProps) {
  const { merged, pushed } = review;
  const evidenceOf = new Map(review.evidence.map((e) => [e.task_id, e.status]));
  return (
    <div className="session-review">
      <p className="muted mono small branch-line" data-testid="review-branch">
        {review.branch}
        {review.base_branch !== null && <> → {review.base_branch}</>}
        {review.base_sha !== null && <> · base {shortSha(review.base_sha)}</>}
        {review.head_sha !== null ? <> · head {shortSha(review.head_sha)}</> : <> · branch removed</>}
      </p>

      {merged !== null && (
        <div className="callout callout-success" role="note" data-testid="merged-info">
          <p>
            Merged into <strong>{merged.into}</strong> at <code title={merged.sha}>{shortSha(merged.sha)}</code>. The old {merged.into} is kept as{' '}
            <code>{merged.backup_ref}</code>.
          </p>
          <p>
            Undo with <code className="copyable">{merged.undo}</code>
            <CopyButton text={merged.undo} label="Copy the undo command" testId="merged-undo-copy" />
          </p>
        </div>
      )}
      {pushed !== null && (
        <div className="callout callout-success" role="note" data-testid="pushed-info">
          <p>
            Pushed to <strong>{pushed.remote}</strong> as <code>{pushed.branch}</code>.
          </p>
        </div>
      )}

      {actions}

      <EvidenceCounts tasks={review.tasks} evidence={review.evidence} />
      <CriteriaProblems problems={review.criteria_problems} />
      <MutationSurvivors survivors={review.survivors} />

      <section className="review-section" aria-labelledby="review-tasks-title">
        <h2 id="review-tasks-title">Tasks</h2>
        {review.tasks.length === 0 ? (
          <p className="muted">This session has no tasks.</p>
        ) : (
          <ol className="review-task-list" data-testid="review-tasks">
            {review.tasks.map((t) => (
              <li key={t.id} className="review-task" data-testid="review-task" data-task-id={t.id} data-status={t.status}>
                <span className="task-id mono">{t.id}</span>
                <Link to={paths.taskReview(sessionId, t.id)} className="review-task-title" testId="task-review-link">
                  {t.title}
                </Link>
                <span className={`badge task-${t.status}`}>{words(t.status)}</span>
                {evidenceOf.get(t.id) !== undefined && <EvidenceBadge status={evidenceOf.get(t.id)!} />}
              </li>
            ))}
          </ol>
        )}
        {addTask}
      </section>

      <section className="review-section" aria-labelledby="review-commits-title">
        <h2 id="review-commits-title">Commits</h2>
        <CommitList
          commits={review.commits}
          emptyText={review.head_sha === null ? 'The session branch is gone, so its commits are not listed.' : 'No commits on the session branch yet.'}
        />
      </section>

      <section className="review-section" aria-labelledby="review-learnings-title" data-testid="learnings">
        <h2 id="review-learnings-title">Proposed learnings</h2>
        {review.learnings === null || review.learnings.trim() === '' ? (
          <p className="muted">The run proposed no learnings.</p>
        ) : (
          <>
            <p className="muted small">Suggested additions to AGENTS.md, for you to copy if you agree. Tilth never writes them itself.</p>
            <div className="learnings panel">
              <MiniMarkdown text={review.learnings} />
            </div>
          </>
        )}
      </section>

      {comments}

      <section className="review-section" aria-labelledby="review-diff-title">
        <h2 id="review-diff-title">Changes against {review.base_branch ?? 'the base'}</h2>
        {diff}
      </section>
    </div>
  );
}
