/**
 * The dashboard's state and the reducer that folds into it: the stream's newest events, the
 * summary from REST, and pages of history loaded as the user scrolls or jumps.
 *
 * - **The summary** arrives from REST current as of its `last_seq`; every later event is folded
 *   into it with the shared `addToSummary`, once, in seq order. Cloning a summary whose timeline
 *   holds tens of thousands of entries on every frame would be the O(N) work this design avoids,
 *   so the state owns one copy (cloned once, when it arrives) and folds into it in place;
 *   `summaryVersion` changes whenever it does, and that is what views key on. An event that would
 *   leave a hole (seq > last_seq + 1: more arrived in one frame than the stream's window keeps)
 *   marks the summary stale, and the page fetches it again.
 * - **The event window** is what the event stream lists: a contiguous run of events, at most
 *   `WINDOW_MAX` of them. It grows with live events while it reaches the log's end, and with
 *   pages of history when the user scrolls up; a jump (from the timeline) replaces it with the
 *   page around that event. Past the cap it drops events at the far end from where the user is.
 * - **Staff and sandbox**: the newest run `session_start` seen, and the models seen in calls.
 */
import type { EventData, TilthEvent } from '../../../../shared/events.ts';
import { addToSummary, type Summary } from '../../../../shared/summary.ts';

/** Events the stream list keeps in memory; more are read again by REST when scrolled to. */
export const WINDOW_MAX = 10_000;

export interface EventWindow {
  /** Contiguous by seq, oldest first. */
  readonly events: readonly TilthEvent[];
  /** Events exist before the first one here. */
  readonly hasEarlier: boolean;
  /** The window stops short of the newest events (after a jump or a long scroll up). */
  readonly hasLater: boolean;
}

export interface RunStart {
  seq: number;
  ts: string;
  data: EventData<'session_start'>;
}

export interface DashboardState {
  /** The stream's newest events (its bounded window), as last handed over. */
  readonly recent: readonly TilthEvent[];
  /** Highest seq the stream has delivered. */
  readonly liveSeq: number;
  readonly window: EventWindow;
  readonly summary: Summary | null;
  readonly summaryVersion: number;
  readonly summaryStale: boolean;
  readonly runStart: RunStart | null;
  /** Model names seen in this session's calls, newest per role. */
  readonly modelsSeen: Readonly<{ worker?: string; evaluator?: string; interviewer?: string }>;
}

export const initialDashboard: DashboardState = {
  recent: [],
  liveSeq: 0,
  window: { events: [], hasEarlier: false, hasLater: false },
  summary: null,
  summaryVersion: 0,
  summaryStale: false,
  runStart: null,
  modelsSeen: {},
};

export type DashboardAction =
  /** The stream's window after a frame's events were folded (oldest first). */
  | { type: 'stream'; recent: readonly TilthEvent[] }
  /** A summary fresh from REST. */
  | { type: 'summary'; summary: Summary }
  /** A page of older events ending just before the window's first. */
  | { type: 'older'; events: readonly TilthEvent[]; hasEarlier: boolean }
  /** A page of newer events starting just after the window's last. */
  | { type: 'newer'; events: readonly TilthEvent[]; hasLater: boolean }
  /** A page around some event: it replaces the window. */
  | { type: 'jump'; events: readonly TilthEvent[]; hasEarlier: boolean; hasLater: boolean }
  /** Back to the newest events (what the stream holds). */
  | { type: 'newest' }
  /** Staff facts found by probing the log (a run start older than anything loaded). */
  | { type: 'facts'; runStart: RunStart | null; interviewer: string | null };

