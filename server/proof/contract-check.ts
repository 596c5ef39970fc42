/**
 * The contract check shown in seed review (SPEC §5; issue 12): before a run, what the acceptance
 * tests say about themselves — fewer assertions than criteria, no assertion at all — and what
 * their first run says.
 *
 * Each test file is run once, through the preset's own command. It is EXPECTED to fail, because
 * the feature is not built yet. `classifyRun` sorts the run into:
 *
 * - fails as expected: an assertion failed, or what the task adds is missing — a module under the
 *   repository that does not exist yet (ERR_MODULE_NOT_FOUND / Cannot find module of a path in
 *   the worktree, ModuleNotFoundError of the project's own package or of a name a task mentions),
 *   an export or attribute that does not exist yet ("does not provide an export named", "cannot
 *   import name", "is not a function"), or a name the tasks mention that is not defined yet;
 * - an environment problem, which blocks the run (no check could pass, whatever the worker does):
 *   the runner cannot start (not installed in node_modules, no interpreter, no pytest), a
 *   dependency in package.json or pyproject.toml that is not installed, a file the runner cannot
 *   parse (a SyntaxError, TypeScript where only JavaScript loads: ERR_UNKNOWN_FILE_EXTENSION,
 *   "Jest encountered an unexpected token"), a test-framework global the runner does not provide
 *   (`describe` under `node --test`), a file the runner's own config does not pick up, pytest
 *   refusing the repository's configuration (exit code 4);
 * - a test that does not load for a reason only the test can fix (a warning: the user decides):
 *   a package the project does not have, a module outside the repository, an unknown `node:`
 *   built-in, a name never imported or defined, a missing pytest fixture, no tests collected;
 * - a test that already passes (a warning: it cannot tell done from not done);
 * - a run that hangs past the timeout (a warning).
 *
 * The samples in contract-check.test.ts are real output of each runner (vitest 4, jest 29,
 * mocha 11, Node 20's test runner, pytest 9, Python 3.11's unittest), run in the sandbox.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CustomChecks, PrdEntry } from '../../shared/files.ts';
import { packageRun, type PackageRun, type ProjectEnv } from '../../shared/project-env.ts';
import { RUNNER_NAMES as PRESET_RUNNER_NAMES, type ChecksPreset, type ContractWarning } from '../../shared/seed.ts';
import { runUntrusted, type UntrustedResult, type UntrustedScope } from '../proc/untrusted.ts';
import { classifyCargo, countRustAssertions } from './cargo-check.ts';
import { classifyGo, countGoAssertions } from './go-check.ts';
import type { RunVerdict } from './report-shape.ts';
import { commandLine, packageScope, pythonOf, taskIdOfTestFile, testCommand, type TestCommand } from '../env/presets.ts';

export interface ContractCheckInput {
  prd: PrdEntry[];
  /** Path relative to the worktree → content. */
  testFiles: Record<string, string>;
  preset: ChecksPreset;
  customChecks?: CustomChecks;
  /** The environment the seed was written for: the interpreter, the test folder, the project's packages. */
  project?: ProjectEnv | null;
  /**
   * Where the tests run. They are model-written (and the repository can steer the model), so
   * they run as untrusted code: sandboxed, without secrets, hidden from the sessions and home.
   */
  scope: UntrustedScope;
  /** Per test file (default 60 s). */
  timeoutMs?: number;
  /** Extra environment for the test runs (e.g. PATH in tests). */
  env?: Record<string, string>;
  /** The red and green proofs: how often each named case runs (TILTH_PROOF_REPEATS; default 2). */
  repeats?: number;
  signal?: AbortSignal;
}

export const DEFAULT_CONTRACT_TIMEOUT_MS = 60_000;
/** Test files run a few at a time: each is a short process, mostly start-up, and CPU-bound. */
const CONCURRENCY = Math.max(1, Math.min(4, os.availableParallelism()));
const OUTPUT_LINES = 40;

/** Whether the warnings hold a problem that stops the run from starting. */
export function blocksRun(warnings: ContractWarning[]): boolean {
  return warnings.some(isBlocking);
}

/** An environment problem, or a named test case that fails for the wrong reason before any work. */
export function isBlocking(warning: ContractWarning): boolean {
  return warning.kind === 'environment' || warning.kind === 'case_error';
}

