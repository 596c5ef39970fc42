/**
 * `summary.json`: a session's aggregates, folded from its events one at a time. The run keeps an
 * accumulator and writes a snapshot at every task boundary and stop, so the sessions list and the
 * dashboard read numbers without rescanning the log (SPEC §3, reference §9.1, with its quirks
 * fixed: a retried task that ends done loses its failure reason, per-task iterations count the
 * worker's calls only, and interview calls are kept apart from the run's).
 */
import { z } from 'zod';
import { StopReasonSchema, type TilthEvent } from './events.ts';

const count = z.number().int().nonnegative();
const Counts = z.record(z.string(), count);

export const TaskSummarySchema = z.object({
  /** `pending` again after a rewind (its figures are kept: they were spent). */
  status: z.enum(['pending', 'in_progress', 'done', 'failed']),
  /** Worker model calls (the highest iteration number reached, over every attempt). */
  iterations: count,
  evaluator_calls: count,
  accepts: count,
  rejects: count,
  rejection_categories: Counts,
  tool_calls: Counts,
  guard_blocks: count,
  prompt_tokens: count,
  completion_tokens: count,
  cost_usd: z.number().nonnegative(),
  /** Wall time between the task's first and last event, summed over attempts. */
  duration_ms: z.number().nonnegative(),
  last_verdict: z.object({ verdict: z.enum(['accept', 'reject']), rejection_category: z.string().nullable(), concern: z.string() }).nullable(),
  failure_reason: StopReasonSchema.nullable(),
  commit: z.string().nullable(),
});
export type TaskSummary = z.infer<typeof TaskSummarySchema>;

const RoleTotals = z.object({
  calls: count,
  prompt_tokens: count,
  completion_tokens: count,
  cached_tokens: count.default(0),
  reasoning_tokens: count.default(0),
  cost_usd: z.number().nonnegative(),
});

/** Series entries are tuples, so a long session's summary stays small. */
const Ms = z.number();
export const TimelineSchema = z.object({
  /** Task attempts: [task_id, start seq, start ms, end ms or null, outcome or null]. */
  attempts: z.array(z.tuple([z.string(), count, Ms, Ms.nullable(), z.enum(['done', 'failed', 'stopped']).nullable()])),
  /** Worker model calls: [seq, ms, task_id, iter, prompt tokens]. */
  iterations: z.array(z.tuple([count, Ms, z.string(), count, count])),
  /** Evaluator and learnings calls: [seq, ms, task_id or null, role, prompt tokens]. */
  other_calls: z.array(z.tuple([count, Ms, z.string().nullable(), z.string(), count])),
  /** Verdicts: [seq, ms, task_id, verdict, category or null]. */
  verdicts: z.array(z.tuple([count, Ms, z.string(), z.enum(['accept', 'reject']), z.string().nullable()])),
  /**
   * Context windows as model calls reported them: [seq, role, tokens], one entry each time a
   * role's window changes (the first call that carries one, then only changes). Absent in
   * summaries written before the field existed.
   */
  windows: z.array(z.tuple([count, z.string(), z.number().int().positive()])).default([]),
});
export type Timeline = z.infer<typeof TimelineSchema>;
/**
 * Per series; past it the oldest half is dropped (a chart of the recent past stays right). The
 * server thins what it sends (timeline-view.ts), so this only bounds summary.json and memory:
 * about 1.2M events' worth of worker calls.
 */
export const TIMELINE_CAP = 200_000;

