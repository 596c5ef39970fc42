/**
 * The worker's case says, per criterion, where it is addressed. Its `criterion` is free text the
 * worker wrote, so it is matched to the task's own criteria — exactly, by number ("AC2"), by
 * containment, or by shared words — and every criterion nobody claimed is not covered. The run's
 * coverage gate answers such a case before any check or evaluator runs; the task review shows the
 * same matching, so both sides agree on what "covered" means.
 */
import type { Case } from './files.ts';

export type Claim = Case['ac_coverage'][number];

export interface CriterionCoverage {
  /** 0-based position in the task's criteria. */
  index: number;
  criterion: string;
  /** Empty when the case does not cover it. */
  claims: Claim[];
}

export interface CoverageView {
  criteria: CriterionCoverage[];
  /** Claims that match none of the task's criteria (shown apart, never dropped). */
  unmatched: Claim[];
}

export function normalizeCriterion(text: string): string {
  return text
    .toLowerCase()
    .replace(/[`*_"'“”‘’]/g, '')
    .replace(/\s+/g, ' ')
    .replace(/^[\s\-–—•]+|[\s.;:!,]+$/g, '')
    .trim();
}

/**
 * A leading reference to a criterion by number: "AC2", "AC 2:", "criterion 2 —", "#2", "2." or a
 * bare "2". Returns the 1-based number and the text after it.
 */
function numberedReference(text: string): { n: number; rest: string } | null {
  const m = /^(?:(?:ac|criterion|criteria)\s*#?\s*(\d{1,3})\b[\s.:)\-–—]*|#?(\d{1,3})(?:[.:)\-–—]+\s*|\s*$))/i.exec(text.trim());
  if (m === null) return null;
  return { n: Number(m[1] ?? m[2]), rest: text.trim().slice(m[0].length) };
}

const STOP_WORDS = new Set([
  'a',
  'an',
  'the',
  'and',
  'or',
  'of',
  'to',
  'in',
  'on',
  'for',
  'is',
  'are',
  'it',
  'its',
  'with',
  'be',
  'by',
  'that',
  'this',
  'as',
  'at',
]);

function words(text: string): Set<string> {
  return new Set(
    normalizeCriterion(text)
      .split(/[^\p{L}\p{N}]+/u)
      .filter((w) => w.length > 0 && !STOP_WORDS.has(w)),
  );
}

/** Dice coefficient of the two word sets: 1 is the same words, 0 none shared. */
export function wordSimilarity(a: string, b: string): number {
  const wa = words(a);
  const wb = words(b);
  if (wa.size === 0 || wb.size === 0) return 0;
  let shared = 0;
  for (const w of wa) if (wb.has(w)) shared++;
  return (2 * shared) / (wa.size + wb.size);
}

/** Below this a claim is not taken to be about a criterion. */
export const SIMILARITY_THRESHOLD = 0.5;

function matchClaim(claim: Claim, criteria: readonly string[], normalized: readonly string[]): number | null {
  const whole = normalizeCriterion(claim.criterion);
  if (whole === '') return null;
  const exact = normalized.indexOf(whole);
  if (exact !== -1) return exact;
  // The words decide when there are any; a number alone ("AC2") is a reference by position.
  const numbered = numberedReference(claim.criterion);
  const byNumber = numbered !== null && numbered.n >= 1 && numbered.n <= criteria.length ? numbered.n - 1 : null;
  const text = numbered === null ? whole : normalizeCriterion(numbered.rest);
  if (text === '') return byNumber;
  const same = normalized.indexOf(text);
  if (same !== -1) return same;
  if (text.length >= 8) {
    const containing = normalized.findIndex((c) => c.includes(text) || (c.length >= 8 && text.includes(c)));
    if (containing !== -1) return containing;
  }
  let best: number | null = null;
  let bestScore = 0;
  criteria.forEach((c, i) => {
    const score = wordSimilarity(text, c);
    if (score >= SIMILARITY_THRESHOLD && score > bestScore) {
      best = i;
      bestScore = score;
    }
  });
  return best ?? byNumber;
}

export function matchCoverage(criteria: readonly string[], finalCase: Case | null): CoverageView {
  const view: CoverageView = { criteria: criteria.map((criterion, index) => ({ index, criterion, claims: [] })), unmatched: [] };
  if (finalCase === null) return view;
  const normalized = criteria.map(normalizeCriterion);
  for (const claim of finalCase.ac_coverage) {
    const i = matchClaim(claim, criteria, normalized);
    const target = i === null ? undefined : view.criteria[i];
    if (target === undefined) view.unmatched.push(claim);
    else target.claims.push(claim);
  }
  return view;
}

/** The criteria (in task order) that no claim of the case is about. */
export function uncoveredCriteria(criteria: readonly string[], submitted: Case): string[] {
  return matchCoverage(criteria, submitted)
    .criteria.filter((c) => c.claims.length === 0)
    .map((c) => c.criterion);
}
