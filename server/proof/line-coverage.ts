/**
 * Which changed lines each acceptance criterion's test cases execute (issue 28, "survivors belong
 * to criteria"): during the mutation probe, each case the matrix names runs alone with line
 * coverage, so a surviving mutant can be shown on the row of every criterion whose cases run its
 * line, and a criterion whose cases never run the changed code is seen as unproven.
 *
 * Nothing is added to the user's project:
 * - Python: a small `sys.settrace` tracer passed with `python -c` (a file would not do: Tilth's
 *   own package may live under /tmp, which the sandbox hides) runs the case's usual pytest or
 *   unittest command as `-m` would, and writes the lines it saw of the changed files as JSON.
 * - node --test and mocha: `NODE_V8_COVERAGE`, V8's own block coverage, written by every Node
 *   process of the run (node --test's child per file included), turned from character offsets
 *   into lines. The offsets are those of the code V8 compiled: a script that is not the file
 *   character for character (a transformed one) is "not traced", never guessed at.
 * - jest and vitest, which run the code transformed: the runner's own coverage, which maps it back
 *   to the file's lines, as istanbul's JSON — jest's built-in babel instrumentation, vitest's
 *   `@vitest/coverage-v8` (or `-istanbul`) when the project has it; without it vitest's cases are
 *   not traced, and the note says which package would trace them.
 *
 * - go: its cover profile (`-coverprofile`, every package of the module instrumented with
 *   `-coverpkg=./...`), read back from import paths to the module's files.
 *
 * The coverage is written into a fresh folder the harness makes inside the scratch worktree (the
 * only place the sandbox lets the runner write), read without following links, then removed.
 * The code under test runs in the same process and could write there too; what it could forge
 * is only more lines run, which can hide a criterion's gap but never invent a survivor.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import type { MutationCoverage } from '../../shared/files.ts';
import type { ProjectEnv } from '../../shared/project-env.ts';
import type { ChecksPreset } from '../../shared/seed.ts';
import { inOneProcess, testCaseCommand, type TestCommand } from '../env/presets.ts';
import type { Tree } from '../fs/tree.ts';
import { runUntrusted, type UntrustedScope } from '../proc/untrusted.ts';
import { goModulePath } from './go-report.ts';
import { mutatedUnder } from './mutants.ts';

type LinesByFile = Record<string, number[]>;

/**
 * The tracer: `python -c TRACER <out> <files as JSON> -m <module> <args…>`. It traces only the
 * frames of the files asked about (the global hook answers every other call with None, so the
 * rest of the run is not traced line by line), runs the module as `python -m` would, and writes
 * `{file: [lines]}` however the run ends.
 */
export const PYTHON_TRACER = `import json, os, runpy, sys, threading
out, wanted = sys.argv[1], json.loads(sys.argv[2])
targets = {os.path.realpath(f): f for f in wanted}
known = {}
hits = {f: set() for f in wanted}
def on_line(frame, event, arg):
    if event == 'line':
        hits[known[frame.f_code.co_filename]].add(frame.f_lineno)
    return on_line
def on_call(frame, event, arg):
    name = frame.f_code.co_filename
    if name not in known:
        known[name] = targets.get(os.path.realpath(name))
    return on_line if known[name] is not None else None
sys.argv = sys.argv[4:]
threading.settrace(on_call)
sys.settrace(on_call)
try:
    runpy.run_module(sys.argv[0], run_name='__main__', alter_sys=True)
finally:
    sys.settrace(None)
    with open(out, 'w') as f:
        json.dump({k: sorted(v) for k, v in hits.items()}, f)
`;

/** How one preset's cases are traced. */
export type Tracer =
  | { method: 'settrace' }
  | { method: 'v8' }
  | { method: 'istanbul'; runner: 'jest' }
  | { method: 'istanbul'; runner: 'vitest'; provider: 'v8' | 'istanbul' }
  | { method: 'goprofile' };

/** vitest's coverage providers, in the order they are preferred. */
const VITEST_PROVIDERS = ['v8', 'istanbul'] as const;

