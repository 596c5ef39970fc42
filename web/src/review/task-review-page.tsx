import { useQuery } from '@tanstack/react-query';
import { sessionsQuery } from '../api/queries.ts';
import { DiffViewer } from './diff-viewer.tsx';
import { Loading, QueryError } from '../components/query-status.tsx';
import { TaskReviewView, TaskStatusBadge } from './task-review-view.tsx';
import { taskDiffQuery, taskReviewQuery } from './queries.ts';
import { Link } from '../router.tsx';
import { paths } from '../paths.ts';
import { sessionLabel } from '../../../shared/format.ts';
import { canReview } from '../../../shared/session-rules.ts';
import { commentsOfDiff } from './comment-model.ts';
import { CommentsSection, type DiffComments } from './line-comments.tsx';
import { useComments } from './use-comments.ts';

/** `/sessions/<id>/tasks/<taskId>`: one task's diff, case, ledger and checks. */
export function TaskReviewPage({ sessionId, taskId }: { sessionId: string; taskId: string }) {
  const review = useQuery(taskReviewQuery(sessionId, taskId));
  const diff = useQuery(taskDiffQuery(sessionId, taskId));
  const session = useQuery({ ...sessionsQuery(), select: (data) => data.sessions.find((s) => s.id === sessionId) ?? null });
  const label = session.data != null ? sessionLabel(session.data) : sessionId;
  const comments = useComments(sessionId);
  const status = session.data?.status;
  const canWrite = status !== undefined && canReview(status);
  const mine = comments.comments === null ? null : commentsOfDiff(comments.comments, taskId);
  const diffComments: DiffComments = { taskId, items: mine ?? [], canWrite, add: comments.add, edit: comments.edit, remove: comments.remove };

  return (
    <section className="page" data-testid="task-review-page" data-session-id={sessionId} data-task-id={taskId} data-status={review.data?.task.status}>
      <nav className="breadcrumb" aria-label="Breadcrumb">
        <Link to={paths.sessions}>Sessions</Link> <span aria-hidden="true">/</span> <Link to={paths.session(sessionId)}>{label}</Link>{' '}
        <span aria-hidden="true">/</span>{' '}
        <Link to={paths.sessionReview(sessionId)} testId="breadcrumb-session-review">
          Review
        </Link>{' '}
        <span aria-hidden="true">/</span> <span className="mono">{taskId}</span>
      </nav>
      <div className="page-head">
        <h1>
          <span className="task-id mono">{taskId}</span> {review.data?.task.title ?? ''}
        </h1>
        {review.data !== undefined && <TaskStatusBadge status={review.data.task.status} />}
      </div>
      {review.isPending ? (
        <Loading what={`task ${taskId}`} />
      ) : review.isError ? (
        <QueryError error={review.error} what={`task ${taskId}`} onRetry={() => void review.refetch()} />
      ) : (
        <TaskReviewView
          review={review.data}
          commentCount={mine?.length ?? 0}
          comments={
            <CommentsSection id="task-comments" sessionId={sessionId} comments={mine} loadError={comments.loadError} showTask={false} canWrite={canWrite} />
          }
          diff={
            diff.isPending ? (
              <Loading what="the diff" />
            ) : diff.isError ? (
              <QueryError error={diff.error} what="the diff" onRetry={() => void diff.refetch()} />
            ) : (
              <DiffViewer diff={diff.data} emptyText="This task has no committed changes to show." testId="task-diff" comments={diffComments} />
            )
          }
        />
      )}
    </section>
  );
}
