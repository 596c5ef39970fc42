/**
 * The red proof (issue 14): every test case the seed names for a criterion runs by itself on the
 * seed commit, in the task's environment, and must fail for the intended reason — an assertion,
 * or the module or symbol the task will add is missing — not because the file does not parse, the
 * framework is missing, or no case has that name. The run of one case is read the way the
 * contract check reads a file (`classifyRun`), plus what a filter that matched nothing looks like
 * for each runner, which would otherwise pass as "nothing failed". Where the runner can list a
 * file's cases (collect-cases.ts), a name the file does not have is told before anything runs.
 *
 * The same runner proves green at accept: each named case passes at the task's commit.
 */
import os from 'node:os';
import type { PrdEntry } from '../../shared/files.ts';
import type { CaseProof, ChecksPreset } from '../../shared/seed.ts';
import { commandLine, taskIdOfTestFile, testCaseCommand } from '../env/presets.ts';
import { runUntrusted } from '../proc/untrusted.ts';
import { collectCases, notCollectedMessage, selectsCase } from './collect-cases.ts';
import { classifyRun, mapLimit, projectFacts, type ContractCheckInput } from './contract-check.ts';

const CONCURRENCY = Math.max(1, Math.min(4, os.availableParallelism()));
/** Per case: one case of a small file, mostly the runner's start-up. */
export const CASE_TIMEOUT_MS = 60_000;

/**
 * Per runner, whether its output says the name filter selected no test at all (the others are
 * reported skipped, or not at all, and the run exits 0).
 */
const RAN_NOTHING: Record<ChecksPreset, ((out: string) => boolean) | null> = {
  pytest: (out) => /\bno tests ran\b|ERROR: not found:|collected 0 items/.test(out),
  unittest: (out) => /^Ran 0 tests?\b|has no attribute '[^']+'/m.test(out),
  node: (out) => /^[#ℹ] pass 0\s*$/m.test(out) && /^[#ℹ] fail 0\s*$/m.test(out),
  vitest: (out) => /No test found/.test(out) || (/^\s*Tests\s/m.test(out) && !/^\s*Tests\s.*\b(?:passed|failed)\b/m.test(out)),
  // jest 29, `-t` matching nothing: exit 0 with "Test Suites: 1 skipped, 0 of 1 total" and
  // "Tests:       2 skipped, 2 total". A file that does not parse also says "Tests: 0 total", and a
  // file jest does not pick up "No tests found": classifyRun names those.
  jest: (out) => /^Test Suites: \d+ skipped, 0 of \d+ total/m.test(out),
  // mocha 11, `--grep` matching nothing: exit 0 with "  0 passing (1ms)" and nothing else.
  mocha: (out) => /^\s*0 passing\b/m.test(out) && !/^\s*\d+ failing\b/m.test(out),
  custom: null,
};

export interface CaseRun {
  file: string;
  test: string;
}

/** The cases a task's matrix names, each once, with the task's test file. */
export function namedCases(task: PrdEntry, testFiles: Record<string, string>, preset: ChecksPreset, project: ContractCheckInput['project']): CaseRun[] {
  const file = Object.keys(testFiles).find((f) => taskIdOfTestFile(preset, f, project ?? null) === task.id);
  if (file === undefined || !task.criteria_tests) return [];
  return [...new Set(task.criteria_tests.flat())].map((test) => ({ file, test }));
}

/**
 * Runs each named case of every task by itself and says how it ended: on the seed commit a good
 * case `failed` (red); at the task's commit it `passed` (green). Tasks without a matrix, and the
 * custom preset (which runs whole files), get no entry.
 */
export async function proveCases(input: ContractCheckInput, tasks: PrdEntry[]): Promise<Record<string, CaseProof[]>> {
  const project = input.project ?? null;
  const runs = tasks.flatMap((task) =>
    namedCases(task, input.testFiles, input.preset, project).map((run) => ({
      taskId: task.id,
      ...run,
      command: testCaseCommand(input.preset, run.file, run.test, project),
    })),
  );
  // The preset decides whether one case can run alone; a custom command runs whole files.
  if (runs.length === 0 || runs.some((r) => r.command === null)) return {};
  const facts = projectFacts(input);
  const options = { timeoutMs: input.timeoutMs ?? CASE_TIMEOUT_MS, env: input.env ?? {}, signal: input.signal };
  // Each file's cases listed once where the runner can list them: a name the file does not have
  // is told with the names it does have, and not run.
  const files = [...new Set(runs.map((r) => r.file))];
  const listings = await mapLimit(files, CONCURRENCY, (file) => collectCases(input.preset, file, project, input.scope, options));
  const collected = new Map(files.map((file, i) => [file, listings[i] ?? null]));
  const proofs = await mapLimit(runs, CONCURRENCY, async ({ taskId, file, test, command: planned }) => {
    const cases = collected.get(file) ?? null;
    if (cases && !selectsCase(input.preset, cases, test)) {
      return { taskId, proof: { test, result: 'error', detail: notCollectedMessage(input.preset, cases, file, test) } satisfies CaseProof };
    }
    const command = planned!;
    const result = await runUntrusted(command, input.scope, options);
    const out = result.output;
    const ran = RAN_NOTHING[input.preset];
    let proof: CaseProof;
    if (!result.timedOut && result.spawnError === null && ran?.(out)) {
      proof = { test, result: 'error', detail: `no test case named "${test}" ran in ${file}: check its name in the matrix against the file` };
    } else {
      const verdict = classifyRun(result, { ...facts, file, command: commandLine(command) });
      proof =
        verdict.kind === 'fails_as_expected'
          ? { test, result: 'failed', detail: verdict.reason }
          : verdict.kind === 'passes'
            ? { test, result: 'passed', detail: 'it passes already' }
            : { test, result: 'error', detail: verdict.message };
    }
    return { taskId, proof };
  });
  input.signal?.throwIfAborted();
  const byTask: Record<string, CaseProof[]> = {};
  for (const { taskId, proof } of proofs) (byTask[taskId] ??= []).push(proof);
  return byTask;
}
