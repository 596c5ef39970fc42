import { describe, expect, it } from 'vitest';
import type { LedgerEntry, Verdict } from '../../shared/files.ts';
import { CHECKS_FAILED_PREFIX } from '../agent/context.ts';
import { DUPLICATE_CASE, formatLedgerSection, formatRejectFeedback, parseCase, WORKER_NO_CASE_NUDGE } from './case.ts';

/** A tool call as the runtime hands it over; `args` is JSON-encoded unless it is already a string. */
function call(args: unknown, name = 'submit_case') {
  return { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) };
}
const coverage = (overrides: Record<string, unknown> = {}) => ({ criterion: 'it adds', addressed_by: 'src/todo.js:add()', ...overrides });
const good = (overrides: Record<string, unknown> = {}) => ({ summary: 'Added add().', ac_coverage: [coverage()], ...overrides });

/** The error for a single call carrying `args`. */
function rejection(args: unknown): string {
  const parsed = parseCase([call(args)]);
  if (parsed.ok) throw new Error(`expected a rejection, got ${JSON.stringify(parsed.case)}`);
  return parsed.error;
}
function accepted(args: unknown) {
  const parsed = parseCase([call(args)]);
  if (!parsed.ok) throw new Error(`expected the case to be accepted: ${parsed.error}`);
  return parsed.case;
}