export const SummarySchema = z.object({
  version: z.literal(2),
  session_id: z.string(),
  started_at: z.string().nullable(),
  last_event_at: z.string().nullable(),
  last_seq: count,
  tasks: z.record(z.string(), TaskSummarySchema),
  /** Per role: worker, evaluator, self_improve (the run) and prep (the interview). */
  roles: z.record(z.string(), RoleTotals),
  tool_calls: Counts,
  guard_blocks: count,
  verdicts: z.object({ accepts: count, rejects: count, rejection_categories: Counts }),
  empty_replies: count,
  stop: z.object({ reason: StopReasonSchema, ts: z.string() }).nullable(),
  /**
   * When the latest run ended: its first stop. A later stop (a send-back, an added task, both
   * after the run) names the new reason in \`stop\` but does not move the run's end.
   */
  run_ended_at: z.string().nullable().default(null),
  timeline: TimelineSchema.default({ attempts: [], iterations: [], other_calls: [], verdicts: [], windows: [] }),
  /** Per task, when its current attempt's last event was seen (for duration_ms). */
  clock: z.record(z.string(), Ms).default({}),
});
export type Summary = z.infer<typeof SummarySchema>;

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;
const isMs = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isText = (v: unknown): v is string => typeof v === 'string';
const ROW_CHECKS: Record<keyof Timeline, (row: unknown[]) => boolean> = {
  attempts: (r) =>
    r.length === 5 &&
    isText(r[0]) &&
    isCount(r[1]) &&
    isMs(r[2]) &&
    (r[3] === null || isMs(r[3])) &&
    (r[4] === null || ['done', 'failed', 'stopped'].includes(r[4] as string)),
  iterations: (r) => r.length === 5 && isCount(r[0]) && isMs(r[1]) && isText(r[2]) && isCount(r[3]) && isCount(r[4]),
  other_calls: (r) => r.length === 5 && isCount(r[0]) && isMs(r[1]) && (r[2] === null || isText(r[2])) && isText(r[3]) && isCount(r[4]),
  verdicts: (r) => r.length === 5 && isCount(r[0]) && isMs(r[1]) && isText(r[2]) && (r[3] === 'accept' || r[3] === 'reject') && (r[4] === null || isText(r[4])),
  windows: (r) => r.length === 3 && isCount(r[0]) && isText(r[1]) && isCount(r[2]) && r[2] > 0,
};

/** The timeline's series, in the order summary.json lists them. */
export const TIMELINE_SERIES = Object.keys(ROW_CHECKS) as (keyof Timeline)[];

/** The index of the first row of `rows` that is not a valid entry of `series`, or -1. */
export function badTimelineRow(series: keyof Timeline, rows: unknown[]): number {
  const check = ROW_CHECKS[series];
  return rows.findIndex((row) => !Array.isArray(row) || !check(row));
}

/**
 * The same check as TimelineSchema, row by row in plain code: a long run's summary holds
 * hundreds of thousands of rows, which zod would take a noticeable time over.
 */
const CheapTimelineSchema = z.unknown().transform((raw, ctx): Timeline => {
  if (raw === undefined) return { attempts: [], iterations: [], other_calls: [], verdicts: [], windows: [] };
  if (typeof raw !== 'object' || raw === null) {
    ctx.addIssue({ code: 'custom', message: 'timeline must be an object' });
    return z.NEVER;
  }
  const series = raw as Record<string, unknown>;
  for (const key of TIMELINE_SERIES) {
    const rows = series[key] ?? (key === 'windows' ? [] : undefined);
    if (!Array.isArray(rows)) {
      ctx.addIssue({ code: 'custom', message: `timeline.${key} must be a list`, path: [key] });
      return z.NEVER;
    }
    const bad = badTimelineRow(key, rows);
    if (bad !== -1) {
      ctx.addIssue({ code: 'custom', message: `timeline.${key}[${bad}] is not a valid entry`, path: [key, bad] });
      return z.NEVER;
    }
  }
  const checked = series as Partial<Timeline>;
  return {
    attempts: checked.attempts ?? [],
    iterations: checked.iterations ?? [],
    other_calls: checked.other_calls ?? [],
    verdicts: checked.verdicts ?? [],
    windows: checked.windows ?? [],
  };
});

/** SummarySchema with the timeline checked cheaply: for summary.json and the wire. */
export const SummaryFileSchema = SummarySchema.extend({ timeline: CheapTimelineSchema });

/** Everything in a summary but its timeline (summary.json's first line; see server/store/summary-file.ts). */
export const SummaryHeadSchema = SummarySchema.omit({ timeline: true });

const SpanSchema = z.object({ from: z.number(), to: z.number() }).nullable();
/**
 * The whole run's thinned timeline as summary.json keeps it on its first line (`whole_view`),
 * written with the file: what a dashboard first asks for, read without the file's rows.
 */
