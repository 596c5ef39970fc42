/**
 * One task, start to finish (reference §7.2): a fresh worker conversation; each iteration is one
 * model call, the worktree tools it asked for (guarded, in order), and, when it submits a case,
 * the gates, the checks (case-checks.ts) and then the evaluator (judge.ts). Ends with an outcome;
 * the outer loop (run.ts) does the bookkeeping. Task stops: iter_cap, evaluator_cap,
 * empty_responses, no_case, provider_failure. A session cap reached before a model call throws
 * CapReached and leaves the task pending.
 */
import { uncoveredCriteria } from '../../shared/coverage.ts';
import type { Case, PrdEntry } from '../../shared/files.ts';
import { retryFields } from '../agent/events.ts';
import { Agent, ContextOverflowError, type AgentCall, type CallReport } from '../agent/runtime.ts';
import { changedFiles, GitTamperedError, verifyPointers } from '../git/worktree-git.ts';
import { machineryWriteLock, type MachineryInput } from '../proof/test-machinery.ts';
import { ProviderFailureError } from '../llm/errors.ts';
import { loadPrompt } from '../agent/prompts.ts';
import { DUPLICATE_CASE, formatCoverageGap, formatRejectFeedback, formatUnchangedRevision, parseCase, WORKER_NO_CASE_NUDGE } from './case.ts';
import { CHECKS_FAILED_PREFIX } from '../agent/context.ts';
import { checkCase, checksReport } from './case-checks.ts';
import type { Evaluation } from './evaluator.ts';
import { judge, LEDGER_INJECT_LIMIT } from './judge.ts';
import { spanId, type IterSpan, type RunContext } from './run-context.ts';
import { buildWorkerPrompt, formatNotes, loadContextFiles } from './worker-prompt.ts';
import { WORKER_TOOLS, workerContext, type WorkerToolContext } from '../tools/worker-tools.ts';

export const MAX_NO_CASE_STREAK = 3;
const RESULT_PREVIEW_CHARS = 500;
const RAW_ARGS_CHAR_CAP = 16_000;

export type TaskOutcome =
  | { kind: 'done'; summary: string }
  | {
      kind: 'failed';
      reason: 'iter_cap' | 'evaluator_cap' | 'empty_responses' | 'no_case' | 'provider_failure' | 'git_tampered' | 'evaluator_unreadable' | 'context_overflow';
      detail: string;
    };
type FailReason = Extract<TaskOutcome, { kind: 'failed' }>['reason'];

export async function runTask(run: RunContext, prd: PrdEntry[], task: PrdEntry, traceId: string): Promise<TaskOutcome> {
  try {
    return await workOnTask(run, prd, task, traceId);
  } catch (err) {
    // The worker changed the worktree's git pointers: no harness git runs there again until the
    // user has seen it (resume restores them).
    if (!(err instanceof GitTamperedError)) throw err;
    run.emit({ type: 'task_failed', data: { task_id: task.id, trace_id: traceId, span_id: spanId(), reason: 'git_tampered' } });
    return { kind: 'failed', reason: 'git_tampered', detail: err.message };
  }
}

