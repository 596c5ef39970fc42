import { useMutation, usePrefetchQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useRef, useState } from 'react';
import { ERROR_CODES } from '../../../shared/errors.ts';
import type { SessionDetail } from '../../../shared/api.ts';
import type { SessionStatus, TilthEvent } from '../../../shared/events.ts';
import { canReview } from '../../../shared/session-rules.ts';
import { ApiError } from '../api/client.ts';
import { seeding } from '../api/mutations.ts';
import { queryKeys, seedQuery, sessionDetailQuery, sessionsQuery } from '../api/queries.ts';
import { EventLog } from './event-log.tsx';
import { InterviewTranscript, InterviewView } from '../interview/interview-view.tsx';
import { Loading, QueryError } from '../components/query-status.tsx';
import { SeedReview } from '../seed/seed-review.tsx';
import { StatusBadge } from '../components/status-badge.tsx';
import { Dashboard } from '../dashboard/dashboard.tsx';
import { summaryQuery } from '../dashboard/state/queries.ts';
import { NotifyToggle } from '../dashboard/header/notify-toggle.tsx';
import { useEventNotifications } from '../dashboard/header/use-notifications.ts';
import { explorationLines } from '../interview/exploration.ts';
import { interviewModel, qaHistory } from '../interview/interview-state.ts';
import { Link, navigate } from '../router.tsx';
import { paths } from '../paths.ts';
import { buildSeedEdit, draftFromSeed, draftProblems, problemLines, seedEditChanges, type SeedDraft } from '../seed/seed-edit.ts';
import { useRunControls, type RunControlsApi } from '../dashboard/header/use-run-controls.ts';
import { seedSeenInEvents, sessionMode } from './session-mode.ts';
import { useSessionEvents } from '../stream/hooks.ts';
import { useRefreshOnSessionEvents } from '../stream/refresh-on-events.ts';
import { sessionLabel } from '../../../shared/format.ts';
import './session-page.css';

/** A session by status: the interview, the seed review, the run dashboard, or the bare event stream. */
export function SessionPage({ sessionId }: { sessionId: string }) {
  const stream = useSessionEvents(sessionId);
  const { view } = stream;
  const detail = useQuery({
    ...sessionDetailQuery(sessionId),
    // A queue moves without an event in this session's log; while waiting, ask now and then.
    refetchInterval: (query) => (query.state.data?.run.state === 'queued' ? 2_000 : false),
  });
  const listed = useQuery({
    ...sessionsQuery(),
    select: (data) => data.sessions.find((s) => s.id === sessionId) ?? null,
  });
  useRefreshOnSessionEvents(sessionId, view.recent, view.lastSeq);
  // The dashboard mounts once the session's status is known, and only then would ask for the
  // summary; asked for now, a long log's summary is read while the status comes.
  usePrefetchQuery(summaryQuery(sessionId));

  const summary = detail.data?.session ?? listed.data ?? null;
  const status = view.status ?? summary?.status ?? null;
  const seedInEvents = useMemo(() => seedSeenInEvents(view.recent), [view.recent]);
  const mode = sessionMode(status, detail.data?.has_seed === true || seedInEvents, detail.data?.run.state);
  const controls = useRunControls(sessionId);
  const label = summary !== null ? sessionLabel(summary) : 'Session';
  useEventNotifications(sessionId, label, view.recent, view.lastSeq, stream.caughtUp);

  return (
    <section className="page" data-testid="session-page" data-session-id={sessionId} data-mode={mode}>
      <p className="breadcrumb">
        <Link to={paths.sessions}>← Sessions</Link>
      </p>
      <div className="page-head">
        <h1>{label}</h1>
        {status !== null && <StatusBadge status={status} />}
        {status !== null && canReview(status) && (
          <Link to={paths.sessionReview(sessionId)} className="button button-secondary page-head-action" testId="session-review-link">
            Review
          </Link>
        )}
        {/* The dashboard has it in its header; here it is for a question that waits. */}
        {mode === 'interview' && <NotifyToggle />}
      </div>
      <p className="muted mono small">
        {sessionId}
        {detail.data !== undefined && (
          <>
            {' '}
            · branch {detail.data.branch}
            {detail.data.base_branch !== null && <> from {detail.data.base_branch}</>}
            {detail.data.base_sha !== null && <> at {detail.data.base_sha.slice(0, 7)}</>}
          </>
        )}
      </p>

      {stream.error !== null && (
        <div className="callout callout-error" role="alert" data-testid="session-stream-error" data-code={stream.error.code}>
          {stream.error.message}
        </div>
      )}
      {detail.isError && (
        <div className="callout callout-warning" role="note" data-testid="session-detail-error">
          Could not load this session's details: {detail.error.message}
        </div>
      )}

      {mode === 'interview' && status !== null && <InterviewSection sessionId={sessionId} status={status} detail={detail.data ?? null} events={view.recent} />}
      {mode === 'seed' && (
        <>
          <SeedSection sessionId={sessionId} controls={controls} />
          <TranscriptSection events={view.recent} />
        </>
      )}
      {mode === 'run' ? (
        <Dashboard
          sessionId={sessionId}
          label={label}
          status={status}
          lastStop={view.lastStop}
          caughtUp={stream.caughtUp}
          detail={detail.data ?? null}
          controls={controls}
        />
      ) : (
        // Keyed by whether it is the main view, so it opens or folds when the page changes mode.
        <EventLog key={String(mode === 'events')} stream={stream} defaultOpen={mode === 'events'} />
      )}
    </section>
  );
}