export const StoredViewSchema = z.object({ timeline: CheapTimelineSchema, span: SpanSchema, full: SpanSchema, thinned: z.boolean() });

export function emptySummary(sessionId: string): Summary {
  return {
    version: 2,
    session_id: sessionId,
    started_at: null,
    last_event_at: null,
    last_seq: 0,
    tasks: {},
    roles: {},
    tool_calls: {},
    guard_blocks: 0,
    verdicts: { accepts: 0, rejects: 0, rejection_categories: {} },
    empty_replies: 0,
    stop: null,
    run_ended_at: null,
    timeline: { attempts: [], iterations: [], other_calls: [], verdicts: [], windows: [] },
    clock: {},
  };
}

function push<T>(list: T[], item: T): void {
  if (list.length >= TIMELINE_CAP) list.splice(0, TIMELINE_CAP / 2);
  list.push(item);
}

/** The window `role` last reported, if any. */
function lastWindow(s: Summary, role: string): number | undefined {
  for (let i = s.timeline.windows.length - 1; i >= 0; i--) if (s.timeline.windows[i]![1] === role) return s.timeline.windows[i]![2];
  return undefined;
}

/** Closes the task's open attempt, if any. */
function endAttempt(s: Summary, taskId: string, at: number, outcome: 'done' | 'failed' | 'stopped'): void {
  for (let i = s.timeline.attempts.length - 1; i >= 0; i--) {
    const a = s.timeline.attempts[i]!;
    if (a[0] !== taskId) continue;
    if (a[3] === null) {
      a[3] = at;
      a[4] = outcome;
    }
    return;
  }
}

function task(s: Summary, id: string): TaskSummary {
  let t = s.tasks[id];
  if (!t) {
    t = {
      status: 'in_progress',
      iterations: 0,
      evaluator_calls: 0,
      accepts: 0,
      rejects: 0,
      rejection_categories: {},
      tool_calls: {},
      guard_blocks: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      cost_usd: 0,
      duration_ms: 0,
      last_verdict: null,
      failure_reason: null,
      commit: null,
    };
    s.tasks[id] = t;
  }
  return t;
}

const bump = (counts: Record<string, number>, key: string) => {
  counts[key] = (counts[key] ?? 0) + 1;
};

