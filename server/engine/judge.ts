/**
 * The evaluator's turn on a case whose checks passed (reference §7.2): its prompt and calls are
 * logged under the iteration's span, and its verdict goes to the task's ledger.
 */
import type { Case, CaseProof, PrdEntry } from '../../shared/files.ts';
import { retryFields } from '../agent/events.ts';
import { diffSummary, workingDiff } from '../git/worktree-git.ts';
import type { CheckResult } from '../proof/checks.ts';
import { evaluate, type Evaluation } from './evaluator.ts';
import type { IterSpan, RunContext } from './run-context.ts';
import { loadContextFiles } from './worker-prompt.ts';

/** How many of the task's latest verdicts the worker and the evaluator see (reference §3.5). */
export const LEDGER_INJECT_LIMIT = 5;

/** Runs the evaluator on a case whose checks passed; records the verdict and the ledger entry. */
export async function judge(
  run: RunContext,
  task: PrdEntry,
  theCase: Case,
  checks: CheckResult[],
  base: IterSpan,
  tests: Record<string, string>,
  green: CaseProof[],
): Promise<Evaluation> {
  const input = {
    task,
    contextFiles: loadContextFiles(run.worktree, run.deps.contextFiles).loaded,
    ledger: run.session.ledger.read(task.id, LEDGER_INJECT_LIMIT),
    case: theCase,
    tests,
    checks,
    diff: await workingDiff(run.ref),
    sendBack: run.session.sendBacks.current(task),
  };
  let promptLogged = false;
  const evaluation = await evaluate(run.deps.llm, input, {
    signal: run.signal,
    agent: run.agentOptions('evaluator'),
    events: {
      beforeCall: (prompt) => {
        if (!promptLogged) run.promptEvent(base, 'evaluator', prompt);
        promptLogged = true;
        run.checkSpend();
      },
      onResult: (attempt, result, info) => run.modelCallEvent(result, 'evaluator', { ...base, attempt }, info),
      onParseError: (attempt, error, raw) => run.emit({ type: 'evaluator_parse_error', data: { ...base, attempt, error, raw_tool_calls: raw } }),
      onRetry: (notice) => run.emit({ type: 'model_retry', data: { ...base, phase: 'evaluator', ...retryFields(notice) } }),
      onNotice: (kind, message) => run.notice('evaluator', kind, message, task.id),
    },
  });
  const verdict = evaluation.verdict;
  run.emit({ type: 'evaluator_verdict', data: { ...base, schema_version: 1, ...verdict } });
  // The green proof (already a gate before this call) stays with the accept, as the review reads it.
  const accepted = verdict.verdict === 'accept' && green.length > 0;
  run.session.ledger.append(task.id, {
    ts: new Date().toISOString(),
    iter: base.iter,
    diff_summary: await diffSummary(run.ref),
    case: theCase,
    verdict,
    checks,
    ...(accepted ? { green } : {}),
    ...(task.revision ? { revision: task.revision } : {}),
  });
  run.emit({
    type: 'ledger_appended',
    data: {
      ...base,
      verdict_summary: `${verdict.verdict}${verdict.rejection_category ? ` · ${verdict.rejection_category}` : ''}: ${verdict.concern.slice(0, 200)}`,
    },
  });
  return evaluation;
}
