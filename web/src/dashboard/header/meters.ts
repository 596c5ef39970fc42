/**
 * Limit meters: how close the run is to each cap. Amber from 75%, red from 90%; a cap of 0 is
 * off. Session meters (cost, tokens, wall clock) and the current task attempt's (iterations,
 * evaluator calls) come from the summary and the caps the run was started with. Pure.
 */
import type { Caps } from '../../../../shared/files.ts';
import type { Summary } from '../../../../shared/summary.ts';
import { formatCount, formatDuration, formatInt, formatUsd } from '../../../../shared/format.ts';

export const AMBER_AT = 0.75;
export const RED_AT = 0.9;

export type MeterLevel = 'off' | 'ok' | 'amber' | 'red';

export function meterLevel(value: number, cap: number): MeterLevel {
  if (!(cap > 0)) return 'off';
  const fraction = value / cap;
  if (fraction >= RED_AT) return 'red';
  if (fraction >= AMBER_AT) return 'amber';
  return 'ok';
}

export type MeterKey = 'cost' | 'tokens' | 'wall_clock' | 'iterations' | 'evaluator_calls';

export interface Meter {
  key: MeterKey;
  label: string;
  value: number;
  cap: number;
  level: MeterLevel;
  /** 0…1 of the cap (clamped); 0 when the cap is off. */
  fraction: number;
  /** "$7.80 of $10.00", "12 of 32", "$0.42 (no cap)". */
  text: string;
}

function meter(key: MeterKey, label: string, value: number, cap: number, show: (n: number) => string): Meter {
  const level = meterLevel(value, cap);
  return {
    key,
    label,
    value,
    cap,
    level,
    fraction: cap > 0 ? Math.min(1, value / cap) : 0,
    text: cap > 0 ? `${show(value)} of ${show(cap)}` : `${show(value)} (no cap)`,
  };
}

const RUN_ROLES = ['worker', 'evaluator', 'self_improve'] as const;

/** The run's spend from the summary's roles (the interview's `prep` role is counted apart). */
export function runSpend(summary: Summary): { costUsd: number; tokens: number } {
  let costUsd = 0;
  let tokens = 0;
  for (const role of RUN_ROLES) {
    const r = summary.roles[role];
    if (!r) continue;
    costUsd += r.cost_usd;
    tokens += r.prompt_tokens + r.completion_tokens;
  }
  return { costUsd, tokens };
}

/**
 * How long the current (or last) run has gone: from its `session_start` to its stop, or to `now`
 * while it runs. The wall-clock cap is per run, as the engine checks it.
 */
export function runElapsedMs(summary: Summary, running: boolean, now: number): number {
  if (summary.started_at === null) return 0;
  const start = Date.parse(summary.started_at);
  if (running) return Math.max(0, now - start);
  // The run's own end: a send-back or an added task later stops the session again, without running.
  const endedAt = summary.run_ended_at !== null ? Date.parse(summary.run_ended_at) : NaN;
  const stopAt = summary.stop !== null ? Date.parse(summary.stop.ts) : NaN;
  const end = endedAt >= start ? endedAt : stopAt >= start ? stopAt : summary.last_event_at !== null ? Date.parse(summary.last_event_at) : start;
  return Math.max(0, end - start);
}

export function sessionMeters(summary: Summary, caps: Caps | null, elapsedMs: number): Meter[] {
  const { costUsd, tokens } = runSpend(summary);
  return [
    meter('cost', 'Cost', costUsd, caps?.max_dollars ?? 0, formatUsd),
    meter('wall_clock', 'Wall clock', elapsedMs, (caps?.max_wall_clock_minutes ?? 0) * 60_000, formatDuration),
    meter('tokens', 'Tokens', tokens, caps?.max_tokens ?? 0, formatCount),
  ];
}

export interface AttemptFigures {
  taskId: string;
  /** Seq of the attempt's `context_reset`. */
  startSeq: number;
  /** The highest worker iteration of this attempt. */
  iterations: number;
  /** Evaluator verdicts in this attempt (the evaluator cap counts these). */
  evaluatorCalls: number;
  open: boolean;
}

/**
 * The newest attempt's figures. Caps are per attempt (a resumed task starts a fresh budget), so
 * the meters count from the attempt's start; the scan walks back from the end of each series and
 * stops at the attempt's first seq, so it costs the attempt's length, not the session's.
 */
export function latestAttempt(summary: Summary, taskId?: string): AttemptFigures | null {
  const { attempts, iterations, verdicts } = summary.timeline;
  let attempt: (typeof attempts)[number] | undefined;
  for (let i = attempts.length - 1; i >= 0; i--) {
    const a = attempts[i]!;
    if (taskId === undefined || a[0] === taskId) {
      attempt = a;
      break;
    }
  }
  if (!attempt) return null;
  const [id, startSeq] = attempt;
  let iters = 0;
  for (let i = iterations.length - 1; i >= 0 && iterations[i]![0] >= startSeq; i--) {
    const it = iterations[i]!;
    if (it[2] === id) iters = Math.max(iters, it[3]);
  }
  let calls = 0;
  for (let i = verdicts.length - 1; i >= 0 && verdicts[i]![0] >= startSeq; i--) if (verdicts[i]![2] === id) calls++;
  return { taskId: id, startSeq, iterations: iters, evaluatorCalls: calls, open: attempt[3] === null };
}

export function attemptMeters(attempt: AttemptFigures, caps: Caps | null): Meter[] {
  return [
    meter('iterations', `Iterations · ${attempt.taskId}`, attempt.iterations, caps?.max_iterations_per_task ?? 0, formatInt),
    meter('evaluator_calls', `Evaluator calls · ${attempt.taskId}`, attempt.evaluatorCalls, caps?.max_evaluator_calls_per_task ?? 0, formatInt),
  ];
}
