/**
 * The worker's case (`submit_case`, reference §7.5) and the prose the harness hands back around it:
 * the first readable call of several (its declaration, tools/submit-case.ts, reads each), the reject feedback (§7.8) and the
 * ledger section both the worker and the evaluator read.
 */
import type { Case, LedgerEntry, Verdict } from '../../shared/files.ts';
import { SUBMIT_CASE_TOOL } from '../tools/submit-case.ts';

export type ParsedCase = { ok: true; case: Case } | { ok: false; error: string };

/** The first `submit_case` call its declaration reads wins (reference §7.5); otherwise every call's problem. */
export function parseCase(calls: readonly { name: string; arguments: string }[]): ParsedCase {
  const errors: string[] = [];
  for (const call of calls) {
    if (call.name !== 'submit_case') continue;
    const read = SUBMIT_CASE_TOOL.read(call.arguments);
    if (read.ok) return { ok: true, case: read.args };
    errors.push(read.message);
  }
  if (errors.length === 0) {
    return { ok: false, error: 'No `submit_case` tool call in your response. When the task is complete and verified, call `submit_case` to present it.' };
  }
  return { ok: false, error: `Your \`submit_case\` call could not be accepted: ${errors.join(' | ')}. Call \`submit_case\` again with a corrected payload.` };
}

/** The first line of the coverage gate's answer as the worker reads it. */
export const COVERAGE_GAP_HEAD = 'Your case was not sent to the reviewer: it does not cover every acceptance criterion.';

/**
 * The coverage gate's answer: the criteria the case's `ac_coverage` leaves out, verbatim, so the
 * worker can address each one (or say which test and code cover it) and submit again.
 */
export function formatCoverageGap(missing: readonly string[], total: number): string {
  return [
    COVERAGE_GAP_HEAD,
    '',
    `${missing.length} of ${total} criteria have no entry in 'ac_coverage':`,
    ...missing.map((c) => `- ${c}`),
    '',
    "Make sure the work meets each of them, then call `submit_case` again with one 'ac_coverage' entry per criterion (quote the criterion, point 'addressed_by' at the code and the test that check it). No checks were run and no reviewer was asked.",
  ].join('\n');
}

/**
 * The answer to a sent-back task's case that changes nothing since the send-back: the reviewer's
 * note asks for a change, and an unchanged tree cannot have made it.
 */
export function formatUnchangedRevision(revision: number): string {
  return [
    `Case not reviewed: nothing changed since the reviewer sent this task back. Revision ${revision} exists because they asked for a change — the note and comments under "Sent back by the reviewer" in your task are requirements.`,
    '',
    'Make the change they ask for, check it, then call `submit_case` again. No checks were run and no reviewer was asked.',
  ].join('\n');
}

/** The first line of a reject as the worker reads it. */
export const REJECT_FEEDBACK_HEAD = 'An independent reviewer rejected the work.';

/** The reject as the `submit_case` tool result (reference §7.8). */
export function formatRejectFeedback(verdict: Verdict): string {
  const lines = [REJECT_FEEDBACK_HEAD, '', `Rejection category: ${verdict.rejection_category ?? '(unspecified)'}`, '', `Concern: ${verdict.concern}`];
  if (verdict.evidence.length > 0) lines.push('', 'Evidence:', ...verdict.evidence.map((e) => `- ${e}`));
  lines.push(`Next step: ${verdict.next_step ?? '(none provided)'}`);
  lines.push('', 'Read the concern and next step carefully, apply the next step, and continue working. Submit a new case only when the issue is resolved.');
  return lines.join('\n');
}

/** Earlier verdicts on a task, oldest first (reference §7.7 `format_ledger_section`). */
export function formatLedgerSection(entries: LedgerEntry[], header: string): string {
  if (entries.length === 0) return '';
  const lines = [header, ''];
  entries.forEach((e, i) => {
    const v = e.verdict;
    lines.push(`${i + 1}. [iter ${e.iter}] ${v.verdict}${v.verdict === 'reject' && v.rejection_category ? ` · ${v.rejection_category}` : ''}`);
    if (v.concern) lines.push(`   concern: ${v.concern}`);
    if (v.next_step) lines.push(`   next step given: ${v.next_step}`);
    if (e.diff_summary) lines.push(`   diff at that point: ${e.diff_summary}`);
  });
  return lines.join('\n');
}

export const WORKER_NO_CASE_NUDGE =
  'You ended your turn without calling `submit_case`. Going quiet does not count as done. If the task is complete and verified, present it with `submit_case`; otherwise keep working with the tools.';

export const DUPLICATE_CASE = 'Duplicate submit_case ignored; act on the response to the first.';
