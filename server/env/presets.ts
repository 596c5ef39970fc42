/**
 * Checks presets (SPEC §6, "Checks"; issue 12): one per test runner — vitest, jest, mocha,
 * node, pytest, unittest — plus the user's own commands (custom). For each: which one a workspace
 * gets, how its acceptance tests are named (the rule lives in `shared/seed.ts`, so the sink, the
 * seed review page and the prompt agree on it), the command that runs given files through the
 * project's own runner, and what the interviewer is told about writing them.
 *
 * The runners are the project's own, installed in its `node_modules` (which the worktree gets at
 * prep) or its virtualenv: never a global one, whose version and plugins would not be the
 * project's, and never fetched on demand (`npx vitest` would download when it is missing).
 */
import path from 'node:path';
import type { Command as TestCommand } from '../proc/untrusted.ts';
import { drivenPackages, packageEnv, packageRun, type ProjectEnv, UNDRIVEN_RUNNERS, type Workspace, type WorkspacePackage } from '../../shared/project-env.ts';
import { writesJunit } from '../../shared/files.ts';
import { testFileRule, type ChecksPreset, type CustomChecks, type TestFileRule } from '../../shared/seed.ts';
import { JS_NAME_SEPARATOR, ownTitle, pythonModule, spacedName } from '../../shared/test-cases.ts';
import { detectProjectEnv } from './detect.ts';
import { uvuArgs } from './uvu-runner.ts';
import { AppError } from '../errors/app-error.ts';

/** The preset a detected environment gets (see `presetFor`). */
export async function detectPreset(repoRoot: string): Promise<ChecksPreset> {
  return presetFor(await detectProjectEnv(repoRoot));
}

/**
 * The preset for an environment: its test runner when one was found; custom when the runner found
 * is one Tilth does not drive yet (issue 29). Without one, a Python
 * project gets pytest (it also runs unittest tests), a JavaScript one Node's own runner (no
 * dependency needed), and anything else — TypeScript without a runner included, since Node 20
 * cannot load `.ts` — the user's own commands, set in seed review.
 */
export function presetFor(env: ProjectEnv): ChecksPreset {
  if (env.test_runner) return env.test_runner;
  // A runner the project names but Tilth does not drive: the user's own command, never a stand-in.
  if (env.undriven_runner) return 'custom';
  if (env.python) return 'pytest';
  if (env.languages.includes('javascript')) return 'node';
  return 'custom';
}

/**
 * Test files (relative to the root) grouped by where they run: in a workspace, by package, each
 * group with its package's runner, environment and the files' paths inside the package (`files`;
 * `rootFiles` the same files from the root); elsewhere one group at the root.
 */
export interface PackageGroup {
  dir: string;
  preset: ChecksPreset;
  env: ProjectEnv | null;
  files: string[];
  rootFiles: string[];
}

export function packageGroups(preset: ChecksPreset, env: ProjectEnv | null | undefined, files: readonly string[]): PackageGroup[] {
  const groups = new Map<string, PackageGroup>();
  for (const file of files) {
    const run = packageRun(preset, env, file);
    const group = groups.get(run.dir) ?? { dir: run.dir, preset: run.preset, env: run.env, files: [], rootFiles: [] };
    group.files.push(run.file);
    group.rootFiles.push(file);
    groups.set(run.dir, group);
  }
  return [...groups.values()];
}

/** A scope that starts its commands in a package's folder ('' for the root: the scope as it is). */
export function packageScope<S extends { cwd?: string | undefined }>(scope: S, dir: string): S {
  return dir === '' ? scope : { ...scope, cwd: dir };
}

/** The acceptance-test naming rule of a preset in an environment. */
export function testFilePattern(preset: ChecksPreset, env: ProjectEnv | null = null): TestFileRule {
  return testFileRule(preset, env);
}

/** What the rest of a test file's name may contain, in words, for error messages. */
export function slugRule(preset: ChecksPreset, env: ProjectEnv | null = null): string {
  return testFileRule(preset, env).slugRule;
}

