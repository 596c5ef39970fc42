/**
 * AVA's TAP report (`ava --tap`, AVA 6) read into the runners' common report shape.
 *
 * AVA writes one `ok N - title` / `not ok N - title` line per test, in the order the tests
 * finish, each failure followed by a YAML block (`  ---` … `  ...`) with the assertion's message,
 * `t.log()` lines as `#   …` comments, and a closing summary: `1..N`, `# tests`, `# pass P`,
 * `# skip S` (only when some were skipped) and `# fail F`.
 *
 * Which file a line belongs to: with one file AVA writes the bare title; with more it puts the
 * file in front, ` › ` between the parts. That prefix is the file's path below the files' common
 * folder, `__tests__` folders left out, its name without `.test`/`.spec`, `test-` and its
 * extension (`tests/t001_due.test.js` beside `tests/t002_x.test.js` → `t001_due › title`).
 * `prefixTitle` works it out from the files the run was given.
 *
 * Lines that are not a test's own:
 * - `<file> exited with a non-zero exit code: 1`, `<file> exited due to SIGKILL` and
 *   `No tests found in <file>…`: that file did not load or did not finish, a load error of it.
 * - An uncaught exception or unhandled rejection is a `not ok` line titled by the error's first
 *   line (`Error: boom`), of no file. When the file it came from then exits with an error, the
 *   message joins that file's load error; otherwise it is a load error of no file. With one file
 *   such a line cannot be told from a test's and is read as a failed case of that file: a failure
 *   either way.
 * - A hook that fails is a failed case titled by the hook (`before hook`).
 * - `# TODO` on a `not ok` line with no error block is a `test.todo`: skipped. `# SKIP` on an
 *   `ok` line is a skipped test; on a `not ok` one it is a title that ends in those words.
 *
 * The tests run with `--no-worker-threads`, in child processes whose stdout AVA carries to its
 * own stderr, so what a test prints never lands among these lines. As for the other runners whose
 * code under test could still reach the report, a title with two result lines in one file is a
 * failed case, and the `ok` lines must add up to the summary's pass and skip counts, or the
 * report is not read at all. AVA's TAP reporter ends without a summary when a test hits AVA's
 * timeout (AVA 6.4): such a report is not read either, and the run's output says what happened.
 */
import type { LoadError, ReportCase, RunnerReport } from './report-shape.ts';

const RESULT = /^(ok|not ok) (\d+) - (.*)$/;
const DIRECTIVE = / # (SKIP|TODO)$/;
const EXITED = /^(.+) exited (?:with a non-zero exit code: \d+|due to \S+)$/;
const NO_TESTS = /^No tests found in (.+?)(?:, make sure to import "ava" at the top of your test file)?$/;
const SEPARATOR = ' › ';
/** How many lines of a failure's block its message keeps. */
const MESSAGE_LINES = 40;

interface Line {
  ok: boolean;
  title: string;
  directive: 'SKIP' | 'TODO' | null;
  block: string[];
}

/**
 * The prefix AVA puts before a test's title when it runs `files` together (none for one file):
 * the file's path below the files' common folder, ` › ` between folders, its name without
 * `.test.`/`.spec.`, `test-` and its extension.
 */
export function prefixTitle(file: string, files: readonly string[]): string {
  const unique = [...new Set(files)];
  if (unique.length < 2) return '';
  const split = unique.map((f) => f.split('/'));
  let common = split[0]!.length;
  for (const parts of split) {
    let i = 0;
    while (i < common && parts[i] === split[0]![i]) i++;
    common = i;
  }
  const parts = file
    .split('/')
    .slice(common)
    .filter((p) => p !== '__tests__');
  const name = parts
    .pop()!
    .replace('.spec.', '.')
    .replace('.test.', '.')
    .replace('test-', '')
    .replace(/\.[cm]?[jt]sx?$/, '');
  return [...parts, name].join(SEPARATOR);
}

