/**
 * The contract check shown in seed review (SPEC §5): warnings, before a run, about acceptance
 * tests that cannot do their job — fewer assertions than criteria, no assertion at all, or a file
 * that does not even load. Warnings only: the user decides.
 *
 * Each test file is run once. It is EXPECTED to fail, because the feature is not built yet; the
 * check only looks for failures that have nothing to do with the missing feature. How the two are
 * told apart, per preset:
 *
 * pytest — a missing feature shows up as `ImportError: cannot import name …` from a project
 * module, `ModuleNotFoundError` for a module of the project (its top-level package is in the
 * worktree, or a task names it: the task will create it), AttributeError, or failed assertions.
 * These are fine, even when they make collection fail (exit code 2). Not fine:
 *   - SyntaxError / IndentationError / TabError (in the test file or in code it imports — either
 *     way no amount of feature work makes the file load);
 *   - an import from pytest itself (`pytest`, `_pytest`, `pluggy`) that fails;
 *   - `ModuleNotFoundError` for a module that is neither in the worktree nor named by any task:
 *     a dependency that is not installed;
 *   - NameError (a name the test never imported or defined) and `fixture '…' not found`;
 *   - exit code 3 (internal error), 4 (usage error) or 5 (no tests collected).
 * If `python3 -m pytest` itself cannot start (no python3, or no pytest module), the result is one
 * `check_failed` saying what to install.
 *
 * node — a missing feature shows up as "does not provide an export named …" (a SyntaxError by
 * name, but a link error of a project module), `ERR_MODULE_NOT_FOUND` for a path inside the
 * worktree (a module the task will create), TypeError "… is not a function", or failed
 * assertions. Not fine: any other SyntaxError, an unknown `node:` built-in (e.g. `node:tst`),
 * a package that is not installed (`Cannot find package …`), a module path outside the worktree,
 * and ReferenceError (a name never imported or defined, e.g. `describe` without importing it).
 *
 * custom — the language is unknown: exit code 126/127 (the command cannot run) is `check_failed`;
 * a SyntaxError / IndentationError in the output (other than the ESM export case) is
 * `does_not_load`; any other failure is taken as the expected one.
 *
 * A test that already passes (exit code 0) is reported as `already_passes`: it cannot tell done
 * from not done, unless it is a deliberate characterisation test.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CustomChecks, PrdEntry } from '../../shared/files.ts';
import type { ChecksPreset, ContractWarning } from '../../shared/seed.ts';
import { runUntrusted, type UntrustedResult, type UntrustedScope } from '../proc/untrusted.ts';
import { taskIdOfTestFile, testCommand, type TestCommand } from './presets.ts';

export interface ContractCheckInput {
  prd: PrdEntry[];
  /** Path relative to the worktree → content. */
  testFiles: Record<string, string>;
  preset: ChecksPreset;
  customChecks?: CustomChecks;
  /**
   * Where the tests run. They are model-written (and the repository can steer the model), so
   * they run as untrusted code: sandboxed, without secrets, hidden from the sessions and home.
   */
  scope: UntrustedScope;
  /** Per test file (default 60 s). */
  timeoutMs?: number;
  /** Extra environment for the test runs (e.g. PATH in tests). */
  env?: Record<string, string>;
  signal?: AbortSignal;
}

export const DEFAULT_CONTRACT_TIMEOUT_MS = 60_000;
/** Test files run a few at a time: each is a short process, mostly start-up, and CPU-bound. */
const CONCURRENCY = Math.max(1, Math.min(4, os.availableParallelism()));
const OUTPUT_LINES = 40;

