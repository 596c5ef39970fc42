/**
 * `cargo test` read into the runners' common report shape. Stable libtest has no structured
 * report, so its own lines are the report: Tilth sends cargo's stderr and each test binary's
 * stdout, in order, into one file, and this module reads it section by section. cargo says on
 * stderr which binary runs next (`Running tests/t001_add.rs (target/debug/deps/t001_add-…)`), and
 * that binary's lines follow: `running 4 tests`, one `test name ... ok|FAILED|ignored` line per
 * test, the captured output of each failure under `---- name stdout ----`, and a closing
 * `test result: …` line with the counts. A case's `file` is the source path of its section.
 *
 * What does not arrive as a case:
 * - A target that does not compile. cargo builds every target before it runs any, and a compile
 *   error stops the whole run even with `--no-fail-fast` (that flag is about failing tests): the
 *   other targets neither run nor say anything. Each `error: could not compile `pkg` (test "x")`
 *   line takes the errors it failed on (see claim), and those are the load error of `tests/x.rs`
 *   (`tests/x/main.rs` when the diagnostics point there). The diagnostics' own ` --> ` path is not
 *   used for a test target: an error in a module the test includes (`tests/common/mod.rs`) names
 *   that module, while what did not load is the target. A library that does not compile
 *   (`(lib)`, `(lib test)`) is every target's load error, of no one file (its diagnostics say
 *   where: `src/lib.rs`).
 * - cargo's own errors (no `Cargo.toml`, a dependency it cannot get offline, an unknown target):
 *   nothing compiled or ran; what cargo said is a load error of no file.
 * - A test binary that started and never printed its `test result:` line: something ended the
 *   process inside a test (an abort, a stack overflow, `std::process::exit`). That is a load
 *   error of its file with what cargo said about it; its tests with no result line are not
 *   invented. A binary that printed its summary and then did not exit successfully is one too.
 * - Doc-tests (`Doc-tests crt`): passed over. Tilth names its targets with `--test`, which never
 *   runs them, and their cases (`src/lib.rs - add (line 3)`) belong to no test file.
 *
 * The code under test shares the binary's stdout: libtest captures `print!`, but a test that
 * writes to the stdout handle or file descriptor itself can print a line that looks like
 * libtest's, such as `test other ... ok` or a whole `test result:` line. Two rules keep such a
 * line from passing for a result:
 * - a name with two or more result lines in one section is a failed case, whose message says its
 *   result was printed more than once;
 * - a section whose result lines do not add up to its `test result:` counts, or that has more
 *   than one summary or other than one `running N tests` line, is a load error of its file: the
 *   account does not add up.
 * No line from a `failures:` heading to the summary is read as a result, so a failing test's
 * captured output (which may hold anything) is never read as one.
 * What remains: a test that prints forged result lines and a matching forged summary, then ends
 * the process with `exit(0)` before libtest prints anything, is read as the run it forged — the
 * same limit `go test` had before Go 1.20.
 */
import fs from 'node:fs';
import path from 'node:path';
import { rustImportName } from '../env/config-read.ts';
import type { CaseOutcome, LoadError, ReportCase, RunnerReport } from './report-shape.ts';

