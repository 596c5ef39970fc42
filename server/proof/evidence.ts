/**
 * The evidence receipt of an accepted task (issue 28; the schema and the status are in
 * shared/evidence.ts). Built by the harness from its own records only — the seed's red proof, the
 * accepting ledger entry (its checks and the green proof), the mutation report, and git — and
 * written through the session store into the session folder, never into the worktree.
 *
 * When. The receipt is written right after the task's commit, while the mutation probe has only
 * started; the probe reports later, beside the next task, and the receipt is then written again
 * with its counts and a fresh status. Writing it again (rather than joining the report when it is
 * read) keeps the file on disk whole on its own — it is what an export or a verifier reads — and
 * the probe's end is a single place in the run, plus the resume that closes a probe cut short.
 */
import { createHash } from 'node:crypto';
import {
  EVIDENCE_VERSION,
  evidenceStatus,
  MACHINERY_CHECK,
  runsChangedCode,
  type Evidence,
  type EvidenceFacts,
  type MutationFact,
} from '../../shared/evidence.ts';
import type { Checkpoint, LedgerEntry, MutationReport, PrdEntry } from '../../shared/files.ts';
import type { ChecksPreset } from '../../shared/seed.ts';
import { isFailedSubject, subjectRevision } from '../../shared/session-rules.ts';
import { commitsIn, diffSha256 } from '../git/diff.ts';
import type { SessionHandle } from '../store/session-handle.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function mutationFact(report: MutationReport | null): MutationFact {
  if (report === null) return { status: 'none', killed: 0, survived: 0, note: null };
  const notRun = (report.coverage?.criteria ?? []).flatMap((_, i) => (runsChangedCode(report, i) === false ? [i + 1] : []));
  return {
    status: report.status,
    killed: report.killed,
    survived: report.survived,
    note: report.note,
    ...(notRun.length > 0 ? { changed_code_not_run: notRun } : {}),
  };
}

/** The accepting ledger entry of the task's current revision, or null. */
function acceptOf(ledger: LedgerEntry[], task: PrdEntry): LedgerEntry | null {
  const revision = task.revision ?? 1;
  return ledger.findLast((e) => e.verdict.verdict === 'accept' && (e.revision ?? 1) === revision) ?? null;
}

/** The last `seed…` commit before `sha` on the session branch: the tests the task was held to. */
async function seedCommitOf(cp: Checkpoint, sha: string): Promise<string | null> {
  if (!cp.base_sha) return null;
  const commits = await commitsIn(cp.source, `${cp.base_sha}..${sha}`);
  return commits.findLast((c) => /^seed\b/.test(c.subject))?.sha ?? null;
}

/** The receipt's facts and status from the session's records; null when the task has no accept to stand on. */
export async function buildEvidence(session: SessionHandle, task: PrdEntry, preset: ChecksPreset, taskCommit: string): Promise<Evidence | null> {
  const accepted = acceptOf(session.ledger.read(task.id), task);
  if (accepted === null) return null;
  const cp = session.checkpoint.read();
  const checks = accepted.checks ?? [];
  const machinery = checks.find((c) => c.name === MACHINERY_CHECK);
  const facts: EvidenceFacts = {
    criteria: task.acceptance_criteria.map((criterion, i) => ({ criterion, tests: task.criteria_tests?.[i] ?? [] })),
    commands: checks.map(({ output, output_chars: _chars, ...rest }) => ({ ...rest, output_sha256: output === undefined ? null : sha256(output) })),
    red: session.seedProof.read()?.tasks[task.id] ?? [],
    green: accepted.green ?? [],
    machinery: machinery ? { ran: true, passed: machinery.passed } : { ran: false, passed: null },
    mutation: mutationFact(session.mutations.read(task.id)),
    claims: { worker_case: accepted.case, verdict: accepted.verdict },
  };
  return {
    version: EVIDENCE_VERSION,
    task_id: task.id,
    revision: task.revision ?? 1,
    written_at: new Date().toISOString(),
    preset,
    seed_commit: await seedCommitOf(cp, taskCommit),
    task_commit: taskCommit,
    diff_sha256: await diffSha256(cp.source, `${taskCommit}^`, taskCommit),
    ...facts,
    ...evidenceStatus(facts),
  };
}

/** Writes the receipt of the task's accepted commit; false when there was no accept to write one for. */
export async function writeEvidence(session: SessionHandle, task: PrdEntry, preset: ChecksPreset, taskCommit: string): Promise<boolean> {
  const receipt = await buildEvidence(session, task, preset, taskCommit);
  if (receipt === null) return false;
  session.evidence.write(task.id, receipt);
  return true;
}

/**
 * The receipt again with the mutation report as it stands now (the probe reported, or was cut
 * short); only the receipt of `taskCommit` when given, so a probe never lends its counts to
 * another revision's receipt.
 */
export function refreshEvidenceMutation(session: SessionHandle, taskId: string, taskCommit?: string): void {
  const receipt = session.evidence.read(taskId);
  if (receipt === null || (taskCommit !== undefined && receipt.task_commit !== taskCommit)) return;
  const facts = { ...receipt, mutation: mutationFact(session.mutations.read(taskId)) };
  session.evidence.write(taskId, { ...facts, written_at: new Date().toISOString(), ...evidenceStatus(facts) });
}

/**
 * The receipts a crash left unwritten (the server died between a task's commit and its receipt):
 * each done task whose current revision has a commit on the session branch but no receipt gets
 * one. Returns the tasks written for.
 */
export async function writeMissingEvidence(session: SessionHandle, preset: ChecksPreset): Promise<string[]> {
  const cp = session.checkpoint.read();
  if (!cp.base_sha) return [];
  const done = session.prd.tasks().filter((t) => t.status === 'done' && session.evidence.read(t.id)?.revision !== (t.revision ?? 1));
  if (done.length === 0) return [];
  const commits = await commitsIn(cp.source, `${cp.base_sha}..refs/heads/${cp.branch}`);
  const written: string[] = [];
  for (const task of done) {
    const commit = commits.findLast((c) => !isFailedSubject(c.subject) && subjectRevision(c.subject, task.id) === (task.revision ?? 1));
    if (commit && (await writeEvidence(session, task, preset, commit.sha))) written.push(task.id);
  }
  return written;
}
