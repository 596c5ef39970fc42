/**
 * node-tap's TAP 14 report (`tap --reporter=tap`, tap 18 and later) read into the runners' common
 * report shape.
 *
 * The stream nests by four spaces. At the top, one test point per file (`ok 1 - test/x.test.js`),
 * introduced by `# Subtest: test/x.test.js`; inside a file, `# Subtest: title` opens a subtest
 * whose own lines follow one level deeper, and its test point (`ok N - title # time=…`) closes it
 * at the level it was opened. A point without a `# Subtest:` before it is an assertion
 * (`ok 1 - should be equal`), or a subtest that never ran its function: skipped or todo
 * (`ok 3 - later # SKIP filter: /^x$/`, `ok 4 - someday # TODO`). Each level ends with its plan
 * (`1..N`); a failure's YAML block (`---` … `...`, two spaces deeper) follows its point.
 *
 * What is a case: a subtest with no subtests of its own, named by the chain of titles from the
 * file down (`outer > inner`, as JUnit writers join them), and a subtest skipped or todo. A
 * subtest holding subtests is a group; when it fails while every case inside it passed (its own
 * assertion failed, or its function threw after them), each of its cases fails with its message,
 * so a failure is never lost. A file whose point is `not ok` with no failed case in it did not
 * load or ended badly (its plan says `# no tests found`, its exit code is not 0, an assertion
 * outside any subtest failed): a load error of that file, with what its failing assertions said;
 * so is a file in which tap found no test, which tap itself skips and passes.
 *
 * The test process's stdout is this stream: what a test prints lands among its lines at the
 * subtest's depth. Lines that are not TAP are passed over; a printed line that is TAP could pass
 * for a result, so each level's points must be numbered 1, 2, … with no gap and match its plan,
 * each subtest's point must carry the title its `# Subtest:` line announced, and the files must be
 * the ones the run was given. A stream that breaks any of these is not read at all. tap's own
 * closing count (`# { total: 5, pass: 3, fail: 1, … }`) must not say more failed than this
 * reading found.
 */
import type { LoadError, ReportCase, RunnerReport } from './report-shape.ts';