/** The digits of a task id: `T-001` → `001`; null when the id is not `T-<3+ digits>`. */
export function taskDigits(taskId: string): string | null {
  return /^T-(\d{3,})$/.exec(taskId)?.[1] ?? null;
}

/** `T-001` → `tests/test_t001_` (pytest, unittest) or `tests/t001_` (the JavaScript runners, custom); the folder follows the rule. */
export function expectedTestPrefix(preset: ChecksPreset, taskId: string, env: ProjectEnv | null = null): string {
  const digits = taskDigits(taskId);
  if (digits === null) throw new AppError('invalid_task_id', `'${taskId}' is not a task id like T-001`);
  return testFileRule(preset, env).prefix(digits);
}

/**
 * The task a test file belongs to, by the digits in its name (`tests/t001_x.test.js` → T-001),
 * or null when the path does not follow the preset's pattern. The digits are kept as written, so
 * T-001's file is `t001_…`, never `t0001_…` — the same rule as `expectedTestPrefix`.
 */
export function taskIdOfTestFile(preset: ChecksPreset, file: string, env: ProjectEnv | null = null): string | null {
  const digits = testFileRule(preset, env).regex.exec(file)?.[1];
  return digits === undefined ? null : `T-${digits}`;
}

export type { Command as TestCommand } from '../proc/untrusted.ts';

/** The interpreter a Python preset runs with: the project's virtualenv one when it has one. */
export function pythonOf(env: ProjectEnv | null): string {
  return env?.python?.interpreter ?? 'python3';
}

/**
 * The environment of a Python run. No bytecode files: the worktree is committed with `git add -A`,
 * so `__pycache__/` must not appear in it. With the src layout, the worktree's `src/` goes first
 * on the path: a project installed in its virtualenv in editable mode would otherwise import the
 * source checkout's code, not the worktree's.
 */
export function pythonRunEnv(env: ProjectEnv | null): Record<string, string> {
  return { PYTHONDONTWRITEBYTECODE: '1', ...(env?.python?.src_layout ? { PYTHONPATH: 'src' } : {}) };
}

/** The project's own copy of a JavaScript runner, from the worktree root. */
export function localBin(name: string): string {
  return `node_modules/.bin/${name}`;
}

/**
 * How to run some acceptance tests, from the worktree root.
 *
 * - pytest runs with its cache plugin off (no `.pytest_cache/` in the worktree).
 * - vitest runs once (`run`, never watch); the files are filters on its `include`, which is why
 *   the naming rule follows the project's config.
 * - jest takes the files as paths, not as patterns (`--runTestsByPath`), and `--ci` so a missing
 *   snapshot fails instead of being written.
 * - mocha adds its configured `spec` to the files given (mochajs/mocha#5412), so where a
 *   `.mocharc` sets one, the project's own suite runs beside the acceptance tests.
 * - AVA runs its tests in child processes instead of worker threads (`--no-worker-threads`): a
 *   child's stdout is a pipe AVA reads, so a test cannot write into AVA's own report.
 * - node-tap (18 and later) runs with its coverage check off: with it on, a passing run fails
 *   unless the code under test is 100% covered, which says nothing of the task's cases.
 */
