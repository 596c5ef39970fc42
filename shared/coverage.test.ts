import { describe, expect, it } from 'vitest';
import type { Case } from './files.ts';
import { matchCoverage, normalizeCriterion, wordSimilarity } from './coverage.ts';

const CRITERIA = ['double(2) returns 4', 'double() rejects a non-number with a TypeError', 'The README documents double()'];
const theCase = (...claims: [string, string, string?][]): Case => ({
  summary: 'Done.',
  ac_coverage: claims.map(([criterion, addressed_by, evidence]) =>
    evidence === undefined ? { criterion, addressed_by } : { criterion, addressed_by, evidence },
  ),
});

describe('matchCoverage', () => {
  it('puts each claim next to the criterion it names and shows the rest as not covered', () => {
    const view = matchCoverage(CRITERIA, theCase(['double(2) returns 4', 'src/double.js:double()', 'test passes']));
    expect(view.criteria.map((c) => c.claims.length)).toEqual([1, 0, 0]);
    expect(view.criteria[0]?.claims[0]).toEqual({ criterion: 'double(2) returns 4', addressed_by: 'src/double.js:double()', evidence: 'test passes' });
    expect(view.unmatched).toEqual([]);
  });

  it('ignores case, spacing, quotes and closing punctuation', () => {
    const view = matchCoverage(CRITERIA, theCase(['  The README documents `double()`. ', 'README.md']));
    expect(view.criteria[2]?.claims).toHaveLength(1);
  });

  it('accepts a reference by number, and lets the words win over a number that disagrees', () => {
    const byNumber = matchCoverage(CRITERIA, theCase(['AC2', 'src/double.js:12'], ['criterion 3', 'README.md']));
    expect(byNumber.criteria.map((c) => c.claims.length)).toEqual([0, 1, 1]);
    const numberedText = matchCoverage(CRITERIA, theCase(['1. The README documents double()', 'README.md']));
    expect(numberedText.criteria.map((c) => c.claims.length)).toEqual([0, 0, 1]);
  });

  it('matches a paraphrase by shared words, and a claim that is part of a criterion', () => {
    const view = matchCoverage(CRITERIA, theCase(['rejects non-number input with TypeError', 'guard in double()'], ['README documents double', 'README.md']));
    expect(view.criteria.map((c) => c.claims.length)).toEqual([0, 1, 1]);
  });

  it('keeps claims that match no criterion apart instead of dropping them', () => {
    const view = matchCoverage(CRITERIA, theCase(['Handles Infinity', 'src/double.js'], ['AC9', 'nowhere']));
    expect(view.unmatched.map((c) => c.criterion)).toEqual(['Handles Infinity', 'AC9']);
    expect(view.criteria.every((c) => c.claims.length === 0)).toBe(true);
  });

  it('shows every criterion as not covered when there is no case', () => {
    const view = matchCoverage(CRITERIA, null);
    expect(view.criteria.map((c) => [c.index, c.criterion, c.claims])).toEqual(CRITERIA.map((c, i) => [i, c, []]));
  });
});

describe('matching helpers', () => {
  it('normalizes text for comparison', () => {
    expect(normalizeCriterion('- **Returns** 4.')).toBe('returns 4');
  });
  it('scores shared words between 0 and 1', () => {
    expect(wordSimilarity('double returns 4', 'double returns 4')).toBe(1);
    expect(wordSimilarity('alpha beta', 'gamma delta')).toBe(0);
  });
});
