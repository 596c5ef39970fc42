/**
 * One task, start to finish (reference §7.2): a fresh worker conversation; each iteration is one
 * model call, the worktree tools it asked for (guarded, in order), and, when it submits a case,
 * the checks and then the evaluator. Ends with an outcome; the outer loop (run.ts) does the
 * bookkeeping. Task stops: iter_cap, evaluator_cap, empty_responses, no_case, provider_failure.
 * A session cap reached before a model call throws CapReached and leaves the task pending.
 */
import fs from 'node:fs';
import path from 'node:path';
import { uncoveredCriteria } from '../../shared/coverage.ts';
import type { Case, CaseProof, PrdEntry } from '../../shared/files.ts';
import { retryFields } from '../agent/events.ts';
import { CHECKS_FAILED_PREFIX } from '../agent/context.ts';
import { Agent, ContextOverflowError, type AgentCall, type CallReport } from '../agent/runtime.ts';
import { changedFiles, diffSummary, GitTamperedError, verifyPointers, workingDiff } from '../git/worktree-git.ts';
import { taskIdOfTestFile } from '../env/presets.ts';
import { planOf, remakeChangedPackages } from '../env/session-env.ts';
import { greenFailure, notGreen } from '../proof/green-gate.ts';
import { proveCases, type CaseOutput } from '../proof/red-proof.ts';
import type { NamedCases } from '../proof/runner-report.ts';
import { machineryWriteLock, type MachineryInput } from '../proof/test-machinery.ts';
import { ProviderFailureError } from '../llm/errors.ts';
import { loadPrompt } from '../agent/prompts.ts';
import { DUPLICATE_CASE, formatCoverageGap, formatRejectFeedback, formatUnchangedRevision, parseCase, WORKER_NO_CASE_NUDGE } from './case.ts';
import { runChecks, type CheckResult } from '../proof/checks.ts';
import { evaluate, type Evaluation } from './evaluator.ts';
import { spanId, type RunContext } from './run-context.ts';
import { buildWorkerPrompt, formatNotes, loadContextFiles } from './worker-prompt.ts';
import { WORKER_TOOLS, workerContext } from '../tools/worker-tools.ts';

/** How many of the task's latest verdicts the worker and the evaluator see (reference §3.5). */
const LEDGER_INJECT_LIMIT = 5;

export const MAX_NO_CASE_STREAK = 3;
/** Reference §3.5. */
export const PROMPT_ASSEMBLED_CHAR_CAP = 16_000;
const RESULT_PREVIEW_CHARS = 500;
const RAW_ARGS_CHAR_CAP = 16_000;

export type TaskOutcome =
  | { kind: 'done'; summary: string }
  | {
      kind: 'failed';
      reason: 'iter_cap' | 'evaluator_cap' | 'empty_responses' | 'no_case' | 'provider_failure' | 'git_tampered' | 'evaluator_unreadable' | 'context_overflow';
      detail: string;
    };

/** Test files of a task, from the seed's locked list (paths relative to the worktree). */
export function testFilesOf(run: RunContext, taskIds: string[]): string[] {
  const wanted = new Set(taskIds);
  return Object.keys(run.seedMeta.locked_tests)
    .filter((file) => {
      const id = taskIdOfTestFile(run.preset, file, run.projectEnv);
      return id !== null && wanted.has(id);
    })
    .sort(
      (a, b) =>
        taskIds.indexOf(taskIdOfTestFile(run.preset, a, run.projectEnv)!) - taskIds.indexOf(taskIdOfTestFile(run.preset, b, run.projectEnv)!) ||
        a.localeCompare(b),
    );
}

function promptEvent(
  run: RunContext,
  base: { task_id: string; trace_id: string; span_id: string },
  role: 'worker' | 'evaluator' | 'self_improve',
  content: string,
): void {
  const truncated = content.length > PROMPT_ASSEMBLED_CHAR_CAP;
  run.emit({
    type: 'prompt_assembled',
    data: {
      ...base,
      iter: 0,
      role,
      content: truncated ? `${content.slice(0, PROMPT_ASSEMBLED_CHAR_CAP)}\n... [truncated]` : content,
      chars: content.length,
      truncated,
    },
  });
}
export { promptEvent };

