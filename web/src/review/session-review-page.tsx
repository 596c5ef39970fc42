import { useQuery } from '@tanstack/react-query';
import { sessionDetailQuery } from '../api/queries.ts';
import { DiffViewer } from './diff-viewer.tsx';
import { Loading, QueryError } from '../components/query-status.tsx';
import { ReviewActionsPanel } from './review-actions.tsx';
import { SessionReviewView } from './session-review-view.tsx';
import { StatusBadge } from '../components/status-badge.tsx';
import { sessionReviewQuery } from './queries.ts';
import { useReviewActions } from './use-review-actions.ts';
import { Link } from '../router.tsx';
import { paths } from '../paths.ts';
import { sessionLabel } from '../../../shared/format.ts';
import { canReview, canSendBack } from '../../../shared/session-rules.ts';
import { AddTaskForm } from './add-task-form.tsx';
import { commentsOfDiff } from './comment-model.ts';
import { CommentsSection, type DiffComments } from './line-comments.tsx';
import { useComments } from './use-comments.ts';

/** `/sessions/<id>/review`: the session branch against its base, and getting the work out. */
export function SessionReviewPage({ sessionId }: { sessionId: string }) {
  const review = useQuery(sessionReviewQuery(sessionId));
  // An add-task started elsewhere ends without a word to this page: look again until it has.
  const detail = useQuery({ ...sessionDetailQuery(sessionId), refetchInterval: (q) => (q.state.data?.adding_task === true ? 2_000 : false) });
  const ops = useReviewActions(sessionId);
  const session = detail.data?.session ?? null;
  const comments = useComments(sessionId);
  const canWrite = session !== null && canReview(session.status);
  const diffComments: DiffComments = {
    taskId: null,
    items: commentsOfDiff(comments.comments ?? [], null),
    canWrite,
    add: comments.add,
    edit: comments.edit,
    remove: comments.remove,
  };

  return (
    <section className="page" data-testid="session-review-page" data-session-id={sessionId} data-status={session?.status}>
      <nav className="breadcrumb" aria-label="Breadcrumb">
        <Link to={paths.sessions}>Sessions</Link> <span aria-hidden="true">/</span>{' '}
        <Link to={paths.session(sessionId)} testId="breadcrumb-session">
          {session !== null ? sessionLabel(session) : sessionId}
        </Link>{' '}
        <span aria-hidden="true">/</span> Review
      </nav>
      <div className="page-head">
        <h1>Review{session !== null && <>: {sessionLabel(session)}</>}</h1>
        {session !== null && <StatusBadge status={session.status} />}
      </div>
      {review.isPending ? (
        <Loading what="the session review" />
      ) : review.isError ? (
        <QueryError error={review.error} what="the session review" onRetry={() => void review.refetch()} />
      ) : (
        <SessionReviewView
          sessionId={sessionId}
          review={review.data}
          addTask={
            session !== null && canSendBack(session.status) ? (
              <AddTaskForm
                sessionId={sessionId}
                inProgress={detail.data?.adding_task === true}
                last={detail.data?.add_task ?? null}
                pendingIds={new Set(review.data.tasks.filter((t) => t.status === 'pending').map((t) => t.id))}
                demo={detail.data?.demo === true}
              />
            ) : null
          }
          actions={
            <ReviewActionsPanel
              sessionId={sessionId}
              branch={review.data.branch}
              baseBranch={review.data.base_branch}
              actions={review.data.actions}
              tasks={review.data.tasks}
              ops={ops}
            />
          }
          comments={
            <CommentsSection
              id="review-comments"
              sessionId={sessionId}
              comments={comments.comments}
              loadError={comments.loadError}
              showTask
              canWrite={canWrite}
            />
          }
          diff={
            <DiffViewer diff={review.data.diff} emptyText="The session branch has no changes against its base." testId="session-diff" comments={diffComments} />
          }
        />
      )}
    </section>
  );
}
