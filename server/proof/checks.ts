/**
 * The mechanical gates a case must pass before the evaluator sees it (SPEC §6, "Checks"):
 *
 * 1. locked tests — no seed acceptance test may differ from its hash at seed time;
 * 2. acceptance — the current task's test plus every done task's, with the preset's runner;
 * 3. lint — only the files this task changed (ruff for Python when installed, go vet on the
 *    changed Go packages, clippy on a Rust crate when installed, the custom preset's lint
 *    command; none for node by default). The Python edition linted the whole workspace
 *    while testing one task, a bug this fixes.
 *
 * Each result carries its output, bounded by CHECK_OUTPUT_CAP, for the worker, the evaluator,
 * the event log and the UI. The tests and the linter are code the worker wrote or chose, so they
 * run like its shell: as untrusted code (proc/untrusted.ts).
 */
import path from 'node:path';
import type { z } from 'zod';
import { boundCheckOutput, type CheckResultSchema } from '../../shared/events.ts';
import type { CustomChecks, EnvPlan } from '../../shared/files.ts';
import { goBuildsFolder, type ProjectEnv } from '../../shared/project-env.ts';
import type { ChecksPreset } from '../../shared/seed.ts';
import { goPackages, packageGroups, packageScope, shellQuote, testCommand, type PackageGroup } from '../env/presets.ts';
import { processCapNote, runUntrusted, type Command, type UntrustedScope } from '../proc/untrusted.ts';
import { findOnPath } from '../proc/which.ts';
import { reportPresetOf } from './report-parsers.ts';
import { acceptanceVerdict, runWithReport, withReport, type NamedCases } from './runner-report.ts';
import { changedLockedTests } from '../store/seed-input.ts';
import { commitView, machineryChanges, machineryMessage, worktreeView, type MachineryInput, type TreeView } from './test-machinery.ts';
import { dependencyMessage, guardDependencies } from '../env/dependency-guard.ts';
import { Tree } from '../fs/tree.ts';

export type CheckResult = z.infer<typeof CheckResultSchema>;

/** Reference §3.4: a validator subprocess gets 180 s. */
export const CHECK_TIMEOUT_MS = 180_000;

export interface ChecksInput {
  /** Where the checks run: the worktree, its recorded git dirs, whether the network is allowed. */
  scope: UntrustedScope;
  preset: ChecksPreset;
  customChecks?: CustomChecks | undefined;
  /** The environment the seed was written for (the Python interpreter); null for older seeds. */
  env?: ProjectEnv | null | undefined;
  /** Acceptance test files to run: the current task's first, then every done task's. */
  testFiles: string[];
  /** Files this task changed (relative to the worktree), for lint. */
  changedFiles: string[];
  /** Seed test path → sha256 at seed time. */
  lockedTests: Record<string, string>;
  /** The cases the tasks' matrices name: the acceptance check passes only when each ran and passed. */
  namedCases?: NamedCases[] | undefined;
  /** The test machinery to compare with the seed (proof/test-machinery.ts); absent, none is compared. */
  machinery?: MachineryInput | undefined;
  /** The session's environment plan: its installed packages are put back before and after the runs (env/dependency-guard.ts); absent, nothing is. */
  plan?: EnvPlan | null | undefined;
  /** Makes again the packages an install or a setup made in the worktree when they changed since (env/session-env.ts). */
  remakePackages?: (() => Promise<{ changed: string[]; problem: string | null }>) | undefined;
  timeoutMs?: number;
  signal?: AbortSignal;
}

async function runCheck(name: string, command: Command, input: ChecksInput): Promise<CheckResult> {
  const started = performance.now();
  const run = await runUntrusted(command, input.scope, { timeoutMs: input.timeoutMs ?? CHECK_TIMEOUT_MS, signal: input.signal });
  return { ...checkResult(name, run, [], input), duration_ms: Math.round(performance.now() - started) };
}

