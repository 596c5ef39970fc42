/**
 * The red proof (issue 14): every test case the seed names for a criterion runs by itself on the
 * seed commit, in the task's environment, and must fail for the intended reason — an assertion,
 * or the module or symbol the task will add is missing — not because the file does not parse, the
 * framework is missing, the runner refuses the file, or no case has that name. Since issue 28 what
 * ran is read from the runner's own report (runner-report.ts), not from its text: the named case
 * ran and failed (red), ran and passed, was skipped or never collected (`not_run`), or its file
 * did not load — red only when the load failed on a module or symbol the task adds (read by
 * `classifyRun`, as the contract check reads a file), a `case_error` for anything else. Where the
 * runner can list a file's cases (collect-cases.ts), a name the file does not have is told before
 * anything runs, with the names it does have.
 *
 * The same runner proves green at accept: each named case passes at the task's commit. Red and
 * green run each case `repeats` times (TILTH_PROOF_REPEATS); a case that both passes and fails is
 * `flaky`, counted as neither.
 */
import os from 'node:os';
import type { PrdEntry } from '../../shared/files.ts';
import type { CaseProof, ChecksPreset, RedResult } from '../../shared/seed.ts';
import { commandLine, packageScope, taskIdOfTestFile, testCaseCommand, type TestCommand } from '../env/presets.ts';
import { packageRun } from '../../shared/project-env.ts';
import { collectCases, notCollectedMessage, selectsCase } from './collect-cases.ts';
import { classifyRun, mapLimit, packageFacts, type ContractCheckInput, type RunContext } from './contract-check.ts';
import { namedCaseIn, notRunMessage, type ReportPreset, reportPresetOf } from './report-parsers.ts';
import { runWithReport, withReport, type ReportedRun } from './runner-report.ts';

const CONCURRENCY = Math.max(1, Math.min(4, os.availableParallelism()));
/** Per case: one case of a small file, mostly the runner's start-up. */
export const CASE_TIMEOUT_MS = 60_000;
/** How often red and green run each named case by default (TILTH_PROOF_REPEATS). */
export const DEFAULT_PROOF_REPEATS = 2;

export interface CaseRun {
  file: string;
  test: string;
}

/** What a named case printed on its run that did not pass, for the worker to fix it (the proof keeps only its reason). */
export interface CaseOutput {
  output: string;
  /** The exit code; null when it timed out or did not start. */
  exitCode: number | null;
  timedOut: boolean;
}

/** Where `outputs` keeps a case's output: its task and its name. */
export const caseOutputKey = (taskId: string, test: string) => `${taskId}\u0000${test}`;

/** The cases a task's matrix names, each once, with the task's test file. */
export function namedCases(task: PrdEntry, testFiles: Record<string, string>, preset: ChecksPreset, project: ContractCheckInput['project']): CaseRun[] {
  const file = Object.keys(testFiles).find((f) => taskIdOfTestFile(preset, f, project ?? null) === task.id);
  if (file === undefined || !task.criteria_tests) return [];
  return [...new Set(task.criteria_tests.flat())].map((test) => ({ file, test }));
}

/**
 * Runs each named case of every task by itself and says how it ended: on the seed commit a good
 * case `failed` (red); at the task's commit it `passed` (green). Tasks without a matrix, and a
 * custom command without a JUnit report (only an exit code for its whole files), get no entry.
 */
