/**
 * The red proof (issue 14): every test case the seed names for a criterion runs by itself on the
 * seed commit, in the task's environment, and must fail for the intended reason — an assertion,
 * or the module or symbol the task will add is missing — not because the file does not parse, the
 * framework is missing, the runner refuses the file, or no case has that name. Since issue 28 what
 * ran is read from the runner's own report (runner-report.ts), not from its text: the named case
 * ran and failed (red), ran and passed, was skipped or never collected (`not_run`), or its file
 * did not load — red only when the load failed on a module or symbol the task adds (read by
 * `classifyRun`, as the contract check reads a file), a `case_error` for anything else. Where the
 * runner can list a file's cases (collect-cases.ts), a name that did not run and that the file
 * does not have is told with the names it does have.
 *
 * The same runner proves green at accept: each named case passes at the task's commit. Red and
 * green run each case `repeats` times (TILTH_PROOF_REPEATS): once alone, then with the task's
 * other named cases in one process; a case that both passes and fails is `flaky`, counted as
 * neither.
 */
import os from 'node:os';
import type { PrdEntry } from '../../shared/files.ts';
import type { CaseProof, ChecksPreset, RedResult } from '../../shared/seed.ts';
import { commandLine, inOneProcess, packageScope, taskIdOfTestFile, testCasesCommand, unittestTarget, type TestCommand } from '../env/presets.ts';
import { packageRun, type PackageRun } from '../../shared/project-env.ts';
import { collectCases, notCollectedMessage, selectsCase, type CollectedCase } from './collect-cases.ts';
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

/** A proof's options beyond the contract check's input. */
export interface ProveOptions {
  /** Where each case that did not pass keeps what its run printed, for the worker. */
  outputs?: Map<string, CaseOutput>;
  /**
   * Runs already seen of all the task's cases together in which every named case passed (the
   * acceptance check's run of the task's files, at green): they count toward the repeats.
   */
  passedBefore?: number;
  /**
   * A node file's cases run in the process that loads it (inOneProcess), for a proof that needs
   * no reading of a load failure: green, where anything but a pass is not green.
   */
  oneProcess?: boolean;
}

/** One task's named cases in its file, and how they run there. */
interface CaseGroup {
  taskId: string;
  file: string;
  tests: string[];
  where: PackageRun<ChecksPreset>;
  report: ReportPreset;
}

/**
 * Runs the named cases of every task and says how each ended: on the seed commit a good case
 * `failed` (red); at the task's commit it `passed` (green). Each case runs once alone, the
 * runner's own filter selecting it, so a case that passes or fails only on state another case
 * leaves is seen. Every further repeat (TILTH_PROOF_REPEATS) runs a task's cases together, in
 * one runner process, the structured report telling them apart (issue 32): k cases and n repeats
 * cost k + n − 1 runner starts, not k × n. Tasks without a matrix, and a custom command without a
 * JUnit report (only an exit code for its whole files), get no entry.
 */
export async function proveCases(input: ContractCheckInput, tasks: PrdEntry[], options: ProveOptions = {}): Promise<Record<string, CaseProof[]>> {
  const groups: CaseGroup[] = [];
  for (const task of tasks) {
    const named = namedCases(task, input.testFiles, input.preset, input.project);
    if (named.length === 0) continue;
    const file = named[0]!.file;
    // In a workspace a case runs from its package's folder, with its package's runner.
    const where = packageRun(input.preset, input.project, file);
    const report = reportPresetOf(where.preset, input.customChecks);
    // Only a report says how one case ended (a custom command without one gives an exit code).
    if (report === null) return {};
    groups.push({ taskId: task.id, file, tests: named.map((c) => c.test), where, report });
  }
  const runner = new GroupRunner(input, options);
  // Each case alone, a few at a time.
  const cases = groups.flatMap((group) => group.tests.map((test) => ({ group, test })));
  const alone = await mapLimit(cases, CONCURRENCY, ({ group, test }) => runner.alone(group, test));
  input.signal?.throwIfAborted();
  const runs = new Map<CaseGroup, Map<string, CaseProof[]>>(groups.map((g) => [g, new Map()]));
  for (const [i, { group, test }] of cases.entries()) runs.get(group)!.set(test, [alone[i]!]);
  // The further repeats, each task's cases with a real outcome together.
  const together = Math.max(0, (input.repeats ?? DEFAULT_PROOF_REPEATS) - 1 - (options.passedBefore ?? 0));
  await mapLimit(groups, CONCURRENCY, async (group) => {
    const byTest = runs.get(group)!;
    // A case that did not run, or not for the intended reason, says so every time: only a real outcome is repeated.
    const again = group.tests.filter((test) => isReal(byTest.get(test)![0]!));
    for (let i = 0; i < together && again.length > 0; i++) {
      const proofs = await runner.run(group, again);
      for (const test of again) byTest.get(test)!.push(proofs.get(test)!);
    }
  });
  input.signal?.throwIfAborted();
  // The runs seen before count in `runs`, first; the result is the proof's own runs' (a case that
  // passed beside the others and fails alone has `failed`, not flaky).
  const before: RedResult[] = Array.from({ length: options.passedBefore ?? 0 }, () => 'passed');
  const byTask: Record<string, CaseProof[]> = {};
  for (const group of groups) {
    const byTest = runs.get(group)!;
    byTask[group.taskId] = group.tests.map((test) => {
      const [first, ...more] = byTest.get(test)!;
      const proof = isReal(first!) ? combine(test, [first!, ...more]) : first!;
      return { ...proof, runs: [...before, first!.result, ...more.map((p) => p.result)] };
    });
  }
  return byTask;
}