/**
 * The acceptance tests, read from the runner's own report (runner-report.ts): zero cases run, a
 * named case that did not run or failed, or a report that contradicts the exit code fail the
 * check, saying so. A custom command without `{junit}` has only the exit code and the text: weaker
 * evidence. In a workspace each package's tests run from its folder with its runner, one run per
 * package, and the check passes only when every package's does.
 */
async function runAcceptance(input: ChecksInput): Promise<CheckResult> {
  const groups = packageGroups(input.preset, input.env ?? null, input.testFiles);
  if (groups.length === 1) return runAcceptanceIn(input, groups[0]!);
  const started = performance.now();
  const results: CheckResult[] = [];
  for (const group of groups) results.push(await runAcceptanceIn(input, group));
  const failed = results.find((r) => !r.passed);
  return {
    name: 'acceptance',
    passed: failed === undefined,
    exit_code: failed ? failed.exit_code : 0,
    ...boundCheckOutput(results.map((r) => r.output).join('\n\n')),
    duration_ms: Math.round(performance.now() - started),
    evidence: results.some((r) => r.evidence === 'text') ? 'text' : 'report',
  };
}

async function runAcceptanceIn(input: ChecksInput, group: PackageGroup): Promise<CheckResult> {
  const { preset, env, dir } = group;
  const scope = packageScope(input.scope, dir);
  const tree = Tree.at(input.scope.worktree);
  const read = (f: string) => tree.readFileNoFollow(path.posix.join(dir, f))?.toString('utf8') ?? null;
  const command = testCommand(preset, group.files, input.customChecks, env, read);
  const heading = dir === '' ? null : `── ${dir} (${preset}, run from the package's folder) ──`;
  const reportPreset = reportPresetOf(preset, input.customChecks);
  if (reportPreset === null) {
    const result = await runCheck('acceptance', command, { ...input, scope });
    const note = '(a custom command without {junit} has no runner report: this result is read from its exit code alone, weaker evidence of what ran)';
    return { ...result, ...boundCheckOutput([heading, result.output, note].filter(Boolean).join('\n')), evidence: 'text' };
  }
  const started = performance.now();
  const reported = await runWithReport(
    reportPreset,
    (file) => withReport(reportPreset, command, file, group.files, env),
    scope,
    { timeoutMs: input.timeoutMs ?? CHECK_TIMEOUT_MS, signal: input.signal },
    group.files,
  );
  const named = input.namedCases?.filter((n) => group.rootFiles.includes(n.file));
  const verdict = acceptanceVerdict(reportPreset, reported, group.rootFiles, named);
  const output = [heading, reported.output].filter(Boolean).join('\n');
  const result = checkResult('acceptance', { ...reported.run, output }, verdict.reasons, input);
  return { ...result, passed: result.passed && verdict.passed, duration_ms: Math.round(performance.now() - started), evidence: 'report' };
}

function checkResult(name: string, run: Awaited<ReturnType<typeof runUntrusted>>, reasons: string[], input: ChecksInput): CheckResult {
  const notes: string[] = [];
  const capped = processCapNote(run);
  if (capped) notes.push(`(${capped})`);
  if (run.spawnError) notes.push(`(the check could not start: ${run.spawnError})`);
  if (run.timedOut) notes.push(`(timed out after ${Math.round((input.timeoutMs ?? CHECK_TIMEOUT_MS) / 1000)} s and was stopped)`);
  return {
    name,
    passed: run.exitCode === 0 && !run.timedOut,
    exit_code: run.timedOut ? 124 : run.exitCode,
    ...boundCheckOutput([run.output, ...notes, ...reasons].filter(Boolean).join('\n')),
  };
}

/**
 * The lint check's command and where it starts ('' for the root). go vet runs inside a module, so in
 * a workspace of Go modules the changed packages are vetted from their module's folder (without a
 * go.work the root is in no module at all); changes in several modules are vetted module by module.
 */
