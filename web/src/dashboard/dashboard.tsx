/**
 * The run dashboard, live and replay alike: a finished session opens in it and a running one
 * updates in place. It composes; the figures come from `use-dashboard.ts` (summary + reducer)
 * and the pure modules beside it.
 */
import { useQuery } from '@tanstack/react-query';
import { useCallback, useMemo, useState } from 'react';
import type { SessionDetail, SummaryView } from '../../../shared/api.ts';
import type { Caps, PrdEntry } from '../../../shared/files.ts';
import type { SessionStatus, StopReason } from '../../../shared/events.ts';
import type { RunControlsApi } from './header/use-run-controls.ts';
import { boardRows } from './board.ts';
import { taskLanes, timelineModel } from './charts/chart-data.ts';
import { EventStream } from './events/event-stream.tsx';
import { useConnectionState } from '../stream/hooks.ts';
import { GuidanceBox } from './guidance-box.tsx';
import { LimitMeters } from './header/limit-meters.tsx';
import { NowBar } from './header/now-bar.tsx';
import type { JumpRequest } from './events/log-scroll.ts';
import { attemptMeters, latestAttempt, runElapsedMs, sessionMeters } from './header/meters.ts';
import { PressureChart, TimelineChart } from './charts/charts.tsx';
import { summarySpanQuery } from './state/queries.ts';
import type { TimelineSpan } from './charts/timeline-chart.tsx';
import { useDebouncedValue } from '../use-debounced-value.ts';
import { RunBar } from './header/run-bar.tsx';
import { StatBand } from './header/stat-band.tsx';
import { statBand } from './header/stats.ts';
import { TaskBoard } from './task-board.tsx';
import { useChartModels } from './charts/use-chart-models.ts';
import { useDashboard } from './state/use-dashboard.ts';
import { useSummaryAt, type SummaryAt } from './state/select.ts';
import type { DashboardState } from './state/dashboard-state.ts';
import type { Staff } from './header/run-header.tsx';
import { useCapNotifications } from './header/use-notifications.ts';
import { applyNow, useClock, useThrottled } from './state/timing.ts';
import { headlineTone, runControls, runHeadline } from './header/run-words.ts';
import './dashboard.css';

export interface DashboardProps {
  sessionId: string;
  label: string;
  status: SessionStatus | null;
  /** From the stream's latest `stop`. */
  lastStop: StopReason | null;
  caughtUp: boolean;
  detail: SessionDetail | null;
  controls: RunControlsApi;
}

const IDLE = { state: 'idle', queue_position: null } as const;
const FIGURES_MS = 200;

/** The models at work: as the run's start names them, or as their calls show them. */
function staffOf(state: DashboardState): Staff {
  return {
    worker: state.runStart?.data.models?.worker || state.modelsSeen.worker || null,
    evaluator: state.runStart?.data.models?.evaluator || state.modelsSeen.evaluator || null,
    interviewer: state.modelsSeen.interviewer ?? null,
  };
}

/** The run's figures (meters, stat band, task board), derived again at most a few times a second. */
function useRunFigures(figuresAt: SummaryAt | null, input: { plan: PrdEntry[]; caps: Caps | null; runActive: boolean; elapsedMs: number }) {
  const { plan, caps, runActive, elapsedMs } = input;
  const attempt = useMemo(() => (figuresAt === null ? null : latestAttempt(figuresAt.summary)), [figuresAt]);
  const meters = useMemo(
    () => (figuresAt === null ? [] : [...sessionMeters(figuresAt.summary, caps, elapsedMs), ...(attempt === null ? [] : attemptMeters(attempt, caps))]),
    [figuresAt, caps, elapsedMs, attempt],
  );
  const band = useMemo(() => (figuresAt === null ? null : statBand(figuresAt.summary)), [figuresAt]);
  const rows = useMemo(() => boardRows(plan, figuresAt?.summary ?? null, caps, runActive), [plan, figuresAt, caps, runActive]);
  return { attempt, meters, band, rows };
}