const isReal = (p: CaseProof) => p.result === 'passed' || p.result === 'failed';

function casesCommand(group: CaseGroup, tests: string[], input: ContractCheckInput, oneProcess = false): TestCommand | null {
  const command = testCasesCommand(group.where.preset, group.where.file, tests, group.where.env, input.customChecks);
  return command && oneProcess ? inOneProcess(command) : command;
}

/** The runs of a proof: some named cases of a task in one runner process, read from its report. */
class GroupRunner {
  private readonly factsOf: ReturnType<typeof packageFacts>;
  /** Each file's cases as its runner lists them, asked for once, and only when a case did not run. */
  private readonly listings = new Map<string, Promise<CollectedCase[] | null>>();

  constructor(
    private readonly input: ContractCheckInput,
    private readonly options: ProveOptions,
  ) {
    this.factsOf = packageFacts(input);
  }

  private get runOptions() {
    return { timeoutMs: this.input.timeoutMs ?? CASE_TIMEOUT_MS, env: this.input.env ?? {}, signal: this.input.signal };
  }

  /**
   * One case alone. When it did not run, or not for the intended reason, and the runner can list
   * the file's cases (collect-cases.ts), a name the file does not have is told with the names it
   * does have.
   */
  async alone(group: CaseGroup, test: string): Promise<CaseProof> {
    const proof = (await this.run(group, [test])).get(test)!;
    if (isReal(proof)) return proof;
    const { where, file } = group;
    const listing = this.listings.get(file) ?? collectCases(where.preset, where.file, where.env, packageScope(this.input.scope, where.dir), this.runOptions);
    this.listings.set(file, listing);
    const cases = await listing;
    if (cases === null || selectsCase(where.preset, cases, test)) return proof;
    this.options.outputs?.delete(caseOutputKey(group.taskId, test));
    return { test, result: 'not_run', detail: notCollectedMessage(where.preset, cases, file, test) };
  }

  /** `tests` of the group in one run; a case that did not pass keeps the run's output. */
  async run(group: CaseGroup, tests: string[]): Promise<Map<string, CaseProof>> {
    const { taskId, file, where, report } = group;
    const command = casesCommand(group, tests, this.input, this.options.oneProcess)!;
    // Read from the package's folder, where it ran: its path there.
    const ctx: RunContext = { ...this.factsOf(where), file: where.file, shown: file, command: commandLine(command) };
    const targets = tests.map((test) => unittestTarget(where.file, test));
    const scope = packageScope(this.input.scope, where.dir);
    const reported = await runWithReport(report, (reportFile) => withReport(report, command, reportFile, targets, where.env), scope, this.runOptions, [
      where.file,
    ]);
    const { run } = reported;
    const printed: CaseOutput = { output: reported.output, exitCode: run.timedOut ? null : run.exitCode, timedOut: run.timedOut };
    const proofs = new Map<string, CaseProof>();
    for (const test of tests) {
      const proof = readProof(report, { taskId, file, test }, reported, ctx);
      if (proof.result !== 'passed') this.options.outputs?.set(caseOutputKey(taskId, test), printed);
      proofs.set(test, proof);
    }
    return proofs;
  }
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