function InterviewSection(props: { sessionId: string; status: SessionStatus; detail: SessionDetail | null; events: readonly TilthEvent[] }) {
  const { sessionId, status, detail, events } = props;
  const queryClient = useQueryClient();
  // Answers this tab sent, so the form gives way before the stream confirms them.
  const [answeredHere, setAnsweredHere] = useState<ReadonlySet<string>>(() => new Set());
  const inFlight = useRef(false);
  const answer = useMutation({
    mutationFn: seeding.answerQuestion,
    onSuccess: (_, vars) => setAnsweredHere((set) => new Set(set).add(vars.questionId)),
    onError: (error) => {
      if (error instanceof ApiError && error.code === ERROR_CODES.question_not_pending) {
        void queryClient.invalidateQueries({ queryKey: queryKeys.sessionDetail(sessionId) });
      }
    },
    onSettled: () => {
      inFlight.current = false;
    },
  });
  // The seq the stream had reached when Retry was pressed: the interview is back on once a later
  // status change says so, and until then the button stays busy (no second retry meanwhile).
  const [retrySince, setRetrySince] = useState<number | null>(null);
  const retry = useMutation({
    mutationFn: (_since: number) => seeding.retryInterview(sessionId),
    onMutate: (since) => setRetrySince(since),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.sessionDetail(sessionId) });
      void queryClient.invalidateQueries({ queryKey: queryKeys.sessions });
    },
  });
  const discard = async () => {
    await seeding.discardSession(sessionId);
    await queryClient.invalidateQueries({ queryKey: queryKeys.sessions });
    navigate(paths.sessions);
  };
  const model = useMemo(() => interviewModel({ events, status, detail, answeredHere }), [events, status, detail, answeredHere]);
  const exploration = useMemo(() => explorationLines(events), [events]);
  const error = answer.isError && answer.variables.questionId === model.pending?.question_id ? answer.error.message : null;

  return (
    <InterviewView
      model={model}
      exploration={exploration}
      submitting={answer.isPending}
      answerError={error}
      onAnswer={(questionId, text) => {
        if (inFlight.current) return; // Enter pressed twice before the first render caught up
        inFlight.current = true;
        answer.mutate({ sessionId, questionId, answer: text });
      }}
      ended={{
        sessionId,
        // Until the stream says the interview is back on, the button stays busy: no double retry.
        retrying: retry.isPending || (retry.isSuccess && retrySince !== null && !restartedSince(events, retrySince)),
        retryError:
          retry.error === null ? null : { code: retry.error instanceof ApiError ? retry.error.code : ERROR_CODES.client_error, message: retry.error.message },
        onRetry: () => {
          if (!retry.isPending) retry.mutate(events.at(-1)?.seq ?? 0);
        },
        onDiscard: discard,
      }}
    />
  );
}

