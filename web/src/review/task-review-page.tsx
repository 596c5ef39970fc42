import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { sessionDetailQuery, sessionsQuery } from '../api/queries.ts';
import { DiffViewer } from './diff-viewer.tsx';
import { Loading, QueryError } from '../components/query-status.tsx';
import { TaskReviewView, TaskStatusBadge } from './task-review-view.tsx';
import { taskDiffQuery, taskEvidenceQuery, taskReviewQuery } from './queries.ts';
import { EvidenceSummary } from './evidence-status.tsx';
import { Link } from '../router.tsx';
import { paths } from '../paths.ts';
import { sessionLabel } from '../../../shared/format.ts';
import { canReview, canSendBack, subjectRevision } from '../../../shared/session-rules.ts';
import { SendBackPanel, SendBackPending } from './send-back.tsx';
import { commentsOfDiff } from './comment-model.ts';
import { CommentsSection, type DiffComments } from './line-comments.tsx';
import { useComments } from './use-comments.ts';

/** `/sessions/<id>/tasks/<taskId>`: one task's diff, case, ledger and checks. */
export function TaskReviewPage({ sessionId, taskId }: { sessionId: string; taskId: string }) {
  const review = useQuery(taskReviewQuery(sessionId, taskId));
  const evidence = useQuery(taskEvidenceQuery(sessionId, taskId));
  // The diff of one revision at a time (a revision sits on top of later tasks' commits); null: the latest.
  const [revision, setRevision] = useState<number | null>(null);
  const diff = useQuery(taskDiffQuery(sessionId, taskId, revision));
  const revisions = (review.data?.commits ?? []).map((c) => subjectRevision(c.subject, taskId)).filter((r): r is number => r !== null);
  const latest = revision === null || revision === revisions.at(-1);
  const session = useQuery({ ...sessionsQuery(), select: (data) => data.sessions.find((s) => s.id === sessionId) ?? null });
  const label = session.data != null ? sessionLabel(session.data) : sessionId;
  const comments = useComments(sessionId);
  const demo = useQuery({ ...sessionDetailQuery(sessionId), select: (d) => d.demo }).data === true;
  const [suggested, setSuggested] = useState<{ text: string; nonce: number } | null>(null);
  const status = session.data?.status;
  const canWrite = status !== undefined && canReview(status);
  const mine = comments.comments === null ? null : commentsOfDiff(comments.comments, taskId);
  const task = review.data?.task;
  const sendBack =
    task?.status === 'done' && status !== undefined && canSendBack(status) ? (
      <SendBackPanel
        sessionId={sessionId}
        taskId={taskId}
        revision={task.revision ?? 1}
        openComments={(mine ?? []).filter((c) => c.sent === null)}
        demo={demo}
        suggested={suggested}
      />
    ) : task?.revision !== undefined && task.status !== 'done' ? (
      <SendBackPending sessionId={sessionId} taskId={taskId} revision={task.revision} status={task.status} />
    ) : null;
  // Comments anchor to the latest revision's lines, so an earlier revision's diff is read-only.
  const diffComments: DiffComments = {
    taskId,
    items: latest ? (mine ?? []) : [],
    canWrite: canWrite && latest,
    add: comments.add,
    edit: comments.edit,
    remove: comments.remove,
  };

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
        {task?.revision !== undefined && (
          <span className="badge" data-testid="task-revision" data-revision={task.revision}>
            revision {task.revision}
          </span>
        )}
      </div>
      {review.isPending ? (
        <Loading what={`task ${taskId}`} />
      ) : review.isError ? (
        <QueryError error={review.error} what={`task ${taskId}`} onRetry={() => void review.refetch()} />
      ) : (
        <TaskReviewView
          review={review.data}
          evidence={<EvidenceSummary evidence={evidence.data} error={evidence.error} pending={evidence.isPending} onRetry={() => void evidence.refetch()} />}
          commentCount={mine?.length ?? 0}
          sendBack={sendBack}
          onSendBackWith={
            task?.status === 'done' && status !== undefined && canSendBack(status)
              ? (text) => setSuggested((s) => ({ text, nonce: (s?.nonce ?? 0) + 1 }))
              : undefined
          }
          comments={
            <CommentsSection id="task-comments" sessionId={sessionId} comments={mine} loadError={comments.loadError} showTask={false} canWrite={canWrite} />
          }
          diff={
            <>
              {revisions.length > 1 && <RevisionPicker revisions={revisions} shown={revision ?? revisions.at(-1)!} onPick={setRevision} />}
              {diff.isPending ? (
                <Loading what="the diff" />
              ) : diff.isError ? (
                <QueryError error={diff.error} what="the diff" onRetry={() => void diff.refetch()} />
              ) : (
                <DiffViewer diff={diff.data} emptyText="This task has no committed changes to show." testId="task-diff" comments={diffComments} />
              )}
            </>
          }
        />
      )}
    </section>
  );
}

/** One button per committed revision of the task; the diff below shows the chosen one's commit. */
function RevisionPicker({ revisions, shown, onPick }: { revisions: number[]; shown: number; onPick: (r: number) => void }) {
  return (
    // biome-ignore lint/a11y/useSemanticElements: a row of toggle buttons, named by role=group as the diff layout toggle is
    <div className="segmented segmented-soft revision-picker" role="group" aria-label="Revision shown" data-testid="revision-picker">
      {revisions.map((r) => (
        <button key={r} type="button" aria-pressed={r === shown} data-testid="revision-pick" data-revision={r} onClick={() => onPick(r)}>
          Revision {r}
        </button>
      ))}
    </div>
  );
}
