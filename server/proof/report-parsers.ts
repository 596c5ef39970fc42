/**
 * The runners' structured reports read into one shape (issue 28): pytest's and node's junit XML,
 * jest's JSON (vitest writes the same), mocha's json reporter, AVA's and node-tap's TAP, the unittest runner's own JSON and any runner's JUnit XML
 * (runner-report.ts runs them); then, for a case the matrix names, whether it ran and how it
 * ended, the way that runner's single-case run would select it.
 */
import path from 'node:path';
import { z } from 'zod';
import { writesJunit } from '../../shared/files.ts';
import type { ChecksPreset, CustomChecks } from '../../shared/seed.ts';
import { JS_NAME_SEPARATOR, pythonModule, spacedName } from '../../shared/test-cases.ts';
import { parseAvaTap } from './ava-report.ts';
import { parseCargoTest } from './cargo-report.ts';
import { goModulePath, parseGoTestJson } from './go-report.ts';
import { parseJunit } from './junit-report.ts';
import { parseTap } from './tap-report.ts';
import { allSuites, outcomeOf, type XmlSuite, xmlRoot } from './junit-xml.ts';
import type { CaseOutcome, LoadError, ReportCase, RunnerReport } from './report-shape.ts';

export type { CaseOutcome, LoadError, ReportCase, RunnerReport } from './report-shape.ts';

/**
 * How a run's report is read: by its runner, or `junit` for the custom preset's command that
 * writes one (`{junit}`); the custom preset without it keeps reading its exit code and text.
 */
export type ReportPreset = Exclude<ChecksPreset, 'custom'> | 'junit';

/** The report a preset's runs write, or null where there is none (a custom command without `{junit}`). */
export function reportPresetOf(preset: ChecksPreset, custom?: CustomChecks | null): ReportPreset | null {
  if (preset !== 'custom') return preset;
  return custom && writesJunit(custom.test) ? 'junit' : null;
}

export const RUNNER: Record<ReportPreset, string> = {
  pytest: 'pytest',
  unittest: 'unittest',
  node: 'node --test',
  vitest: 'vitest',
  jest: 'jest',
  mocha: 'mocha',
  ava: 'AVA',
  tap: 'node-tap',
  uvu: 'uvu',
  go: 'go test',
  cargo: 'cargo test',
  junit: 'the custom command',
};

// ── parsers ──────────────────────────────────────────────────────────────────────────────────

/**
 * `stderr`: what the run printed apart from its report, where the report is its stdout (go).
 * `files`: the test files the run was given, relative to the worktree (AVA names a case's file
 * only by a prefix worked out from them).
 */
export function parseReport(preset: ReportPreset, raw: string, worktree: string, stderr = '', files: readonly string[] = []): RunnerReport {
  switch (preset) {
    case 'ava':
      return parseAvaTap(raw, files);
    case 'tap':
      return parseTap(raw, files);
    case 'go':
      return parseGoTestJson(raw, stderr, goModulePath(worktree));
    case 'cargo':
      return parseCargoTest(raw);
    case 'pytest':
      return parsePytestJunit(raw);
    case 'node':
      return parseNodeJunit(raw, worktree);
    case 'jest':
    case 'vitest':
      return parseJestJson(raw, worktree);
    case 'mocha':
      return parseMochaJson(raw, worktree);
    case 'unittest':
    case 'uvu':
      // Both are Tilth's own runners, writing one JSON shape.
      return parseUnittestJson(raw);
    case 'junit':
      return parseJunit(raw, worktree, files);
  }
}

/** pytest's junit-xml, xunit1 family: `file` on each case; a collection error is a case named after the module with classname "". */
export function parsePytestJunit(raw: string): RunnerReport {
  const report: RunnerReport = { cases: [], loadErrors: [] };
  for (const suite of allSuites(xmlRoot(raw))) {
    for (const c of suite.testcase ?? []) {
      const name = c.name ?? '';
      const { outcome, message } = outcomeOf(c);
      if (c.classname === '' && outcome === 'failed') {
        report.loadErrors.push({ file: c.file ?? `${name.split('.').join('/')}.py`, message });
        continue;
      }
      const file = c.file ?? null;
      // classname is the node id's module path then its classes: `tests.test_x.TestA`.
      const module = file ? pythonModule(file) : null;
      const classes = module && c.classname?.startsWith(module) ? c.classname.slice(module.length).replace(/^\./, '') : '';
      const fullTitle = [...(classes ? classes.split('.') : []), name].join('::');
      report.cases.push({ file, name, fullTitle, outcome, message });
    }
  }
  return report;
}

/**
 * Node 20's junit: suites nest by `describe`, cases carry no file. A case named by an absolute
 * path of the worktree is a file that failed as a whole (it did not load, or crashed).
 */