/** Whether the stream has said the interview is running again since seq `since`. */
function restartedSince(events: readonly TilthEvent[], since: number): boolean {
  for (let i = events.length - 1; i >= 0 && events[i]!.seq > since; i--) {
    const event = events[i]!;
    if (event.type === 'status_changed' && event.data.to === 'interviewing') return true;
  }
  return false;
}

function TranscriptSection({ events }: { events: readonly TilthEvent[] }) {
  const history = useMemo(() => qaHistory(events), [events]);
  const exploration = useMemo(() => explorationLines(events), [events]);
  return <InterviewTranscript history={history} exploration={exploration} />;
}

function SeedSection({ sessionId, controls }: { sessionId: string; controls: RunControlsApi }) {
  const { start } = controls;
  const queryClient = useQueryClient();
  const seed = useQuery(seedQuery(sessionId));
  const [draft, setDraft] = useState<SeedDraft | null>(null);
  // What the draft lacked when Save was pressed, said before anything is sent.
  const [lacking, setLacking] = useState<string[]>([]);
  const save = useMutation({
    mutationFn: seeding.saveSeed,
    onSuccess: ({ saved: _saved, ...view }) => {
      queryClient.setQueryData(queryKeys.seed(sessionId), view);
      setDraft(null);
    },
  });

  const recheck = useMutation({
    mutationFn: () => seeding.recheckSeed(sessionId),
    onSuccess: (fresh) => queryClient.setQueryData(queryKeys.seed(sessionId), fresh),
  });

  // Memoized on the error, so the review can tell a new refusal from a re-render.
  const problems = useMemo(() => {
    const error = save.error;
    if (lacking.length > 0) return lacking;
    if (error === null) return [];
    return error instanceof ApiError && error.code === ERROR_CODES.seed_invalid ? problemLines(error.message) : [error.message];
  }, [save.error, lacking]);

  if (seed.isPending) return <Loading what="the seed and its contract check" />;
  if (seed.isError) return <QueryError error={seed.error} what="the seed" onRetry={() => void seed.refetch()} />;

  const edit = draft === null ? null : buildSeedEdit(draft);
  const changes = edit === null ? [] : seedEditChanges(seed.data, edit);

  return (
    <SeedReview
      seed={seed.data}
      draft={draft}
      changes={changes}
      saving={save.isPending}
      saved={save.data?.saved ?? null}
      problems={problems}
      onEdit={() => {
        save.reset();
        setLacking([]);
        setDraft(draftFromSeed(seed.data));
      }}
      onCancel={() => {
        save.reset();
        setLacking([]);
        setDraft(null);
      }}
      onDraftChange={(next) => {
        setDraft(next);
        // A problem named at Save goes once the draft no longer has it.
        if (lacking.length > 0) setLacking(draftProblems(next));
      }}
      onSave={() => {
        if (draft === null || edit === null || save.isPending) return;
        const missing = draftProblems(draft);
        setLacking(missing);
        if (missing.length === 0) save.mutate({ sessionId, edit });
      }}
      onRun={() => {
        if (!start.isPending) start.mutate();
      }}
      starting={start.isPending}
      runError={start.error?.message ?? null}
      onRecheck={() => {
        start.reset();
        if (!recheck.isPending) recheck.mutate();
      }}
      rechecking={recheck.isPending}
    />
  );
}