export async function checkContract(input: ContractCheckInput): Promise<ContractWarning[]> {
  const project = input.project ?? null;
  const staticWarnings: ContractWarning[] = [];
  const files = Object.keys(input.testFiles);
  // Where each file runs: in a workspace, its package's folder and runner.
  const whereOf = new Map(files.map((file) => [file, packageRun(input.preset, project, file)]));
  const fileOf = new Map<string, string>();
  for (const file of files) {
    const taskId = taskIdOfTestFile(input.preset, file, project);
    if (taskId !== null && !fileOf.has(taskId)) fileOf.set(taskId, file);
  }

  for (const task of input.prd) {
    const file = fileOf.get(task.id);
    if (file === undefined) {
      staticWarnings.push({ task_id: task.id, file: null, kind: 'no_assertions', message: `${task.id} has no acceptance test file, so nothing checks it.` });
      continue;
    }
    const preset = whereOf.get(file)!.preset;
    const foreign = otherRunnerImport(preset, input.testFiles[file] ?? '');
    if (foreign !== null) {
      // Its cases are another runner's: the project's never runs them, so no work could make them pass.
      staticWarnings.push({
        task_id: task.id,
        file,
        kind: 'environment',
        message: `${file} is written for ${foreign.runner}: it imports ${foreign.module}, but this project's tests run with ${RUNNER_NAMES[preset]}, which never runs ${foreign.runner}'s cases, so no work could make them pass. Write it with ${OWN_CASES[preset]}, as the project's existing tests are.`,
      });
    }
    const count = countAssertions(preset, input.testFiles[file] ?? '');
    const criteria = task.acceptance_criteria.length;
    if (count === 0) {
      staticWarnings.push({
        task_id: task.id,
        file,
        kind: 'no_assertions',
        message: `${file} has no assertions (looked for ${ASSERTION_WORDS[preset]}), so it cannot fail and proves nothing about ${task.id}.`,
      });
    } else if (count < criteria) {
      staticWarnings.push({
        task_id: task.id,
        file,
        kind: 'criteria_vs_assertions',
        message: `${task.id} has ${criteria} acceptance criteria but ${file} has ${count} assertion${count === 1 ? '' : 's'}; each criterion should be checked by at least one.`,
      });
    }
  }

  let commands: { file: string; command: TestCommand; where: PackageRun<ChecksPreset> }[];
  try {
    commands = files.map((file) => {
      const where = whereOf.get(file)!;
      const read = (f: string) => input.testFiles[where.dir === '' ? f : `${where.dir}/${f}`] ?? null;
      return { file, where, command: testCommand(where.preset, [where.file], input.customChecks, where.env, read) };
    });
  } catch (err) {
    return [...staticWarnings, { task_id: null, file: null, kind: 'check_failed', message: `The test files were not run: ${(err as Error).message}` }];
  }

  const factsOf = packageFacts(input);
  const runs = await mapLimit(commands, CONCURRENCY, async ({ file, command, where }) => {
    const result = await runUntrusted(command, packageScope(input.scope, where.dir), {
      timeoutMs: input.timeoutMs ?? DEFAULT_CONTRACT_TIMEOUT_MS,
      env: input.env ?? {},
      signal: input.signal,
    });
    return { file, result, verdict: classifyRun(result, { ...factsOf(where), file: where.file, shown: file, command: commandLine(command) }) };
  });

  input.signal?.throwIfAborted();
  const runWarnings: ContractWarning[] = [];
  const runnerMissing = runs.find((r) => r.verdict.kind === 'environment' && r.verdict.runner === true);
  if (runnerMissing && runnerMissing.verdict.kind === 'environment') {
    // One warning, not one per file: the fix is the same and the files say nothing yet.
    runWarnings.push({
      task_id: null,
      file: null,
      kind: 'environment',
      message: runnerMissing.verdict.message,
      output: firstLines(runnerMissing.result.output),
    });
  } else {
    for (const { file, result, verdict } of runs) {
      const taskId = taskIdOfTestFile(input.preset, file, project);
      switch (verdict.kind) {
        case 'fails_as_expected':
          break;
        case 'passes':
          // A file without assertions already has its warning; passing adds nothing to it.
          if (countAssertions(whereOf.get(file)!.preset, input.testFiles[file] ?? '') > 0) {
            runWarnings.push({
              task_id: taskId,
              file,
              kind: 'already_passes',
              message: `${file} already passes before any work on ${taskId ?? 'its task'}, so it cannot tell whether the task was done (fine only for a deliberate characterisation test).`,
            });
          }
          break;
        case 'timed_out':
          runWarnings.push({ task_id: taskId, file, kind: 'check_failed', message: verdict.message, output: firstLines(result.output) });
          break;
        case 'environment':
        case 'does_not_load':
          runWarnings.push({ task_id: taskId, file, kind: verdict.kind, message: verdict.message, output: firstLines(result.output) });
          break;
      }
    }
  }
  // Task order, then the file-level warnings of each task together.
  const order = new Map(input.prd.map((t, i) => [t.id, i]));
  const rank = (w: ContractWarning) => (w.task_id === null ? -1 : (order.get(w.task_id) ?? input.prd.length));
  return [...staticWarnings, ...runWarnings]
    .map((w, i) => ({ w, i }))
    .sort((a, b) => rank(a.w) - rank(b.w) || a.i - b.i)
    .map(({ w }) => w);
}

// ── a test written for another runner ─────────────────────────────────────────────────────────

