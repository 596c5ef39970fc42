/**
 * Reading the dashboard's state by what changed. The reducer folds events into the summary in
 * place (dashboard-state.ts) and counts the folds in `summaryVersion`; `SummaryAt` is the summary
 * as of one version, a new object each time, so what a panel derives from it names it as its one
 * dependency and is derived again exactly when the summary changed.
 */
import { useMemo } from 'react';
import type { Summary } from '../../../../shared/summary.ts';
import type { DashboardState } from './dashboard-state.ts';

export interface SummaryAt {
  readonly summary: Summary;
  readonly version: number;
}

/** The summary as of its latest version, or null before it has loaded. */
export function useSummaryAt(state: Pick<DashboardState, 'summary' | 'summaryVersion'>): SummaryAt | null {
  const { summary, summaryVersion } = state;
  return useMemo(() => (summary === null ? null : { summary, version: summaryVersion }), [summary, summaryVersion]);
}
