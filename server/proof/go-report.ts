/**
 * `go test -json` read into the runners' common report shape (issue 29): one JSON event per line,
 * each with an `Action` — `run`, `output`, `pass`, `fail`, `skip` (and `pause`/`cont`) — for a
 * `Test` of a `Package`, or for the package itself when `Test` is absent. A subtest is its own
 * case, named as Go names it (`TestTable/two_words`: spaces become `_`).
 *
 * What does not arrive as a case:
 * - A package that does not build. Up to Go 1.23 that is not in the JSON at all: the stream gets
 *   a plain `FAIL\t<package> [build failed]` line and the compiler's messages go to stderr under
 *   `# <package>`; from 1.24 they come as `build-output` events and a `build-fail`. Both are read.
 * - A test binary that ends inside a test (a `-timeout`, `os.Exit`): the test got `run` and never
 *   an end. It failed; its output says why (Go prints the panic under the test's name).
 * - A package that failed with no failing test and no build error (a panic in `init`, `TestMain`
 *   exiting 1): a load error of that package, with what it printed.
 * Cases carry their package's folder relative to the module root as `file`: Go reports packages,
 * not files.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { CaseOutcome, LoadError, ReportCase, RunnerReport } from './report-shape.ts';

const GoEventSchema = z.object({
  Action: z.string(),
  Package: z.string().optional(),
  Test: z.string().optional(),
  Output: z.string().optional(),
  /** Go 1.24+: the package a `build-output`/`build-fail` event is about (`pkg [pkg.test]`). */
  ImportPath: z.string().optional(),
});

/** How many lines of a case's output its message keeps: the first ones say what failed. */
const MESSAGE_LINES = 40;
const ENDS: Record<string, CaseOutcome> = { pass: 'passed', fail: 'failed', skip: 'skipped' };
/** test2json's own lines around a case's output: not what the test said. */
const FRAMING = /^\s*(?:=== (?:RUN|PAUSE|CONT|NAME)\s|--- (?:PASS|FAIL|SKIP):\s)/;

/** `example.com/todo/calc` → `calc` in module `example.com/todo`; the module itself → `.`. */
export function packageDir(pkg: string, modulePath: string): string {
  if (pkg === modulePath) return '.';
  return pkg.startsWith(`${modulePath}/`) ? pkg.slice(modulePath.length + 1) : pkg;
}

/** `example.com/todo/broken [example.com/todo/broken.test]` → `example.com/todo/broken`. */
function importPathOf(header: string): string {
  return header.split(' ', 1)[0]!;
}

function message(lines: string[]): string {
  const said = lines.filter((l) => !FRAMING.test(l)).map((l) => l.trimEnd());
  while (said[0] === '') said.shift();
  while (said.at(-1) === '') said.pop();
  return said.slice(0, MESSAGE_LINES).join('\n');
}

/**
 * The compiler's messages on stderr, by package: `# pkg [pkg.test]` then its lines. Lines before
 * any header are the go command's own (`go: cannot find main module`), kept under ''.
 */
function stderrBlocks(stderr: string): Map<string, string[]> {
  const own: string[] = [];
  const blocks = new Map<string, string[]>([['', own]]);
  let current: string[] = own;
  for (const line of stderr.split('\n')) {
    const header = /^# (.+)/.exec(line);
    if (header) {
      current = [];
      blocks.set(importPathOf(header[1]!), current);
    } else if (line.trim() !== '') current.push(line);
  }
  return blocks;
}