export async function checkContract(input: ContractCheckInput): Promise<ContractWarning[]> {
  const staticWarnings: ContractWarning[] = [];
  const files = Object.keys(input.testFiles);
  const fileOf = new Map<string, string>();
  for (const file of files) {
    const taskId = taskIdOfTestFile(input.preset, file);
    if (taskId !== null && !fileOf.has(taskId)) fileOf.set(taskId, file);
  }

  for (const task of input.prd) {
    const file = fileOf.get(task.id);
    if (file === undefined) {
      staticWarnings.push({ task_id: task.id, file: null, kind: 'no_assertions', message: `${task.id} has no acceptance test file, so nothing checks it.` });
      continue;
    }
    const count = countAssertions(input.preset, input.testFiles[file] ?? '');
    const criteria = task.acceptance_criteria.length;
    if (count === 0) {
      staticWarnings.push({
        task_id: task.id,
        file,
        kind: 'no_assertions',
        message: `${file} has no assertions (looked for ${ASSERTION_WORDS[input.preset]}), so it cannot fail and proves nothing about ${task.id}.`,
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

  let commands: { file: string; command: TestCommand }[];
  try {
    commands = files.map((file) => ({ file, command: testCommand(input.preset, [file], input.customChecks) }));
  } catch (err) {
    return [...staticWarnings, { task_id: null, file: null, kind: 'check_failed', message: `The test files were not run: ${(err as Error).message}` }];
  }

  const runs = await mapLimit(commands, CONCURRENCY, async ({ file, command }) => {
    const result = await runUntrusted(command, input.scope, { timeoutMs: input.timeoutMs ?? DEFAULT_CONTRACT_TIMEOUT_MS, env: input.env ?? {}, signal: input.signal });
    return { file, result, verdict: judgeRun(input, file, result) };
  });

  input.signal?.throwIfAborted();
  const runWarnings: ContractWarning[] = [];
  const runnerMissing = runs.find((r) => r.verdict?.kind === 'runner_missing');
  if (runnerMissing?.verdict) {
    // One warning, not one per file: the fix is the same and the files say nothing yet.
    runWarnings.push({ task_id: null, file: null, kind: 'check_failed', message: runnerMissing.verdict.message, output: firstLines(runnerMissing.result.output) });
  } else {
    for (const { file, result, verdict } of runs) {
      const taskId = taskIdOfTestFile(input.preset, file);
      // A file without assertions already has its warning; passing adds nothing to it.
      const hasAssertions = countAssertions(input.preset, input.testFiles[file] ?? '') > 0;
      if (verdict === null && result.exitCode === 0 && !result.timedOut && hasAssertions) {
        runWarnings.push({
          task_id: taskId,
          file,
          kind: 'already_passes',
          message: `${file} already passes before any work on ${taskId ?? 'its task'}, so it cannot tell whether the task was done (fine only for a deliberate characterisation test).`,
        });
        continue;
      }
      if (verdict === null) continue;
      runWarnings.push({
        task_id: taskId,
        file,
        kind: verdict.kind === 'does_not_load' ? 'does_not_load' : 'check_failed',
        message: verdict.message,
        output: firstLines(result.output),
      });
    }
  }
  // Task order, then the file-level warnings of each task together.
  const order = new Map(input.prd.map((t, i) => [t.id, i]));
  const rank = (w: ContractWarning) => (w.task_id === null ? -1 : (order.get(w.task_id) ?? input.prd.length));
  return [...staticWarnings, ...runWarnings].map((w, i) => ({ w, i })).sort((a, b) => rank(a.w) - rank(b.w) || a.i - b.i).map(({ w }) => w);
}

// ── counting assertions ──────────────────────────────────────────────────────────────────────

const ASSERTION_WORDS: Record<ChecksPreset, string> = {
  pytest: '`assert` statements and `pytest.raises`',
  node: '`assert(…)`, `assert.…(…)`, `t.assert.…(…)` and `expect(…)`',
  custom: '`assert` statements, `assert(…)`/`assert.…(…)` calls, `expect(…)` and `pytest.raises`',
};

const PYTHON_ASSERTIONS = [/^[ \t]*assert\b/gm, /\bpytest\.(?:raises|warns)\s*\(/g, /\bself\.assert[A-Z]\w*\s*\(/g];
const JS_ASSERTIONS = [/(?<![\w$.])assert(?:\.\w+)*\s*\(/g, /\bt\.assert\.\w+\s*\(/g, /(?<![\w$.])expect\s*\(/g];

/** Assertions in a test file, found by pattern after removing comments; a heuristic, not a parse. */
export function countAssertions(preset: ChecksPreset, source: string): number {
  const count = (text: string, patterns: RegExp[]) => patterns.reduce((n, re) => n + (text.match(re)?.length ?? 0), 0);
  const python = source.replace(/^[ \t]*#.*$/gm, '');
  const js = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:\\])\/\/.*$/gm, '$1');
  switch (preset) {
    case 'pytest':
      return count(python, PYTHON_ASSERTIONS);
    case 'node':
      return count(js, JS_ASSERTIONS);
    case 'custom':
      return Math.max(count(python, PYTHON_ASSERTIONS), count(js, JS_ASSERTIONS));
  }
}

// ── judging a run ────────────────────────────────────────────────────────────────────────────

type Verdict = { kind: 'does_not_load' | 'check_failed' | 'runner_missing'; message: string } | null;

const PYTEST_FRAMEWORK = new Set(['pytest', '_pytest', 'pluggy']);

function judgeRun(input: ContractCheckInput, file: string, run: UntrustedResult): Verdict {
  const seconds = Math.round((input.timeoutMs ?? DEFAULT_CONTRACT_TIMEOUT_MS) / 1000);
  if (run.timedOut) {
    return { kind: 'check_failed', message: `${file} did not finish within ${seconds} s and was stopped; a test that hangs before the feature exists will hang the run's checks too.` };
  }
  switch (input.preset) {
    case 'pytest':
      return judgePytest(input, file, run);
    case 'node':
      return judgeNode(input, file, run);
    case 'custom':
      return judgeCustom(file, run);
  }
}

function judgePytest(input: ContractCheckInput, file: string, run: UntrustedResult): Verdict {
  const out = run.output;
  if (run.spawnError !== null) {
    return { kind: 'runner_missing', message: `python3 could not be started (${run.spawnError}). Install Python 3 and pytest (e.g. \`apt-get install python3 python3-pytest\` or \`python3 -m pip install pytest\`), then open seed review again.` };
  }
  if (/No module named '?pytest'?\s*$/m.test(out) && !/ERROR collecting/.test(out)) {
    return { kind: 'runner_missing', message: 'pytest is not installed for python3. Install it with `python3 -m pip install pytest` (or your system package, e.g. python3-pytest), then open seed review again.' };
  }
  const syntax = /^E?\s*(SyntaxError|IndentationError|TabError): (.*)$/m.exec(out);
  if (syntax) {
    const where = new RegExp(`File "[^"]*${escapeRegExp(file)}", line (\\d+)`).exec(out);
    const place = where ? `${file} line ${where[1]}` : 'code the test imports';
    return { kind: 'does_not_load', message: `${file} does not load: ${syntax[1]} in ${place} (${syntax[2]!.trim()}). Fix the syntax; the test must load and then fail only because the feature is missing.` };
  }
  const missing = /ModuleNotFoundError: No module named '([^']+)'/.exec(out);
  if (missing) {
    const top = missing[1]!.split('.')[0]!;
    if (PYTEST_FRAMEWORK.has(top)) return { kind: 'does_not_load', message: `${file} does not load: the test framework module '${missing[1]}' cannot be imported.` };
    if (!projectHasModule(input.scope.worktree, top) && !tasksMention(input.prd, top)) {
      return {
        kind: 'does_not_load',
        message: `${file} does not load: it imports '${missing[1]}', which is not installed, not in the repository, and not named by any task. Install it, or import only what the project has or a task will create.`,
      };
    }
  }
  const badName = /ImportError: cannot import name '([^']+)' from '([^']+)'/.exec(out);
  if (badName && PYTEST_FRAMEWORK.has(badName[2]!.split('.')[0]!)) {
    return { kind: 'does_not_load', message: `${file} does not load: '${badName[1]}' does not exist in the test framework module '${badName[2]}'.` };
  }
  const fixture = /fixture '([^']+)' not found/.exec(out);
  if (fixture) return { kind: 'does_not_load', message: `${file} uses a fixture '${fixture[1]}' that does not exist; define it in the test file or use a built-in one (tmp_path, monkeypatch, …).` };
  const nameError = /NameError: (name '[^']+' is not defined)/.exec(out);
  if (nameError) return { kind: 'does_not_load', message: `${file} uses a ${nameError[1]!.replace(/^name/, 'name that')}: import or define it.` };
  switch (run.exitCode) {
    case 3:
      return { kind: 'does_not_load', message: `pytest hit an internal error running ${file}.` };
    case 4:
      return { kind: 'does_not_load', message: `pytest could not run ${file} (usage error, exit code 4); check the repository's pytest configuration.` };
    case 5:
      return { kind: 'does_not_load', message: `pytest collected no tests from ${file}: test functions must be named test_… (at module level, or in a class named Test…).` };
    default:
      return null;
  }
}

function judgeNode(input: ContractCheckInput, file: string, run: UntrustedResult): Verdict {
  const out = run.output;
  if (run.spawnError !== null) {
    return { kind: 'runner_missing', message: `node could not be started (${run.spawnError}). Put Node.js 20 or later on the PATH of the Tilth server, then open seed review again.` };
  }
  const builtin = /No such built-in module: (\S+)/.exec(out);
  if (builtin) return { kind: 'does_not_load', message: `${file} does not load: it imports ${builtin[1]}, which is not a Node.js built-in module (did you mean node:test or node:assert/strict?).` };
  const syntax = /^[#\s]*SyntaxError: (.*)$/m.exec(out);
  if (syntax && !/does not provide an export named/.test(syntax[1]!)) {
    const hint = /import statement outside a module/.test(syntax[1]!) ? ' Name the file .mjs, or add "type": "module" to package.json.' : '';
    return { kind: 'does_not_load', message: `${file} does not load: SyntaxError: ${syntax[1]!.trim()}.${hint}` };
  }
  const pkg = /Cannot find package '([^']+)' imported from/.exec(out);
  if (pkg) {
    const declared = packageDependencies(input.scope.worktree).has(pkg[1]!);
    const fix = declared
      ? `it is a dependency in package.json but not installed in the worktree; run \`npm install\` in ${input.scope.worktree}`
      : 'it is not a dependency of the project; use node: built-ins and relative imports';
    return { kind: 'does_not_load', message: `${file} does not load: the package '${pkg[1]}' cannot be found — ${fix}.` };
  }
  const mod = /Cannot find module '([^']+)' imported from/.exec(out);
  if (mod && !isInside(input.scope.worktree, mod[1]!)) {
    return { kind: 'does_not_load', message: `${file} does not load: it imports ${mod[1]}, which is outside the repository.` };
  }
  const reference = /ReferenceError: (.*)$/m.exec(out) ?? /error: '([^']*)'\n\s*code: 'ERR_TEST_FAILURE'\n\s*name: 'ReferenceError'/.exec(out);
  if (reference) return { kind: 'does_not_load', message: `${file} uses a name it never imports or defines (ReferenceError: ${reference[1]!.trim()}).` };
  return null;
}

