/**
 * Any runner's JUnit XML, for the custom preset's `{junit}` (issue 29, step 6): the universal
 * path for a runner Tilth has no reader of its own for (bun, deno, a project's own script).
 *
 * JUnit is a convention more than a format, so the reading keeps to what every writer shares:
 * - each `<testcase>` is a case; `<failure>` or `<error>` fails it, `<skipped>` skips it;
 * - its file is its own `file` attribute, else its nearest suite's, else a suite or `classname`
 *   that names one of the files the run was given (deno names the file `./x_test.ts` that way);
 * - its full name is the names of the suites around it, below the first level (by convention a
 *   file, a class or the runner), and its own, joined by ` > ` as bun and deno show them; a suite
 *   named as a file is left out at any depth.
 *
 * A failed case named as one of the run's files, by its path or its module path, is that file's
 * load error (node names a file that did not load by its absolute path, pytest by its module).
 * What JUnit does not say is read from the run: a file the run was given that has no case in the
 * report, when the command failed, did not load (bun leaves such a file out of its XML; deno
 * writes no XML at all when a module is missing), with the run's output as the why.
 */
import path from 'node:path';
import type { LoadError, ReportCase, RunnerReport } from './report-shape.ts';
import { outcomeOf, type XmlSuite, xmlRoot } from './junit-xml.ts';

/** A path as the report says it, made relative to the worktree, without `./`. */
function normal(worktree: string, file: string): string {
  return path.posix.normalize(path.isAbsolute(file) ? path.relative(worktree, file) : file);
}

export function parseJunit(raw: string, worktree: string, files: readonly string[]): RunnerReport {
  const known = new Set(files.map((f) => normal(worktree, f)));
  const named = (value: string | undefined) => (value !== undefined && known.has(normal(worktree, value)) ? normal(worktree, value) : null);
  // A file by its module path too: pytest names a module it could not collect `tests.test_x`.
  const modules = new Map(
    [...known].map((f) => [
      f
        .replace(/\.[^./]+$/, '')
        .split('/')
        .join('.'),
      f,
    ]),
  );
  const cases: ReportCase[] = [];
  const loadErrors: LoadError[] = [];
  const walk = (suite: XmlSuite, depth: number, titles: string[], file: string | null) => {
    for (const c of suite.testcase ?? []) {
      const name = c.name ?? '';
      const { outcome, message } = outcomeOf(c);
      const unloaded = named(name) ?? modules.get(name) ?? null;
      if (unloaded !== null && outcome === 'failed') {
        loadErrors.push({ file: unloaded, message });
        continue;
      }
      const own = c.file !== undefined ? normal(worktree, c.file) : (file ?? named(c.classname));
      cases.push({ file: own, name, fullTitle: [...titles, name].join(' > '), outcome, message });
    }
    for (const child of suite.testsuite ?? []) {
      const childFile = child.file !== undefined ? normal(worktree, child.file) : (named(child.name) ?? file);
      // A suite named as a file (its own, or one the run was given) is not a title.
      const isFile = child.name !== undefined && (normal(worktree, child.name) === childFile || named(child.name) !== null);
      walk(child, depth + 1, depth === 0 || isFile ? titles : [...titles, child.name ?? ''], childFile);
    }
  };
  walk(xmlRoot(raw, true), 0, [], null);
  return { cases, loadErrors };
}

/**
 * The report with what JUnit cannot say, read from a failed run: each file the run was given
 * with no case in the report did not load. `raw` null: the command wrote no report at all.
 */
export function withUnloadedFiles(report: RunnerReport | null, files: readonly string[], exitCode: number | null): RunnerReport | null {
  if (exitCode === 0 || exitCode === null) return report;
  const said = (f: string) => report !== null && [...report.cases, ...report.loadErrors].some((c) => c.file === f || c.file === null);
  const missing = files.filter((f) => !said(f));
  const why = report === null ? 'wrote no JUnit report' : 'its JUnit report has no case of this file';
  const loadErrors: LoadError[] = missing.map((file) => ({ file, message: `The custom command exited with code ${exitCode} and ${why}.` }));
  if (report === null) return loadErrors.length > 0 ? { cases: [], loadErrors } : null;
  return { ...report, loadErrors: [...report.loadErrors, ...loadErrors] };
}
