/**
 * Green is a gate (issue 28): once the checks pass, every test case the seed names for a
 * criterion runs by itself on the tree about to be committed (proveCases), and a case that does
 * not pass sends the case back to the worker as a failed check — before the evaluator is asked,
 * so no evaluator call is spent on work whose own named cases do not hold.
 *
 * Why run the cases alone when the whole file just passed: a file run can pass on an order the
 * cases happen to run in (state one case leaves for the next), on a case the runner never ran
 * (a name filter, a skip, a "no tests" that exits 0), or on a flake. The green proof asks each
 * case on its own; anything but `passed` is not green. The checks' run of the whole files, read
 * from the runner's report with every named case passing, counts as the first of the repeats
 * (issue 32): with the default two, each case runs alone once more.
 */
import type { CaseProof, PrdEntry } from '../../shared/files.ts';
import type { z } from 'zod';
import { boundCheckOutput, type CheckResultSchema } from '../../shared/events.ts';
import type { ProjectEnv } from '../../shared/project-env.ts';
import type { ChecksPreset } from '../../shared/seed.ts';
import { caseOutputKey, namedCases, type CaseOutput } from './red-proof.ts';

/** The check result's name in the checks history and the worker's report. */
export const GREEN_CHECK_NAME = 'green_proof';
/** Per failing case, the output the worker gets: the runner's start and the failure fit in it. */
const CASE_OUTPUT_CAP = 4_000;

type CheckResult = z.infer<typeof CheckResultSchema>;

export interface GreenGateInput {
  task: PrdEntry;
  /** The task's test files (path → content), as the green proof read them. */
  testFiles: Record<string, string>;
  preset: ChecksPreset;
  project: ProjectEnv | null;
}

/** The named cases that are not green; anything but `passed` (failed, error, not run, flaky…) counts. */
export function notGreen(proofs: readonly CaseProof[]): CaseProof[] {
  return proofs.filter((p) => p.result !== 'passed');
}

/** The criteria (1-based) whose named cases include `test`. */
function criteriaOf(task: PrdEntry, test: string): number[] {
  return (task.criteria_tests ?? []).flatMap((tests, i) => (tests.includes(test) ? [i + 1] : []));
}

/**
 * The failed check the worker gets for the cases that are not green: each named with its
 * criteria, what the proof said, and what that case printed on its run alone (`outputs`, kept by
 * the proof: the proof's reason alone is not enough to fix the failure).
 */
export function greenFailure(input: GreenGateInput, failing: readonly CaseProof[], outputs: ReadonlyMap<string, CaseOutput>): CheckResult {
  const files = new Map(namedCases(input.task, input.testFiles, input.preset, input.project).map((c) => [c.test, c.file]));
  const parts = [
    `Each test case named for an acceptance criterion was run by itself on this workspace, and ${failing.length === 1 ? 'this one' : `these ${failing.length}`} did not pass. A case must pass on its own, not only when the whole file runs: no state left by another case, no skip, no run that executes nothing.`,
  ];
  for (const proof of failing) {
    const criteria = criteriaOf(input.task, proof.test);
    const file = files.get(proof.test);
    parts.push(
      '',
      `- \`${proof.test}\`${file ? ` in ${file}` : ''}${criteria.length > 0 ? ` (criterion ${criteria.join(', ')})` : ''}: ${proof.result} — ${proof.detail}`,
    );
    const run = outputs.get(caseOutputKey(input.task.id, proof.test));
    if (run === undefined) continue;
    const output = run.output.trim();
    const shown = output.length > CASE_OUTPUT_CAP ? `${output.slice(0, CASE_OUTPUT_CAP / 2)}\n...\n${output.slice(-CASE_OUTPUT_CAP / 2)}` : output;
    parts.push(`  Its output, run alone (exit ${run.timedOut ? 'timeout' : String(run.exitCode)}):`, '```', shown || '(no output)', '```');
  }
  return { name: GREEN_CHECK_NAME, passed: false, exit_code: null, duration_ms: 0, ...boundCheckOutput(parts.join('\n')) };
}