describe('parseCase', () => {
  it('accepts a case, trimming its text and dropping blank list items and a blank evidence', () => {
    expect(
      accepted({
        summary: '  Added add().  ',
        ac_coverage: [
          { criterion: ' it adds ', addressed_by: ' src/todo.js:add() ', evidence: ' tests/t001.test.js::adds ' },
          { criterion: 'it lists', addressed_by: 'list()', evidence: '   ' },
          { criterion: 'it saves', addressed_by: 'save', evidence: null },
        ],
        work_arounds: [' skipped i18n ', '', '  '],
        uncertainties: null,
      }),
    ).toEqual({
      summary: 'Added add().',
      ac_coverage: [
        { criterion: 'it adds', addressed_by: 'src/todo.js:add()', evidence: 'tests/t001.test.js::adds' },
        { criterion: 'it lists', addressed_by: 'list()' },
        { criterion: 'it saves', addressed_by: 'save' },
      ],
      work_arounds: ['skipped i18n'],
    });
  });

  it('leaves out empty lists, and accepts an empty coverage list', () => {
    expect(accepted({ summary: 'x', ac_coverage: [], work_arounds: [], uncertainties: ['', ' '] })).toEqual({ summary: 'x', ac_coverage: [] });
  });

  it.each([
    ['a blank criterion', good({ ac_coverage: [coverage({ criterion: '   ' })] }), "ac_coverage[0] missing non-empty 'criterion'"],
    ['an empty criterion', good({ ac_coverage: [coverage(), coverage({ criterion: '' })] }), "ac_coverage[1] missing non-empty 'criterion'"],
    ['a missing criterion', good({ ac_coverage: [{ addressed_by: 'src/a.js' }] }), "ac_coverage[0] missing non-empty 'criterion'"],
    ['a criterion that is not a string', good({ ac_coverage: [coverage({ criterion: 3 })] }), "ac_coverage[0] missing non-empty 'criterion'"],
    ['a blank addressed_by', good({ ac_coverage: [coverage({ addressed_by: ' \n ' })] }), "ac_coverage[0] missing non-empty 'addressed_by'"],
    ['a missing addressed_by', good({ ac_coverage: [{ criterion: 'it adds' }] }), "ac_coverage[0] missing non-empty 'addressed_by'"],
    ['a blank summary', good({ summary: '  ' }), "'summary' must be a non-empty string"],
    ['a summary that is not a string', good({ summary: ['x'] }), "'summary' must be a non-empty string"],
    ['no summary', { ac_coverage: [] }, "missing required field 'summary'"],
    ['no ac_coverage', { summary: 'x' }, "missing required field 'ac_coverage'"],
    ['ac_coverage that is not a list', good({ ac_coverage: { criterion: 'x' } }), "'ac_coverage' must be a list"],
    ['a coverage item that is not an object', good({ ac_coverage: ['src/a.js'] }), 'ac_coverage[0] must be an object'],
    ['a null coverage item', good({ ac_coverage: [null] }), 'ac_coverage[0] must be an object'],
    ['a coverage item that is a list', good({ ac_coverage: [[]] }), 'ac_coverage[0] must be an object'],
    ['unexpected coverage keys', good({ ac_coverage: [coverage({ file: 'a', line: 1 })] }), 'ac_coverage[0] has unexpected keys: [file, line]'],
    ['unexpected keys', good({ notes: 'x', extra: 1 }), 'unexpected keys: [notes, extra]'],
    ['evidence that is not a string', good({ ac_coverage: [coverage({ evidence: ['t'] })] }), 'ac_coverage[0].evidence must be a string'],
    ['work_arounds that is a string', good({ work_arounds: 'none' }), "'work_arounds' must be a list of strings"],
    ['uncertainties with a number', good({ uncertainties: ['a', 2] }), "'uncertainties' must be a list of strings"],
    ['arguments that are a list', [good()], 'the arguments must be a JSON object'],
    ['arguments that are null', null, 'the arguments must be a JSON object'],
    ['arguments that are a string', '"a case"', 'the arguments must be a JSON object'],
  ])('rejects %s, saying which field', (_what, args, message) => {
    const error = rejection(args);
    expect(error).toBe(`Your \`submit_case\` call could not be accepted: ${message}. Call \`submit_case\` again with a corrected payload.`);
  });

  it('treats empty arguments as an empty object', () => {
    expect(rejection('  ')).toContain("missing required field 'summary'");
  });

  it('caps work_arounds at five, after dropping blanks', () => {
    const five = ['a', 'b', 'c', 'd', 'e'];
    expect(accepted(good({ work_arounds: [...five, ''] })).work_arounds).toEqual(five);
    expect(accepted(good({ uncertainties: [...five, 'f'] })).uncertainties).toHaveLength(6);
    expect(rejection(good({ work_arounds: [...five, 'f'] }))).toContain("too many 'work_arounds' (max 5); triage to the ones that actually matter");
  });

  it.each([
    'src/todo.js:setDue()',
    'tests/t001.test.js',
    'todo::set_due',
    'the handler in .env handling reads the whole setting now', // `.env`
    'see the function set_due in todo.py and its two callers', // `todo.py`
    'the function defined near line :42 of the module in question',
    'set_due()',
    'one two three four five six seven',
    'one  two \t three   four five six seven', // seven words, however spaced
    'the limit is read from config.timeout_seconds at start', // `a.b` with a long suffix
    'the limit is read from the v2.1 settings at every start',
  ])('takes %j as a pointer', (by) => {
    expect(accepted(good({ ac_coverage: [coverage({ addressed_by: by })] })).ac_coverage[0]!.addressed_by).toBe(by);
  });

  it.each([
    'I changed the function that sets the due date so it validates',
    'the function now validates every date before it stores it here',
    'one two three four five six seven eight',
    'a: b c d e f g h', // a colon without a line number
  ])('rejects the prose %j as addressed_by', (by) => {
    expect(rejection(good({ ac_coverage: [coverage({ addressed_by: by })] }))).toContain(
      'ac_coverage[0].addressed_by reads as prose, not a file:symbol pointer (e.g. "src/todo.js:setDue()"); put explanations in \'evidence\'',
    );
  });

  it('takes the first submit_case call that validates, and lists what was wrong with the others', () => {
    const parsed = parseCase([call({ path: 'x' }, 'read_file'), call('{oops'), call(good({ summary: 'second' })), call(good({ summary: 'third' }))]);
    expect(parsed).toEqual({ ok: true, case: { summary: 'second', ac_coverage: [coverage()] } });
    const failed = parseCase([call('{oops'), call({ summary: '' })]);
    expect(failed.ok).toBe(false);
    if (!failed.ok)
      expect(failed.error).toMatch(/^Your `submit_case` call could not be accepted: JSON parse: .+ \| 'summary' must be a non-empty string\. Call/);
  });

  it('says so when there is no submit_case call at all', () => {
    const none = 'No `submit_case` tool call in your response. When the task is complete and verified, call `submit_case` to present it.';
    expect(parseCase([])).toEqual({ ok: false, error: none });
    expect(parseCase([call({ command: 'ls' }, 'bash')])).toEqual({ ok: false, error: none });
  });
});

