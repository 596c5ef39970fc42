/**
 * What the contract check and the proofs know about Rust tests: how a test asserts, and why a run
 * of `cargo test` failed, read from what cargo prints (cargo-report.ts reads it), as go-check.ts
 * does for Go. A Rust test that uses what the task adds does not compile until the task is done,
 * so "cannot find `x` in crate `crt`" and its kin are the usual red; a syntax error, a crate the
 * package does not depend on, or any other compile error are not.
 *
 * A failed build is red only when every error in it is a name the task may add: rustc reports
 * each unresolved name and suppresses the errors that follow from it, so an error of another kind
 * (a type mismatch, a wrong argument count) is a mistake in the test that the work will not
 * mend, and the test is refused with it. That refuses, too, a test that calls a function the
 * task changes (more arguments, another return type): such a test cannot compile before the
 * change, and nothing tells that apart from a mistake. Where rustc does not say which crate a
 * name is missing from, the reading is a heuristic, written down where it is made.
 */
import fs from 'node:fs';
import path from 'node:path';
import { type CargoError, cargoErrors, crateName, parseCargoTest } from './cargo-report.ts';
import { rustCode } from '../../shared/test-cases.ts';
import type { RunVerdict } from './report-shape.ts';

interface CargoRun {
  output: string;
  exitCode: number | null;
  spawnError: string | null;
}

interface CargoContext {
  /** The test file, relative to the worktree: `tests/t001_add.rs`. */
  file: string;
  worktree: string;
}

