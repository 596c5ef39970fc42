/**
 * `submit_case`, the worker's final tool (reference §7.5): its declaration and the reading of a
 * call, the one place a case's arguments are parsed.
 */
import { z } from 'zod';
import type { Case } from '../../shared/files.ts';
import { defineTool, type ArgsCheck } from '../agent/tools.ts';

const CASE_KEYS = new Set(['summary', 'ac_coverage', 'work_arounds', 'uncertainties']);
const COVERAGE_KEYS = new Set(['criterion', 'addressed_by', 'evidence']);
const MAX_WORK_AROUNDS = 5;
/**
 * A pointer looks like a path, `file::test`, `name.ext`, `a.b` or `:line`; or it is short. Only
 * ever `test`ed, so a clause needs no `+` on its ends (`\w\.\w` matches wherever `\w+\.\w+` does).
 */
const POINTER = /\/|::|\.[A-Za-z]{1,5}\b|\w\.\w|:\d/;

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

/** A call's arguments as sent: JSON, then the case's rules; what is wrong in the Python edition's words. */
function readCase(raw: string): ArgsCheck<Case> {
  let args: unknown;
  try {
    args = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch (err) {
    return { ok: false, message: `JSON parse: ${(err as Error).message}` };
  }
  const result = validateCase(args);
  return typeof result === 'string' ? { ok: false, message: result } : { ok: true, args: result };
}

/**
 * The case's declared shape, and how a call is read: with the Python edition's rules and messages
 * (prose pointers, the work-around limit), which say more than a schema error. A final tool: the
 * run's loop takes it (engine/case.ts parseCase, the first readable call of several).
 */
export const SUBMIT_CASE_TOOL = defineTool(
  'submit_case',
  'Present your finished, verified work for review. Call it exactly once, when the task is done and you have checked it; the call ends your turn. Be honest: the mechanical checks run regardless.',
  z.strictObject({
    summary: z.string().describe('What you did, in 1-3 sentences.'),
    ac_coverage: z
      .array(
        z.strictObject({
          criterion: z.string().describe('The acceptance criterion.'),
          addressed_by: z.string().describe('A file:symbol pointer, e.g. "src/cli.ts:main()".'),
          evidence: z.string().optional().describe('A test that shows it, e.g. "tests/cli.test.ts::adds an item".'),
        }),
      )
      .describe('One entry per acceptance criterion you addressed.'),
    work_arounds: z.array(z.string()).optional().describe('Shortcuts or work-arounds you took; triage to the 5 that matter most.'),
    uncertainties: z.array(z.string()).optional().describe('Anything you are unsure about.'),
  }),
  { read: readCase },
);