/** Folds one event into the summary, in place. Events at or below `last_seq` are ignored. */
export function addToSummary(s: Summary, event: TilthEvent): void {
  if (event.seq <= s.last_seq) return;
  s.last_seq = event.seq;
  s.last_event_at = event.ts;
  const d = event.data as Record<string, unknown>;
  const taskId = typeof d.task_id === 'string' ? d.task_id : null;
  if (taskId && event.type !== 'context_reset' && s.clock[taskId] !== undefined) {
    // The clock runs only through an attempt: from its context_reset to its end (done, failed, a
    // stop). A pause between a stop and a resume, or a review event about the task long after it
    // (a send-back, its probe's report), is not the task's time.
    const at = Date.parse(event.ts);
    const last = s.clock[taskId];
    if (at >= last) task(s, taskId).duration_ms += at - last;
    s.clock[taskId] = at;
  }
  switch (event.type) {
    case 'session_start':
      if (event.data.phase === 'run') {
        s.started_at = event.ts;
        s.run_ended_at = null;
      }
      break;
    case 'context_reset': {
      const at = Date.parse(event.ts);
      task(s, event.data.task_id).status = 'in_progress';
      s.clock[event.data.task_id] = at;
      endAttempt(s, event.data.task_id, at, 'stopped');
      push(s.timeline.attempts, [event.data.task_id, event.seq, at, null, null]);
      break;
    }
    case 'model_call': {
      const role = event.data.phase === 'self_improve' ? 'self_improve' : (event.data.role ?? 'worker');
      const r = (s.roles[role] ??= { calls: 0, prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0, reasoning_tokens: 0, cost_usd: 0 });
      r.calls++;
      r.prompt_tokens += event.data.prompt_tokens;
      r.completion_tokens += event.data.eval_tokens;
      r.cached_tokens += event.data.cached_tokens ?? 0;
      r.reasoning_tokens += event.data.reasoning_tokens ?? 0;
      r.cost_usd += event.data.cost_usd ?? 0;
      const at = Date.parse(event.ts);
      if (role === 'worker' && taskId && event.data.iter !== undefined)
        push(s.timeline.iterations, [event.seq, at, taskId, event.data.iter, event.data.prompt_tokens]);
      else if (role !== 'prep') push(s.timeline.other_calls, [event.seq, at, taskId, role, event.data.prompt_tokens]);
      const window = event.data.context_window;
      if (window !== undefined && role !== 'prep' && lastWindow(s, role) !== window) push(s.timeline.windows, [event.seq, role, window]);
      if (taskId) {
        const t = task(s, taskId);
        t.prompt_tokens += event.data.prompt_tokens;
        t.completion_tokens += event.data.eval_tokens;
        t.cost_usd += event.data.cost_usd ?? 0;
        if (role === 'worker' && event.data.iter !== undefined) t.iterations = Math.max(t.iterations, event.data.iter);
        if (role === 'evaluator') t.evaluator_calls++;
      }
      break;
    }
    case 'empty_model_response':
      s.empty_replies++;
      break;
    case 'tool_call':
      if (event.data.phase === 'interview') break;
      bump(s.tool_calls, event.data.tool);
      if (taskId) bump(task(s, taskId).tool_calls, event.data.tool);
      break;
    case 'pre_tool_block':
      s.guard_blocks++;
      task(s, event.data.task_id).guard_blocks++;
      break;
    case 'evaluator_verdict': {
      const t = task(s, event.data.task_id);
      const accept = event.data.verdict === 'accept';
      if (accept) {
        s.verdicts.accepts++;
        t.accepts++;
      } else {
        s.verdicts.rejects++;
        t.rejects++;
        if (event.data.rejection_category) {
          bump(s.verdicts.rejection_categories, event.data.rejection_category);
          bump(t.rejection_categories, event.data.rejection_category);
        }
      }
      t.last_verdict = { verdict: event.data.verdict, rejection_category: event.data.rejection_category ?? null, concern: event.data.concern };
      push(s.timeline.verdicts, [event.seq, Date.parse(event.ts), event.data.task_id, event.data.verdict, event.data.rejection_category ?? null]);
      break;
    }
    case 'task_done': {
      const t = task(s, event.data.task_id);
      t.status = 'done';
      t.failure_reason = null;
      endAttempt(s, event.data.task_id, Date.parse(event.ts), 'done');
      delete s.clock[event.data.task_id];
      break;
    }
    case 'task_failed': {
      const t = task(s, event.data.task_id);
      t.status = 'failed';
      t.failure_reason = event.data.reason;
      endAttempt(s, event.data.task_id, Date.parse(event.ts), 'failed');
      delete s.clock[event.data.task_id];
      break;
    }
    case 'commit':
      task(s, event.data.task_id).commit = event.data.sha;
      break;
    case 'task_sent_back': {
      // The user sent it back: pending again, as prd.json, the review and the CLI say; its
      // commit stays (revision 1 is still on the branch) and its figures are kept.
      const t = task(s, event.data.task_id);
      t.status = 'pending';
      t.failure_reason = null;
      break;
    }
    case 'rewound':
      for (const id of event.data.tasks) {
        const t = s.tasks[id];
        if (!t) continue;
        t.status = 'pending';
        t.commit = null;
        t.failure_reason = null;
        // The verdict was on work the rewind set aside; the review keeps it among the earlier attempts.
        t.last_verdict = null;
      }
      break;
    case 'stop':
      if (event.data.phase !== 'interview') {
        s.stop = { reason: event.data.reason, ts: event.ts };
        if (s.started_at !== null && s.run_ended_at === null) s.run_ended_at = event.ts;
        const at = Date.parse(event.ts);
        for (const a of s.timeline.attempts) if (a[3] === null) endAttempt(s, a[0], at, 'stopped');
        s.clock = {};
      }
      break;
    default:
      break;
  }
}