async function workOnTask(run: RunContext, prd: PrdEntry[], task: PrdEntry, traceId: string): Promise<TaskOutcome> {
  const { deps, signal } = run;
  const trace = { task_id: task.id, trace_id: traceId };
  const doneIds = prd.filter((t) => t.status === 'done').map((t) => t.id);
  let base: IterSpan = { ...trace, span_id: spanId(), iter: 0 };
  const prompt = briefWorker(run, prd, task, base);
  const machinery = await machineryOf(run, prd, task);
  const lock = machinery ? await machineryWriteLock(machinery, run.worktree, Object.keys(run.seedMeta.locked_tests)) : undefined;
  const maxIter = deps.caps.max_iterations_per_task;
  const evaluatorCap = deps.caps.max_evaluator_calls_per_task;
  let evaluatorCalls = 0;
  let noCaseStreak = 0;
  const gates = { unchangedAnswered: false };
  const agent = workerAgent(run, task, prompt, () => base);
  const fail = (reason: FailReason, detail: string, extra: { streak?: number; nudges?: number; evaluator_calls?: number } = {}): TaskOutcome =>
    failTask(run, base, reason, detail, extra);

  for (let iter = 1; iter <= maxIter; iter++) {
    signal.throwIfAborted();
    base = { ...trace, span_id: spanId(), iter };
    if (iter > 1) giveNotes(run, agent, task, iter);

    let turn: Awaited<ReturnType<typeof agent.turn>>;
    try {
      turn = await agent.turn();
    } catch (err) {
      if (err instanceof ProviderFailureError) return fail(err.kind === 'context_overflow' ? 'context_overflow' : 'provider_failure', err.message);
      if (err instanceof ContextOverflowError) return fail('context_overflow', err.message);
      throw err;
    }
    if (turn.kind === 'empty') return fail('empty_responses', turn.detail, { streak: turn.streak });

    // The tools run in the order sent; the case (the one final tool) is read after them.
    const caseCalls: AgentCall[] = [];
    const toolContext = workerContext({ scope: run.scope, signal: run.signal, bashTimeoutMs: run.deps.bashTimeoutMs, machinery: lock });
    await agent.dispatch(turn.calls, toolContext, toolReport(run, base), (call) => {
      caseCalls.push(call);
      return false;
    });

    if (caseCalls.length === 0) {
      if (turn.calls.length > 0) {
        noCaseStreak = 0;
        continue;
      }
      noCaseStreak++;
      if (noCaseStreak >= MAX_NO_CASE_STREAK) {
        // What a model says as it stops is often why: the reviewer reads it with the failure.
        const said = turn.text.trim();
        const why = `the worker ended ${noCaseStreak} turns in a row without working or presenting a case`;
        return fail('no_case', said ? `${why}; its last words: ${said}` : why, { nudges: noCaseStreak });
      }
      agent.say(WORKER_NO_CASE_NUDGE);
      continue;
    }

    noCaseStreak = 0;
    const answer = (content: string) => {
      for (const [i, c] of caseCalls.entries()) agent.answer(c, i === 0 ? content : DUPLICATE_CASE);
    };
    const read = readCase(run, base, caseCalls);
    if (!read.ok) {
      answer(read.error);
      continue;
    }
    const held = await gateCase(run, task, read.case, base, gates);
    if (held !== null) {
      answer(held);
      continue;
    }

    const checked = await checkCase(run, task, doneIds, machinery, base);
    if (!checked.passed) {
      answer(`${CHECKS_FAILED_PREFIX}\n\n${checksReport(checked.results)}`);
      continue;
    }

    let evaluation: Evaluation;
    try {
      evaluation = await judge(run, task, read.case, checked.checks, base, checked.tests, checked.green);
    } catch (err) {
      if (err instanceof ContextOverflowError) return fail('context_overflow', err.message);
      if (!(err instanceof ProviderFailureError)) throw err;
      return fail('provider_failure', err.message);
    }
    evaluatorCalls++;
    const verdict = evaluation.verdict;
    if (evaluation.unreadable !== undefined) return fail('evaluator_unreadable', evaluation.unreadable);
    if (verdict.verdict === 'accept') {
      run.emit({ type: 'task_done', data: { ...trace, span_id: base.span_id, summary: read.case.summary } });
      return { kind: 'done', summary: read.case.summary };
    }
    if (evaluatorCap > 0 && evaluatorCalls >= evaluatorCap) {
      return fail('evaluator_cap', `the evaluator rejected ${evaluatorCalls} cases (TILTH_MAX_EVALUATOR_CALLS_PER_TASK=${evaluatorCap})`, {
        evaluator_calls: evaluatorCalls,
      });
    }
    answer(formatRejectFeedback(verdict));
  }
  base = { ...trace, span_id: spanId(), iter: maxIter };
  return fail('iter_cap', `hit the iteration cap (TILTH_MAX_ITERATIONS_PER_TASK=${maxIter})`);
}