export function parseNodeJunit(raw: string, worktree: string): RunnerReport {
  const report: RunnerReport = { cases: [], loadErrors: [] };
  const walk = (suite: XmlSuite, titles: string[]) => {
    for (const c of suite.testcase ?? []) {
      const name = c.name ?? '';
      const { outcome, message } = outcomeOf(c);
      if (titles.length === 0 && path.isAbsolute(name) && outcome === 'failed') {
        report.loadErrors.push({ file: relativeFile(worktree, name), message });
        continue;
      }
      report.cases.push({ file: null, name, fullTitle: [...titles, name].join(' '), outcome, message });
    }
    for (const child of suite.testsuite ?? []) walk(child, [...titles, child.name ?? '']);
  };
  walk(xmlRoot(raw), []);
  return report;
}

const JestAssertion = z.object({
  title: z.string(),
  fullName: z.string().optional(),
  ancestorTitles: z.array(z.string()).optional(),
  status: z.string(),
  failureMessages: z.array(z.string()).nullish(),
});
const JestReport = z.object({
  testResults: z.array(
    z.object({
      name: z.string(),
      status: z.string().optional(),
      message: z.string().optional(),
      assertionResults: z.array(JestAssertion),
    }),
  ),
});

/** jest's `--json`, which vitest's json reporter copies: per file its cases, or a message when it did not load. */
export function parseJestJson(raw: string, worktree: string): RunnerReport {
  const parsed = JestReport.parse(JSON.parse(raw));
  const report: RunnerReport = { cases: [], loadErrors: [] };
  for (const file of parsed.testResults) {
    const rel = relativeFile(worktree, file.name);
    if (file.assertionResults.length === 0 && file.status === 'failed') {
      report.loadErrors.push({ file: rel, message: (file.message ?? '').trim() });
      continue;
    }
    for (const a of file.assertionResults) {
      const outcome: CaseOutcome = a.status === 'passed' ? 'passed' : a.status === 'failed' ? 'failed' : 'skipped';
      const fullTitle = [...(a.ancestorTitles ?? []), a.title].join(' ');
      report.cases.push({ file: rel, name: a.title, fullTitle, outcome, message: (a.failureMessages ?? []).join('\n') });
    }
  }
  return report;
}

const MochaTest = z.object({ title: z.string(), fullTitle: z.string(), file: z.string().optional(), err: z.record(z.string(), z.unknown()).optional() });
const MochaReport = z.object({
  stats: z.object({ tests: z.number() }).loose(),
  tests: z.array(MochaTest),
  pending: z.array(MochaTest),
  failures: z.array(MochaTest),
  passes: z.array(MochaTest),
});

/**
 * mocha's json reporter: `tests` lists every case, `failures`/`passes`/`pending` say how each
 * ended. A hook that fails is a failure of its own ("before all" hook for …), kept as a case.
 */
export function parseMochaJson(raw: string, worktree: string): RunnerReport {
  const parsed = MochaReport.parse(JSON.parse(raw));
  const key = (t: z.infer<typeof MochaTest>) => `${t.file ?? ''}\0${t.fullTitle}`;
  const failed = new Map(parsed.failures.map((t) => [key(t), t]));
  const skipped = new Set(parsed.pending.map(key));
  const passed = new Set(parsed.passes.map(key));
  const cases: ReportCase[] = [];
  const seen = new Set<string>();
  for (const t of [...parsed.tests, ...parsed.failures]) {
    const k = key(t);
    if (seen.has(k)) continue;
    seen.add(k);
    const failure = failed.get(k);
    const outcome: CaseOutcome = failure ? 'failed' : passed.has(k) ? 'passed' : skipped.has(k) ? 'skipped' : 'skipped';
    const message = failure ? String(failure.err?.stack ?? failure.err?.message ?? '') : '';
    cases.push({ file: t.file ? relativeFile(worktree, t.file) : null, name: t.title, fullTitle: t.fullTitle, outcome, message });
  }
  return { cases, loadErrors: [] };
}

const UnittestReport = z.object({
  cases: z.array(
    z.object({ file: z.string().nullable(), name: z.string(), full_title: z.string(), outcome: z.enum(['passed', 'failed', 'skipped']), message: z.string() }),
  ),
  load_errors: z.array(z.object({ file: z.string().nullable(), message: z.string() })),
  unknown: z.array(z.object({ name: z.string(), message: z.string() })),
  bare: z.array(z.object({ file: z.string(), name: z.string() })),
});

export function parseUnittestJson(raw: string): RunnerReport {
  const parsed = UnittestReport.parse(JSON.parse(raw));
  return {
    cases: parsed.cases.map((c) => ({ file: c.file, name: c.name, fullTitle: c.full_title, outcome: c.outcome, message: c.message })),
    loadErrors: parsed.load_errors,
    bare: parsed.bare,
    unknown: parsed.unknown,
  };
}

/** The file mocha could not load: the first of the require stack, or the importer of an ES module. */
export function mochaLoadFile(output: string, worktree: string): string | null {
  const file = /Require stack:\n- (\S+)/.exec(output)?.[1] ?? /imported from (\S+)/.exec(output)?.[1] ?? null;
  return file ? relativeFile(worktree, file) : null;
}