export function parseGoTestJson(stdout: string, stderr: string, modulePath: string): RunnerReport {
  const outputs = new Map<string, string[]>();
  const ended = new Map<string, CaseOutcome>();
  const started: { pkg: string; test: string }[] = [];
  const begun = new Set<string>();
  const failedPackages = new Set<string>();
  const packageOutput = new Map<string, string[]>();
  const buildOutput = new Map<string, string[]>();
  const brokenBuilds = new Set<string>();
  const key = (pkg: string, test: string) => `${pkg}\0${test}`;

  for (const line of stdout.split('\n')) {
    const plain = /^FAIL\t(\S+) \[(?:build|setup) failed\]/.exec(line);
    if (plain) {
      brokenBuilds.add(plain[1]!);
      continue;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      continue;
    }
    const event = GoEventSchema.safeParse(parsed);
    if (!event.success) continue;
    const { Action: action, Package: pkg = '', Test: test, Output: output, ImportPath: importPath } = event.data;
    if (action === 'build-output' && importPath !== undefined) {
      const pkgPath = importPathOf(importPath);
      buildOutput.set(pkgPath, [...(buildOutput.get(pkgPath) ?? []), output ?? '']);
    } else if (action === 'build-fail' && importPath !== undefined) brokenBuilds.add(importPathOf(importPath));
    else if (test === undefined) {
      // Only `output` events carry Output.
      if (output !== undefined) packageOutput.set(pkg, [...(packageOutput.get(pkg) ?? []), output]);
      if (action === 'fail') failedPackages.add(pkg);
    } else if (action === 'run') {
      if (!begun.has(key(pkg, test))) started.push({ pkg, test });
      begun.add(key(pkg, test));
    } else if (output !== undefined) outputs.set(key(pkg, test), [...(outputs.get(key(pkg, test)) ?? []), output]);
    else if (ENDS[action]) ended.set(key(pkg, test), ENDS[action]);
  }

  const cases: ReportCase[] = started.map(({ pkg, test }) => {
    const said = message(outputs.get(key(pkg, test)) ?? []);
    const outcome = ended.get(key(pkg, test));
    return {
      file: packageDir(pkg, modulePath),
      name: test,
      fullTitle: test,
      // Begun and never ended: the test binary stopped inside it (a timeout, an exit).
      outcome: outcome ?? 'failed',
      message: outcome === undefined ? [said, 'The test binary ended before this test finished.'].filter(Boolean).join('\n') : outcome === 'failed' ? said : '',
    };
  });

  const loadErrors: LoadError[] = [];
  const compiler = stderrBlocks(stderr);
  for (const pkg of brokenBuilds) {
    const lines =
      buildOutput
        .get(pkg)
        ?.map((l) => l.trimEnd())
        .filter((l) => !l.startsWith('# ')) ??
      compiler.get(pkg) ??
      // The go command's own word on it: `go build pkg: no non-test Go files in …`.
      compiler.get('')!.filter((l) => l.includes(pkg));
    loadErrors.push({ file: packageDir(pkg, modulePath), message: lines.join('\n').trim() || `${pkg} did not build` });
  }
  for (const pkg of failedPackages) {
    if (brokenBuilds.has(pkg) || cases.some((c) => c.outcome === 'failed' && c.file === packageDir(pkg, modulePath))) continue;
    const said = (packageOutput.get(pkg) ?? []).filter((l) => !/^(?:FAIL|PASS|ok)\b/.test(l));
    loadErrors.push({ file: packageDir(pkg, modulePath), message: message(said) || `${pkg} failed before any test ran` });
  }
  // Nothing ran and no package failed, but the go command complained: that is why (no module, a
  // package that does not exist, go.mod needing changes that cannot be made offline).
  const own = compiler.get('')!;
  if (cases.length === 0 && loadErrors.length === 0 && own.length > 0) loadErrors.push({ file: null, message: own.join('\n') });
  return { cases, loadErrors };
}

/** The module path `go.mod` at `root` declares; '' when there is none. */
export function goModulePath(root: string): string {
  let text: string;
  try {
    text = fs.readFileSync(path.join(root, 'go.mod'), 'utf8');
  } catch {
    return '';
  }
  return /^module\s+"?([^"\s]+)"?/m.exec(text)?.[1] ?? '';
}

/** What `go test -v` would have printed, from the `-json` stream (its lines that are not JSON kept), then stderr. */
export function goText(stdout: string, stderr: string): string {
  const lines: string[] = [];
  for (const line of stdout.split('\n')) {
    if (line === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      lines.push(`${line}\n`);
      continue;
    }
    const event = GoEventSchema.safeParse(parsed);
    if (event.success && event.data.Output !== undefined) lines.push(event.data.Output);
  }
  return [lines.join('').trimEnd(), stderr.trim()].filter(Boolean).join('\n');
}