function judgeCustom(file: string, run: UntrustedResult): Verdict {
  if (run.spawnError !== null) return { kind: 'runner_missing', message: `The custom test command could not be started (${run.spawnError}).` };
  if (run.exitCode === 126 || run.exitCode === 127) {
    return { kind: 'runner_missing', message: `The custom test command could not run (exit code ${run.exitCode}: command not found or not executable). Check the test command in seed review.` };
  }
  const syntax = /(SyntaxError|IndentationError|TabError): (.*)$/m.exec(run.output);
  if (syntax && !/does not provide an export named/.test(syntax[2]!)) {
    return { kind: 'does_not_load', message: `${file} does not load: ${syntax[1]}: ${syntax[2]!.trim()}.` };
  }
  return null;
}

/** A top-level Python module or package of the project: `x.py` or `x/` at the top or under src/. */
function projectHasModule(worktree: string, name: string): boolean {
  return ['', 'src'].some((dir) => fs.existsSync(path.join(worktree, dir, `${name}.py`)) || fs.existsSync(path.join(worktree, dir, name)));
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

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function firstLines(output: string): string {
  const lines = output.split('\n');
  const head = lines.slice(0, OUTPUT_LINES).map((l) => (l.length > 400 ? `${l.slice(0, 400)}…` : l));
  return lines.length > OUTPUT_LINES ? `${head.join('\n')}\n… (${lines.length - OUTPUT_LINES} more lines)` : head.join('\n');
}

async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
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