function lintCommand(input: ChecksInput): { command: Command; dir: string } | null {
  if (input.preset !== 'go') {
    const command = rootLintCommand(input);
    return command && { command, dir: '' };
  }
  const tree = Tree.at(input.scope.worktree);
  const built = (f: string) => f.split('/').slice(0, -1).every(goBuildsFolder);
  const go = input.changedFiles.filter((f) => f.endsWith('.go') && built(f) && tree.readFileNoFollow(f) !== null);
  if (go.length === 0) return null;
  const groups = packageGroups('go', input.env ?? null, go);
  if (groups.length === 1) return { command: { kind: 'argv', command: 'go', args: ['vet', ...goPackages(groups[0]!.files)], env: {} }, dir: groups[0]!.dir };
  const each = groups.map((g) => `(cd ${shellQuote(g.dir === '' ? '.' : g.dir)} && go vet ${goPackages(g.files).map(shellQuote).join(' ')})`);
  return { command: { kind: 'shell', script: each.join(' && ') }, dir: '' };
}

/** go vet (above) aside: ruff on the changed Python files, clippy, the custom lint command. */
function rootLintCommand(input: ChecksInput): Command | null {
  if (input.preset === 'pytest' || input.preset === 'unittest') {
    const python = input.changedFiles.filter((f) => f.endsWith('.py'));
    if (python.length === 0 || !findOnPath('ruff')) return null;
    return { kind: 'argv', command: 'ruff', args: ['check', '--no-cache', ...python], env: {} };
  }
  if (input.preset === 'cargo') {
    // Clippy where the Rust install has it (rustup's default profile does; Debian's cargo does not):
    // its deny-by-default lints are likely bugs. Warnings, the project's own business, do not fail it.
    const rust = input.changedFiles.some((f) => f.endsWith('.rs') || f.endsWith('Cargo.toml'));
    return rust && findOnPath('cargo-clippy') ? { kind: 'argv', command: 'cargo', args: ['clippy', '--all-targets'], env: {} } : null;
  }
  if (input.preset === 'custom' && input.customChecks?.lint && input.changedFiles.length > 0) {
    return { kind: 'shell', script: input.customChecks.lint.replaceAll('{files}', input.changedFiles.map(shellQuote).join(' ')) };
  }
  return null;
}

/** The base commit's tree and the worktree's, walked once for the machinery and the dependency checks. */
interface Trees {
  base: TreeView | null;
  now: ReturnType<typeof worktreeView>;
}

async function treesOf(input: Pick<ChecksInput, 'scope' | 'machinery'>): Promise<Trees> {
  const base = input.machinery ? await commitView(input.machinery.source, input.machinery.baseSha) : null;
  return { base, now: worktreeView(input.scope.worktree) };
}

/**
 * The test machinery against the seed: a file that decides how the tests run, changed, added or
 * deleted (through bash: the file tools refuse it), fails at once, so no test runs on machinery
 * the worker changed and no evaluator is asked. A passing result when nothing differs; null when
 * there is no machinery to compare (no seed commit known).
 */
export async function testMachineryCheck(input: Pick<ChecksInput, 'scope' | 'lockedTests' | 'machinery'>, trees?: Trees): Promise<CheckResult | null> {
  const started = performance.now();
  const { base, now } = trees ?? (await treesOf(input));
  if (!input.machinery || !base) return null;
  const changes = await machineryChanges(base, now, Object.keys(input.lockedTests), input.machinery.allowed, input.machinery.shadow);
  // A passing result is kept too: the evidence receipt records that the tests ran on the seed's machinery.
  const output =
    changes.length === 0
      ? `The test machinery is as the seed commit ${input.machinery.baseSha.slice(0, 12)} has it: nothing that decides how the tests run was changed.`
      : machineryMessage(changes, input.machinery.baseSha);
  return {
    name: 'test_machinery',
    passed: changes.length === 0,
    exit_code: null,
    duration_ms: Math.round(performance.now() - started),
    ...boundCheckOutput(output),
  };
}