/**
 * How a preset's cases are traced, or why they are not. jest and vitest run the code transformed
 * (babel, esbuild) in their own workers and vm contexts, so V8's offsets are not the file's: their
 * own coverage maps it back. jest carries its instrumentation; vitest's is a package of its own
 * (`installed` says whether the project has one).
 */
export function tracerFor(preset: ChecksPreset, installed: (pkg: string) => boolean): Tracer | { method: null; why: string } {
  switch (preset) {
    case 'pytest':
    case 'unittest':
      return { method: 'settrace' };
    case 'node':
    case 'mocha':
    case 'ava':
    case 'tap':
    case 'uvu':
      return { method: 'v8' };
    case 'jest':
      return { method: 'istanbul', runner: 'jest' };
    case 'vitest': {
      const provider = VITEST_PROVIDERS.find((p) => installed(`@vitest/coverage-${p}`));
      if (provider) return { method: 'istanbul', runner: 'vitest', provider };
      return {
        method: null,
        why: 'vitest traces lines only with @vitest/coverage-v8 (or @vitest/coverage-istanbul), and the project has neither installed',
      };
    }
    case 'go':
      return { method: 'goprofile' };
    case 'cargo':
      // rustc traces lines only with `-C instrument-coverage` and LLVM's profile tools, which a
      // Rust install does not have by default (rustup's llvm-tools component).
      return { method: null, why: 'Rust lines are not traced: that needs LLVM coverage tools a Rust install does not ship by default' };
    case 'custom':
      return { method: null, why: 'the custom checks run whole files, not one case at a time' };
  }
}

/**
 * The case's own command, traced: its `-m` run under the tracer, V8 told where to write, or the
 * runner's coverage of just `files` written as istanbul JSON into `out`.
 */
export function tracedCommand(command: TestCommand, tracer: Tracer, out: string, files: string[]): TestCommand | null {
  if (command.kind !== 'argv') return null;
  switch (tracer.method) {
    case 'v8':
      return { ...command, env: { ...command.env, NODE_V8_COVERAGE: out } };
    case 'settrace':
      if (command.args[0] !== '-m') return null;
      return { ...command, args: ['-c', PYTHON_TRACER, out, JSON.stringify(files), ...command.args] };
    case 'goprofile': {
      // The packages go is given come last; every package of the module is instrumented, so a
      // changed file outside the test's own package is seen too.
      const packages = command.args.filter((a) => a === '.' || a.startsWith('./'));
      const flags = command.args.filter((a) => !packages.includes(a));
      return { ...command, args: [...flags, '-coverpkg=./...', `-coverprofile=${out}`, ...packages] };
    }
    case 'istanbul': {
      const flags =
        tracer.runner === 'jest'
          ? [
              '--coverage',
              '--coverageProvider=babel',
              '--coverageReporters=json',
              `--coverageDirectory=${out}`,
              ...files.map((f) => `--collectCoverageFrom=${f}`),
            ]
          : [
              '--coverage.enabled=true',
              `--coverage.provider=${tracer.provider}`,
              '--coverage.reporter=json',
              `--coverage.reportsDirectory=${out}`,
              ...files.map((f) => `--coverage.include=${f}`),
            ];
      return { ...command, args: [...command.args, ...flags] };
    }
  }
}

const V8Range = z.object({ startOffset: z.number().int().nonnegative(), endOffset: z.number().int().nonnegative(), count: z.number().nonnegative() });
const V8Script = z.object({ url: z.string(), functions: z.array(z.object({ ranges: z.array(V8Range) })) });
type V8Function = z.infer<typeof V8Script>['functions'][number];

/**
 * The lines of `source` (1-based) that ran, from one script's V8 block coverage; null when the
 * offsets cannot be of this text (the script V8 compiled was a transformed one). Each character
 * takes the count of the innermost range around it; a line ran when any of its non-blank
 * characters did.
 */