export function testCommand(
  preset: ChecksPreset,
  files: string[],
  custom?: CustomChecks,
  env: ProjectEnv | null = null,
  read?: (file: string) => string | null,
): TestCommand {
  switch (preset) {
    case 'go': {
      // go runs packages, not files: the files' own top-level tests, by name, in their packages —
      // never the package's other tests, whose passing would say nothing about these files.
      const names = read ? [...new Set(files.flatMap((f) => goTestNames(read(f) ?? '')))] : null;
      const filter = names === null ? [] : ['-run', names.length > 0 ? `^(${names.join('|')})$` : '^$'];
      return { kind: 'argv', command: 'go', args: ['test', '-count=1', ...filter, ...goPackages(files)], env: {} };
    }
    case 'cargo':
      return { kind: 'argv', command: 'cargo', args: ['test', '--no-fail-fast', ...cargoTargets(files)], env: {} };
    case 'pytest':
      return { kind: 'argv', command: pythonOf(env), args: ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', ...files], env: pythonRunEnv(env) };
    case 'unittest':
      return { kind: 'argv', command: pythonOf(env), args: ['-m', 'unittest', '-v', ...files], env: pythonRunEnv(env) };
    case 'node':
      return { kind: 'argv', command: 'node', args: ['--test', ...files], env: {} };
    case 'vitest':
      return { kind: 'argv', command: localBin('vitest'), args: ['run', ...files], env: {} };
    case 'jest':
      return { kind: 'argv', command: localBin('jest'), args: ['--ci', '--runTestsByPath', ...files], env: {} };
    case 'mocha':
      return { kind: 'argv', command: localBin('mocha'), args: files, env: {} };
    case 'ava':
      return { kind: 'argv', command: localBin('ava'), args: ['--no-worker-threads', ...files], env: {} };
    case 'tap':
      return { kind: 'argv', command: localBin('tap'), args: ['--disable-coverage', ...files], env: {} };
    case 'uvu':
      // uvu's CLI takes a folder and a pattern, not files: Tilth's own uvu runner (env/uvu-runner.ts).
      return { kind: 'argv', command: 'node', args: uvuArgs('', files), env: {} };
    case 'custom':
      if (!custom) {
        throw new AppError('custom_checks_missing', 'The custom checks preset needs a test command with a {files} placeholder; set it in seed review.');
      }
      return { kind: 'shell', script: customScript(custom.test, { files: files.map(shellQuote).join(' ') }) };
  }
}

/**
 * A run of one node test file in the process that loads it: node:test runs a file's tests where
 * the file is loaded and exits non-zero when one fails, its name patterns and reporters as under
 * `--test`, which starts a child process per file on top — half the process starts, for runs that
 * read only the exit code or the cases' outcomes (the green proof, the mutation probe; issue 32).
 * A file that does not load then writes no report (its run's output says why), so the red proof,
 * which reads a load failure as red or not, keeps `--test`. Any other command is returned as is.
 */
export function inOneProcess(command: TestCommand): TestCommand {
  if (command.kind !== 'argv' || command.command !== 'node' || command.args[0] !== '--test') return command;
  const rest = command.args.slice(1);
  return rest.filter((arg) => !arg.startsWith('-')).length === 1 ? { ...command, args: rest } : command;
}

/**
 * Where a custom command's `{junit}` points when no one reads the report (the contract check, the
 * mutation probe): a file in a folder of its own the script makes with `mktemp -d` (0700, under
 * $TMPDIR or /tmp) and removes on exit, never the worktree and never a fixed name in a shared /tmp
 * another local user could have put a symlink at. A run that reads the report (runner-report.ts)
 * puts its own path in this one's place and drops UNREAD_JUNIT_SETUP.
 */
export const UNREAD_JUNIT = '"$tilth_unread/junit.xml"';
export const UNREAD_JUNIT_SETUP = `tilth_unread=$(mktemp -d) || exit 1; trap 'rm -rf "$tilth_unread"' EXIT; `;

/**
 * A custom command with its placeholders filled in one pass (so a name holding `{junit}` stays a
 * name); `{junit}` defaults to UNREAD_JUNIT, with the setup that makes its folder.
 */
function customScript(template: string, values: { files?: string; file?: string; case?: string; case_pattern?: string }): string {
  const all: Record<string, string | undefined> = { junit: UNREAD_JUNIT, ...values };
  const script = template.replace(/\{(files|file|case|case_pattern|junit)\}/g, (whole, key: string) => all[key] ?? whole);
  return writesJunit(template) ? UNREAD_JUNIT_SETUP + script : script;
}

/**
 * The command that runs one named test case of `file` by itself (the red and green proofs), or
 * null where no run can say how one case ended (a custom command without `{junit}`). JavaScript
 * runners match the name against the case's full title (describe blocks, then the case), so the
 * pattern is the escaped name anchored at the end; node's test runner matches each test's own
 * name, anchored at both ends.
 */
export function testCaseCommand(preset: ChecksPreset, file: string, name: string, env: ProjectEnv | null = null, custom?: CustomChecks): TestCommand | null {
  const pattern = jsCasePattern(name);
  switch (preset) {
    case 'go':
      // Each level of a subtest is its own pattern: `TestX/two_words` → `^TestX$/^two_words$`.
      return { kind: 'argv', command: 'go', args: ['test', '-count=1', '-run', goCasePattern(name), ...goPackages([file])], env: {} };
    case 'cargo':
      // libtest's full name (`module::name`), matched whole: `--exact` turns off its substring match.
      return { kind: 'argv', command: 'cargo', args: ['test', '--no-fail-fast', ...cargoTargets([file]), '--', '--exact', name], env: {} };
    case 'pytest':
      return { kind: 'argv', command: pythonOf(env), args: ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', `${file}::${name}`], env: pythonRunEnv(env) };
    case 'unittest':
      return { kind: 'argv', command: pythonOf(env), args: ['-m', 'unittest', '-v', unittestTarget(file, name)], env: pythonRunEnv(env) };
    case 'node':
      // node matches each test's own name; the report then picks the case by its full title.
      return { kind: 'argv', command: 'node', args: ['--test', `--test-name-pattern=^${escapeRegExp(ownTitle(name))}$`, file], env: {} };
    case 'vitest':
      return { kind: 'argv', command: localBin('vitest'), args: ['run', file, '-t', pattern], env: {} };
    case 'jest':
      return { kind: 'argv', command: localBin('jest'), args: ['--ci', '--runTestsByPath', file, '-t', pattern], env: {} };
    case 'mocha':
      return { kind: 'argv', command: localBin('mocha'), args: [file, '--grep', pattern], env: {} };
    case 'ava':
      // AVA matches a whole title, ignoring case, with `*` as a wildcard it cannot escape: the
      // report then says which of the cases it ran is the named one, by its exact title.
      return { kind: 'argv', command: localBin('ava'), args: ['--no-worker-threads', file, '--match', name], env: {} };
    case 'tap':
      // tap filters one nesting level per `--grep`: each title of the full name, whole; the
      // subtests beside them are skipped ("filter"), and the report picks the named case. A bare
      // title (a seed from before full names) may sit at any depth: the whole file runs.
      return {
        kind: 'argv',
        command: localBin('tap'),
        args: ['--disable-coverage', ...(name.includes(JS_NAME_SEPARATOR) ? tapGreps(name) : []), file],
        env: {},
      };
    case 'uvu':
      return { kind: 'argv', command: 'node', args: uvuArgs('', [file], [name]), env: {} };
    case 'custom':
      // Only a command that writes JUnit can say how one case ended: its one-case command, else
      // the whole file, whose report has the case.
      if (!custom || !writesJunit(custom.test)) return null;
      if (!custom.case) return testCommand('custom', [file], custom);
      return {
        kind: 'shell',
        script: customScript(custom.case, {
          file: shellQuote(file),
          case: shellQuote(name),
          // As jest, vitest and bun match a full name: joined by spaces.
          case_pattern: shellQuote(`^${escapeRegExp(spacedName(name))}$`),
        }),
      };
  }
}

/**
 * The command that runs some named cases of `file` together, in one runner process (a proof's
 * run, issue 32): the runner's own way to select several, so the cases the report then tells apart
 * are those asked for. One name is `testCaseCommand`'s run. Where a runner cannot select exactly
 * those cases in one run it runs a few more, never fewer, and the report picks the named ones: Go
 * subtests run under their whole top-level tests, node-tap and a custom command with a one-case
 * template run the whole file. Null as `testCaseCommand`.
 */
export function testCasesCommand(
  preset: ChecksPreset,
  file: string,
  names: readonly string[],
  env: ProjectEnv | null = null,
  custom?: CustomChecks,
): TestCommand | null {
  if (names.length === 1) return testCaseCommand(preset, file, names[0]!, env, custom);
  const jsPattern = names.map((name) => `(?:${jsCasePattern(name)})`).join('|');
  switch (preset) {
    case 'go': {
      const subtests = names.some((name) => name.includes('/'));
      const pattern = subtests ? `^(?:${[...new Set(names.map((n) => escapeRegExp(n.split('/')[0]!)))].join('|')})$` : names.map(goCasePattern).join('|');
      return { kind: 'argv', command: 'go', args: ['test', '-count=1', '-run', pattern, ...goPackages([file])], env: {} };
    }
    case 'cargo':
      // libtest takes several filters; with `--exact`, each a whole name.
      return { kind: 'argv', command: 'cargo', args: ['test', '--no-fail-fast', ...cargoTargets([file]), '--', '--exact', ...names], env: {} };
    case 'pytest':
      return {
        kind: 'argv',
        command: pythonOf(env),
        args: ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', ...names.map((n) => `${file}::${n}`)],
        env: pythonRunEnv(env),
      };
    case 'unittest':
      return { kind: 'argv', command: pythonOf(env), args: ['-m', 'unittest', '-v', ...names.map((n) => unittestTarget(file, n))], env: pythonRunEnv(env) };
    case 'node':
      // Several patterns: a test whose own name matches any runs.
      return { kind: 'argv', command: 'node', args: ['--test', ...names.map((n) => `--test-name-pattern=^${escapeRegExp(ownTitle(n))}$`), file], env: {} };
    case 'vitest':
      return { kind: 'argv', command: localBin('vitest'), args: ['run', file, '-t', jsPattern], env: {} };
    case 'jest':
      return { kind: 'argv', command: localBin('jest'), args: ['--ci', '--runTestsByPath', file, '-t', jsPattern], env: {} };
    case 'mocha':
      return { kind: 'argv', command: localBin('mocha'), args: [file, '--grep', jsPattern], env: {} };
    case 'ava':
      // Several `--match`: a title matching any runs.
      return { kind: 'argv', command: localBin('ava'), args: ['--no-worker-threads', file, ...names.flatMap((n) => ['--match', n])], env: {} };
    case 'tap':
      return { kind: 'argv', command: localBin('tap'), args: ['--disable-coverage', file], env: {} };
    case 'uvu':
      return { kind: 'argv', command: 'node', args: uvuArgs('', [file], names), env: {} };
    case 'custom':
      if (!custom || !writesJunit(custom.test)) return null;
      return testCommand('custom', [file], custom);
  }
}

/** A case as unittest names it on its command line: `Class::test_x` in tests/test_a.py → `tests.test_a.Class.test_x`. */
export function unittestTarget(file: string, name: string): string {
  return `${pythonModule(file)}.${name.replace('::', '.')}`;
}

/**
 * A JavaScript name as jest's, vitest's and mocha's filter: matched against the full title joined
 * by spaces, a full name (`todo › adds`) anchored at both ends, a bare title at the end (it may
 * sit in any describe).
 */
function jsCasePattern(name: string): string {
  return name.includes(JS_NAME_SEPARATOR) ? `^${escapeRegExp(spacedName(name))}$` : `${escapeRegExp(name)}$`;
}

/**
 * The interviewer's and worker's account of a workspace: where tests go and how each package's run,
 * then each runner's idiom as a single project's, its paths relative to the package.
 */
function describeWorkspace(env: ProjectEnv, workspace: Workspace, packages: WorkspacePackage[], custom?: CustomChecks): string {
  const rule = testFileRule(env.test_runner!, env);
  const listed = packages.map((p) => `${p.dir} (${p.name}, ${p.test_runner})`).join(', ');
  const intro = [
    `This repository is a ${workspace.tool} workspace (${workspace.evidence}) whose packages run their own tests, each from the package's folder with its own runner and its installed dependencies (the workspace's other packages included): ${listed}.`,
    `Write exactly one acceptance test file per task, in the package whose code it tests, named ${rule.describe}, with the task's number (for T-001 in ${packages[0]!.dir}: ${rule.example}).`,
    "Inside a test, import the package's own code by a relative path within the package, and another package of the workspace by its package name, never by a path into its folder.",
  ].join(' ');
  const runners = [...new Set(packages.map((p) => p.test_runner!))];
  const idioms = runners.map((runner) => {
    const users = packages.filter((p) => p.test_runner === runner);
    return `In ${users.map((p) => p.dir).join(', ')} (paths below relative to the package's folder): ${describePresetForPrompt(runner, custom, packageEnv(env, users[0]!))}`;
  });
  return [intro, ...idioms].join('\n\n');
}

/** The top-level tests a Go test file declares (`func TestX(t *testing.T)`, fuzz targets too). */
export function goTestNames(source: string): string[] {
  return [...source.matchAll(/^func\s+((?:Test|Fuzz)(?![a-z])\w*)\s*\(/gm)].map((m) => m[1]!);
}

/**
 * The test targets of some integration test files, as cargo selects them: `tests/t001_x.rs` is
 * the target `t001_x`. Only those targets build and run — not the library's unit tests, not the
 * doc tests, not the other test files, whose results would say nothing about these files.
 */
export function cargoTargets(files: string[]): string[] {
  return [...new Set(files.map((f) => path.posix.basename(f, '.rs')))].flatMap((target) => ['--test', target]);
}

/** The packages of some Go files, as go takes them: `./calc`, `.` for the module root. */
export function goPackages(files: string[]): string[] {
  return [...new Set(files.map((f) => (path.posix.dirname(f) === '.' ? '.' : `./${path.posix.dirname(f)}`)))];
}

/** A Go case's full name as a `-run` pattern, each level anchored: `TestX/two words` → `^TestX$/^two_words$`. */
export function goCasePattern(name: string): string {
  return name
    .split('/')
    .map((level) => `^${escapeRegExp(level.replaceAll(' ', '_'))}$`)
    .join('/');
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The command as a user would type it, for prompts and messages. */
export function commandLine(command: TestCommand): string {
  return command.kind === 'shell' ? command.script : [command.command, ...command.args].map(shellQuote).join(' ');
}

/** POSIX single quoting: safe for any string, quotes and spaces included. */
export function shellQuote(value: string): string {
  return /^[A-Za-z0-9_./=-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

const FAIL_FIRST =
  'Give every acceptance criterion at least one assertion. The tests must fail now, because the feature does not exist yet, and pass once it is built.';

/** How a JavaScript test file loads code, by its ending and the package's module type. */
function moduleStyle(ending: string, env: ProjectEnv | null): string {
  if (/\.[cm]?tsx?$/.test(ending)) {
    return 'Write TypeScript with `import` statements, and import the code under test by a relative path the way the existing tests do (with or without an extension, as they do).';
  }
  if (ending.endsWith('.cjs') || (env?.module_type === 'commonjs' && ending.endsWith('.js'))) {
    return "The package is CommonJS: load modules with `require()` (e.g. `const { x } = require('../src/x');`), not `import`.";
  }
  return 'Write ES modules (`import … from`), importing the code under test by a relative path with its extension (e.g. `../src/x.js`).';
}

/** `--grep` per level of a node-tap full name (`outer › inner`), each anchored at both ends. */
export function tapGreps(name: string): string[] {
  return name.split(JS_NAME_SEPARATOR).map((title) => `--grep=^${escapeRegExp(title)}$`);
}

/** A short paragraph for the interviewer's prompt: how to name and write the acceptance tests. */
export function describePresetForPrompt(preset: ChecksPreset, custom?: CustomChecks, env: ProjectEnv | null = null): string {
  const packages = env && preset === env.test_runner ? drivenPackages(env) : [];
  if (env?.workspace && packages.length > 0) return describeWorkspace(env, env.workspace, packages, custom);
  const rule = testFileRule(preset, env);
  const naming = `Write exactly one acceptance test file per task, named ${rule.describe} with the task's number (for T-001: ${rule.example}); ${rule.slugRule}.`;
  const where =
    env && preset === env.test_runner
      ? ` That folder and name are ones the repository's own ${preset} configuration picks up, so its usual test command runs them too.`
      : '';
  const example = rule.example;
  const python = pythonOf(env);
  const imports = env?.python?.packages.length
    ? ` Import the project's code by its package name (${env.python.packages
        .slice(0, 3)
        .map((p) => `\`${p}\``)
        .join(', ')})${env.python.src_layout ? '; `src/` is on the path' : ''}.`
    : ' Import the code under test the way the existing tests do.';
  switch (preset) {
    case 'pytest':
      return [
        `This repository's tests run with pytest (\`${python} -m pytest -q <file>\` from the repository root). ${naming}${where}`,
        'Write plain pytest functions (`def test_…():`) with bare `assert` statements, and `pytest.raises` for expected errors; no unittest classes.',
        `${imports.trim()} ${FAIL_FIRST}`,
      ].join(' ');
    case 'unittest':
      return [
        `This repository's tests use Python's own unittest (\`${python} -m unittest ${example}\` from the repository root). ${naming}${where}`,
        'Write a `unittest.TestCase` subclass whose test methods are named `test_…`, checking with `self.assertEqual`, `self.assertTrue`, `self.assertIn`, `self.assertRaises` and the like; do not use pytest, which may not be installed.',
        `${imports.trim()} ${FAIL_FIRST}`,
      ].join(' ');
    case 'node': {
      const cjs = env?.module_type === 'commonjs';
      return [
        `This repository's tests run with Node's built-in test runner (\`node --test <file>\`). ${naming}${where}`,
        cjs
          ? "The package is CommonJS: `const { test } = require('node:test');` and `const assert = require('node:assert/strict');`, then `require()` the code under test by a relative path. No test framework dependencies, and no `describe`/`it` globals unless you take them from node:test too."
          : "Use ES modules: `import { test } from 'node:test';` and `import assert from 'node:assert/strict';`, then import the code under test by a relative path with its extension (e.g. `../src/x.js`). No test framework dependencies, and no `describe`/`it` globals unless you import them from node:test too.",
        FAIL_FIRST,
      ].join(' ');
    }
    case 'vitest':
      return [
        `This repository's tests run with Vitest, the copy installed in its node_modules, with its own config (\`node_modules/.bin/vitest run ${example}\`). ${naming}${where}`,
        "Import what the test uses from 'vitest' (`import { describe, it, expect } from 'vitest';`) rather than relying on globals, and check results with `expect(…)`.",
        moduleStyle(rule.endings[0]!, env),
        FAIL_FIRST,
      ].join(' ');
    case 'jest':
      return [
        `This repository's tests run with Jest, the copy installed in its node_modules, with its own config (\`node_modules/.bin/jest ${example}\`). ${naming}${where}`,
        "`describe`, `test`/`it` and `expect` are Jest's globals; use them as the existing tests do (or import them from '@jest/globals' if those do), and check results with `expect(…)`.",
        moduleStyle(rule.endings[0]!, env),
        FAIL_FIRST,
      ].join(' ');
    case 'mocha':
      return [
        `This repository's tests run with Mocha, the copy installed in its node_modules, with its own .mocharc settings (\`node_modules/.bin/mocha ${example}\`). ${naming}${where}`,
        "`describe` and `it` are Mocha's globals: do not import them, and do not use node:test. Mocha has no assertions of its own: use `node:assert/strict`, or the assertion library the existing tests use (chai's `expect` or `should`, if package.json lists it).",
        moduleStyle(rule.endings[0]!, env),
        FAIL_FIRST,
      ].join(' ');
    case 'ava':
      return [
        `This repository's tests run with AVA, the copy installed in its node_modules, with its own config (\`node_modules/.bin/ava ${example}\`). ${naming}${where}`,
        "Take AVA's `test` (`import test from 'ava';`, or `const test = require('ava');` in CommonJS) and write `test('title', (t) => { … })` cases checking with `t.is`, `t.deepEqual`, `t.true`, `t.throws` and the like; AVA has no `describe`, and each title must be unique in its file. Name each case in the matrix by its exact title.",
        moduleStyle(rule.endings[0]!, env),
        FAIL_FIRST,
      ].join(' ');
    case 'tap':
      return [
        `This repository's tests run with node-tap, the copy installed in its node_modules (\`node_modules/.bin/tap ${example}\`). ${naming}${where}`,
        "Take tap's `t` (`import t from 'tap';`, or `const t = require('tap');` in CommonJS) and write `t.test('title', async (t) => { … })` subtests checking with `t.equal`, `t.same`, `t.ok`, `t.throws`, `t.rejects` and the like; a subtest holding subtests is a group. Name each case in the matrix by its full name, the titles of its groups and its own joined by ` › ` (`parse › reads a date`), or its own title when no group holds it; titles must be literal strings.",
        moduleStyle(rule.endings[0]!, env),
        FAIL_FIRST,
      ].join(' ');
    case 'uvu':
      return [
        `This repository's tests use uvu, the copy installed in its node_modules; the checks load each test file with uvu's API and run its suites. ${naming}${where}`,
        "Take uvu's `test` or a `suite` (`import { suite } from 'uvu';` and `import * as assert from 'uvu/assert';`, or `require` in CommonJS), write `Name('title', () => { … })` cases checking with `assert.is`, `assert.equal`, `assert.ok`, `assert.throws` and the like, and end each suite with `Name.run()`. Name each case in the matrix by its suite's name and its title joined by ` › ` (`parse › reads a date`), or by its title for uvu's plain `test`; names must be literal strings.",
        moduleStyle(rule.endings[0]!, env),
        FAIL_FIRST,
      ].join(' ');
    case 'go':
      return [
        `This repository's tests run with \`go test\` (\`go test -run '^TestName$' ./<package>\` from the module root). ${naming}`,
        "Put the file in the folder of the package it tests, with that package's `package` clause (or its `_test` twin to test only the exported API); a new package gets a new folder. Write `func TestXxx(t *testing.T)` functions using only the standard library's `testing` package, checking with `if … { t.Errorf(…) }` / `t.Fatalf(…)`; subtests with `t.Run` are fine. Name each case in the matrix as go names it: `TestXxx`, or `TestXxx/sub_name` for a subtest (spaces become `_`).",
        'Use no module the project does not already require: tests run offline.',
        FAIL_FIRST,
      ].join(' ');
    case 'cargo':
      return [
        `This repository's tests run with \`cargo test\` (\`cargo test --test <file stem> -- --exact <name>\` from the crate root). ${naming}`,
        env?.rust_crate === null
          ? 'Each file directly under tests/ is an integration test: its own crate, which can reach only a library. This package has no library (src/lib.rs) yet, so the first task creates one, with the code under test `pub` in it.'
          : `Each file directly under tests/ is an integration test: its own crate, which reaches the library only through its public API (\`use ${env?.rust_crate ?? '<crate name>'}::…;\`), so the code the task adds must be \`pub\` in the library (src/lib.rs and its modules).`,
        'Write `#[test] fn …()` functions checking with `assert!`, `assert_eq!` and `assert_ne!`; related cases may share an inline `mod`. Name each case in the matrix as libtest names it: `name`, or `module::name` inside a `mod`.',
        'Use no crate the project does not already depend on: tests run offline.',
        FAIL_FIRST,
      ].join(' ');
    case 'custom':
      return [
        `This repository's tests run with the user's own command${custom ? `: \`${custom.test}\` ({files} becomes the test files)` : ' (not set yet; the user sets it in seed review)'}. ${naming}`,
        env?.undriven_runner
          ? `The project's own test runner is ${UNDRIVEN_RUNNERS[env.undriven_runner.runner].name} (${env.undriven_runner.evidence}): write the tests for it, in the style of the existing tests, so that command runs them.`
          : "Write the tests in the repository's language and in the style of its existing tests, so that command runs them.",
        FAIL_FIRST,
      ].join(' ');
  }
}