/** The modules that declare a JavaScript runner's cases, and whose runner they are. */
const RUNNER_MODULES: Record<string, string> = {
  'node:test': 'node --test',
  vitest: 'Vitest',
  '@jest/globals': 'Jest',
  mocha: 'Mocha',
  ava: 'AVA',
  tap: 'node-tap',
  uvu: 'uvu',
  'bun:test': 'Bun',
};
/** How each JavaScript preset's own cases are declared. */
const OWN_CASES: Partial<Record<ChecksPreset, string>> = {
  node: "`test` from 'node:test' and node:assert/strict",
  vitest: "`describe`, `it` and `expect` imported from 'vitest'",
  jest: "jest's `describe`, `test` and `expect` globals",
  mocha: "mocha's `describe` and `it` globals and node:assert/strict",
  ava: "AVA's `test` imported from 'ava' and its assertions on `t`",
  tap: "node-tap's `t` imported from 'tap', its `t.test` subtests and its assertions on `t`",
  uvu: "uvu's `test` or a `suite` imported from 'uvu', run with `.run()`, and uvu/assert",
};
const JS_PRESETS = new Set(Object.keys(OWN_CASES));
const IMPORTED = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"]([^'"]+)['"]/g;

/**
 * The first runner module a JavaScript test imports that is not its preset's (a `node:test` file
 * in a vitest project): its cases belong to a runner the checks never start. Null when there is
 * none, and for Python and custom checks.
 */
export function otherRunnerImport(preset: ChecksPreset, source: string): { module: string; runner: string } | null {
  if (!JS_PRESETS.has(preset)) return null;
  const own = RUNNER_NAMES[preset];
  for (const match of stripJsComments(source).matchAll(IMPORTED)) {
    const module = match[1]!;
    const runner = Object.hasOwn(RUNNER_MODULES, module) ? RUNNER_MODULES[module]! : null;
    if (runner !== null && runner !== own) return { module, runner };
  }
  return null;
}

// ── counting assertions ──────────────────────────────────────────────────────────────────────

const JS_WORDS = '`expect(…)`, `assert(…)`, `assert.…(…)`, `t.assert.…(…)` and chai `.should`';
const ASSERTION_WORDS: Record<ChecksPreset, string> = {
  pytest: '`assert` statements and `pytest.raises`',
  unittest: '`self.assert…(…)` calls and `assert` statements',
  node: JS_WORDS,
  vitest: JS_WORDS,
  jest: JS_WORDS,
  mocha: JS_WORDS,
  ava: '`t.is(…)`, `t.deepEqual(…)`, `t.true(…)`, `t.throws(…)` and the other assertions on `t`',
  tap: '`t.equal(…)`, `t.same(…)`, `t.ok(…)`, `t.throws(…)`, `t.rejects(…)` and the other assertions on `t`',
  uvu: "uvu/assert's `assert.is(…)`, `assert.equal(…)`, `assert.ok(…)`, `assert.throws(…)` (or the same functions imported by name)",
  go: '`t.Error…(…)`/`t.Fatal…(…)`/`t.Fail(…)` on a `*testing.T`, and testify `assert.…`/`require.…`',
  cargo: '`assert!`, `assert_eq!`, `assert_ne!`, `panic!` and `#[should_panic]`',
  custom: '`assert` statements, `assert(…)`/`assert.…(…)` calls, `expect(…)`, `self.assert…(…)` and `pytest.raises`',
};

const PYTHON_ASSERTIONS = [/^[ \t]*assert\b/gm, /\bpytest\.(?:raises|warns)\s*\(/g, /\bself\.assert[A-Z]\w*\s*\(/g, /\bself\.fail\s*\(/g];
const JS_ASSERTIONS = [
  /(?<![\w$.])assert(?:\.\w+)*\s*\(/g,
  // Deno's standard library: `assertEquals(…)`, `assertThrows(…)`, `assertRejects(…)`.
  /(?<![\w$.])assert[A-Z]\w*\s*\(/g,
  /\bt\.assert\.\w+\s*\(/g,
  /(?<![\w$.])expect(?:\.soft)?\s*\(/g,
  // chai's should style: `x.should.equal(y)`, `should.exist(x)`.
  /\.should\.\w+/g,
  /(?<![\w$.])should\.(?:exist|not\.exist|equal|fail)\s*\(/g,
];

/** AVA's assertions, on the execution context its tests are given (`t`). */
const AVA_ASSERTIONS = [
  /\bt\.(?:is|not|deepEqual|notDeepEqual|like|true|false|truthy|falsy|throws|throwsAsync|notThrows|notThrowsAsync|regex|notRegex|snapshot|fail|assert)\s*\(/g,
];

/** node-tap's assertions on a test's `t` (not `t.pass`, which passes whatever happens). */
const TAP_ASSERTIONS = [
  /\bt\.(?:ok|notOk|equal|not|same|notSame|strictSame|strictNotSame|has|hasStrict|notHas|hasProp|hasProps|hasOwnProp|hasOwnProps|match|matchOnly|matchStrict|notMatch|type|throws|doesNotThrow|rejects|resolves|resolveMatch|matchSnapshot|resolveMatchSnapshot|emits|error|fail)\s*\(/g,
];

/** uvu/assert's functions imported by name (`import { is, equal } from 'uvu/assert'`), called bare. */
const UVU_NAMED = /(?<![\w$.])(?:is|equal|ok|type|instance|match|snapshot|fixture|throws|unreachable)(?:\.not)?\s*\(/g;
const UVU_ASSERT_BY_NAME = /\{[^}]*\}\s*(?:=\s*require\s*\(\s*|from\s*)['"]uvu\/assert['"]/;

/** JavaScript without its comments (a `//` after a colon is a URL's, kept). */
function stripJsComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:\\])\/\/.*$/gm, '$1');
}

/** Assertions in a test file, found by pattern after removing comments; a heuristic, not a parse. */
export function countAssertions(preset: ChecksPreset, source: string): number {
  const count = (text: string, patterns: RegExp[]) => patterns.reduce((n, re) => n + (text.match(re)?.length ?? 0), 0);
  const python = source.replace(/^[ \t]*#.*$/gm, '');
  const js = stripJsComments(source);
  switch (preset) {
    case 'pytest':
    case 'unittest':
      return count(python, PYTHON_ASSERTIONS);
    case 'node':
    case 'vitest':
    case 'jest':
    case 'mocha':
      return count(js, JS_ASSERTIONS);
    case 'ava':
      return count(js, [...JS_ASSERTIONS, ...AVA_ASSERTIONS]);
    case 'tap':
      return count(js, [...JS_ASSERTIONS, ...TAP_ASSERTIONS]);
    case 'uvu':
      return count(js, UVU_ASSERT_BY_NAME.test(js) ? [...JS_ASSERTIONS, UVU_NAMED] : JS_ASSERTIONS);
    case 'go':
      return countGoAssertions(source);
    case 'cargo':
      return countRustAssertions(source);
    case 'custom':
      return Math.max(count(python, PYTHON_ASSERTIONS), count(js, JS_ASSERTIONS));
  }
}

// ── classifying a run ────────────────────────────────────────────────────────────────────────

/** What the check knows about the project, to tell "the task will add it" from "it is not there". */
export interface ProjectFacts {
  preset: ChecksPreset;
  worktree: string;
  prd: PrdEntry[];
  /** The Python interpreter the preset runs with. */
  interpreter: string;
  /** Names in package.json's dependencies, of every kind. */
  jsDependencies: Set<string>;
  /** How the project installs its JavaScript dependencies (`pnpm install`), for messages. */
  installCommand: string;
  /** Whether a Python distribution or import name is declared (pyproject.toml, requirements*.txt, setup.cfg). */
  pythonDeclares: (name: string) => boolean;
  /** Whether a top-level Python module or package is the project's own. */
  pythonHasModule: (name: string) => boolean;
  timeoutMs: number;
}

export interface RunContext extends ProjectFacts {
  /** The test file, relative to where it runs (a workspace package's folder, or the worktree). */
  file: string;
  /** The same file as the user and the worker name it: relative to the worktree's root. */
  shown: string;
  /** The command as typed, for messages. */
  command: string;
}

export type { RunVerdict } from './report-shape.ts';

type Run = Pick<UntrustedResult, 'output' | 'exitCode' | 'spawnError' | 'timedOut'>;

export function classifyRun(run: Run, ctx: RunContext): RunVerdict {
  if (run.timedOut) {
    return {
      kind: 'timed_out',
      message: `${ctx.shown} did not finish within ${Math.round(ctx.timeoutMs / 1000)} s and was stopped; a test that hangs before the feature exists will hang the run's checks too.`,
    };
  }
  // Colour codes, should a runner add them, are not part of any message.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: colour codes start with ESC
  const out = run.output.replace(/\x1b\[[0-9;]*m/g, '');
  switch (ctx.preset) {
    case 'pytest':
    case 'unittest':
      return classifyPython(out, run, ctx);
    case 'node':
    case 'vitest':
    case 'jest':
    case 'mocha':
    case 'ava':
    case 'tap':
    case 'uvu':
      return classifyJs(out, run, ctx);
    case 'go':
      return classifyGo(out, run, ctx);
    case 'cargo':
      return classifyCargo(out, run, ctx);
    case 'custom':
      return classifyCustom(out, run, ctx);
  }
}

const RUNNER_NAMES: Record<ChecksPreset, string> = { ...PRESET_RUNNER_NAMES, custom: 'the custom command' };

/** Globals one runner gives its tests and another does not. */
const FRAMEWORK_GLOBALS = new Set([
  'describe',
  'it',
  'test',
  'expect',
  'beforeEach',
  'afterEach',
  'beforeAll',
  'afterAll',
  'before',
  'after',
  'suite',
  'context',
  'vi',
  'jest',
  'chai',
  'should',
]);

const SYNTAX_FIX = 'Either the test has a syntax error (fix it in seed review) or the runner is not set up for this kind of file';

function classifyJs(out: string, run: Run, ctx: RunContext): RunVerdict {
  const runner = RUNNER_NAMES[ctx.preset];
  if (run.spawnError !== null || run.exitCode === 126 || run.exitCode === 127) {
    const message =
      ctx.preset === 'node'
        ? `node could not be started (${run.spawnError ?? `exit code ${run.exitCode}`}). Put Node.js 20 or later on the PATH of the Tilth server, then check again.`
        : `${runner} is not installed in the worktree: \`${ctx.command.split(' ')[0]}\` could not be started (${run.spawnError ?? `exit code ${run.exitCode}`}). The checks use the project's own runner from its node_modules; install the project's dependencies in the repository (\`${ctx.installCommand}\`), then check again.`;
    return { kind: 'environment', message, runner: true };
  }
  if (/No tests found, exiting with code|No test files found, exiting with code/.test(out)) {
    return {
      kind: 'environment',
      message: `${runner} did not pick up ${ctx.shown}: the project's ${ctx.preset === 'jest' ? 'testMatch / moduleFileExtensions' : 'include'} settings do not match it, so it would never run. Rename it to a test file the project's config includes.`,
    };
  }
  if (/No tests found in \S+, make sure to import "ava"/.test(out)) {
    return {
      kind: 'does_not_load',
      message: `${ctx.shown} declares no AVA test: AVA runs a file's \`test(…)\` calls, and this file does not import \`test\` from 'ava'.`,
    };
  }
  const ext = /ERR_UNKNOWN_FILE_EXTENSION\]?:? Unknown file extension "([^"]+)" for (\S+)/.exec(out);
  if (ext) {
    const where = relativeTo(ctx.worktree, ext[2]!);
    const hint =
      ctx.preset === 'node'
        ? "Node 20 runs JavaScript only: choose the project's TypeScript-aware runner (vitest or jest) as the checks preset, or test compiled JavaScript"
        : `set ${runner} up to load ${ext[1]} files (as the project's own tests are), or write the test as JavaScript`;
    return { kind: 'environment', message: `${ctx.shown} does not load: ${runner} cannot load ${ext[1]} files as this project is set up (${where}). ${hint}.` };
  }
  if (/Jest encountered an unexpected token/.test(out)) {
    const detail = /SyntaxError: (?:\S+: )?(.*)$/m.exec(out)?.[1]?.trim();
    return {
      kind: 'environment',
      message: `${ctx.shown} does not load: Jest could not parse it with the project's transform settings${detail ? ` (${detail})` : ''}. TypeScript needs ts-jest or a Babel TypeScript preset and ES modules need Jest's ESM setup; or write the test the way the project's existing tests are written.`,
    };
  }
  const builtin = /No such built-in module: (\S+)/.exec(out);
  if (builtin)
    return {
      kind: 'does_not_load',
      message: `${ctx.shown} does not load: it imports ${builtin[1]}, which is not a Node.js built-in module (did you mean node:test or node:assert/strict?).`,
    };
  const parse = /\[PARSE_ERROR\] (.*)$/m.exec(out);
  const syntax = /(?:^|\s)SyntaxError: (?:\/\S+: )?(.*)$/m.exec(out);
  if (parse || (syntax && !/does not provide an export named/.test(syntax[1]!))) {
    const text = (parse?.[1] ?? syntax![1]!).trim();
    const hint = /import statement outside a module/.test(text) ? ' The package is CommonJS: use require(), or name the file .mjs.' : '';
    return { kind: 'environment', message: `${ctx.shown} does not parse: SyntaxError: ${text}. ${SYNTAX_FIX}.${hint}` };
  }
  // Vitest 1–2 (vite-node) said "Failed to load url X (resolved id: X) in <importer>. Does the
  // file exist?" (as quoted in explore-frontend/vscode-vitest-runner#15); later ones and Node say
  // "Cannot find module/package".
  const missing = /Cannot find (?:package|module) '([^']+)'/.exec(out);
  const viteMissing = /Failed to load url \S+ \(resolved id: ([^)]+)\)(?: in (\S+?))?\.? Does the file exist/.exec(out);
  const spec = missing?.[1] ?? viteMissing?.[1];
  if (spec !== undefined) {
    if (spec.startsWith('.') || spec.startsWith('/')) {
      const requirer = missing ? requirerOf(out, ctx) : viteMissing?.[2] ? path.resolve(ctx.worktree, viteMissing[2]) : path.join(ctx.worktree, ctx.file);
      const target = path.resolve(path.dirname(requirer), spec);
      if (isInside(ctx.worktree, target) && !target.split(path.sep).includes('node_modules')) {
        return { kind: 'fails_as_expected', reason: `${relativeTo(ctx.worktree, target)} does not exist yet` };
      }
      return { kind: 'does_not_load', message: `${ctx.shown} does not load: it imports ${spec}, which is outside the repository.` };
    }
    const name = packageName(spec);
    if (ctx.jsDependencies.has(name)) {
      return {
        kind: 'environment',
        message: `${ctx.shown} does not load: '${name}' is a dependency in package.json but is not installed in the worktree. Install the project's dependencies in the repository (\`${ctx.installCommand}\`), then check again.`,
      };
    }
    return {
      kind: 'does_not_load',
      message: `${ctx.shown} does not load: the package '${name}' cannot be found — it is not a dependency of the project; use what the project has (its dependencies, node: built-ins and relative imports).`,
    };
  }
  const reference =
    /ReferenceError: (\S+) is not defined/.exec(out) ?? /error: '(\S+) is not defined'\n\s*code: 'ERR_TEST_FAILURE'\n\s*name: 'ReferenceError'/.exec(out);
  if (reference) {
    const name = reference[1]!;
    if (FRAMEWORK_GLOBALS.has(name)) {
      return {
        kind: 'environment',
        message: `${ctx.shown} uses \`${name}\` as a global, and ${runner} does not provide it here (ReferenceError: ${name} is not defined). The test is written for another runner: ${importHint(ctx.preset, name)}`,
      };
    }
    if (tasksMention(ctx.prd, name)) return { kind: 'fails_as_expected', reason: `${name} is not defined yet` };
    return { kind: 'does_not_load', message: `${ctx.shown} uses a name it never imports or defines (ReferenceError: ${name} is not defined).` };
  }
  if (ctx.preset === 'tap' && /^\s*1\.\.0 # no tests found$|^tap found no tests in it/m.test(out)) {
    return {
      kind: 'does_not_load',
      message: `${ctx.shown} declares no node-tap test: tap found no test in it, so nothing it says was checked. Write \`t.test('title', async (t) => { … })\` subtests on tap's \`t\` (\`const t = require('tap')\`).`,
    };
  }
  if (ctx.preset === 'uvu' && /it registers no uvu test: no suite of it called run\(\)/.test(out)) {
    return {
      kind: 'does_not_load',
      message: `${ctx.shown} declares no uvu test: no suite of it called \`.run()\`, so nothing it says was checked. Import \`test\` or \`suite\` from 'uvu', add the cases, and end each suite with \`.run()\`.`,
    };
  }
  if (run.exitCode === 0) return { kind: 'passes' };
  if (/does not provide an export named|is not a function|is not a constructor/.test(out))
    return { kind: 'fails_as_expected', reason: 'what the task adds is missing' };
  return { kind: 'fails_as_expected', reason: 'a test failed' };
}

function importHint(preset: ChecksPreset, name: string): string {
  switch (preset) {
    case 'node':
      return `import it from node:test (\`import { ${name === 'expect' ? 'test' : name} } from 'node:test'\`; assertions come from node:assert/strict).`;
    case 'vitest':
      return `import it from 'vitest' (\`import { ${name} } from 'vitest'\`), or turn on \`globals\` in the vitest config.`;
    default:
      return `use what ${RUNNER_NAMES[preset]} provides, as the project's existing tests do.`;
  }
}

/** Which file asked for a missing module: the CommonJS require stack, the importer, or the test itself. */
function requirerOf(out: string, ctx: RunContext): string {
  const requirer =
    /Require stack:\n- (\S+)/.exec(out)?.[1] ?? /imported from (\S+)/.exec(out)?.[1] ?? /Cannot find module '[^']+' from '([^']+)'/.exec(out)?.[1];
  return requirer ? path.resolve(ctx.worktree, requirer) : path.join(ctx.worktree, ctx.file);
}

/** `lodash/fp` → `lodash`, `@scope/pkg/x` → `@scope/pkg`. */
function packageName(spec: string): string {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

const PYTEST_FRAMEWORK = new Set(['pytest', '_pytest', 'pluggy']);

function classifyPython(out: string, run: Run, ctx: RunContext): RunVerdict {
  const pytest = ctx.preset === 'pytest';
  if (run.spawnError !== null) {
    const message =
      ctx.interpreter === 'python3'
        ? `python3 could not be started (${run.spawnError}). Install Python 3${pytest ? ' and pytest (e.g. `apt-get install python3 python3-pytest` or `python3 -m pip install pytest`)' : ''}, then check again.`
        : `The project's interpreter ${ctx.interpreter} could not be started (${run.spawnError}). Recreate the project's virtualenv, then check again.`;
    return { kind: 'environment', message, runner: true };
  }
  if (pytest && /No module named '?pytest'?\s*$/m.test(out) && !/ERROR collecting/.test(out)) {
    return {
      kind: 'environment',
      message: `pytest is not installed for ${ctx.interpreter}. Install it with \`${ctx.interpreter} -m pip install pytest\`${ctx.interpreter === 'python3' ? ' (or your system package, e.g. python3-pytest)' : ''}, then check again.`,
      runner: true,
    };
  }
  const syntax = /^E?\s*(SyntaxError|IndentationError|TabError): (.*)$/m.exec(out);
  if (syntax) {
    const where = new RegExp(`File "[^"]*${escapeRegExp(ctx.file)}", line (\\d+)`).exec(out);
    const place = where ? `${ctx.shown} line ${where[1]}` : 'code the test imports';
    return {
      kind: 'environment',
      message: `${ctx.shown} does not parse: ${syntax[1]} in ${place} (${syntax[2]!.trim()}). ${SYNTAX_FIX} (the interpreter is ${ctx.interpreter}).`,
    };
  }
  const missing = /ModuleNotFoundError: No module named '([^']+)'/.exec(out);
  if (missing) {
    const top = missing[1]!.split('.')[0]!;
    if (PYTEST_FRAMEWORK.has(top))
      return { kind: 'does_not_load', message: `${ctx.shown} does not load: the test framework module '${missing[1]}' cannot be imported.` };
    if (ctx.pythonHasModule(top) || tasksMention(ctx.prd, top)) return { kind: 'fails_as_expected', reason: `${missing[1]} does not exist yet` };
    if (ctx.pythonDeclares(top)) {
      return {
        kind: 'environment',
        message: `${ctx.shown} does not load: '${top}' is a dependency of the project but is not installed for ${ctx.interpreter}. Install the project's dependencies into its environment (e.g. \`${ctx.interpreter} -m pip install -e .\`), then check again.`,
      };
    }
    return {
      kind: 'does_not_load',
      message: `${ctx.shown} does not load: it imports '${missing[1]}', which is not installed, not in the repository, and not named by any task. Install it, or import only what the project has or a task will create.`,
    };
  }
  const badName = /ImportError: cannot import name '([^']+)' from '([^']+)'/.exec(out);
  if (badName && PYTEST_FRAMEWORK.has(badName[2]!.split('.')[0]!)) {
    return { kind: 'does_not_load', message: `${ctx.shown} does not load: '${badName[1]}' does not exist in the test framework module '${badName[2]}'.` };
  }
  const fixture = /fixture '([^']+)' not found/.exec(out);
  if (fixture)
    return {
      kind: 'does_not_load',
      message: `${ctx.shown} uses a fixture '${fixture[1]}' that does not exist; define it in the test file or use a built-in one (tmp_path, monkeypatch, …).`,
    };
  const nameError = /NameError: name '([^']+)' is not defined/.exec(out);
  if (nameError) {
    if (tasksMention(ctx.prd, nameError[1]!)) return { kind: 'fails_as_expected', reason: `${nameError[1]} is not defined yet` };
    return { kind: 'does_not_load', message: `${ctx.shown} uses a name that '${nameError[1]}' is not defined: import or define it.` };
  }
  if (pytest) {
    switch (run.exitCode) {
      case 3:
        return { kind: 'does_not_load', message: `pytest hit an internal error running ${ctx.shown}.` };
      case 4:
        return {
          kind: 'environment',
          message: `pytest refused to run ${ctx.shown} with the repository's configuration (usage error, exit code 4) — often an option in addopts from a plugin that is not installed for ${ctx.interpreter}.`,
        };
      case 5:
        return {
          kind: 'does_not_load',
          message: `pytest collected no tests from ${ctx.shown}: test functions must be named test_… (at module level, or in a class named Test…).`,
        };
    }
  } else if (/^Ran 0 tests/m.test(out)) {
    return { kind: 'does_not_load', message: `unittest found no tests in ${ctx.shown}: tests are methods named test_… of a unittest.TestCase subclass.` };
  }
  if (run.exitCode === 0) return { kind: 'passes' };
  if (/ImportError: cannot import name|AttributeError: /.test(out)) return { kind: 'fails_as_expected', reason: 'what the task adds is missing' };
  return { kind: 'fails_as_expected', reason: 'a test failed' };
}

function classifyCustom(out: string, run: Run, ctx: RunContext): RunVerdict {
  if (run.spawnError !== null) return { kind: 'environment', message: `The custom test command could not be started (${run.spawnError}).`, runner: true };
  if (run.exitCode === 126 || run.exitCode === 127) {
    return {
      kind: 'environment',
      message: `The custom test command could not run (exit code ${run.exitCode}: command not found or not executable). Check the test command in seed review.`,
      runner: true,
    };
  }
  // The command may run anything, but the test file's language says what its errors look like:
  // a JavaScript or Python test's missing module is read as for those runners.
  if (/\.[cm]?[jt]sx?$/.test(ctx.file)) return classifyJs(out, run, ctx);
  if (ctx.file.endsWith('.py')) return classifyPython(out, run, ctx);
  const syntax = /(SyntaxError|IndentationError|TabError): (.*)$/m.exec(out);
  if (syntax && !/does not provide an export named/.test(syntax[2]!)) {
    return { kind: 'environment', message: `${ctx.shown} does not parse: ${syntax[1]}: ${syntax[2]!.trim()}. ${SYNTAX_FIX}.` };
  }
  return run.exitCode === 0 ? { kind: 'passes' } : { kind: 'fails_as_expected', reason: 'the command failed' };
}

// ── what the project has ─────────────────────────────────────────────────────────────────────

/** projectFacts for each package's runs, read once per package folder (its files are read from disk). */
export function packageFacts(input: ContractCheckInput): (where: { dir: string; preset: ChecksPreset }) => ProjectFacts {
  const read = new Map<string, ProjectFacts>();
  return ({ dir, preset }) => {
    const known = read.get(dir) ?? projectFacts(input, dir, preset);
    read.set(dir, known);
    return known;
  };
}

/**
 * What the classifier knows of the project; for a workspace package's run (`dir`, its runner
 * `preset`), the package's dependencies count with the root's.
 */
function projectFacts(input: ContractCheckInput, dir = '', preset: ChecksPreset = input.preset): ProjectFacts {
  const root = input.scope.worktree;
  const worktree = dir === '' ? root : path.join(root, dir);
  const packages = new Set(input.project?.python?.packages ?? []);
  const declared = pythonDeclarations(root);
  const jsDependencies = packageDependencies(root);
  if (dir !== '') for (const name of packageDependencies(worktree)) jsDependencies.add(name);
  return {
    preset,
    // A package's run is read from its folder, as it ran (its Cargo.toml, go.mod, package.json).
    worktree,
    prd: input.prd,
    interpreter: pythonOf(input.project ?? null),
    jsDependencies,
    installCommand: `${input.project?.package_manager ?? 'npm'} install`,
    pythonDeclares: (name) => declared(name),
    pythonHasModule: (name) => packages.has(name) || projectHasModule(worktree, name),
    timeoutMs: input.timeoutMs ?? DEFAULT_CONTRACT_TIMEOUT_MS,
  };
}

/** A top-level Python module or package of the project: `x.py` or `x/` at the top or under src/. */
function projectHasModule(worktree: string, name: string): boolean {
  return ['', 'src'].some((dir) => fs.existsSync(path.join(worktree, dir, `${name}.py`)) || fs.existsSync(path.join(worktree, dir, name)));
}

/**
 * Whether the project declares a Python dependency by this name, read loosely from its manifests:
 * distribution and import names often match (`requests`, `humanize`), up to `-`/`_` and case.
 */
function pythonDeclarations(worktree: string): (name: string) => boolean {
  const texts: string[] = [];
  for (const file of ['pyproject.toml', 'setup.cfg', 'setup.py', 'Pipfile']) texts.push(readOr(path.join(worktree, file)));
  for (const file of safeList(worktree).filter((f) => /^requirements.*\.txt$/.test(f))) texts.push(readOr(path.join(worktree, file)));
  const text = texts.join('\n').toLowerCase().replaceAll('-', '_');
  return (name) => new RegExp(`(^|["'\\s,\\[])${escapeRegExp(name.toLowerCase().replaceAll('-', '_'))}\\s*([<>=!~;\\[,"']|$)`, 'm').test(text);
}

function readOr(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function safeList(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

function tasksMention(prd: PrdEntry[], word: string): boolean {
  const re = new RegExp(`(^|[^\\w])${escapeRegExp(word)}([^\\w]|$)`);
  return prd.some((t) => [t.title, t.description, ...t.acceptance_criteria].some((text) => re.test(text)));
}

function packageDependencies(worktree: string): Set<string> {
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(worktree, 'package.json'), 'utf8')) as Record<string, unknown>;
    const names = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'].flatMap((key) => {
      const deps = pkg[key];
      return typeof deps === 'object' && deps !== null ? Object.keys(deps) : [];
    });
    return new Set(names);
  } catch {
    return new Set();
  }
}

/** Whether a path lies inside the worktree, by its own path or its real one (e.g. /tmp → /private/tmp). */
function isInside(root: string, file: string): boolean {
  const roots = [path.resolve(root)];
  try {
    roots.push(fs.realpathSync(root));
  } catch {
    // a worktree that is gone: its own path is all there is
  }
  return roots.some((r) => {
    const rel = path.relative(r, path.resolve(r, file));
    return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
  });
}

function relativeTo(root: string, file: string): string {
  const rel = path.relative(root, file);
  return rel.startsWith('..') || path.isAbsolute(rel) ? file : rel;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function firstLines(output: string): string {
  const lines = output.split('\n');
  const head = lines.slice(0, OUTPUT_LINES).map((l) => (l.length > 400 ? `${l.slice(0, 400)}…` : l));
  return lines.length > OUTPUT_LINES ? `${head.join('\n')}\n… (${lines.length - OUTPUT_LINES} more lines)` : head.join('\n');
}

export async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
