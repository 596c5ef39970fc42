/**
 * A submitted case's checks (reference §7.2): the acceptance tests, lint and custom checks on the
 * worktree, then, once they pass, each case the task's matrix names run alone (the green gate).
 * The attempt is recorded in the task's checks file and as a `validator_run` event.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { CaseProof, PrdEntry } from '../../shared/files.ts';
import { changedFiles } from '../git/worktree-git.ts';
import { taskIdOfTestFile } from '../env/presets.ts';
import { planOf, remakeChangedPackages } from '../env/session-env.ts';
import { greenFailure, notGreen } from '../proof/green-gate.ts';
import { proveCases, type CaseOutput } from '../proof/red-proof.ts';
import type { NamedCases } from '../proof/runner-report.ts';
import type { MachineryInput } from '../proof/test-machinery.ts';
import { runChecks, type CheckResult } from '../proof/checks.ts';
import type { IterSpan, RunContext } from './run-context.ts';

/** One attempt's checks, as the evaluator and the worker are told of them. */
export interface CheckedCase {
  passed: boolean;
  /** The checks' own results, which the evaluator reads. */
  checks: CheckResult[];
  /** The checks' results and, when a named case was not green, that failure: what was recorded. */
  results: CheckResult[];
  /** The task's acceptance test files as they are in the worktree. */
  tests: Record<string, string>;
  /** Each named case's green run; empty when the checks failed or the task names none. */
  green: CaseProof[];
}

/** Runs the checks and the green gate on the worktree as the worker left it, and records the attempt. */
export async function checkCase(
  run: RunContext,
  task: PrdEntry,
  doneIds: string[],
  machinery: MachineryInput | undefined,
  base: IterSpan,
): Promise<CheckedCase> {
  const { deps, signal } = run;
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
  const green = checks.passed ? await proveGreen(run, task, tests, outputs, checks.results) : [];
  signal.throwIfAborted();
  const failing = notGreen(green);
  const gate = { task, testFiles: tests, preset: run.preset, project: run.projectEnv };
  const results = failing.length > 0 ? [...checks.results, greenFailure(gate, failing, outputs)] : checks.results;
  const passed = checks.passed && failing.length === 0;
  run.emit({ type: 'validator_run', data: { ...base, passed, results } });
  run.session.checks.append(task.id, {
    ts: new Date().toISOString(),
    iter: base.iter,
    passed,
    results,
    ...(task.revision ? { revision: task.revision } : {}),
  });
  return { passed, checks: checks.results, results, tests, green };
}

/** What the worker is told of checks that failed: each check's bounded output. */
export function checksReport(results: CheckResult[]): string {
  return results
    .map((r) => {
      // The whole output, already bounded per check (CHECK_OUTPUT_CAP, head and tail kept).
      const shown = r.output?.trim() || '(no output)';
      return `### ${r.name}: ${r.passed ? 'passed' : 'FAILED'}${r.exit_code !== null && r.exit_code !== undefined ? ` (exit ${r.exit_code})` : ''}\n${shown}`;
    })
    .join('\n\n');
}

/** Test files of tasks, from the seed's locked list (paths relative to the worktree), in the tasks' order. */
function testFilesOf(run: RunContext, taskIds: string[]): string[] {
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

/** The cases the task's matrix names, which the acceptance check requires to run and pass. */
function namedCasesOf(run: RunContext, task: PrdEntry): NamedCases[] {
  const file = testFilesOf(run, [task.id])[0];
  return file !== undefined && task.criteria_tests ? [{ taskId: task.id, file, tests: [...new Set(task.criteria_tests.flat())] }] : [];
}

async function proveGreen(
  run: RunContext,
  task: PrdEntry,
  testFiles: Record<string, string>,
  outputs: Map<string, CaseOutput>,
  checks: CheckResult[],
): Promise<CaseProof[]> {
  if (!task.criteria_tests) return [];
  // The checks' run of the task's files, read from the runner's report, required every named case
  // to run and pass: that run counts as the proof's first.
  const readPass = checks.some((r) => r.name.startsWith('acceptance') && r.evidence === 'report' && r.passed);
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
    { outputs, passedBefore: readPass ? 1 : 0, oneProcess: true },
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
