/**
 * The worker's case (`submit_case`, reference §7.5) and the prose the harness hands back around it:
 * the parse with the Python edition's rules and messages, the reject feedback (§7.8) and the
 * ledger section both the worker and the evaluator read.
 */
import type { Case, LedgerEntry, Verdict } from '../../shared/files.ts';

const CASE_KEYS = new Set(['summary', 'ac_coverage', 'work_arounds', 'uncertainties']);
const COVERAGE_KEYS = new Set(['criterion', 'addressed_by', 'evidence']);
const MAX_WORK_AROUNDS = 5;
/**
 * A pointer looks like a path, `file::test`, `name.ext`, `a.b` or `:line`; or it is short. Only
 * ever `test`ed, so a clause needs no `+` on its ends (`\w\.\w` matches wherever `\w+\.\w+` does).
 */
const POINTER = /\/|::|\.[A-Za-z]{1,5}\b|\w\.\w|:\d/;

export type ParsedCase = { ok: true; case: Case } | { ok: false; error: string };

const nonBlank = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';

/** Null becomes [], blank strings are dropped; anything else is returned for validation. */
function normaliseList(v: unknown): unknown {
  if (v === null || v === undefined) return [];
  return Array.isArray(v) ? v.filter((s) => !(typeof s === 'string' && s.trim() === '')) : v;
}

function validateCase(raw: unknown): Case | string {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return 'the arguments must be a JSON object';
  const args = raw as Record<string, unknown>;
  const unexpected = Object.keys(args).filter((k) => !CASE_KEYS.has(k));
  if (unexpected.length > 0) return `unexpected keys: [${unexpected.join(', ')}]`;
  if (!('summary' in args)) return "missing required field 'summary'";
  if (!nonBlank(args.summary)) return "'summary' must be a non-empty string";
  if (!('ac_coverage' in args)) return "missing required field 'ac_coverage'";
  if (!Array.isArray(args.ac_coverage)) return "'ac_coverage' must be a list";
  const coverage: Case['ac_coverage'] = [];
  for (const [i, item] of args.ac_coverage.entries()) {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return `ac_coverage[${i}] must be an object`;
    const entry = item as Record<string, unknown>;
    const extra = Object.keys(entry).filter((k) => !COVERAGE_KEYS.has(k));
    if (extra.length > 0) return `ac_coverage[${i}] has unexpected keys: [${extra.join(', ')}]`;
    if (!nonBlank(entry.criterion)) return `ac_coverage[${i}] missing non-empty 'criterion'`;
    if (!nonBlank(entry.addressed_by)) return `ac_coverage[${i}] missing non-empty 'addressed_by'`;
    const by = entry.addressed_by.trim();
    if (!POINTER.test(by) && by.split(/\s+/).length >= 8) {
      return `ac_coverage[${i}].addressed_by reads as prose, not a file:symbol pointer (e.g. "src/todo.js:setDue()"); put explanations in 'evidence'`;
    }
    if (entry.evidence !== undefined && entry.evidence !== null && typeof entry.evidence !== 'string') return `ac_coverage[${i}].evidence must be a string`;
    coverage.push({ criterion: entry.criterion.trim(), addressed_by: by, ...(nonBlank(entry.evidence) ? { evidence: entry.evidence.trim() } : {}) });
  }
  const lists: Partial<Record<'work_arounds' | 'uncertainties', string[]>> = {};
  for (const key of ['work_arounds', 'uncertainties'] as const) {
    const list = normaliseList(args[key]);
    if (!Array.isArray(list) || !list.every((s) => typeof s === 'string')) return `'${key}' must be a list of strings`;
    if (list.length > 0) lists[key] = list.map((s: string) => s.trim());
  }
  if ((lists.work_arounds?.length ?? 0) > MAX_WORK_AROUNDS) return `too many 'work_arounds' (max ${MAX_WORK_AROUNDS}); triage to the ones that actually matter`;
  return { summary: args.summary.trim(), ac_coverage: coverage, ...lists };
}

/** The first `submit_case` call that parses and validates wins (reference §7.5). */
export function parseCase(calls: readonly { name: string; arguments: string }[]): ParsedCase {
  const errors: string[] = [];
  for (const call of calls) {
    if (call.name !== 'submit_case') continue;
    let args: unknown;
    try {
      args = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
    } catch (err) {
      errors.push(`JSON parse: ${(err as Error).message}`);
      continue;
    }
    const result = validateCase(args);
    if (typeof result !== 'string') return { ok: true, case: result };
    errors.push(result);
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
