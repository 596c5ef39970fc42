/**
 * The stat band's figures, all read from the summary (which the dashboard folds live), never by
 * walking the events. Pure.
 */
import type { Summary } from '../../../../shared/summary.ts';

export interface StatBand {
  tokens: { prompt: number; completion: number; cached: number; reasoning: number };
  /** The interview's tokens, shown apart: they do not count against the run's caps. */
  interviewTokens: number;
  cost: { worker: number; evaluator: number; learnings: number; total: number };
  calls: { worker: number; evaluator: number; learnings: number; interview: number };
  tools: { total: number; top: [string, number][]; otherKinds: number };
  verdicts: { accepts: number; rejects: number; categories: [string, number][] };
  guardBlocks: number;
  emptyReplies: number;
  /** Task time over worker calls; null before the first call. */
  secondsPerIteration: number | null;
}

const TOP_TOOLS = 5;

function sortedCounts(counts: Readonly<Record<string, number>>): [string, number][] {
  return Object.entries(counts).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

export function statBand(summary: Summary): StatBand {
  const role = (name: string) => summary.roles[name];
  const tokens = { prompt: 0, completion: 0, cached: 0, reasoning: 0 };
  for (const name of ['worker', 'evaluator', 'self_improve']) {
    const r = role(name);
    if (!r) continue;
    tokens.prompt += r.prompt_tokens;
    tokens.completion += r.completion_tokens;
    tokens.cached += r.cached_tokens;
    tokens.reasoning += r.reasoning_tokens;
  }
  const cost = {
    worker: role('worker')?.cost_usd ?? 0,
    evaluator: role('evaluator')?.cost_usd ?? 0,
    learnings: role('self_improve')?.cost_usd ?? 0,
    total: 0,
  };
  cost.total = cost.worker + cost.evaluator + cost.learnings;
  const prep = role('prep');
  const tools = sortedCounts(summary.tool_calls);
  let taskMs = 0;
  for (const t of Object.values(summary.tasks)) taskMs += t.duration_ms;
  const workerCalls = role('worker')?.calls ?? 0;
  return {
    tokens,
    interviewTokens: prep ? prep.prompt_tokens + prep.completion_tokens : 0,
    cost,
    calls: { worker: workerCalls, evaluator: role('evaluator')?.calls ?? 0, learnings: role('self_improve')?.calls ?? 0, interview: prep?.calls ?? 0 },
    tools: { total: tools.reduce((n, [, c]) => n + c, 0), top: tools.slice(0, TOP_TOOLS), otherKinds: Math.max(0, tools.length - TOP_TOOLS) },
    verdicts: { accepts: summary.verdicts.accepts, rejects: summary.verdicts.rejects, categories: sortedCounts(summary.verdicts.rejection_categories) },
    guardBlocks: summary.guard_blocks,
    emptyReplies: summary.empty_replies,
    secondsPerIteration: workerCalls > 0 ? taskMs / 1000 / workerCalls : null,
  };
}
