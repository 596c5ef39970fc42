/**
 * The evidence receipt (issue 28): `evidence/<task>.json` in the session folder, one per accepted
 * task (a revision replaces it with its own), written by the harness alone — never in the
 * worktree, where the worker could write one. Machine facts first: the commits, the diff's hash,
 * each command the accepted attempt ran with its exit code, red and green per named case, the
 * test-machinery check and the mutation counts; apart from them, the models' claims (the worker's
 * case, the evaluator's verdict), which the status never rests on.
 *
 * The status is a pure function of the facts (`evidenceStatus`): `verified` when every criterion
 * went red → green on untouched machinery, with no flake, and the mutants of the change were
 * killed; `not_verified` when a fact contradicts the accept; `with_gaps` otherwise, each gap one
 * plain sentence.
 */
import { z } from 'zod';
import { CheckResultSchema } from './events.ts';
import { CaseProofSchema, CaseSchema, ChecksPresetSchema, TaskIdSchema, VerdictSchema, type CaseProof, type MutationReport } from './files.ts';

export const EVIDENCE_VERSION = 1;

export const EvidenceStatusSchema = z.enum(['verified', 'with_gaps', 'not_verified']);
export type EvidenceStatus = z.infer<typeof EvidenceStatusSchema>;

/**
 * One command the accepted attempt ran, as its check result has it (per-case results included
 * when the runner reported them), without the output itself: its hash ties the receipt to the
 * checks history, where the output is kept.
 */
export const EvidenceCommandSchema = CheckResultSchema.omit({ output: true, output_chars: true }).extend({
  output_sha256: z.string().nullable(),
});
export type EvidenceCommand = z.infer<typeof EvidenceCommandSchema>;

/** The test-machinery check of the accepted attempt: whether it ran, and whether it passed. */
export const MachineryFactSchema = z.object({ ran: z.boolean(), passed: z.boolean().nullable() });
export type MachineryFact = z.infer<typeof MachineryFactSchema>;

/** The mutation probe as it stood when the receipt was last written; `none`: no probe ran. */
export const MutationFactSchema = z.object({
  status: z.enum(['none', 'running', 'done', 'off']),
  killed: z.number().int().nonnegative(),
  survived: z.number().int().nonnegative(),
  note: z.string().nullable(),
  /** The criteria (1-based) whose cases, traced during the probe, ran none of the lines a mutant was made of. */
  changed_code_not_run: z.array(z.number().int().positive()).optional(),
});
export type MutationFact = z.infer<typeof MutationFactSchema>;

/**
 * Whether criterion `i` (0-based)'s cases ran a line a mutant was made of, among the files the
 * probe traced (a pytest task's JavaScript file is not); null when the probe traced none of them
 * or made no mutant, so nothing can be said.
 */
export function runsChangedCode(mutation: MutationReport | null, i: number): boolean | null {
  const coverage = mutation?.status === 'done' ? mutation.coverage : null;
  const ran = coverage?.criteria[i];
  if (!coverage || !ran) return null;
  const traced = Object.entries(coverage.mutated).filter(([file, lines]) => lines.length > 0 && ran[file] !== undefined);
  if (traced.length === 0) return null;
  return traced.some(([file, lines]) => lines.some((n) => ran[file]!.includes(n)));
}

export const EvidenceSchema = z.object({
  version: z.literal(EVIDENCE_VERSION),
  task_id: TaskIdSchema,
  /** 1 for the first accept; n for revision n after a send-back. */
  revision: z.number().int().positive(),
  written_at: z.iso.datetime(),
  preset: ChecksPresetSchema,
  /** The last seed commit before the task's: where its tests were locked (null when none is found). */
  seed_commit: z.string().nullable(),
  task_commit: z.string(),
  /** sha256 of `git diff --binary --full-index <task commit>^ <task commit>`. */
  diff_sha256: z.string(),
  /** Per acceptance criterion, in order: its words and the named cases that check it. */
  criteria: z.array(z.object({ criterion: z.string(), tests: z.array(z.string()) })),
  commands: z.array(EvidenceCommandSchema),
  /** Per named case on the seed commit (the seed's red proof). */
  red: z.array(CaseProofSchema),
  /** Per named case at the accepted attempt, each run alone (the green gate). */
  green: z.array(CaseProofSchema),
  machinery: MachineryFactSchema,
  mutation: MutationFactSchema,
  /** What the models said: never counted as evidence. */
  claims: z.object({ worker_case: CaseSchema.nullable(), verdict: VerdictSchema }),
  status: EvidenceStatusSchema,
  /** Why it is not `verified`: one plain sentence each, contradictions first. */
  gaps: z.array(z.string()),
});
export type Evidence = z.infer<typeof EvidenceSchema>;

/** The facts the status is computed from. */
export type EvidenceFacts = Pick<Evidence, 'criteria' | 'commands' | 'red' | 'green' | 'machinery' | 'mutation' | 'claims'>;