export function v8ExecutedLines(source: string, functions: readonly V8Function[]): Set<number> | null {
  const ranges = functions.flatMap((f) => f.ranges);
  if (ranges.length === 0) return null;
  // The script's own range spans all its text: the file's, character for character, or another's.
  const widest = ranges.reduce((a, b) => (b.endOffset - b.startOffset > a.endOffset - a.startOffset ? b : a));
  if (widest.startOffset !== 0 || widest.endOffset !== source.length) return null;
  const counts = new Float64Array(source.length);
  for (const r of [...ranges].sort((a, b) => b.endOffset - b.startOffset - (a.endOffset - a.startOffset))) {
    counts.fill(r.count, r.startOffset, Math.min(r.endOffset, source.length));
  }
  const ran = new Set<number>();
  let line = 1;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\n') line++;
    else if (counts[i]! > 0 && c.trim() !== '') ran.add(line);
  }
  return ran;
}

const Position = z.object({ line: z.number().int().positive() }).loose();
const Span = z.object({ start: Position, end: z.object({ line: z.number().int().positive().optional() }).loose() }).loose();
const IstanbulFile = z
  .object({
    statementMap: z.record(z.string(), Span),
    s: z.record(z.string(), z.number().nonnegative()),
    fnMap: z.record(z.string(), z.object({ decl: Span }).loose()),
    f: z.record(z.string(), z.number().nonnegative()),
  })
  .loose();
type IstanbulFile = z.infer<typeof IstanbulFile>;

/**
 * The lines that ran, from one file's istanbul coverage. Each line takes the counts of the
 * narrowest statements (in lines) that span it — an `if` that ran does not make its untaken
 * block's lines run, while a line of two statements ran when either did — and a function's
 * declaration line ran when the function was called.
 */
export function istanbulExecutedLines(file: IstanbulFile): Set<number> {
  const narrowest = new Map<number, { span: number; ran: boolean }>();
  for (const [id, where] of Object.entries(file.statementMap)) {
    const first = where.start.line;
    const last = Math.max(first, where.end.line ?? first);
    const ran = (file.s[id] ?? 0) > 0;
    for (let line = first; line <= last; line++) {
      const had = narrowest.get(line);
      if (had === undefined || last - first < had.span) narrowest.set(line, { span: last - first, ran });
      else if (last - first === had.span && ran) had.ran = true;
    }
  }
  const lines = new Set([...narrowest].filter(([, v]) => v.ran).map(([line]) => line));
  for (const [id, fn] of Object.entries(file.fnMap)) if ((file.f[id] ?? 0) > 0) lines.add(fn.decl.start.line);
  return lines;
}

export interface CoverCasesInput {
  preset: ChecksPreset;
  project: ProjectEnv | null;
  /** The task's acceptance test file. */
  testFile: string;
  /** The matrix: per criterion, the names of the cases that check it. */
  criteriaTests: readonly (readonly string[])[];
  /** The changed lines to look for, by file (relative to the worktree). */
  changed: ReadonlyMap<string, readonly number[]>;
  /** The scratch worktree the cases run in. */
  tree: Tree;
  scope: UntrustedScope;
  /** Per case run. */
  timeoutMs: number;
  /** Milliseconds left for all of it; a case that would start past it is not traced. */
  remainingMs: () => number;
  signal?: AbortSignal | undefined;
}

export type CriteriaCoverage = Omit<MutationCoverage, 'mutated'>;

/** Runs each named case alone with line coverage; why not, when the preset's cannot be read. */
export async function coverCases(input: CoverCasesInput): Promise<CriteriaCoverage | { why: string }> {
  const root = fs.realpathSync(input.tree.root);
  const tracer = tracerFor(input.preset, (pkg) => fs.existsSync(path.join(root, 'node_modules', pkg, 'package.json')));
  if (tracer.method === null) return { why: tracer.why };
  const { method } = tracer;
  const files = [...input.changed.keys()].filter((f) => mutatedUnder(input.preset, f));
  const byCase = new Map<string, LinesByFile | null>();
  const problems = new Set<string>();
  for (const name of new Set(input.criteriaTests.flat())) {
    input.signal?.throwIfAborted();
    if (input.remainingMs() < input.timeoutMs / 2) {
      problems.add('the budget ran out before every case was traced');
      byCase.set(name, null);
      continue;
    }
    byCase.set(name, await coverOneCase(input, root, tracer, name, files, problems));
  }
  const criteria = input.criteriaTests.map((names) => {
    const merged: LinesByFile = {};
    for (const name of names) {
      const lines = byCase.get(name);
      if (!lines) return null;
      for (const [file, list] of Object.entries(lines)) merged[file] = [...new Set([...(merged[file] ?? []), ...list])].sort((a, b) => a - b);
    }
    return merged;
  });
  return { method, criteria, note: problems.size > 0 ? [...problems].join('; ') : null };
}