export async function proveCases(input: ContractCheckInput, tasks: PrdEntry[], outputs?: Map<string, CaseOutput>): Promise<Record<string, CaseProof[]>> {
  const project = input.project ?? null;
  if (reportPresetOf(input.preset, input.customChecks) === null) return {};
  const runs = tasks.flatMap((task) =>
    namedCases(task, input.testFiles, input.preset, project).map((run) => {
      // In a workspace a case runs from its package's folder, with its package's runner.
      const where = packageRun(input.preset, project, run.file);
      return {
        taskId: task.id,
        ...run,
        where,
        report: reportPresetOf(where.preset, input.customChecks),
        command: testCaseCommand(where.preset, where.file, run.test, where.env, input.customChecks),
      };
    }),
  );
  if (runs.length === 0 || runs.some((r) => r.command === null || r.report === null)) return {};
  const repeats = Math.max(1, input.repeats ?? DEFAULT_PROOF_REPEATS);
  const options = { timeoutMs: input.timeoutMs ?? CASE_TIMEOUT_MS, env: input.env ?? {}, signal: input.signal };
  // Each file's cases listed once where the runner can list them: a name the file does not have
  // is told with the names it does have, and not run.
  const files = [...new Map(runs.map((r) => [r.file, r.where])).entries()];
  const listings = await mapLimit(files, CONCURRENCY, ([, where]) =>
    collectCases(where.preset, where.file, where.env, packageScope(input.scope, where.dir), options),
  );
  const collected = new Map(files.map(([file], i) => [file, listings[i] ?? null]));
  const factsOf = packageFacts(input);
  const proofs = await mapLimit(runs, CONCURRENCY, async ({ taskId, file, test, command, where, report }) => {
    const cases = collected.get(file) ?? null;
    if (cases && !selectsCase(where.preset, cases, test)) {
      return { taskId, proof: { test, result: 'not_run', detail: notCollectedMessage(where.preset, cases, file, test) } satisfies CaseProof };
    }
    // Read from the package's folder, where it ran: its path there.
    const ctx: RunContext = { ...factsOf(where), file: where.file, shown: file, command: commandLine(command!) };
    const once = async () => {
      const { proof, reported } = await proveOnce(report!, { taskId, file, test }, command!, ctx, { ...input, project: where.env }, where, options);
      const { run } = reported;
      if (proof.result !== 'passed')
        outputs?.set(caseOutputKey(taskId, test), { output: reported.output, exitCode: run.timedOut ? null : run.exitCode, timedOut: run.timedOut });
      return proof;
    };
    const first = await once();
    // A case that did not run, or not for the intended reason, says so every time: only a real
    // outcome is repeated.
    if (first.result !== 'passed' && first.result !== 'failed') return { taskId, proof: { ...first, runs: [first.result] } };
    const all = [first];
    for (let i = 1; i < repeats; i++) all.push(await once());
    return { taskId, proof: combine(test, all) };
  });
  input.signal?.throwIfAborted();
  const byTask: Record<string, CaseProof[]> = {};
  for (const { taskId, proof } of proofs) (byTask[taskId] ??= []).push(proof);
  return byTask;
}

/** The proof of a case's repeated runs: `flaky` when it both passed and failed, else the worst run. */
export function combine(test: string, all: CaseProof[]): CaseProof {
  const runs: RedResult[] = all.map((p) => p.result);
  const passes = runs.filter((r) => r === 'passed').length;
  const failure = all.find((p) => p.result === 'failed');
  if (passes > 0 && failure) {
    return {
      test,
      result: 'flaky',
      detail: `it passed ${passes} of ${runs.length} runs and failed the others (${failure.detail}), so it proves nothing either way`,
      runs,
    };
  }
  const worst = all.reduce((a, b) => (SEVERITY_ORDER.indexOf(b.result) > SEVERITY_ORDER.indexOf(a.result) ? b : a));
  return { ...worst, runs };
}
const SEVERITY_ORDER: RedResult[] = ['failed', 'passed', 'flaky', 'not_run', 'error'];

/** One run of one named case, read from the runner's report; with the run, for its output. */
async function proveOnce(
  preset: ReportPreset,
  named: { taskId: string; file: string; test: string },
  command: TestCommand,
  ctx: RunContext,
  input: ContractCheckInput,
  where: { dir: string; file: string },
  options: { timeoutMs: number; env: Record<string, string>; signal?: AbortSignal | undefined },
): Promise<{ proof: CaseProof; reported: ReportedRun }> {
  const { test } = named;
  const target = `${where.file.replace(/\.py$/, '').split('/').join('.')}.${test.replace('::', '.')}`;
  const reported = await runWithReport(
    preset,
    (reportFile) => withReport(preset, command, reportFile, [target], input.project ?? null),
    packageScope(input.scope, where.dir),
    options,
    [where.file],
  );
  return { proof: readProof(preset, named, reported, ctx), reported };
}

