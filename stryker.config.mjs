// Mutation testing of the rules that guard safety and money (`npm run mutation`; README, "Mutation
// testing"). Only the unit tests of those rules run: each mutant is tried against the tests that
// cover it (perTest), and the incremental file, committed, makes a rerun try only the mutants
// whose code or tests changed.
import fs from 'node:fs';

/**
 * `file:start-end` for the block that opens on the first line matching `opening` and closes at
 * the first later `}` line with the same indentation: a mutate range that follows the code when
 * lines above it move. Throws when the opening is gone, so a rename cannot silently drop a rule.
 */
function block(file, opening) {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const start = lines.findIndex((line) => opening.test(line));
  if (start < 0) throw new Error(`stryker.config.mjs: no line matching ${opening} in ${file}`);
  const indent = /^\s*/.exec(lines[start])[0];
  const end = lines.findIndex((line, i) => i > start && line === `${indent}}`);
  if (end < 0) throw new Error(`stryker.config.mjs: the block at ${file}:${start + 1} does not close`);
  return `${file}:${start + 1}-${end + 1}`;
}

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  // Only the unit tests listed in that config; a static mutant runs those of them that import
  // the mutated file (vitest's related mode).
  vitest: { configFile: 'vitest.mutation.config.ts', related: true },
  mutate: [
    'server/http/base/security.ts',
    'server/tools/guard.ts',
    // Path confinement: the root's checks, and where a write may land.
    block('server/tools/read-tools.ts', /^export class ConfinedRoot\b/),
    block('server/tools/read-tools.ts', /^function checkPattern\(/),
    block('server/tools/worker-tools.ts', /^function requirePath\(/),
    block('server/tools/worker-tools.ts', /^export function resolveForWrite\(/),
    'server/engine/case.ts',
    // How a case's arguments are read: its declaration's reader (issue 31: parsed once, there).
    'server/tools/submit-case.ts',
    'server/seed/sink.ts',
    // The sink's check of a test file's path before it is joined to the worktree.
    block('server/store/seed-input.ts', /^export function unsafePathReason\(/),
    'server/store/event-log.ts',
    // The spend and token caps, and what a model call adds to the spend.
    block('server/engine/run-context.ts', /^function dollarsAsSet\(/),
    block('server/engine/run-context.ts', /^ {2}checkSpend\(\)/),
    block('server/engine/run-context.ts', /^ {2}checkSessionCaps\(\)/),
    'server/llm/call-record.ts',
    // No server write follows a link (issue 27): the one write module, and where the store, the
    // environment and crash recovery use it.
    'server/fs/tree.ts',
    block('server/env/provision.ts', /^export function linkNodeModules\(/),
    block('server/env/provision.ts', /^function writeIgnoreFile\(/),
    block('server/store/pid-lock.ts', /^export function acquirePidLock\(/),
    block('server/store/jsonl.ts', /^export function appendJsonl</),
    block('server/store/session-handle.ts', /^ {2}removeStaleTemps\(\)/),
    block('server/store/session-handle.ts', /^ {2}readonly addTask = \{/),
    block('server/store/serve-lock.ts', /^export function recordServeOrigin\(/),
    block('server/store/serve-lock.ts', /^export function liveServeOrigin\(/),
    block('server/jobs/job-runner.ts', /^export function recoverAfterCrash\(/),
    block('server/jobs/job-runner.ts', /^export function logJobFailure\(/),
    // What the run queue's Redis carries: signed, for one kind, queue and session, fresh, once.
    'server/jobs/queue-signing.ts',
    // Evidence that cannot be empty or gamed (issue 28): what the runner's report says ran, and
    // how a run is read against it.
    'server/proof/report-parsers.ts',
    block('server/proof/runner-report.ts', /^export function withReport\(/),
    block('server/proof/runner-report.ts', /^export function readRun\(/),
    block('server/proof/runner-report.ts', /^export function acceptanceVerdict\(/),
    // The locked test machinery: which files are machinery, and what of them may not change.
    'server/proof/test-machinery.ts',
    // The mutants a task's code gets, and the lines each criterion's cases ran.
    'server/proof/mutants.ts',
    block('server/proof/line-coverage.ts', /^export function tracerFor\(/),
    block('server/proof/line-coverage.ts', /^export function tracedCommand\(/),
    block('server/proof/line-coverage.ts', /^export function v8ExecutedLines\(/),
    block('server/proof/line-coverage.ts', /^export function istanbulExecutedLines\(/),
    // The receipt's status and its gaps; what the worker is told when a named case is not green.
    'shared/evidence.ts',
    'server/proof/green-gate.ts',
    // A case's repeated runs read as one proof; a test written for another runner than the project's.
    block('server/proof/red-proof.ts', /^export function combine\(/),
    block('server/proof/contract-check.ts', /^export function otherRunnerImport\(/),
    // Go's test events read case by case, and why a go run failed (issue 29).
    'server/proof/go-report.ts',
    'server/proof/go-check.ts',
    // cargo's lines read case by case (a result printed twice, counts that do not add up), and why a cargo run failed.
    'server/proof/cargo-report.ts',
    'server/proof/cargo-check.ts',
    // AVA's TAP read per file (its title prefixes, crashes, a summary the lines must add up to).
    'server/proof/ava-report.ts',
    'server/proof/tap-report.ts',
    block('server/proof/runner-report.ts', /^export function tapState\(/),
    block('server/env/detect.ts', /^function olderTap\(/),
    // Tilth's own uvu runner: the script and its arguments.
    'server/env/uvu-runner.ts',
    // Any runner's JUnit XML (the custom preset's {junit}): files, full names, files that did not load.
    'server/proof/junit-report.ts',
    'server/proof/junit-xml.ts',
    // Workspaces (issue 29, step 4): which packages a root declares, which package a test runs in,
    // where its command starts, how its report is named from the root, and the links its
    // node_modules get (never to the checkout's copy of a workspace package).
    'server/env/workspace.ts',
    block('server/env/detect.ts', /^function withWorkspace\(/),
    block('shared/project-env.ts', /^export function packageOf\(/),
    block('shared/project-env.ts', /^export function packageRun</),
    block('server/proc/untrusted.ts', /^function startFolder\(/),
    block('server/proof/runner-report.ts', /^export function fromPackage\(/),
    block('server/env/provision.ts', /^export function linkPlanned\(/),
    block('server/env/provision.ts', /^function workspaceTarget\(/),
    // Python environments (issue 29, step 5): the tool a project declares, .python-version, and
    // which interpreter its tests run with (Poetry's virtualenv by Poetry's own name for it).
    block('server/env/detect.ts', /^async function pythonManager\(/),
    block('server/env/detect.ts', /^export function pythonVersion\(/),
    block('server/env/detect.ts', /^async function pythonInterpreter\(/),
    block('server/env/detect.ts', /^async function poetryVenv\(/),
    block('server/env/detect.ts', /^async function pipenvVenv\(/),
    // What the worker can install or shadow (2026-12-07): the packages the checks run on, and a
    // Python runner's own modules.
    'server/env/dependency-guard.ts',
    block('server/env/provision.ts', /^export function projectScope\(/),
    'server/proof/python-runner-modules.ts',
    // Issue 31: per-session state dropped with the session, and the acceptance checks now in proof/.
    block('server/store/session-store.ts', /^ {2}private state<T>\(/),
    block('server/store/session-store.ts', /^ {2}private forget\(/),
    block('server/proof/checks.ts', /^export async function runChecks\(/),
    // Issue 32: the commands that run a task's named cases together, and a node file in one
    // process; background work's lower priority; the event index read in place.
    block('server/env/presets.ts', /^export function testCasesCommand\(/),
    block('server/env/presets.ts', /^function jsCasePattern\(/),
    block('server/env/presets.ts', /^export function inOneProcess\(/),
    block('server/env/presets.ts', /^export function unittestTarget\(/),
    block('shared/test-cases.ts', /^export function pythonModule\(/),
    block('server/proc/untrusted.ts', /^export function niced\(/),
    block('server/proc/untrusted.ts', /^export function idleClassHere\(/),
    'server/store/line-offsets.ts',
    block('server/proof/red-proof.ts', /^export async function proveCases\(/),
    block('server/proof/red-proof.ts', /^class GroupRunner\b/),
    // A finished run's summary from summary.json's first line: the stored view and when it holds.
    block('server/store/summary-file.ts', /^export function summaryText\(/),
    block('server/store/summary-file.ts', /^export async function storedWholeView\(/),
    block('server/store/summary-file.ts', /^async function firstLine\(/),
    block('server/store/session-store.ts', /^ {2}private async wholeViewOf\(/),
  ],
  coverageAnalysis: 'perTest',
  // The machine has two cores shared with others.
  concurrency: 2,
  timeoutMS: 10_000,
  incremental: true,
  incrementalFile: 'reports/stryker-incremental.json',
  // Nothing the unit tests above read lives here; not copying it makes the sandbox quick. The
  // acceptance checks' tests copy the small examples; bun's and deno's carry their runtimes.
  ignorePatterns: ['/web', '/docs', '/bench', '/examples/bun-todo', '/examples/deno-todo', '/sessions', '/dist', '/.reports', '/test-results', '/playwright-report'],
  reporters: ['clear-text', 'progress', 'html'],
  htmlReporter: { fileName: '.reports/mutation/index.html' },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  thresholds: { high: 95, low: 90, break: 90 },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