/** How many lines a message keeps: the first ones say what failed. */
const MESSAGE_LINES = 40;
/** cargo announcing the next test binary: `Running tests/t001_add.rs (…)`, `Running unittests src/lib.rs (…)`. */
const RUNNING = /^\s+Running (?:unittests )?(\S.*?) \(.*\)$/;
const DOC_TESTS = /^\s+Doc-tests \S+$/;
const SUMMARY = /^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored; \d+ measured; \d+ filtered out/;
const COULD_NOT_COMPILE = /^error: could not compile `[^`]+` \((\w+(?: \w+)*?)(?: "([^"]+)")?\)/;
/** An error's first line: `error[E0425]: …`, `error: expected …`. A warning's block is passed over with the other lines. */
const ERROR = /^error(?:\[E\d+\])?: /;
/** Where a diagnostic points: ` --> tests/t001_add.rs:6:21`. */
const SPAN = /^\s*--> (.+?):(\d+):(\d+)$/;
/** cargo's progress lines, which say nothing about the tests. */
const PROGRESS = /^\s*(?:Compiling|Finished|Blocking|Locking|Downloaded) /;

/** One compiler (or cargo) error, as printed before anything ran. */
export interface CargoError {
  /** `error[E0425]: cannot find function `x` in crate `crt``. */
  header: string;
  /** The first ` --> ` of the block: where the error is. */
  at: { file: string; line: number } | null;
  /** The header, its span and its snippet, up to the blank line that ends the block. */
  lines: string[];
  /** What cargo said it could not compile (`test "t001_add"`, `lib`, `lib test`); null: cargo's own error. */
  target: string | null;
  /** The test target's name, for `test "x"`. */
  testName: string | null;
}

interface Section {
  /** The source path of the binary's target. */
  file: string;
  results: { name: string; outcome: CaseOutcome }[];
  messages: Map<string, string[]>;
  running: number[];
  summaries: { passed: number; failed: number; ignored: number }[];
  /** The section's other lines: what the binary or cargo said outside libtest's framing. */
  said: string[];
}

function bounded(lines: string[]): string {
  const kept = lines.map((l) => l.trimEnd());
  while (kept[0] === '') kept.shift();
  while (kept.at(-1) === '') kept.pop();
  return kept.slice(0, MESSAGE_LINES).join('\n');
}

/**
 * `test inner::deep ... ok` → the name and its outcome; null for any other line. A name never
 * holds ` ... `, so the first one ends it; an ignore reason may hold anything.
 */
function resultLine(line: string): { name: string; outcome: CaseOutcome } | null {
  const m = /^test (.+?)(?: - should panic)? \.\.\. (.*)$/.exec(line);
  const said = m?.[2];
  const outcome: CaseOutcome | null = said === 'ok' ? 'passed' : said === 'FAILED' ? 'failed' : /^ignored(?:, |$)/.test(said ?? '') ? 'skipped' : null;
  return outcome === null ? null : { name: m![1]!, outcome };
}

/** The lines before the first test binary ran: the build, and cargo's own complaints. */
function buildLines(lines: string[]): string[] {
  const build: string[] = [];
  for (const line of lines) {
    if (RUNNING.test(line) || DOC_TESTS.test(line)) break;
    build.push(line);
  }
  return build;
}

/**
 * The output's lines without terminal codes: with CARGO_TERM_COLOR=always cargo colours its
 * status words, and libtest writes `ok` as `ESC[32mok ESC(B ESC[m` (a charset switch among them).
 */
function splitLines(output: string): string[] {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: terminal codes start with ESC
  return output.replace(/\x1b(?:\[[0-9;]*[A-Za-z]|\([A-Z0-9])/g, '').split(/\r?\n/);
}

interface Target {
  /** As cargo names it: `test "t001_add"`, `lib`, `lib test`. */
  target: string;
  testName: string | null;
  /** The `could not compile` line itself. */
  line: string;
  /** How many errors cargo says it failed on; null where it does not say. */
  count: number | null;
  /** How many errors were printed before the line. */
  after: number;
}

interface Build {
  errors: CargoError[];
  targets: Target[];
  /** The build's lines, for cargo's own errors. */
  lines: string[];
}

/** Where a test target's errors point when they are in the target's own file. */
const rootsOf = (t: Target) => (t.testName === null ? [] : [`tests/${t.testName}.rs`, `tests/${t.testName}/main.rs`]);

/**
 * Which target each error is of. cargo compiles targets in parallel and prints each compiler's
 * messages as they come, so the errors of two test targets can all come before either `could not
 * compile` line (seen with two targets that both fail). Each line says how many errors it had:
 * a target takes that many of the errors printed before it, first those in its own file, then
 * the earliest that are in no other target's file. An error no line takes is cargo's own.
 */
function claim(errors: CargoError[], targets: Target[]): void {
  for (const t of targets) {
    const open = errors.slice(0, t.after).filter((e) => e.target === null);
    const elsewhere = new Set(targets.filter((o) => o !== t).flatMap(rootsOf));
    const own = open.filter((e) => rootsOf(t).includes(e.at?.file ?? ''));
    const fill = open.filter((e) => !own.includes(e) && !elsewhere.has(e.at?.file ?? ''));
    for (const e of [...own, ...fill].slice(0, t.count ?? open.length)) Object.assign(e, { target: t.target, testName: t.testName });
  }
}

/**
 * The build, read from the lines before the first test binary ran: each error, and each target
 * cargo said it could not compile. A block ends at a blank line.
 */
function readBuild(output: string): Build {
  const lines = buildLines(splitLines(output));
  const build: Build = { errors: [], targets: [], lines };
  let open: CargoError | null = null;
  for (const line of lines) {
    const compile = COULD_NOT_COMPILE.exec(line);
    if (compile) {
      const count = /due to (\d+) previous errors?/.exec(line);
      build.targets.push({
        target: compile[2] === undefined ? compile[1]! : `${compile[1]} "${compile[2]}"`,
        testName: compile[1] === 'test' ? (compile[2] ?? null) : null,
        line,
        count: count ? Number(count[1]) : null,
        after: build.errors.length,
      });
      open = null;
    } else if (ERROR.test(line)) {
      open = { header: line, at: null, lines: [line], target: null, testName: null };
      build.errors.push(open);
    } else if (line === '') open = null;
    else if (open) {
      open.lines.push(line);
      const span = SPAN.exec(line);
      if (span && open.at === null) open.at = { file: span[1]!, line: Number(span[2]) };
    }
  }
  claim(build.errors, build.targets);
  return build;
}

/** The errors printed before any test binary ran (see readBuild). */
export function cargoErrors(output: string): CargoError[] {
  return readBuild(output).errors;
}

/** The load errors of the build: one per target that did not compile, one for cargo's own errors. */
function buildLoadErrors(output: string): LoadError[] {
  const build = readBuild(output);
  const loadErrors: LoadError[] = [];
  const own = build.errors.find((e) => e.target === null);
  if (own) {
    // A `Caused by:` chain and help lines follow cargo's error after a blank line: all are kept.
    loadErrors.push({ file: null, message: bounded(build.lines.slice(build.lines.indexOf(own.header)).filter((l) => !PROGRESS.test(l))) });
  }
  for (const { target, testName, line } of build.targets) {
    const errors = build.errors.filter((e) => e.target === target);
    const spans = errors.flatMap((e) => (e.at === null ? [] : [e.at.file]));
    // The library is every test target's dependency: a library that does not compile is every file's load error.
    const file = testName === null ? null : spans.includes(`tests/${testName}/main.rs`) ? `tests/${testName}/main.rs` : `tests/${testName}.rs`;
    // cargo prints a diagnostic once: a target that fails on errors already shown (`lib test`
    // after `lib`) has only its own line.
    loadErrors.push({ file, message: errors.length === 0 ? line : bounded(errors.flatMap((e) => [...e.lines, ''])) });
  }
  return loadErrors;
}

function sectionLoadError(s: Section): LoadError | null {
  const why: string[] = [];
  const cargoSaid = bounded(s.said);
  const [summary] = s.summaries;
  if (summary === undefined) {
    why.push(
      `The test binary of ${s.file} ended before it reported its result: something ended the process inside a test (an abort, a crash, \`std::process::exit\`), or libtest does not run it (\`harness = false\`).`,
    );
  } else {
    if (/process didn't exit successfully/.test(cargoSaid)) why.push(`The test binary of ${s.file} reported its result, then did not exit successfully.`);
    const count = (o: CaseOutcome) => s.results.filter((r) => r.outcome === o).length;
    const counted = `${count('passed')} passed, ${count('failed')} failed, ${count('skipped')} ignored`;
    const summed = s.summaries.map((x) => `${x.passed} passed, ${x.failed} failed, ${x.ignored} ignored`);
    if (s.summaries.length > 1 || s.running.length !== 1 || summed[0] !== counted) {
      why.push(
        `The runner's account of ${s.file} does not add up: ${s.results.length} result lines (${counted}) under ` +
          `${s.running.map((n) => `"running ${n}"`).join(' and ') || 'no "running" line'}, and ${s.summaries.length === 1 ? 'its summary says' : `${s.summaries.length} summaries say`} ${summed.join('; ')}. ` +
          "Something in the run wrote lines like libtest's to the output, so its results cannot be trusted.",
      );
    }
  }
  if (why.length === 0) return null;
  return { file: s.file, message: [...why, cargoSaid].filter(Boolean).join('\n') };
}

function sectionCases(s: Section): ReportCase[] {
  const seen = new Map<string, CaseOutcome[]>();
  for (const r of s.results) seen.set(r.name, [...(seen.get(r.name) ?? []), r.outcome]);
  return [...seen].map(([name, outcomes]) => {
    const twice = outcomes.length > 1;
    const outcome = twice ? 'failed' : outcomes[0]!;
    const message = twice
      ? `The result of ${name} was printed ${outcomes.length} times (${outcomes.join(', ')}): something in the run wrote to the test output, so none of them can be trusted.`
      : outcome === 'failed'
        ? bounded(s.messages.get(name) ?? [])
        : '';
    return { file: s.file, name, fullTitle: name, outcome, message };
  });
}

export function parseCargoTest(output: string): RunnerReport {
  const sections: Section[] = [];
  let current: Section | null = null;
  /** Inside a `failures:` block, where a line is never a result. */
  let failures = false;
  let capture: string[] | null = null;
  for (const line of splitLines(output)) {
    const running = RUNNING.exec(line);
    if (running || DOC_TESTS.test(line)) {
      current = running ? { file: running[1]!, results: [], messages: new Map(), running: [], summaries: [], said: [] } : null;
      if (current) sections.push(current);
      failures = false;
      capture = null;
      continue;
    }
    // cargo's closing list of the targets that failed (`error: 2 targets failed:`) is no binary's.
    if (current === null || /^error: \d+ targets? failed:$/.test(line)) {
      current = null;
      continue;
    }
    const summary = SUMMARY.exec(line);
    const stdout = /^---- (.+) stdout ----$/.exec(line);
    if (failures && stdout) {
      capture = [];
      current.messages.set(stdout[1]!, capture);
    } else if (failures && line === 'failures:') capture = null;
    else if (capture) capture.push(line);
    else if (summary) {
      current.summaries.push({ passed: Number(summary[1]), failed: Number(summary[2]), ignored: Number(summary[3]) });
      failures = false;
    } else if (failures) continue;
    else if (/^running \d+ tests?$/.test(line)) current.running.push(Number(line.split(' ')[1]));
    else if (line === 'failures:') failures = true;
    else {
      const result = resultLine(line);
      if (result) current.results.push(result);
      else if (line !== '') current.said.push(line);
    }
  }
  const cases = sections.flatMap(sectionCases);
  const loadErrors = [...buildLoadErrors(output), ...sections.map(sectionLoadError).filter((e): e is LoadError => e !== null)];
  return { cases, loadErrors };
}

/** What the worker reads: cargo's output without its progress lines and libtest's `--logfile` warning. */
export function cargoText(output: string): string {
  return splitLines(output)
    .filter((l) => !PROGRESS.test(l) && !l.startsWith('warning: `--logfile`'))
    .join('\n')
    .trimEnd();
}

/** The name a test writes in `use crate_name::…` for the crate at `root`; '' without a Cargo.toml or a package. */
export function crateName(root: string): string {
  try {
    return rustImportName(fs.readFileSync(path.join(root, 'Cargo.toml'), 'utf8')) ?? '';
  } catch {
    return '';
  }
}