const INDENT = '    ';
const POINT = /^(not ok|ok)\b ?(\d+)?(?: -)? ?(.*)$/;
const SUBTEST = /^# Subtest: (.*)$/;
const PLAN = /^1\.\.(\d+)(?:\s*#.*)?$/;
const SUMMARY = /^# \{ total: \d+(?:, (?:pass|fail|todo|skip): \d+)* \}$/;
/** How many lines of a failure's block its message keeps. */
const MESSAGE_LINES = 40;
/** The separator of a case's full name in the report, as JUnit writers (bun, deno) join titles. */
export const TAP_NAME_SEPARATOR = ' > ';

interface Point {
  ok: boolean;
  title: string;
  directive: 'skip' | 'todo' | null;
  block: string[];
  /** The subtest's own lines, when a `# Subtest:` opened it; null for an assertion or a test that never ran. */
  children: Point[] | null;
}

/** A level being read: its points so far, its plan, and the subtest title announced for the next point. */
interface Level {
  points: Point[];
  plan: number | null;
  /** The plan came after points: no point may follow it. A plan may also lead, as tap's top level's does. */
  closed: boolean;
  announced: string | null;
}

/** node-tap's TAP for a run of `files` (relative to where it ran), as the common report. */
export function parseTap(raw: string, files: readonly string[]): RunnerReport {
  const top = readStream(raw);
  const cases: ReportCase[] = [];
  const loadErrors: LoadError[] = [];
  for (const point of top.points) {
    if (!files.includes(point.title)) throw new Error(`it reports a file the run was not given: ${point.title}`);
    const own: ReportCase[] = [];
    collect(point.children ?? [], point.title, [], own);
    cases.push(...own);
    // tap passes a file that declares no test (`ok … # SKIP no tests found`, exit 0): ran nothing.
    if (point.children?.length === 0 || (!point.ok && !own.some((c) => c.outcome === 'failed'))) {
      loadErrors.push({ file: point.title, message: fileFailure(point) });
    }
  }
  const summaryFail = top.summaryFail ?? 0;
  const failures = cases.filter((c) => c.outcome === 'failed').length + loadErrors.length;
  if (summaryFail > 0 && failures === 0) throw new Error(`tap counts ${summaryFail} failed, but none of its test points failed`);
  return { cases, loadErrors };
}

/** The cases of one level into `out`; a failing group with no failing case fails its cases. */
function collect(points: readonly Point[], file: string, titles: readonly string[], out: ReportCase[]): void {
  for (const point of points) {
    const chain = [...titles, point.title];
    const fullTitle = chain.join(TAP_NAME_SEPARATOR);
    if (point.children === null && point.directive === null) continue; // an assertion
    const children = point.children ?? [];
    if (children.some((c) => c.children !== null || c.directive !== null)) {
      const inside: ReportCase[] = [];
      collect(children, file, chain, inside);
      const broke = !point.ok && !inside.some((c) => c.outcome === 'failed');
      const message = `the group \`${fullTitle}\` failed around it: ${failureText(point)}`;
      out.push(...inside.map((c) => (broke && c.outcome === 'passed' ? { ...c, outcome: 'failed' as const, message } : c)));
      continue;
    }
    const skipped = point.directive !== null && (point.ok || point.directive === 'todo');
    out.push({
      file,
      name: point.title,
      fullTitle,
      outcome: skipped ? 'skipped' : point.ok ? 'passed' : 'failed',
      message: skipped || point.ok ? '' : failureText(point),
    });
  }
}

/** Why a file failed with no failed case: what tap says of it (no tests found) and its process's end. */
function fileFailure(point: Point): string {
  const ended = point.block.filter((l) => /^(?:exitCode|signal): /.test(l) && !l.endsWith(': null'));
  const assertions = point.children?.some((c) => !c.ok) ? failureText(point) : '';
  const none = point.children?.length === 0 ? 'tap found no tests in it: it did not load, or declares no tap test' : '';
  return [none, assertions, ...ended].filter(Boolean).join('\n') || point.block.join('\n');
}

/** What a failed point says: its own block, then each failing assertion's title and block inside it. */
function failureText(point: Point): string {
  const lines: string[] = [];
  const walk = (p: Point) => {
    for (const child of p.children ?? []) {
      if (child.ok) continue;
      if (child.children === null) lines.push(`not ok - ${child.title}`, ...child.block.map((l) => `  ${l}`));
      else walk(child);
    }
  };
  walk(point);
  if (lines.length === 0) lines.push(...point.block);
  return lines.slice(0, MESSAGE_LINES).join('\n');
}

/** The stream's top level, each level checked against its numbering, its plan and its announced titles. */
function readStream(raw: string): { points: Point[]; summaryFail: number | null } {
  const stack: Level[] = [{ points: [], plan: null, closed: false, announced: null }];
  /** The failure block being read: the lines it keeps, and the indentation they are read under. */
  let block: { lines: string[]; indent: string } | null = null;
  let summaryFail: number | null = null;
  for (const line of raw.split(/\r?\n/)) {
    if (block !== null) {
      if (line === `${block.indent}...`) block = null;
      else if (block.lines.length < MESSAGE_LINES) block.lines.push(line.startsWith(block.indent) ? line.slice(block.indent.length) : line.trimStart());
      continue;
    }
    const depth = depthOf(line);
    const text = line.slice(depth * INDENT.length);
    if (depth === 0 && SUMMARY.test(text)) {
      summaryFail = Number(/fail: (\d+)/.exec(text)?.[1] ?? 0);
      continue;
    }
    // A subtest's lines close when a line of a level above it comes.
    if (depth >= stack.length) {
      if (SUBTEST.test(text) || POINT.test(text) || PLAN.test(text)) {
        throw new Error(`a TAP line is deeper than any subtest that was opened: ${text}`);
      }
      continue;
    }
    const level = stack[depth]!;
    const subtest = SUBTEST.exec(text);
    if (subtest) {
      if (stack.length > depth + 1) throw new Error(`a subtest opens before the one above it closed: ${text}`);
      level.announced = unescapeTitle(subtest[1]!);
      stack.push({ points: [], plan: null, closed: false, announced: null });
      continue;
    }
    const point = POINT.exec(text);
    if (point) {
      const opened = stack.length > depth + 1 ? stack.splice(depth + 1) : null;
      // A subtest announced and ended with nothing between (skipped before it ran) ran nothing.
      const ranNothing = opened?.length === 1 && opened[0]!.points.length === 0 && opened[0]!.plan === null;
      const children = opened && !ranNothing ? close(opened) : null;
      if (level.closed) throw new Error(`a test point follows the plan that ended its level: ${text}`);
      const number = Number(point[2]);
      if (number !== level.points.length + 1) throw new Error(`test point ${level.points.length + 1} is numbered ${point[2] ?? 'nothing'}: ${text}`);
      const { title, directive } = description(point[3]!);
      if (level.announced !== null && level.announced !== title) {
        throw new Error(`the subtest announced as \`${level.announced}\` ends as \`${title}\``);
      }
      level.announced = null;
      level.points.push({ ok: point[1] === 'ok', title, directive, block: [], children });
      continue;
    }
    const plan = PLAN.exec(text);
    if (plan) {
      if (stack.length > depth + 1) throw new Error(`a plan comes before the subtest above it closed: ${text}`);
      if (level.plan !== null) throw new Error(`a level has two plans: ${text}`);
      level.plan = Number(plan[1]);
      level.closed = level.points.length > 0;
      continue;
    }
    if (text === '  ---' && level.points.length > 0 && stack.length === depth + 1) {
      block = { lines: level.points.at(-1)!.block, indent: `${INDENT.repeat(depth)}  ` };
    }
  }
  if (stack.length > 1) throw new Error(`it ends inside the subtest \`${stack.at(-2)!.announced}\`, before its result`);
  if (stack[0]!.plan === null && stack[0]!.points.length === 0) throw new Error('it has no TAP in it');
  return { points: close(stack), summaryFail };
}

/** Checks each level's plan and gives back its points (the first level's first). */
function close(levels: Level[]): Point[] {
  for (const level of levels) {
    if (level.announced !== null) throw new Error(`the subtest \`${level.announced}\` has no result`);
    if (level.plan === null) throw new Error('a level of the report has no plan ("1..N")');
    if (level.plan !== level.points.length) throw new Error(`a level plans ${level.plan} test points and has ${level.points.length}`);
  }
  return levels[0]!.points;
}

/** The depth of a line by its leading groups of four spaces. */
function depthOf(line: string): number {
  let depth = 0;
  while (line.startsWith(INDENT, depth * INDENT.length)) depth++;
  return depth;
}

/**
 * A point's description: the title up to its first unescaped `#`, then a directive. TAP escapes
 * `#` and `\` in titles (`\#`, `\\`); `# SKIP …`/`# TODO …` are directives, `# time=…` is not.
 */
function description(text: string): { title: string; directive: 'skip' | 'todo' | null } {
  // It matches at the start, if only the empty string: the text up to the first `#` not escaped.
  const title = /(?:\\.|[^#])*/.exec(text)![0];
  const word = /^#\s*(skip|todo)\b/i.exec(text.slice(title.length));
  return { title: unescapeTitle(title.trimEnd()), directive: word ? (word[1]!.toLowerCase() as 'skip' | 'todo') : null };
}

function unescapeTitle(text: string): string {
  return text.replace(/\\([\\#])/g, '$1');
}

/** What the worker reads of a run whose report is TAP (AVA, node-tap): what the tests printed to stderr, then the TAP. */
export function tapText(raw: string, printed: string): string {
  return [printed.trim(), raw.trim()].filter(Boolean).join('\n');
}