/** What the worker reads of a mocha run with the json reporter, which prints nothing itself. */
export function mochaSummary(report: RunnerReport, printed: string): string {
  const count = (o: CaseOutcome) => report.cases.filter((c) => c.outcome === o).length;
  const failures = report.cases.filter((c) => c.outcome === 'failed');
  // Each case by name first, as mocha's own spec reporter lists them: the worker sees what ran.
  const listed = report.cases.map((c) =>
    c.outcome === 'passed' ? `  ✔ ${c.fullTitle}` : c.outcome === 'skipped' ? `  - ${c.fullTitle}` : `  ${failures.indexOf(c) + 1}) ${c.fullTitle}`,
  );
  const lines = [...listed, ...(listed.length > 0 ? [''] : []), `${count('passed')} passing`, ...(count('skipped') > 0 ? [`${count('skipped')} pending`] : [])];
  if (failures.length > 0) lines.push(`${failures.length} failing`, '');
  failures.forEach((c, i) => {
    lines.push(`  ${i + 1}) ${c.fullTitle}${c.file ? ` (${c.file})` : ''}:`, ...c.message.split('\n').map((l) => `     ${l}`), '');
  });
  return [printed.trim(), lines.join('\n')].filter(Boolean).join('\n');
}

function relativeFile(worktree: string, file: string): string {
  if (!path.isAbsolute(file)) return file;
  const rel = path.relative(worktree, file);
  return rel.startsWith('..') ? file : rel;
}

// ── reading a report for named cases ─────────────────────────────────────────────────────────

/** Whether a report case is the one the matrix names, the way the preset's single-case run selects it. */
export function isNamedCase(preset: ReportPreset, c: ReportCase, name: string): boolean {
  switch (preset) {
    case 'pytest':
      return c.fullTitle === name || c.fullTitle.startsWith(`${name}::`) || (c.fullTitle.startsWith(`${name}[`) && c.fullTitle.endsWith(']'));
    case 'unittest': {
      const dotted = name.replace('::', '.');
      return c.fullTitle === dotted || c.fullTitle.startsWith(`${dotted}.`) || c.name === dotted;
    }
    case 'node':
      // node's junit nests describe titles as suites: a full name is their chain, joined by spaces.
      return name.includes(JS_NAME_SEPARATOR) ? c.fullTitle === spacedName(name) : c.name === name;
    case 'go': {
      // A test named runs its subtests too; go writes a subtest's spaces as `_`.
      const goName = name.replaceAll(' ', '_');
      return c.fullTitle === goName || c.fullTitle.startsWith(`${goName}/`);
    }
    case 'cargo':
      // `--exact`: libtest's full name, `module::name`, whole.
      return c.fullTitle === name;
    default:
      // A full name (describe titles › own title) is the report's full title, which jest, vitest,
      // mocha and node join by spaces and JUnit writers (bun, deno) by ` > `. A bare title is the
      // case's own title (a case outside any describe, or a seed from before full names). Never a
      // title that merely ends with the name, which would let `readds` stand for `adds`.
      if (!name.includes(JS_NAME_SEPARATOR)) return c.name === name || c.fullTitle === name;
      return c.fullTitle === spacedName(name) || c.fullTitle === name.split(JS_NAME_SEPARATOR).join(' > ');
  }
}

/** Whether a case or load error is `file`'s; go says only the package's folder, which holds the file. */
function inFile(c: { file: string | null }, file: string): boolean {
  return c.file === null || c.file === file || c.file.endsWith(`/${file}`) || file.endsWith(`/${c.file}`) || path.posix.dirname(file) === c.file;
}

/** How a named case of `file` fared in a report: its cases (empty: not run), its file's load error. */
export function namedCaseIn(preset: ReportPreset, report: RunnerReport, file: string, name: string): { cases: ReportCase[]; loadError: LoadError | null } {
  const loadError = report.loadErrors.find((e) => e.file === null || inFile(e, file)) ?? null;
  return { cases: report.cases.filter((c) => inFile(c, file) && isNamedCase(preset, c, name)), loadError };
}

/** Why a named case did not execute, in one sentence (`not_run`). */
export function notRunMessage(preset: ReportPreset, report: RunnerReport, taskId: string, file: string, name: string, skipped: boolean): string {
  if (skipped) return `${taskId}'s case \`${name}\` was skipped by ${RUNNER[preset]} in ${file}, so it proves nothing`;
  const bare = report.bare?.some((b) => inFile(b, file) && (b.name === name || name.endsWith(`.${b.name}`) || name.endsWith(`::${b.name}`)));
  if (bare) return `${taskId}'s case \`${name}\` was not collected by unittest: a bare function is not a TestCase method`;
  return `${taskId}'s case \`${name}\` was not collected by ${RUNNER[preset]} in ${file}: no case by that name ran; check its name in the matrix against the file`;
}