function checksReport(results: CheckResult[]): string {
  return results
    .map((r) => {
      // The whole output, already bounded per check (CHECK_OUTPUT_CAP, head and tail kept).
      const shown = r.output?.trim() || '(no output)';
      return `### ${r.name}: ${r.passed ? 'passed' : 'FAILED'}${r.exit_code !== null && r.exit_code !== undefined ? ` (exit ${r.exit_code})` : ''}\n${shown}`;
    })
    .join('\n\n');
}

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
  const setupSpan = spanId();
  run.emit({ type: 'context_reset', data: { ...trace, span_id: setupSpan } });

  const doneIds = prd.filter((t) => t.status === 'done').map((t) => t.id);
  const context = loadContextFiles(run.worktree, deps.contextFiles);
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
  run.emit({ type: 'memory_load', data: { ...trace, span_id: setupSpan, trigger: 'task_start', channels, user_prompt_chars: prompt.length } });
  for (const n of notes) run.emit({ type: 'steering_note', data: { note_id: n.note_id, text: n.text, consumed_by: { task_id: task.id, iter: 1 } } });
  promptEvent(run, { ...trace, span_id: setupSpan }, 'worker', prompt);

  const machinery = await machineryOf(run, prd, task);
  const lock = machinery ? await machineryWriteLock(machinery, run.worktree, Object.keys(run.seedMeta.locked_tests)) : undefined;
  const maxIter = deps.caps.max_iterations_per_task;
  const evaluatorCap = deps.caps.max_evaluator_calls_per_task;
  let evaluatorCalls = 0;
  let noCaseStreak = 0;
  let unchangedAnswered = false;
  let base = { ...trace, span_id: setupSpan, iter: 0 };
  const agent = new Agent({
    llm: deps.llm,
    role: 'worker',
    messages: [
      { role: 'system', content: loadPrompt('worker', {}) },
      { role: 'user', content: prompt },
    ],
    tools: WORKER_TOOLS,
    signal,
    ...run.agentOptions('worker'),
    elide: true,
    ...(deps.emptyBackoffMs ? { emptyBackoffMs: deps.emptyBackoffMs } : {}),
    hooks: {
      beforeCall: () => run.checkSpend(),
      onModelCall: (result, info) => run.modelCallEvent(result, 'worker', base, info),
      onRetry: (notice) => run.emit({ type: 'model_retry', data: { ...base, ...retryFields(notice) } }),
      onEmpty: (streak, result) =>
        run.emit({
          type: 'empty_model_response',
          data: { ...base, streak, finish_reason: result.finishReason, prompt_tokens: result.usage.prompt_tokens, eval_tokens: result.usage.completion_tokens },
        }),
      onNotice: (kind, message) => run.notice('worker', kind, message, task.id),
      onElided: (elision) => run.emit({ type: 'context_elided', data: { ...base, role: 'worker', ...elision } }),
    },
  });
  const fail = (
    reason: Exclude<TaskOutcome, { kind: 'done' }>['reason'],
    detail: string,
    extra: { streak?: number; nudges?: number; evaluator_calls?: number } = {},
  ): TaskOutcome => {
    run.emit({
      type: 'task_failed',
      data: {
        ...trace,
        span_id: base.span_id,
        reason,
        ...extra,
        ...(reason === 'evaluator_unreadable' || reason === 'context_overflow' || reason === 'no_case' ? { detail: detail.slice(0, 600) } : {}),
      },
    });
    return { kind: 'failed', reason, detail };
  };

  for (let iter = 1; iter <= maxIter; iter++) {
    signal.throwIfAborted();
    base = { ...trace, span_id: spanId(), iter };
    if (iter > 1) {
      const later = run.session.steering.takePending();
      if (later.length > 0) {
        agent.say(formatNotes(later));
        for (const n of later) run.emit({ type: 'steering_note', data: { note_id: n.note_id, text: n.text, consumed_by: { task_id: task.id, iter } } });
      }
    }

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
    const rawCalls = caseCalls.map((c) => ({ name: c.name, arguments: c.rawArgs }));
    const parsed = parseCase(rawCalls);
    run.emit({ type: 'tool_call', data: { ...base, tool: 'submit_case', args: parsed.ok ? parsed.case : '(unparseable case)' } });
    if (!parsed.ok) {
      run.emit({
        type: 'case_parse_error',
        data: { ...base, error: parsed.error, raw_tool_calls: rawCalls.map((c) => ({ name: c.name, arguments: c.arguments.slice(0, RAW_ARGS_CHAR_CAP) })) },
      });
      answer(parsed.error);
      continue;
    }
    // The coverage gate: a case that leaves a criterion out is answered now, before the checks
    // run and without spending an evaluator call on it.
    const missing = uncoveredCriteria(task.acceptance_criteria, parsed.case);
    if (missing.length > 0) {
      run.emit({ type: 'coverage_gap', data: { ...base, missing, criteria: task.acceptance_criteria.length } });
      answer(formatCoverageGap(missing, task.acceptance_criteria.length));
      continue;
    }
    // A revision the reviewer asked for must change something: a case with nothing changed since
    // the send-back is answered once, before the checks. Presented again unchanged, it goes on, and
    // the evaluator judges an empty diff against the reviewer's requirements.
    if (task.revision !== undefined && !unchangedAnswered && (await changedFiles(run.ref)).length === 0) {
      unchangedAnswered = true;
      run.emit({ type: 'revision_unchanged', data: { ...base, revision: task.revision } });
      answer(formatUnchangedRevision(task.revision));
      continue;
    }

    const checks = await runChecks({
      scope: run.scope,
      preset: run.preset,
      customChecks: run.customChecks,
      env: run.projectEnv,
      testFiles: testFilesOf(run, [task.id, ...doneIds]),
      namedCases: namedCasesOf(run, task),
      changedFiles: await changedFiles(run.ref),
      lockedTests: run.seedMeta.locked_tests,
      machinery,
      plan: planOf(run.checkpoint),
      remakePackages: () => remakeChangedPackages({ session: run.session, signal, emit: (e) => run.emit(e) }, run.ref),
      ...(deps.checkTimeoutMs ? { timeoutMs: deps.checkTimeoutMs } : {}),
      signal,
    });
    signal.throwIfAborted();
    // Green is a gate: once the checks pass, each named case runs alone, and one that does not
    // pass fails this attempt like a check — before any evaluator call is spent on it.
    const tests = readTaskTests(run, task);
    const outputs = new Map<string, CaseOutput>();
    const green = checks.passed ? await proveGreen(run, task, tests, outputs) : [];
    signal.throwIfAborted();
    const failing = notGreen(green);
    const gate = { task, testFiles: tests, preset: run.preset, project: run.projectEnv };
    const results = failing.length > 0 ? [...checks.results, greenFailure(gate, failing, outputs)] : checks.results;
    const passed = checks.passed && failing.length === 0;
    run.emit({ type: 'validator_run', data: { ...base, passed, results } });
    run.session.checks.append(task.id, {
      ts: new Date().toISOString(),
      iter,
      passed,
      results,
      ...(task.revision ? { revision: task.revision } : {}),
    });
    if (!passed) {
      answer(`${CHECKS_FAILED_PREFIX}\n\n${checksReport(results)}`);
      continue;
    }

    let evaluation: Evaluation;
    try {
      evaluation = await judge(run, task, parsed.case, checks.results, base, tests, green);
    } catch (err) {
      if (err instanceof ContextOverflowError) return fail('context_overflow', err.message);
      if (!(err instanceof ProviderFailureError)) throw err;
      return fail('provider_failure', err.message);
    }
    evaluatorCalls++;
    const verdict = evaluation.verdict;
    if (evaluation.unreadable !== undefined) return fail('evaluator_unreadable', evaluation.unreadable);
    if (verdict.verdict === 'accept') {
      run.emit({ type: 'task_done', data: { ...trace, span_id: base.span_id, summary: parsed.case.summary } });
      return { kind: 'done', summary: parsed.case.summary };
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

/** The cases the task's matrix names, which the acceptance check requires to run and pass. */
function namedCasesOf(run: RunContext, task: PrdEntry): NamedCases[] {
  const file = testFilesOf(run, [task.id])[0];
  return file !== undefined && task.criteria_tests ? [{ taskId: task.id, file, tests: [...new Set(task.criteria_tests.flat())] }] : [];
}

async function proveGreen(run: RunContext, task: PrdEntry, testFiles: Record<string, string>, outputs: Map<string, CaseOutput>): Promise<CaseProof[]> {
  if (!task.criteria_tests) return [];
  const proofs = await proveCases(
    {
      prd: [task],
      testFiles,
      preset: run.preset,
      project: run.projectEnv,
      ...(run.customChecks ? { customChecks: run.customChecks } : {}),
      scope: run.scope,
      signal: run.signal,
      ...(run.deps.checkTimeoutMs ? { timeoutMs: run.deps.checkTimeoutMs } : {}),
      ...(run.deps.proofRepeats ? { repeats: run.deps.proofRepeats } : {}),
    },
    [task],
    outputs,
  );
  return proofs[task.id] ?? [];
}

/** The task's acceptance test files as they are in the worktree (the checks just ran them). */
function readTaskTests(run: RunContext, task: PrdEntry): Record<string, string> {
  const tests: Record<string, string> = {};
  for (const file of testFilesOf(run, [task.id])) {
    try {
      tests[file] = fs.readFileSync(path.join(run.worktree, file), 'utf8');
    } catch {
      tests[file] = '(missing from the worktree)';
    }
  }
  return tests;
}

/** Runs the evaluator on a case whose checks passed; records the verdict and the ledger entry. */
async function judge(
  run: RunContext,
  task: PrdEntry,
  theCase: Case,
  checks: CheckResult[],
  base: { task_id: string; trace_id: string; span_id: string; iter: number },
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
        if (!promptLogged) promptEvent(run, base, 'evaluator', prompt);
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