/** One case traced; `root` is the scratch worktree's real path, which the runners write coverage under. */
async function coverOneCase(
  input: CoverCasesInput,
  root: string,
  tracer: Tracer,
  name: string,
  files: string[],
  problems: Set<string>,
): Promise<LinesByFile | null> {
  const one = testCaseCommand(input.preset, input.testFile, name, input.project);
  const planned = one && inOneProcess(one);
  const folder = `.tilth-coverage-${randomBytes(6).toString('hex')}`;
  const outDir = path.join(root, folder);
  const out = tracer.method === 'settrace' ? path.join(outDir, 'lines.json') : tracer.method === 'goprofile' ? path.join(outDir, 'cover.out') : outDir;
  const command = planned && tracedCommand(planned, tracer, out, files);
  if (!command) return null;
  input.tree.mkdir(folder);
  try {
    const result = await runUntrusted(command, input.scope, { timeoutMs: input.timeoutMs, env: {}, signal: input.signal, background: true });
    if (result.timedOut) {
      problems.add(`case "${name}" did not finish within ${Math.round(input.timeoutMs / 1000)} s when traced`);
      return null;
    }
    const lines =
      tracer.method === 'settrace'
        ? readTracerOutput(input.tree, folder, files)
        : tracer.method === 'v8'
          ? readV8Folder(input.tree, root, folder, files, problems)
          : tracer.method === 'goprofile'
            ? readGoProfile(input.tree, root, folder, files, input.scope.cwd ?? '')
            : readIstanbul(input.tree, root, folder, files);
    if (lines === null) {
      problems.add(`case "${name}" wrote no line coverage`);
      return null;
    }
    // Only the changed lines matter here: a mutant is made of nothing else.
    const out: LinesByFile = {};
    for (const [file, changed] of input.changed) {
      const ran = lines.get(file);
      if (ran === undefined) {
        // A file of another language than the runner's is simply not there; one of its own is untraced.
        if (files.includes(file)) return null;
        continue;
      }
      out[file] = changed.filter((n) => ran.has(n));
    }
    return out;
  } finally {
    input.tree.remove(folder, { recursive: true });
  }
}

/** The tracer's JSON, read without following a link; null when it is missing or not the tracer's. */
function readTracerOutput(tree: Tree, folder: string, files: string[]): Map<string, Set<number>> | null {
  const text = tree.readFileNoFollow(`${folder}/lines.json`)?.toString('utf8');
  if (text === undefined) return null;
  const parsed = z.record(z.string(), z.array(z.number().int().positive())).safeParse(safeJson(text));
  if (!parsed.success) return null;
  return new Map(files.filter((f) => parsed.data[f] !== undefined).map((f) => [f, new Set(parsed.data[f])]));
}

/**
 * Every process's V8 coverage in the folder, for the given files: a line ran when it ran in any
 * process. A file whose offsets cannot be trusted in any of them is left out (not traced), and
 * said so. Null when the folder holds no coverage at all.
 */