/** The worker's first prompt for the task, with the events that say what went into it. */
function briefWorker(run: RunContext, prd: PrdEntry[], task: PrdEntry, setup: IterSpan): string {
  const span = { task_id: setup.task_id, trace_id: setup.trace_id, span_id: setup.span_id };
  run.emit({ type: 'context_reset', data: span });
  const context = loadContextFiles(run.worktree, run.deps.contextFiles);
  const notes = run.session.steering.takePending();
  const { prompt, channels } = buildWorkerPrompt({
    worktree: run.worktree,
    task,
    prd,
    seedMeta: run.seedMeta,
    progress: run.session.progress.tail(),
    ownLedger: run.session.ledger.read(task.id, LEDGER_INJECT_LIMIT),
    notes,
    context,
    sendBack: run.session.sendBacks.current(task),
  });
  run.emit({ type: 'memory_load', data: { ...span, trigger: 'task_start', channels, user_prompt_chars: prompt.length } });
  for (const n of notes) run.emit({ type: 'steering_note', data: { note_id: n.note_id, text: n.text, consumed_by: { task_id: task.id, iter: 1 } } });
  run.promptEvent(span, 'worker', prompt);
  return prompt;
}

/** The task's worker conversation; `at()` is the iteration its model calls are logged under. */
function workerAgent(run: RunContext, task: PrdEntry, prompt: string, at: () => IterSpan): Agent<WorkerToolContext> {
  const { deps } = run;
  return new Agent({
    llm: deps.llm,
    role: 'worker',
    messages: [
      { role: 'system', content: loadPrompt('worker', {}) },
      { role: 'user', content: prompt },
    ],
    tools: WORKER_TOOLS,
    signal: run.signal,
    ...run.agentOptions('worker'),
    elide: true,
    ...(deps.emptyBackoffMs ? { emptyBackoffMs: deps.emptyBackoffMs } : {}),
    hooks: {
      beforeCall: () => run.checkSpend(),
      onModelCall: (result, info) => run.modelCallEvent(result, 'worker', at(), info),
      onRetry: (notice) => run.emit({ type: 'model_retry', data: { ...at(), ...retryFields(notice) } }),
      onEmpty: (streak, result) =>
        run.emit({
          type: 'empty_model_response',
          data: { ...at(), streak, finish_reason: result.finishReason, prompt_tokens: result.usage.prompt_tokens, eval_tokens: result.usage.completion_tokens },
        }),
      onNotice: (kind, message) => run.notice('worker', kind, message, task.id),
      onElided: (elision) => run.emit({ type: 'context_elided', data: { ...at(), role: 'worker', ...elision } }),
    },
  });
}

/** Steering notes sent while the task ran, given to the worker before its next call. */
function giveNotes(run: RunContext, agent: Agent<WorkerToolContext>, task: PrdEntry, iter: number): void {
  const later = run.session.steering.takePending();
  if (later.length === 0) return;
  agent.say(formatNotes(later));
  for (const n of later) run.emit({ type: 'steering_note', data: { note_id: n.note_id, text: n.text, consumed_by: { task_id: task.id, iter } } });
}

function failTask(
  run: RunContext,
  base: IterSpan,
  reason: FailReason,
  detail: string,
  extra: { streak?: number; nudges?: number; evaluator_calls?: number },
): TaskOutcome {
  run.emit({
    type: 'task_failed',
    data: {
      task_id: base.task_id,
      trace_id: base.trace_id,
      span_id: base.span_id,
      reason,
      ...extra,
      ...(reason === 'evaluator_unreadable' || reason === 'context_overflow' || reason === 'no_case' ? { detail: detail.slice(0, 600) } : {}),
    },
  });
  return { kind: 'failed', reason, detail };
}