/** The name of the test-machinery check in a check attempt's results. */
export const MACHINERY_CHECK = 'test_machinery';

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** Why a case is not red (failed for the missing work) on the seed commit, as the end of a sentence. */
function notRed(result: string): string {
  if (result === 'passed') return 'already passed before the change';
  if (result === 'flaky') return 'was flaky before the change (it both passed and failed)';
  if (result === 'not_run') return 'did not run before the change';
  return 'failed before the change for another reason than the missing work';
}

/** Why a case is not green at the accepted attempt, as the end of a sentence. */
function notGreen(result: string): string {
  if (result === 'flaky') return 'was flaky at the task’s commit (it both passed and failed)';
  if (result === 'not_run') return 'did not run at the task’s commit';
  if (result === 'failed') return 'failed at the task’s commit';
  return 'did not finish or could not run at the task’s commit';
}

function proofOf(proofs: readonly CaseProof[], test: string): CaseProof | undefined {
  return proofs.find((p) => p.test === test);
}

/**
 * The receipt's status and its gaps, from the facts alone. Contradictions (a failed command, a
 * named case not green, machinery changed, no accept) make it `not_verified`; missing evidence
 * (no test, no red, no machinery check, mutants that survived or never ran) makes it `with_gaps`.
 */
export function evidenceStatus(facts: EvidenceFacts): { status: EvidenceStatus; gaps: string[] } {
  const against: string[] = [];
  const gaps: string[] = [];

  if (facts.claims.verdict.verdict !== 'accept' || facts.claims.verdict.parse_failed === true)
    against.push('The evaluator did not accept this work with a readable verdict.');
  for (const c of facts.commands) {
    if (!c.passed && c.name !== MACHINERY_CHECK)
      against.push(`The command “${c.name}” failed${c.exit_code === null || c.exit_code === undefined ? '' : ` (exit ${c.exit_code})`}.`);
  }
  if (facts.machinery.ran && facts.machinery.passed !== true)
    against.push('The test-machinery check failed: the tests may not have run on the seed’s test setup.');
  if (!facts.machinery.ran) gaps.push('The test-machinery check did not run, so nothing shows the tests ran on the seed’s test setup.');

  facts.criteria.forEach((c, i) => {
    const n = i + 1;
    if (c.tests.length === 0) {
      gaps.push(`Criterion ${n} has no test that checks it.`);
      return;
    }
    const reds = c.tests.map((t) => proofOf(facts.red, t));
    if (reds.every((p) => p === undefined)) gaps.push(`Criterion ${n} has no test that was run before the change.`);
    else if (!reds.some((p) => p?.result === 'failed')) gaps.push(`Criterion ${n} has no test that failed before the change.`);
    else
      c.tests.forEach((t, k) => {
        const p = reds[k];
        if (p === undefined) gaps.push(`Criterion ${n}’s test “${t}” was not run before the change.`);
        else if (p.result !== 'failed') gaps.push(`Criterion ${n}’s test “${t}” ${notRed(p.result)}.`);
      });
    for (const t of c.tests) {
      const p = proofOf(facts.green, t);
      if (p === undefined) gaps.push(`Criterion ${n}’s test “${t}” was not run alone at the task’s commit.`);
      else if (p.result !== 'passed') against.push(`Criterion ${n}’s test “${t}” ${notGreen(p.result)}.`);
    }
  });

  const m = facts.mutation;
  if (m.status === 'none') gaps.push('No mutation probe ran for this task, so nothing shows its tests notice a wrong change.');
  else if (m.status === 'off') gaps.push('The mutation probe was turned off, so nothing shows the tests notice a wrong change.');
  else if (m.status === 'running') gaps.push('The mutation probe has not finished yet.');
  else if (m.survived > 0)
    gaps.push(`${plural(m.survived, 'change', 'changes')} to the task’s code went unnoticed by its tests (of ${m.killed + m.survived} tried).`);
  else if (m.killed === 0) gaps.push('The mutation probe tried no change of the task’s code, so nothing shows its tests notice one.');
  else if (m.note !== null) gaps.push(`The mutation probe did not try every change: ${m.note.replace(/\.$/, '')}.`);
  for (const n of m.changed_code_not_run ?? []) gaps.push(`Criterion ${n}’s tests never run the lines of the task’s code that the probe changed.`);

  if (against.length > 0) return { status: 'not_verified', gaps: [...against, ...gaps] };
  return { status: gaps.length > 0 ? 'with_gaps' : 'verified', gaps };
}

/** Done tasks per receipt status, for the session review; `none`: done without a receipt (older sessions). */
export function countByStatus(statuses: readonly (EvidenceStatus | null)[]): Record<EvidenceStatus | 'none', number> {
  const counts = { verified: 0, with_gaps: 0, not_verified: 0, none: 0 };
  for (const s of statuses) counts[s ?? 'none']++;
  return counts;
}