/**
 * The installed packages (env/dependency-guard.ts): the plan's `node_modules` links put back, the
 * packages made in the worktree made again when they changed, and a failed result naming what was
 * replaced, is stray or was made again; null when all was as the plan made it.
 */
async function dependencyCheck(input: Pick<ChecksInput, 'scope' | 'plan' | 'remakePackages'>, trees: Trees, during: boolean): Promise<CheckResult | null> {
  if (!input.plan) return null;
  const started = performance.now();
  const findings = guardDependencies(input.plan, input.scope.worktree, trees.now.dependencyDirs, trees.base?.files ?? new Set());
  const remade = (await input.remakePackages?.()) ?? { changed: [], problem: null };
  if (findings.replaced.length === 0 && findings.stray.length === 0 && remade.changed.length === 0) return null;
  findings.remade = remade.changed;
  findings.problem = remade.problem;
  return {
    name: 'dependencies',
    passed: false,
    exit_code: null,
    duration_ms: Math.round(performance.now() - started),
    ...boundCheckOutput(dependencyMessage(findings, during)),
  };
}

/** Runs every check in order; a changed locked test fails at once, before anything runs. */
export async function runChecks(input: ChecksInput): Promise<{ passed: boolean; results: CheckResult[] }> {
  const changedLocks = changedLockedTests(input.scope.worktree, input.lockedTests);
  if (changedLocks.length > 0) {
    // `git show`, not `git checkout --`: in the sandbox the worktree's git metadata is read-only,
    // and checkout needs the index lock.
    const restore = changedLocks.map((f) => `git show HEAD:${shellQuote(f)} > ${shellQuote(f)}`).join('; ');
    const output = `These acceptance tests were changed, and only the user may change them: ${changedLocks.join(', ')}. Restore them as committed (${restore}) and make the code pass them as they are.`;
    return { passed: false, results: [{ name: 'locked_tests', passed: false, exit_code: null, duration_ms: 0, ...boundCheckOutput(output) }] };
  }
  const trees = await treesOf(input);
  const machinery = await testMachineryCheck(input, trees);
  if (machinery && !machinery.passed) return { passed: false, results: [machinery] };
  const dependencies = await dependencyCheck(input, trees, false);
  if (dependencies) return { passed: false, results: [dependencies] };
  // The locked tests are frozen while the runner and the linter run (see UntrustedScope.frozen).
  const frozen = { ...input, scope: { ...input.scope, frozen: Object.keys(input.lockedTests) } };
  const results: CheckResult[] = [];
  if (input.testFiles.length > 0) {
    results.push(await runAcceptance(frozen));
  }
  const lint = lintCommand(frozen);
  if (lint) results.push(await runCheck('lint', lint.command, { ...frozen, scope: packageScope(frozen.scope, lint.dir) }));
  // Without the sandbox nothing froze them: a test rewritten during the run is what ran.
  const rewritten = changedLockedTests(input.scope.worktree, input.lockedTests);
  if (rewritten.length > 0) {
    const output = `These acceptance tests changed while the checks ran them, so what ran is not the seed's test: ${rewritten.join(', ')}. Something the run executes (a build script, a module the tests import) writes to them; make the code pass the tests without touching them.`;
    results.unshift({ name: 'locked_tests', passed: false, exit_code: null, duration_ms: 0, ...boundCheckOutput(output) });
  }
  // What the run itself put in place of the installed packages is put back for what runs next
  // (the green proof), and fails this attempt: the results came from a run that could load it.
  const changedDuring = await dependencyCheck(input, { base: trees.base, now: worktreeView(input.scope.worktree) }, true);
  if (changedDuring) results.unshift(changedDuring);
  // Last, though it ran first: the tests' own results lead where a reader looks first.
  if (machinery) results.push(machinery);
  return { passed: results.every((r) => r.passed), results };
}