/** Assertions in a Rust test file: the assert macros, panics, `.unwrap_err()` and `#[should_panic]`. */
export function countRustAssertions(source: string): number {
  const code = rustCode(source);
  const macros = code.match(/\b(?:(?:debug_)?assert(?:_eq|_ne)?|panic|unreachable)!\(/g)?.length ?? 0;
  return macros + (code.match(/\.unwrap_err\(\)/g)?.length ?? 0) + (code.match(/#\[should_panic/g)?.length ?? 0);
}

type Missing = { kind: 'missing'; name: string };
type Reading = Missing | { kind: 'crate'; name: string } | { kind: 'other' };

/** A path's first segment: `crt::stats::mean` → `crt`. */
const head = (p: string) => p.split('::')[0]!;

/**
 * Whether the test file brings in all of the crate's names (`use crt::*;`, `use crt::{add, *};`):
 * then "cannot find `x` in this scope" may be a name the task adds to the crate — or the test's
 * own typo, which this cannot tell apart.
 */
function globsCrate(ctx: CargoContext, crate: string): boolean {
  let source: string;
  try {
    source = fs.readFileSync(path.join(ctx.worktree, ctx.file), 'utf8');
  } catch {
    return false;
  }
  return [...rustCode(source).matchAll(/\buse\s+(?:::)?(\w+)::([^;]*);/g)].some((m) => m[1] === crate && m[2]!.includes('*'));
}

/**
 * How an error of a test target reads: a name the task may add, a crate the package lacks, or
 * something else. rustc's older wordings (`failed to resolve: could not find`, `use of undeclared
 * type`, `undeclared crate or module`) are read too, for toolchains older than the 1.95 the
 * tests were captured with.
 */
function readError(e: CargoError, crate: string, globbed: boolean): Reading {
  const text = e.lines.join('\n');
  const unlinked = /(?:unlinked crate|undeclared crate or module|can't find crate for) `([^`]+)`/.exec(text);
  if (unlinked) return { kind: 'crate', name: unlinked[1]! };
  const inPath = /(?:cannot|could not) find (?:[a-z, ]+ )?`([^`]+)` in (?:(?:crate|module) )?`([^`]+)`/.exec(e.header);
  if (inPath) return head(inPath[2]!) === crate ? { kind: 'missing', name: inPath[1]! } : { kind: 'other' };
  // One error names every unresolved path of a `use` line: `unresolved imports `crt::a`, `crt::b``.
  const imported = /^error\[E0432\]: unresolved imports? (.+)$/.exec(e.header);
  if (imported) {
    const paths = [...imported[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    return paths.length > 0 && paths.every((p) => head(p) === crate) ? { kind: 'missing', name: paths[0]!.split('::').at(-1)! } : { kind: 'other' };
  }
  // rustc does not say which type a missing member would belong to: a member of a std type is
  // read as missing too (the task could add it with a trait).
  const member =
    /no (?:method|function or associated item|variant or associated item|associated item) named `([^`]+)` found/.exec(e.header) ??
    /no field `([^`]+)` on type/.exec(e.header) ??
    /(?:has no|does not have a) field named `([^`]+)`/.exec(e.header);
  if (member) return { kind: 'missing', name: member[1]! };
  const inScope = /cannot find [a-z, ]+ `([^`]+)` in this scope|use of undeclared type `([^`]+)`/.exec(e.header);
  if (inScope && globbed) return { kind: 'missing', name: inScope[1] ?? inScope[2]! };
  return { kind: 'other' };
}

const SYNTAX = /^error: (?:expected |this file contains an unclosed delimiter|unexpected closing delimiter|mismatched closing delimiter)/;
const OFFLINE =
  /no matching package named|failed to get `|failed to select a version|attempting to make an HTTP request, but --offline was specified|cannot (?:create|update) the lock file|needs to be updated but --locked was passed/;

export function classifyCargo(out: string, run: CargoRun, ctx: CargoContext): RunVerdict {
  if (run.spawnError !== null || run.exitCode === 126 || run.exitCode === 127) {
    return {
      kind: 'environment',
      message: `cargo could not be started (${run.spawnError ?? `exit code ${run.exitCode}`}). Install Rust's cargo and put it on the PATH of the Tilth server (on Debian and Ubuntu: \`apt-get install -y cargo\`, or rustup), then check again.`,
      runner: true,
    };
  }
  if (/could not find `Cargo\.toml`/.test(out)) {
    return {
      kind: 'environment',
      message: `cargo found no package for ${ctx.file}: the repository needs a Cargo.toml at its root (\`cargo init\`), then check again.`,
      runner: true,
    };
  }
  if (/no test target named/.test(out)) {
    return {
      kind: 'environment',
      message: `cargo has no test target for ${ctx.file}: a test file must sit directly under tests/, where cargo builds each one as its own test target (unless Cargo.toml says \`autotests = false\`, which turns that off).`,
    };
  }
  const offline = out.split('\n').find((l) => OFFLINE.test(l));
  if (offline !== undefined) {
    return {
      kind: 'environment',
      message: `${ctx.file} does not build: cargo could not get a dependency (${offline.replace(/^error: /, '')}). The checks run offline: run \`cargo fetch\` in the repository so cargo's cache has it, then check again.`,
    };
  }
  const all = cargoErrors(out);
  const errors = all.filter((e) => e.target !== null);
  const syntax = errors.find((e) => SYNTAX.test(e.header) && e.at?.file === ctx.file);
  if (syntax) {
    return {
      kind: 'environment',
      message: `${ctx.file} does not parse: line ${syntax.at!.line}: ${syntax.header.replace(/^error: /, '')}. The test has a syntax error: fix it in seed review.`,
    };
  }
  if (errors.length > 0) return brokenBuild(errors, ctx);
  const report = parseCargoTest(out);
  const ours = report.cases.filter((c) => c.file === ctx.file);
  const trouble = report.loadErrors.find((e) => e.file === ctx.file);
  if (run.exitCode === 0) {
    if (trouble) return { kind: 'does_not_load', message: `cargo exited 0, but its output for ${ctx.file} cannot be trusted: ${trouble.message}` };
    if (ours.length === 0) {
      return {
        kind: 'does_not_load',
        message: `cargo ran no test from ${ctx.file}: tests are functions marked #[test] (\`#[test] fn adds() { … }\`), in a file directly under tests/.`,
      };
    }
    return { kind: 'passes' };
  }
  if (ours.some((c) => c.outcome === 'failed')) return { kind: 'fails_as_expected', reason: 'a test failed' };
  const crashed = /process didn't exit successfully: .*\((.+)\)$/m.exec(trouble?.message ?? '');
  if (trouble) return { kind: 'fails_as_expected', reason: `a test ended the test binary early${crashed ? ` (${crashed[1]})` : ''}` };
  // cargo's own error, nothing built: about the package (a manifest cargo cannot read), so every file's.
  const own = all.find((e) => e.target === null);
  if (own) {
    const where = own.at ? ` (${own.at.file}, line ${own.at.line})` : '';
    return {
      kind: 'environment',
      message: `cargo could not run ${ctx.file}: ${own.header.replace(/^error: /, '')}${where}. Fix that in the repository, then check again.`,
      runner: true,
    };
  }
  return { kind: 'fails_as_expected', reason: 'a test failed' };
}

/** A build that failed: red when every error is a name the task may add (see the module's doc). */
function brokenBuild(errors: CargoError[], ctx: CargoContext): RunVerdict {
  const crate = crateName(ctx.worktree);
  const globbed = globsCrate(ctx, crate);
  // The library's own errors are not the test's: only a test target's errors can be the red.
  const readings = errors.map((e) => (e.testName === null ? { kind: 'other' as const } : readError(e, crate, globbed)));
  const foreign = readings.find((r) => r.kind === 'crate');
  if (foreign) {
    if (foreign.name === crate) return { kind: 'fails_as_expected', reason: `the library crate \`${crate}\` does not exist yet` };
    return {
      kind: 'does_not_load',
      message: `${ctx.file} does not build: it uses the crate \`${foreign.name}\`, which the package does not depend on and the checks cannot fetch (they run offline). Use the standard library and the crates Cargo.toml already lists${crate ? ` (the package's own crate is \`${crate}\`)` : ''}.`,
    };
  }
  const missing = readings.filter((r): r is Missing => r.kind === 'missing');
  if (missing.length === readings.length) return { kind: 'fails_as_expected', reason: `\`${missing[0]!.name}\` is not defined yet` };
  const other = errors[readings.findIndex((r) => r.kind === 'other')]!;
  const where = other.at ? `${other.at.file}:${other.at.line}: ` : '';
  return { kind: 'does_not_load', message: `${ctx.file} does not build, for a reason other than the missing work: ${where}${other.header}` };
}