/** The submitted case read from its calls, logged as the `submit_case` call; an unreadable one is logged with its raw calls. */
function readCase(run: RunContext, base: IterSpan, caseCalls: AgentCall[]): { ok: true; case: Case } | { ok: false; error: string } {
  const rawCalls = caseCalls.map((c) => ({ name: c.name, arguments: c.rawArgs }));
  const parsed = parseCase(rawCalls);
  run.emit({ type: 'tool_call', data: { ...base, tool: 'submit_case', args: parsed.ok ? parsed.case : '(unparseable case)' } });
  if (!parsed.ok) {
    run.emit({
      type: 'case_parse_error',
      data: { ...base, error: parsed.error, raw_tool_calls: rawCalls.map((c) => ({ name: c.name, arguments: c.arguments.slice(0, RAW_ARGS_CHAR_CAP) })) },
    });
  }
  return parsed;
}

/**
 * The gates a case meets before the checks run, answered without spending a check or an
 * evaluator call: the answer to give the worker, or null when the case goes on.
 */
async function gateCase(run: RunContext, task: PrdEntry, theCase: Case, base: IterSpan, gates: { unchangedAnswered: boolean }): Promise<string | null> {
  // The coverage gate: a case that leaves a criterion out is answered now.
  const missing = uncoveredCriteria(task.acceptance_criteria, theCase);
  if (missing.length > 0) {
    run.emit({ type: 'coverage_gap', data: { ...base, missing, criteria: task.acceptance_criteria.length } });
    return formatCoverageGap(missing, task.acceptance_criteria.length);
  }
  // A revision the reviewer asked for must change something: a case with nothing changed since
  // the send-back is answered once, before the checks. Presented again unchanged, it goes on, and
  // the evaluator judges an empty diff against the reviewer's requirements.
  if (task.revision !== undefined && !gates.unchangedAnswered && (await changedFiles(run.ref)).length === 0) {
    gates.unchangedAnswered = true;
    run.emit({ type: 'revision_unchanged', data: { ...base, revision: task.revision } });
    return formatUnchangedRevision(task.revision);
  }
  return null;
}

/** How the worker's tool calls are logged: each call, then its result or the guard's block. */
function toolReport(run: RunContext, base: { task_id: string; trace_id: string; span_id: string; iter: number }): CallReport {
  return {
    called: (call, args) => run.emit({ type: 'tool_call', data: { ...base, tool: call.name, args, args_chars: call.rawArgs.length } }),
    answered: (call, answer, duration_ms, fit) => {
      const tool = call.name;
      const preview = { result_preview: answer.output.slice(0, RESULT_PREVIEW_CHARS), result_chars: answer.output.length };
      if (answer.blocked !== undefined) {
        run.emit({ type: 'hook_run', data: { ...base, tool, hook: 'pre_tool', outcome: 'block', reason: answer.blocked } });
        run.emit({ type: 'pre_tool_block', data: { ...base, tool, ...preview } });
      } else {
        run.emit({ type: 'tool_result', data: { ...base, tool, ...preview, duration_ms } });
      }
      // A shell command is the one tool that could rewrite the git pointers (where the sandbox is
      // missing): notice it now rather than at the next submit.
      if (tool === 'bash' && fit) verifyPointers(run.ref);
    },
  };
}

/**
 * The test machinery the task is held to: the seed's (the session's base commit), less what the
 * seed lets this task or a done one change. None for a session without a recorded base.
 */
async function machineryOf(run: RunContext, prd: PrdEntry[], task: PrdEntry): Promise<MachineryInput | undefined> {
  const { source, base_sha: baseSha } = run.checkpoint;
  if (!baseSha) return undefined;
  const allowed = [task, ...prd.filter((t) => t.status === 'done')].flatMap((t) => t.may_change_test_setup ?? []);
  return { source, baseSha, allowed, shadow: await run.shadowRule() };
}
