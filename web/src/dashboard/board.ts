/**
 * The task board's rows: the plan's tasks in order, with their figures from the summary. Pure.
 */
import type { Caps, PrdEntry } from '../../../shared/files.ts';
import type { Summary, TaskSummary } from '../../../shared/summary.ts';
import { meterLevel, type MeterLevel } from './header/meters.ts';
import { boardStatus, type BoardStatus } from './header/run-words.ts';

export interface BoardRow {
  id: string;
  title: string;
  status: BoardStatus;
  iterations: number;
  iterationsLevel: MeterLevel;
  evaluatorCalls: number;
  evaluatorLevel: MeterLevel;
  accepts: number;
  rejects: number;
  costUsd: number;
  lastVerdict: TaskSummary['last_verdict'];
  failureReason: TaskSummary['failure_reason'];
}

export function boardRows(plan: readonly PrdEntry[], summary: Summary | null, caps: Caps | null, runActive: boolean): BoardRow[] {
  const rows: BoardRow[] = plan.map((task) => {
    const t = summary?.tasks[task.id];
    const iterations = t?.iterations ?? 0;
    const evaluatorCalls = t?.evaluator_calls ?? 0;
    return {
      id: task.id,
      title: task.title,
      status: boardStatus(task.status, t?.status ?? null, runActive),
      iterations,
      iterationsLevel: meterLevel(iterations, caps?.max_iterations_per_task ?? 0),
      evaluatorCalls,
      evaluatorLevel: meterLevel(evaluatorCalls, caps?.max_evaluator_calls_per_task ?? 0),
      accepts: t?.accepts ?? 0,
      rejects: t?.rejects ?? 0,
      costUsd: t?.cost_usd ?? 0,
      lastVerdict: t?.last_verdict ?? null,
      failureReason: t?.failure_reason ?? null,
    };
  });
  return rows;
}

/** "3 of 5 done". */
export function boardProgress(rows: readonly BoardRow[]): string {
  return `${rows.filter((r) => r.status === 'done').length} of ${rows.length} done`;
}