const reject: Verdict = {
  verdict: 'reject',
  rejection_category: 'acceptance_gap',
  concern: 'Overdue ignores done todos.',
  evidence: ['tests fail for done todos', 'no filter in overdue()'],
  next_step: 'Filter out done todos.',
};
const accept: Verdict = { verdict: 'accept', concern: 'Meets every criterion.', evidence: [] };

describe('what the harness tells the worker about its case', () => {
  it('nudges a quiet turn, explains failed checks and ignores a second case, each naming submit_case', () => {
    expect(WORKER_NO_CASE_NUDGE).toMatch(/^You ended your turn without calling `submit_case`\. Going quiet does not count as done\./);
    expect(CHECKS_FAILED_PREFIX).toMatch(/^The checks failed: the workspace does not pass yet, so the case cannot be reviewed\.\n.*call `submit_case` again/);
    expect(DUPLICATE_CASE).toBe('Duplicate submit_case ignored; act on the response to the first.');
  });
});

describe('formatRejectFeedback', () => {
  it('gives the category, the concern, each piece of evidence and the next step', () => {
    expect(formatRejectFeedback(reject)).toBe(
      [
        'An independent reviewer rejected the work.',
        '',
        'Rejection category: acceptance_gap',
        '',
        'Concern: Overdue ignores done todos.',
        '',
        'Evidence:',
        '- tests fail for done todos',
        '- no filter in overdue()',
        'Next step: Filter out done todos.',
        '',
        'Read the concern and next step carefully, apply the next step, and continue working. Submit a new case only when the issue is resolved.',
      ].join('\n'),
    );
  });

  it('says what is missing, and leaves out an empty evidence list', () => {
    const text = formatRejectFeedback({ verdict: 'reject', concern: 'Unclear.', evidence: [] });
    expect(text).toContain('Rejection category: (unspecified)');
    expect(text).toContain('Concern: Unclear.\nNext step: (none provided)\n');
    expect(text).not.toContain('Evidence');
  });
});

describe('formatLedgerSection', () => {
  const entry = (iter: number, verdict: Verdict, diff_summary = ''): LedgerEntry => ({
    ts: '2026-01-01T00:00:00.000Z',
    iter,
    diff_summary,
    case: null,
    verdict,
  });

  it('is empty without entries', () => {
    expect(formatLedgerSection([], '## Prior')).toBe('');
  });

  it('numbers the verdicts oldest first, with the concern, the next step and the diff', () => {
    expect(formatLedgerSection([entry(2, reject, 'src/todo.js (+3 -1)'), entry(5, accept)], '## Prior')).toBe(
      [
        '## Prior',
        '',
        '1. [iter 2] reject · acceptance_gap',
        '   concern: Overdue ignores done todos.',
        '   next step given: Filter out done todos.',
        '   diff at that point: src/todo.js (+3 -1)',
        '2. [iter 5] accept',
        '   concern: Meets every criterion.',
      ].join('\n'),
    );
  });

  it('shows a category only on a reject, and skips empty fields', () => {
    const categorisedAccept = { ...accept, rejection_category: 'acceptance_gap', concern: '' } as Verdict;
    const bareReject: Verdict = { verdict: 'reject', concern: '', evidence: [] };
    expect(formatLedgerSection([entry(1, categorisedAccept), entry(2, bareReject)], 'H')).toBe('H\n\n1. [iter 1] accept\n2. [iter 2] reject');
  });
});