function readV8Folder(tree: Tree, root: string, folder: string, files: string[], problems: Set<string>): Map<string, Set<number>> | null {
  if (!tree.isRealDirectory(folder)) return null;
  const names = fs.readdirSync(path.join(root, folder)).filter((n) => /^coverage-[\w.-]+\.json$/.test(n));
  if (names.length === 0) return null;
  const sources = new Map<string, string | null>();
  const urls = new Map(files.map((f) => [pathToFileURL(path.join(root, f)).href, f]));
  const ran = new Map<string, Set<number>>(files.map((f) => [f, new Set<number>()]));
  const untrusted = new Set<string>();
  for (const name of names) {
    const text = tree.readFileNoFollow(`${folder}/${name}`)?.toString('utf8');
    const doc = text === undefined ? null : z.object({ result: z.array(z.object({ url: z.string() }).loose()) }).safeParse(safeJson(text));
    if (!doc?.success) continue;
    for (const entry of doc.data.result) {
      const file = urls.get(entry.url);
      if (file === undefined) continue;
      const script = V8Script.safeParse(entry);
      if (!sources.has(file)) sources.set(file, tree.readFileNoFollow(file)?.toString('utf8') ?? null);
      const source = sources.get(file);
      const lines = script.success && source != null ? v8ExecutedLines(source, script.data.functions) : null;
      if (lines === null) untrusted.add(file);
      else for (const n of lines) ran.get(file)!.add(n);
    }
  }
  for (const file of untrusted) {
    ran.delete(file);
    problems.add(`${file} ran as transformed code, so its V8 offsets are not its lines`);
  }
  return ran;
}

/**
 * The runner's `coverage-final.json` (keyed by absolute path) for the given files, read without
 * following a link; null when it is missing or not istanbul's. A file the runner never loaded is
 * absent from it, so it ran no line.
 */
function readIstanbul(tree: Tree, root: string, folder: string, files: string[]): Map<string, Set<number>> | null {
  const text = tree.readFileNoFollow(`${folder}/coverage-final.json`)?.toString('utf8');
  if (text === undefined) return null;
  const parsed = z.record(z.string(), z.unknown()).safeParse(safeJson(text));
  if (!parsed.success) return null;
  const ran = new Map<string, Set<number>>(files.map((f) => [f, new Set<number>()]));
  for (const [key, value] of Object.entries(parsed.data)) {
    const file = [root, tree.root].map((r) => path.relative(r, key)).find((rel) => ran.has(rel));
    const entry = IstanbulFile.safeParse(value);
    if (file !== undefined && entry.success) ran.set(file, istanbulExecutedLines(entry.data));
  }
  return ran;
}

/**
 * go's cover profile for the given files: after a `mode:` line, one block per line,
 * `<import path>/<file>.go:<line>.<col>,<line>.<col> <statements> <count>`. go's blocks do not
 * nest, so a line ran when a block that ran spans it. Files are named by import path, read back
 * to the module's folders through go.mod; a file no block names ran no line. Null when the
 * profile is missing or not go's.
 */
export function goProfileLines(text: string, modulePath: string, files: readonly string[]): Map<string, Set<number>> | null {
  const [head, ...lines] = text.split('\n');
  if (!/^mode: (?:set|count|atomic)$/.test(head ?? '')) return null;
  const ran = new Map<string, Set<number>>(files.map((f) => [f, new Set<number>()]));
  for (const line of lines) {
    const block = /^(.+\.go):(\d+)\.\d+,(\d+)\.\d+ \d+ (\d+)$/.exec(line);
    if (!block || block[4] === '0') continue;
    const file = block[1]!.startsWith(`${modulePath}/`) ? block[1]!.slice(modulePath.length + 1) : null;
    const hit = file === null ? undefined : ran.get(file);
    if (hit === undefined) continue;
    for (let n = Number(block[2]); n <= Number(block[3]); n++) hit.add(n);
  }
  return ran;
}

/**
 * The traced lines from go's cover profile, named from the module that ran: the root's, or a
 * workspace module's in `dir` (its go.mod's path, its files named under `dir/` again).
 */
function readGoProfile(tree: Tree, root: string, folder: string, files: string[], dir: string): Map<string, Set<number>> | null {
  const text = tree.readFileNoFollow(`${folder}/cover.out`)?.toString('utf8');
  if (text === undefined) return null;
  if (dir === '') return goProfileLines(text, goModulePath(root), files);
  const inside = files.filter((f) => f.startsWith(`${dir}/`)).map((f) => f.slice(dir.length + 1));
  const lines = goProfileLines(text, goModulePath(path.join(root, dir)), inside);
  return lines && new Map([...lines].map(([file, ran]) => [`${dir}/${file}`, ran]));
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