/** AVA's `--tap` output for a run of `files` (relative to the worktree), as the common report. */
export function parseAvaTap(raw: string, files: readonly string[]): RunnerReport {
  const lines = readLines(raw);
  const prefixes = [...new Set(files)].map((file) => ({ file, prefix: prefixTitle(file, files) })).sort((a, b) => b.prefix.length - a.prefix.length);
  const cases: ReportCase[] = [];
  const loadErrors: LoadError[] = [];
  let crashes: string[] = [];
  for (const line of lines) {
    const message = line.block.join('\n');
    const said = [line.title, message].filter(Boolean).join('\n');
    const ended = EXITED.exec(line.title)?.[1] ?? NO_TESTS.exec(line.title)?.[1] ?? '';
    if (!line.ok && files.includes(ended)) {
      loadErrors.push({ file: ended, message: [...crashes, said].join('\n') });
      crashes = [];
      continue;
    }
    const owner = ownerOf(line.title, prefixes);
    if (owner === null) {
      // A crash names no file; one that passed is no test of these files either.
      if (!line.ok) crashes.push(said);
      continue;
    }
    const skipped = line.ok ? line.directive === 'SKIP' : line.directive === 'TODO' && line.block.length === 0;
    cases.push({
      file: owner.file,
      name: owner.title,
      fullTitle: owner.title,
      outcome: skipped ? 'skipped' : line.ok ? 'passed' : 'failed',
      message: skipped ? '' : message,
    });
  }
  for (const crash of crashes) loadErrors.push({ file: null, message: crash });
  return { cases: markRepeats(cases), loadErrors };
}

/** The file and title of a result line; null when it is none of the files' (a crash). */
function ownerOf(title: string, prefixes: readonly { file: string; prefix: string }[]): { file: string | null; title: string } | null {
  if (prefixes.length === 0) return { file: null, title };
  if (prefixes.length === 1) return { file: prefixes[0]!.file, title };
  const found = prefixes.find((p) => title.startsWith(`${p.prefix}${SEPARATOR}`));
  return found ? { file: found.file, title: title.slice(found.prefix.length + SEPARATOR.length) } : null;
}

/** A title with more than one result in its file: one failed case saying so. */
function markRepeats(cases: ReportCase[]): ReportCase[] {
  const key = (c: ReportCase) => `${c.file}\0${c.fullTitle}`;
  const counts = new Map<string, number>();
  for (const c of cases) counts.set(key(c), (counts.get(key(c)) ?? 0) + 1);
  const seen = new Set<string>();
  const out: ReportCase[] = [];
  for (const c of cases) {
    const count = counts.get(key(c))!;
    if (count === 1) out.push(c);
    else if (!seen.has(key(c))) {
      seen.add(key(c));
      out.push({
        ...c,
        outcome: 'failed',
        message: `AVA's report has ${count} results for \`${c.fullTitle}\`; a test has one, so what it says cannot be trusted.`,
      });
    }
  }
  return out;
}

/** The result lines with their blocks, checked against the numbering and the summary. */
function readLines(raw: string): Line[] {
  const lines: Line[] = [];
  let plan: number | null = null;
  const counts = new Map<string, number>();
  let inBlock = false;
  for (const text of raw.split(/\r?\n/)) {
    if (inBlock) {
      if (text === '  ...') inBlock = false;
      else if (lines.at(-1)!.block.length < MESSAGE_LINES) lines.at(-1)!.block.push(text.replace(/^ {4}/, ''));
      continue;
    }
    if (text === '  ---' && lines.length > 0) {
      inBlock = true;
      continue;
    }
    const result = RESULT.exec(text);
    if (result) {
      if (plan !== null) throw new Error(`AVA's report has a result after its summary: ${text}`);
      const index = Number(result[2]);
      if (index !== lines.length + 1) throw new Error(`AVA's report numbers result ${lines.length + 1} as ${index}: ${text}`);
      const directive = DIRECTIVE.exec(result[3]!);
      lines.push({
        ok: result[1] === 'ok',
        title: directive ? result[3]!.slice(0, -directive[0].length) : result[3]!,
        directive: (directive?.[1] as 'SKIP' | 'TODO' | undefined) ?? null,
        block: [],
      });
      continue;
    }
    const planned = /^1\.\.(\d+)$/.exec(text);
    if (planned) {
      if (plan !== null) throw new Error('AVA\'s report has two summaries ("1..N" lines).');
      plan = Number(planned[1]);
      continue;
    }
    const count = /^# (tests|pass|skip|fail) (\d+)$/.exec(text);
    if (count && plan !== null) counts.set(count[1]!, Number(count[2]));
  }
  // Counts are read only after the plan line: no pass count, no summary.
  if (!counts.has('pass')) {
    throw new Error("it stops before its summary: AVA did not finish the run, as AVA 6's TAP reporter does when a test hits AVA's timeout");
  }
  const passed = lines.filter((l) => l.ok && l.directive !== 'SKIP').length;
  const skipped = lines.filter((l) => l.ok && l.directive === 'SKIP').length;
  if (passed !== counts.get('pass') || skipped !== (counts.get('skip') ?? 0)) {
    throw new Error(
      `its result lines (${passed} passed, ${skipped} skipped) do not add up to its summary (${counts.get('pass')} passed, ${counts.get('skip') ?? 0} skipped)`,
    );
  }
  return lines;
}