/** Index of the first event with seq > `seq` in an ascending list. */
export function firstAfter(events: readonly TilthEvent[], seq: number): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (events[mid]!.seq <= seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Folds what the summary has not seen of `events`; returns whether it changed and whether a hole was found. */
function foldSummary(summary: Summary, events: readonly TilthEvent[]): { changed: boolean; hole: boolean } {
  let changed = false;
  for (let i = firstAfter(events, summary.last_seq); i < events.length; i++) {
    const event = events[i]!;
    if (event.seq !== summary.last_seq + 1) return { changed, hole: true };
    addToSummary(summary, event);
    changed = true;
  }
  return { changed, hole: false };
}

function noteFacts(state: DashboardState, events: readonly TilthEvent[]): Pick<DashboardState, 'runStart' | 'modelsSeen'> {
  let { runStart, modelsSeen } = state;
  for (const event of events) {
    if (event.type === 'session_start' && event.data.phase === 'run' && (runStart === null || event.seq > runStart.seq)) {
      runStart = { seq: event.seq, ts: event.ts, data: event.data };
    } else if (event.type === 'model_call' && event.data.model) {
      const role =
        event.data.phase === 'interview' || event.data.role === 'prep'
          ? 'interviewer'
          : event.data.role === 'evaluator'
            ? 'evaluator'
            : event.data.phase === 'self_improve'
              ? null
              : 'worker';
      if (role !== null && modelsSeen[role] !== event.data.model) modelsSeen = { ...modelsSeen, [role]: event.data.model };
    } else if (event.type === 'session_prepared' && modelsSeen.interviewer !== event.data.interviewer_model) {
      modelsSeen = { ...modelsSeen, interviewer: event.data.interviewer_model };
    }
  }
  return { runStart, modelsSeen };
}

/** Keeps the window within `WINDOW_MAX`, dropping from the end away from where the user is. */
function capWindow(w: EventWindow, keep: 'newest' | 'oldest'): EventWindow {
  const excess = w.events.length - WINDOW_MAX;
  if (excess <= 0) return w;
  // Trim in chunks, so a live window copies its array once per chunk, not once per event.
  const drop = Math.min(w.events.length, excess + Math.floor(WINDOW_MAX / 10));
  return keep === 'newest'
    ? { events: w.events.slice(drop), hasEarlier: true, hasLater: w.hasLater }
    : { events: w.events.slice(0, w.events.length - drop), hasEarlier: w.hasEarlier, hasLater: true };
}

function streamWindow(w: EventWindow, recent: readonly TilthEvent[], fresh: readonly TilthEvent[]): EventWindow {
  if (fresh.length === 0 || w.hasLater) return w;
  const last = w.events.at(-1)?.seq;
  if (last === undefined) {
    // The first events: the stream's whole window (its REST tail page plus what followed).
    return capWindow({ events: recent, hasEarlier: (recent[0]?.seq ?? 1) > 1, hasLater: false }, 'newest');
  }
  const from = firstAfter(fresh, last);
  if (from === fresh.length) return w;
  if (fresh[from]!.seq !== last + 1) {
    // More arrived in one frame than the stream keeps: start again from its window.
    return capWindow({ events: recent, hasEarlier: true, hasLater: false }, 'newest');
  }
  return capWindow({ events: w.events.concat(from === 0 ? fresh : fresh.slice(from)), hasEarlier: w.hasEarlier, hasLater: false }, 'newest');
}

export function dashboardReducer(state: DashboardState, action: DashboardAction): DashboardState {
  switch (action.type) {
    case 'stream': {
      const { recent } = action;
      const from = firstAfter(recent, state.liveSeq);
      if (from === recent.length) return state.recent === recent ? state : { ...state, recent };
      const fresh = from === 0 ? recent : recent.slice(from);
      let { summaryVersion, summaryStale } = state;
      if (state.summary !== null && !summaryStale) {
        const folded = foldSummary(state.summary, fresh);
        if (folded.changed) summaryVersion++;
        if (folded.hole) summaryStale = true;
      }
      return {
        ...state,
        ...noteFacts(state, fresh),
        recent,
        liveSeq: fresh.at(-1)!.seq,
        window: streamWindow(state.window, recent, fresh),
        summaryVersion,
        summaryStale,
      };
    }
    case 'summary': {
      // A summary older than the one we hold (a slow response) is dropped.
      if (state.summary !== null && !state.summaryStale && action.summary.last_seq < state.summary.last_seq) return state;
      const summary = structuredClone(action.summary);
      const folded = foldSummary(summary, state.recent);
      return { ...state, summary, summaryVersion: state.summaryVersion + 1, summaryStale: folded.hole };
    }
    case 'older': {
      const first = state.window.events[0]?.seq;
      const page = first === undefined ? action.events : action.events.filter((e) => e.seq < first);
      if (page.length === 0 || (first !== undefined && page.at(-1)!.seq !== first - 1)) {
        return { ...state, window: { ...state.window, hasEarlier: action.hasEarlier && page.length > 0 } };
      }
      const w = { events: page.concat(state.window.events), hasEarlier: action.hasEarlier, hasLater: state.window.hasLater };
      return { ...state, ...noteFacts(state, page), window: capWindow(w, 'oldest') };
    }
    case 'newer': {
      const last = state.window.events.at(-1)?.seq ?? 0;
      const page = action.events.filter((e) => e.seq > last);
      if (page.length > 0 && page[0]!.seq !== last + 1) return state;
      // Caught up with the stream: from here on live events extend the window again.
      const end = page.at(-1)?.seq ?? last;
      const fromStream = state.recent.slice(firstAfter(state.recent, end));
      const joins = fromStream[0]?.seq === end + 1;
      // Live again only without a hole: joined to the stream's events, or nothing newer delivered yet.
      const live = joins || end >= state.liveSeq;
      const w = { events: state.window.events.concat(joins ? page.concat(fromStream) : page), hasEarlier: state.window.hasEarlier, hasLater: !live };
      return { ...state, window: capWindow(w, 'newest') };
    }
    case 'jump': {
      const last = action.events.at(-1)?.seq;
      if (last === undefined) return state;
      // The stream may already be past the page's end: then newer pages join the two.
      const hasLater = action.hasLater || last < state.liveSeq;
      return { ...state, ...noteFacts(state, action.events), window: { events: action.events, hasEarlier: action.hasEarlier, hasLater } };
    }
    case 'newest': {
      if (!state.window.hasLater) return state;
      const recent = state.recent;
      return { ...state, window: { events: recent, hasEarlier: (recent[0]?.seq ?? 1) > 1, hasLater: false } };
    }
    case 'facts': {
      const runStart = action.runStart !== null && (state.runStart === null || action.runStart.seq > state.runStart.seq) ? action.runStart : state.runStart;
      const modelsSeen =
        action.interviewer !== null && state.modelsSeen.interviewer === undefined ? { ...state.modelsSeen, interviewer: action.interviewer } : state.modelsSeen;
      if (runStart === state.runStart && modelsSeen === state.modelsSeen) return state;
      return { ...state, runStart, modelsSeen };
    }
  }
}