/**
 * The two charts, following every version of the summary: their models append what it gained
 * (use-chart-models.ts) and uPlot redraws at most once a frame. A long run's summary comes with
 * its timeline thinned; a zoomed timeline asks for its span in detail.
 */
function useDashboardCharts(sessionId: string, summaryAt: SummaryAt | null, plan: PrdEntry[], chartEnd: number) {
  const planKey = plan.map((t) => t.id).join(',');
  const lanesNow = useMemo(() => (summaryAt === null ? [] : taskLanes(planKey === '' ? [] : planKey.split(','), summaryAt.summary)), [summaryAt, planKey]);
  // The same array while the lanes stay the same: new lanes rebuild the charts.
  const lanesKey = lanesNow.join(',');
  const lanes = useMemo(() => (lanesKey === '' ? [] : lanesKey.split(',')), [lanesKey]);
  const charts = useChartModels(summaryAt, lanes, chartEnd);
  const [span, setSpan] = useState<TimelineSpan>(null);
  const settledSpan = useDebouncedValue(span, 250);
  const thinned = summaryAt !== null && (summaryAt.summary as Partial<SummaryView>).timeline_view?.thinned === true;
  const zoomDetail = useQuery({ ...summarySpanQuery(sessionId, settledSpan ?? { from: 0, to: 0 }), enabled: thinned && settledSpan !== null });
  const spanTimeline = settledSpan !== null && span !== null ? (zoomDetail.data?.timeline ?? null) : null;
  const timelineAt = useMemo(() => {
    if (charts === null) return null;
    if (summaryAt === null || spanTimeline === null) return charts.timeline;
    return { model: timelineModel({ ...summaryAt.summary, timeline: spanTimeline }, lanes, chartEnd), revision: charts.revision };
  }, [charts, summaryAt, spanTimeline, lanes, chartEnd]);
  return { lanes, timelineAt, pressureAt: charts?.pressure ?? null, thinned, setSpan };
}