function readProof(preset: ReportPreset, named: { taskId: string; file: string; test: string }, reported: ReportedRun, ctx: RunContext): CaseProof {
  const { file, test } = named;
  const { run, report, problem } = reported;
  if (run.timedOut || run.spawnError !== null) {
    const verdict = classifyRun(run, ctx);
    return {
      test,
      result: 'error',
      detail: verdict.kind === 'timed_out' || verdict.kind === 'environment' || verdict.kind === 'does_not_load' ? verdict.message : `${file} could not run`,
    };
  }
  if (problem !== null || report === null) {
    // Not a report to read what ran from: the text may still say why (the runner is missing, it
    // refused the file), in what it printed or in its report's own words.
    const verdict = classifyRun({ ...run, output: reported.output }, ctx);
    const why = verdict.kind === 'environment' || verdict.kind === 'does_not_load' ? `${verdict.message} ` : '';
    return { test, result: 'error', detail: `${why}${problem ?? ''}`.trim() };
  }
  const { cases, loadError } = namedCaseIn(preset, report, file, test);
  const ran = cases.filter((c) => c.outcome !== 'skipped');
  if (ran.length === 0 && loadError) return loadFailure(loadError.message, reported.output, ctx, test);
  if (ran.length === 0) {
    return { test, result: 'not_run', detail: notRunMessage(preset, report, named.taskId, file, test, cases.length > 0) };
  }
  const failed = ran.filter((c) => c.outcome === 'failed');
  if (failed.length === 0) return { test, result: 'passed', detail: 'it passes already' };
  // Why it failed: an assertion, or what the task adds is missing, is red; a test that cannot run
  // here (a framework global the runner lacks, a syntax error in code it loads) is not.
  const verdict = classifyRun({ output: failed.map((c) => c.message).join('\n'), exitCode: 1, spawnError: null, timedOut: false }, ctx);
  if (verdict.kind === 'environment' || verdict.kind === 'does_not_load') return { test, result: 'error', detail: verdict.message };
  return { test, result: 'failed', detail: verdict.kind === 'fails_as_expected' && !GENERIC.has(verdict.reason) ? verdict.reason : 'an assertion failed' };
}

/** Reasons classifyRun gives when nothing specific was found: not enough to call a load failure red. */
const GENERIC = new Set(['a test failed', 'the command failed']);

/**
 * A named case whose file did not load: red only when the load failed on a module or symbol the
 * task adds (classifyRun's reading of the runner's message); a file the runner refuses, a syntax
 * error, a missing dependency or framework is a case error naming the cause.
 */
function loadFailure(message: string, output: string, ctx: RunContext, test: string): CaseProof {
  // The exit code is not the runner's word on the case (pytest's 4 is a collection error here, not a
  // usage error), nor is unittest's "Ran 0 tests": the load error is why nothing ran.
  const said = `${message}\n${output.replace(/^Ran 0 tests\b.*$/gm, '')}`;
  const verdict = classifyRun({ output: said, exitCode: 1, spawnError: null, timedOut: false }, ctx);
  if (verdict.kind === 'fails_as_expected' && !GENERIC.has(verdict.reason)) return { test, result: 'failed', detail: verdict.reason };
  if (verdict.kind === 'environment' || verdict.kind === 'does_not_load') return { test, result: 'error', detail: verdict.message };
  // The error's own line (node's junit says only "test failed"; its output has the error).
  const lines = said.split('\n').filter((l) => l.trim() !== '' && !/test failed|ERR_TEST_FAILURE/.test(l));
  const first = lines.find((l) => /\b[A-Z]?\w*Error\b[^:]*: /.test(l)) ?? lines[0] ?? 'no message';
  return { test, result: 'error', detail: `${ctx.file} does not load, for a reason other than the missing work: ${first.trim()}` };
}