export function Dashboard(props: DashboardProps) {
  const { sessionId, status, detail, controls } = props;
  const api = useDashboard(sessionId);
  const { state } = api;
  const { summary } = state;
  // The server gone: the run is as last seen, its clock stops, and Stop waits for the server. The
  // run state fetched before cannot be refreshed then; the status the stream last brought can (a
  // clean shutdown stops the run and says so before the connection closes).
  const offline = useConnectionState() === 'offline';
  const run = offline ? IDLE : (detail?.run ?? IDLE);
  const runActive = run.state !== 'idle' || status === 'running';
  const caps = state.runStart?.data.caps ?? detail?.caps ?? null;
  const lastSeen = offline && runActive;
  const now = useClock(runActive && !lastSeen ? 1000 : 3_600_000);

  // Figures follow the summary at most a few times a second: at a thousand events a second,
  // redrawing meters, stats and the board every frame would take the time the event list needs.
  const summaryAt = useSummaryAt(state);
  const figuresAt = useThrottled(summaryAt, FIGURES_MS);
  const plan = detail?.tasks ?? [];
  const elapsedMs = summary === null ? 0 : runElapsedMs(summary, runActive && !lastSeen, now);
  const { attempt, meters, band, rows } = useRunFigures(figuresAt, { plan, caps, runActive, elapsedMs });
  const lastStop = summary?.stop?.reason ?? props.lastStop ?? detail?.session.last_stop ?? null;
  const titles = useMemo(() => Object.fromEntries((detail?.tasks ?? []).map((t) => [t.id, t.title])), [detail?.tasks]);
  const headline = runHeadline({
    status,
    run,
    lastStop,
    lastError: detail?.last_error ?? null,
    caps,
    tasks: summary?.tasks ?? {},
    current: attempt?.open === true && runActive ? { taskId: attempt.taskId, title: titles[attempt.taskId] ?? null } : null,
  });
  const maxTurns = caps?.max_iterations_per_task ?? 0;
  const nowInput = useMemo(
    () => ({ events: state.recent, status, run, active: runActive, lastStop, headline, titles, maxTurns, offline }),
    [state.recent, status, run, runActive, lastStop, headline, titles, maxTurns, offline],
  );
  useCapNotifications(sessionId, props.label, meters);

  // The spans of a running task grow with the clock.
  const chartEnd = runActive ? Math.floor(now / 5000) * 5000 : summary?.last_event_at ? Date.parse(summary.last_event_at) : now;
  const { lanes, timelineAt, pressureAt, thinned, setSpan } = useDashboardCharts(sessionId, summaryAt, plan, chartEnd);

  const [jump, setJump] = useState<JumpRequest | null>(null);
  const { reveal } = api;
  const onJump = useCallback(
    (seq: number) => {
      void reveal(seq).then(() => applyNow(() => setJump((j) => ({ seq, nonce: (j?.nonce ?? 0) + 1 }))));
    },
    [reveal],
  );

  const { note } = controls;
  const buttons = runControls(status, run.state);
  const ready = summary !== null && (state.window.events.length > 0 || props.caughtUp);

  return (
    <div
      className="dashboard"
      data-testid="dashboard"
      data-ready={String(ready)}
      data-summary-seq={summary?.last_seq ?? 0}
      // Figures and charts have caught up with everything folded so far.
      data-settled={String(figuresAt === summaryAt)}
    >
      <NowBar input={nowInput} onJump={onJump} />
      <RunBar
        sessionId={sessionId}
        headline={lastSeen ? `last seen ${headline}` : headline}
        tone={lastSeen ? 'offline' : headlineTone(status, run.state, lastStop)}
        elapsed={runActive && !lastSeen && summary?.started_at ? { since: Date.parse(summary.started_at) } : { fixedMs: elapsedMs }}
        offline={offline}
        staff={staffOf(state)}
        sandbox={state.runStart?.data.sandbox ?? null}
        runner={state.runStart?.data.runner ?? null}
        eventCount={Math.max(state.liveSeq, summary?.last_seq ?? 0)}
        offers={buttons}
        controls={controls}
      />
      {api.summaryError !== null && (
        <div className="callout callout-warning" role="alert" data-testid="summary-error">
          Could not load the run's figures: {api.summaryError.message}{' '}
          <button type="button" className="button button-small button-secondary" onClick={() => void api.retrySummary()}>
            Try again
          </button>
        </div>
      )}
      <EventStream
        window={state.window}
        total={state.liveSeq}
        caughtUp={props.caughtUp}
        loading={api.loading}
        pageError={api.pageError}
        jump={jump}
        onLoadOlder={api.loadOlder}
        onLoadNewer={api.loadNewer}
        onNewest={api.goNewest}
      />
      <div className="dash-row">
        <TaskBoard sessionId={sessionId} rows={rows} iterationCap={caps?.max_iterations_per_task ?? 0} evaluatorCap={caps?.max_evaluator_calls_per_task ?? 0} />
        {buttons.notes && (
          <GuidanceBox sending={note.isPending} error={note.error?.message ?? null} onSend={(text, onSent) => note.mutate(text, { onSuccess: onSent })} />
        )}
      </div>
      {summary === null || band === null ? (
        <p className="muted loading" data-testid="figures-loading">
          Loading the run's figures…
        </p>
      ) : (
        <>
          <LimitMeters meters={meters} />
          <StatBand band={band} />
        </>
      )}
      {timelineAt !== null && <TimelineChart at={timelineAt} onJump={onJump} onSpan={setSpan} />}
      {pressureAt !== null && <PressureChart at={pressureAt} lanes={lanes} onJump={onJump} sampled={thinned} />}
    </div>
  );
}
