/**
 * What ran, from the runner's own structured report rather than its text (issue 28): every run of
 * the acceptance tests — the check in the loop, the red and green proofs, the merge preview — asks
 * the project's runner to write a report of each case it collected and how it ended:
 *
 * - pytest: `--junit-xml` in the xunit1 family (it names each case's file); a module that cannot
 *   be collected is an error testcase named after the module;
 * - jest: `--json --outputFile`; vitest: its json reporter beside the default one (the worker
 *   keeps the text). Both write jest's shape; a file that does not load has no cases and a message;
 * - mocha: its json reporter, written to a file (mocha then prints nothing, so a short summary is
 *   rendered from the report for the worker). A file that does not load ends the run before any
 *   report is written: "Exception during run" in its output;
 * - AVA: `--tap`, whose lines go to stdout and so to the report file, while what its test
 *   processes print comes on its stderr; the worker reads both (ava-report.ts reads the TAP);
 * - node-tap: `--reporter=tap` to stdout, the report, with what its test processes print on
 *   stdout inside it (tap-report.ts checks the stream holds together) and their stderr on its own;
 *   tap's `.tap/` folder is emptied before each run (tapState);
 * - node --test: the spec reporter to stdout and the junit one to the file. Node 20's junit names
 *   no file: a file that failed as a whole is a testcase named by the file's absolute path;
 * - go: `go test -json`, whose events go to stdout only: stdout is sent to the report file, and
 *   the worker reads the text rendered back from the events, with the compiler's stderr;
 * - cargo: stable libtest has no structured report, so its own lines are the report: stdout and
 *   stderr, in order, go to the report file (cargo-report.ts reads it, and says what it cannot
 *   vouch for); the worker reads the same text without cargo's progress lines;
 * - the custom preset with `{junit}`: the user's command writes JUnit XML where `{junit}` says
 *   (junit-report.ts reads it); what it prints is the worker's;
 * - uvu: Tilth's own uvu runner (env/uvu-runner.ts), which writes the unittest runner's JSON;
 * - unittest: a small runner (UNITTEST_RUNNER) passed with `python -c` — the package may live
 *   under /tmp, which the sandbox hides — that loads the given files or names with unittest's
 *   loader, runs them with a result that records each case, and writes JSON.
 *
 * The report goes into a fresh folder inside the worktree (the only place the sandbox lets the
 * runner write that the harness can read afterwards), with an unguessable name and its own
 * `.gitignore` of `*`, read without following links and removed after. A report that is missing,
 * or that contradicts the exit code, fails the run with a sentence saying so.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { ProjectEnv } from '../../shared/project-env.ts';
import { Tree } from '../fs/tree.ts';
import { pythonOf, pythonRunEnv, shellQuote, type TestCommand, UNREAD_JUNIT, UNREAD_JUNIT_SETUP } from '../env/presets.ts';
import { UVU_REPORT_ARG } from '../env/uvu-runner.ts';
import { runUntrusted, type UntrustedOptions, type UntrustedResult, type UntrustedScope } from '../proc/untrusted.ts';
import { cargoText } from './cargo-report.ts';
import { goText } from './go-report.ts';
import { withUnloadedFiles } from './junit-report.ts';
import { tapText } from './tap-report.ts';
import { mochaLoadFile, mochaSummary, namedCaseIn, notRunMessage, parseReport, RUNNER, type ReportPreset, type RunnerReport } from './report-parsers.ts';

/**
 * The unittest runner, for `python -c`: argv is the report path, then files (`tests/test_x.py`)
 * or dotted names. Each name is loaded alone, so one that does not import does not hide the
 * others; the loader's own `_FailedTest` stand-ins are read as load errors (a module that does
 * not import) or unknown names (an attribute that does not exist), never run.
 */
export const UNITTEST_RUNNER = `
import importlib, inspect, json, os, sys, unittest
report, names = sys.argv[1], sys.argv[2:]
loader = unittest.TestLoader()
suite = unittest.TestSuite()
load_errors, unknown, bare = [], [], []
def rel(f):
    try:
        return os.path.relpath(f)
    except Exception:
        return f
def modname(n):
    return n[:-3].replace(os.sep, '.') if n.endswith('.py') else n
def flat(s):
    for t in s:
        if isinstance(t, unittest.TestSuite):
            yield from flat(t)
        else:
            yield t
def resolve(n):
    parts = n.split('.')
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module('.'.join(parts[:i]))
        except ImportError:
            continue
        parent = obj
        for p in parts[i:]:
            parent, obj = obj, getattr(obj, p, None)
            if obj is None:
                return None, None
        return parent, obj
    return None, None
for n in names:
    if not n.endswith('.py'):
        # The loader calls a plain function it is given, outside any result: named as bare instead.
        try:
            parent, obj = resolve(n)
        except Exception:
            parent, obj = None, None
        if inspect.ismodule(parent) and inspect.isfunction(obj):
            bare.append({'file': rel(parent.__file__), 'name': obj.__name__})
            continue
    before = len(loader.errors)
    try:
        found = loader.loadTestsFromName(modname(n))
    except Exception as e:
        unknown.append({'name': n, 'message': '%s: %s' % (type(e).__name__, e)})
        continue
    errs = loader.errors[before:]
    for t in flat(found):
        if type(t).__name__ == '_FailedTest':
            msg = errs[0] if errs else str(getattr(t, '_exception', ''))
            if 'Failed to import' in msg:
                load_errors.append({'file': n if n.endswith('.py') else None, 'message': msg})
            else:
                unknown.append({'name': n, 'message': msg})
        else:
            suite.addTest(t)
    mod = sys.modules.get(modname(n).split(':')[0])
    if mod is not None and n.endswith('.py'):
        for k, v in vars(mod).items():
            if k.startswith('test') and callable(v) and not isinstance(v, type) and getattr(v, '__module__', None) == mod.__name__:
                bare.append({'file': n, 'name': k})
cases = []
def record(test, outcome, message=''):
    mod = sys.modules.get(type(test).__module__)
    f = getattr(mod, '__file__', None)
    cls = type(test).__name__
    name = getattr(test, '_testMethodName', str(test))
    cases.append({'file': rel(f) if f else None, 'name': name, 'full_title': cls + '.' + name, 'outcome': outcome, 'message': message})
class Result(unittest.TextTestResult):
    def addSuccess(self, test):
        super().addSuccess(test); record(test, 'passed')
    def addFailure(self, test, err):
        super().addFailure(test, err); record(test, 'failed', self.failures[-1][1])
    def addError(self, test, err):
        super().addError(test, err); record(test, 'failed', self.errors[-1][1])
    def addSkip(self, test, reason):
        super().addSkip(test, reason); record(test, 'skipped', reason)
    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err); record(test, 'passed')
    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test); record(test, 'failed', 'unexpected success')
    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            record(test, 'failed', self._exc_info_to_string(err, test))
for e in load_errors + unknown:
    sys.stderr.write(e['message'] + '\\n')
result = unittest.TextTestRunner(verbosity=2, resultclass=Result).run(suite)
with open(report, 'w') as out:
    json.dump({'cases': cases, 'load_errors': load_errors, 'unknown': unknown, 'bare': bare}, out)
sys.exit(0 if result.wasSuccessful() and not load_errors and not unknown and result.testsRun > 0 else 1)
`;

/**
 * `command` (the preset's run of some files, or of one case) changed to write its report to
 * `reportFile` (absolute). unittest runs through UNITTEST_RUNNER: `targets` are its files or dotted names.
 */
export function withReport(preset: ReportPreset, command: TestCommand, reportFile: string, targets: string[], env: ProjectEnv | null): TestCommand {
  // The custom command names the report's place itself, with `{junit}`.
  if (preset === 'junit') {
    if (command.kind !== 'shell') return command;
    const script = command.script.startsWith(UNREAD_JUNIT_SETUP) ? command.script.slice(UNREAD_JUNIT_SETUP.length) : command.script;
    return { kind: 'shell', script: script.replaceAll(UNREAD_JUNIT, shellQuote(reportFile)) };
  }
  if (command.kind !== 'argv') return command;
  switch (preset) {
    case 'go': {
      // go writes its events to stdout only: stdout goes to the report, stderr (the compiler's
      // messages) stays the run's output.
      const [test, ...rest] = command.args;
      return intoReport(reportFile, [command.command, test!, '-json', ...rest], command.env, 'stdout');
    }
    case 'cargo': {
      // libtest writes its results to stdout and cargo says which test binary runs on stderr: both
      // go to the report, in order, so each result is read with the file of the binary it came from.
      return intoReport(reportFile, [command.command, ...command.args], command.env, 'both');
    }
    case 'pytest':
      return { ...command, args: [...command.args, '--continue-on-collection-errors', '-o', 'junit_family=xunit1', `--junit-xml=${reportFile}`] };
    case 'unittest':
      return { kind: 'argv', command: pythonOf(env), args: ['-c', UNITTEST_RUNNER, reportFile, ...targets], env: pythonRunEnv(env) };
    case 'jest':
      return { ...command, args: [...command.args, '--json', `--outputFile=${reportFile}`] };
    case 'vitest':
      return { ...command, args: [...command.args, '--reporter=default', '--reporter=json', `--outputFile.json=${reportFile}`] };
    case 'mocha':
      return { ...command, args: [...command.args, '--reporter', 'json', '--reporter-option', `output=${reportFile}`] };
    case 'ava':
      // AVA's TAP goes to stdout, the report; what the tests print comes on its stderr, the output.
      return intoReport(reportFile, [command.command, '--tap', ...command.args], command.env, 'stdout');
    case 'uvu':
      // Tilth's own uvu runner writes its JSON report where its report argument says.
      return { ...command, args: command.args.map((arg, i) => (i === UVU_REPORT_ARG ? reportFile : arg)) };
    case 'tap':
      // tap's TAP goes to stdout, the report; the test processes' stderr stays the output.
      return intoReport(reportFile, [command.command, '--reporter=tap', ...command.args], command.env, 'stdout');
    case 'node': {
      // The reporters go before the files: node takes what follows a file as more files (after
      // `--test`, absent from a run in one process).
      const at = command.args[0] === '--test' ? 1 : 0;
      return {
        ...command,
        args: [
          ...command.args.slice(0, at),
          '--test-reporter=spec',
          '--test-reporter-destination=stdout',
          '--test-reporter=junit',
          `--test-reporter-destination=${reportFile}`,
          ...command.args.slice(at),
        ],
      };
    }
  }
}

/** `argv` run by `sh` with its stdout, or both its streams in order, sent to `reportFile` (passed as `$0`, never parsed by the shell). */
function intoReport(reportFile: string, argv: string[], env: Record<string, string>, streams: 'stdout' | 'both'): TestCommand {
  return { kind: 'argv', command: '/bin/sh', args: ['-c', `exec "$@" > "$0"${streams === 'both' ? ' 2>&1' : ''}`, reportFile, ...argv], env };
}

const REPORT_NAME: Record<ReportPreset, string> = {
  pytest: 'report.xml',
  node: 'report.xml',
  unittest: 'report.json',
  jest: 'report.json',
  vitest: 'report.json',
  mocha: 'report.json',
  ava: 'report.tap',
  tap: 'report.tap',
  uvu: 'report.json',
  go: 'report.jsonl',
  cargo: 'report.txt',
  junit: 'report.xml',
};

/** What a run with a report says: the process's result, the parsed report, and what is wrong with them. */
export interface ReportedRun {
  run: UntrustedResult;
  /** The run's text for the worker and the reviewer (mocha's summary rendered from its report). */
  output: string;
  report: RunnerReport | null;
  /** Why the report cannot be trusted as the run's account (missing, unreadable, contradicts the exit code); null when it can. */
  problem: string | null;
}

/** The prefix of the per-run report folders, git-ignored by their own `.gitignore`. */
export const REPORT_DIR_PREFIX = '.tilth-report-';

/**
 * Runs `build(reportFile)` through the sandbox with a fresh report folder in the worktree, reads
 * and parses the report, and removes the folder.
 */
export async function runWithReport(
  preset: ReportPreset,
  build: (reportFile: string) => TestCommand,
  scope: UntrustedScope,
  options: UntrustedOptions,
  files: readonly string[] = [],
): Promise<ReportedRun> {
  const tree = Tree.at(scope.worktree);
  const dir = `${REPORT_DIR_PREFIX}${randomBytes(12).toString('hex')}`;
  tree.mkdir(dir);
  if (preset === 'tap') tapState(tree, scope.cwd ?? '');
  try {
    // A crash between here and the removal must not put the folder in the task's commit.
    tree.writeFile(path.join(dir, '.gitignore'), '*\n');
    const rel = path.join(dir, REPORT_NAME[preset]);
    const run = await runUntrusted(build(path.join(tree.root, rel)), scope, options);
    const raw = tree.readFileNoFollow(rel)?.toString('utf8') ?? null;
    // A workspace package's run (scope.cwd) is read from its folder, where its runner names its
    // files (`files` are relative to it too), and then named from the root like every other run.
    if (!scope.cwd) return readRun(preset, run, raw, scope.worktree, files);
    return fromPackage(readRun(preset, run, raw, path.join(scope.worktree, scope.cwd), files), scope.cwd);
  } finally {
    tree.remove(dir, { recursive: true });
  }
}

/**
 * node-tap keeps its state in `.tap/` where it runs (each file's last TAP, process info, plugins
 * it installed): a fresh, empty folder before each run, so nothing the worker put there (a plugin,
 * a stale result) takes part, with a `.gitignore` of `*` so what tap writes is never committed.
 */
export function tapState(tree: Tree, cwd: string): void {
  const dir = path.join(cwd, '.tap');
  tree.remove(dir, { recursive: true });
  tree.mkdir(dir);
  tree.writeFile(path.join(dir, '.gitignore'), '*\n');
}

/** A package's run with its cases' and load errors' files named from the root (`dir/…`). */
export function fromPackage(reported: ReportedRun, dir: string): ReportedRun {
  if (reported.report === null) return reported;
  const at = (file: string | null) => (file === null ? null : path.posix.join(dir, file));
  const report = reported.report;
  return {
    ...reported,
    report: {
      ...report,
      cases: report.cases.map((c) => ({ ...c, file: at(c.file) })),
      loadErrors: report.loadErrors.map((e) => ({ ...e, file: at(e.file) })),
      ...(report.bare ? { bare: report.bare.map((b) => ({ ...b, file: path.posix.join(dir, b.file) })) } : {}),
    },
  };
}

/** A run's report read against its exit code (exported for the parsers' tests on captured runs). */
export function readRun(preset: ReportPreset, run: UntrustedResult, raw: string | null, worktree: string, files: readonly string[] = []): ReportedRun {
  // cargo's whole output is its report: the worker and the classifier read it from there.
  const said = preset === 'cargo' && raw !== null ? { ...run, output: cargoText(raw) } : run;
  const base = { run: said, output: said.output };
  if (run.timedOut || run.spawnError !== null) return { ...base, report: null, problem: null };
  let report: RunnerReport | null = null;
  let parseError: string | null = null;
  if (raw !== null) {
    try {
      report = parseReport(preset, raw, worktree, run.output, files);
    } catch (err) {
      parseError = (err as Error).message;
    }
  } else if (preset === 'mocha' && /^\s*Exception during run: /m.test(run.output)) {
    // Mocha writes no report when a file does not load; its output says which.
    report = { cases: [], loadErrors: [{ file: mochaLoadFile(run.output, worktree), message: run.output.trim() }] };
  }
  // JUnit has no word for a file that did not load: a failed run says it, by a file with no case.
  if (preset === 'junit' && parseError === null) report = withUnloadedFiles(report, files, run.exitCode);
  const output =
    preset === 'mocha' && raw !== null && report
      ? mochaSummary(report, run.output)
      : preset === 'go' && raw !== null
        ? goText(raw, run.output)
        : (preset === 'ava' || preset === 'tap') && raw !== null
          ? tapText(raw, run.output)
          : base.output;
  if (report === null) {
    const why = parseError ? `its report could not be read (${parseError})` : 'it wrote no report';
    return { ...base, output, report: null, problem: `${RUNNER[preset]} exited with code ${run.exitCode}, but ${why}, so what ran is unknown.` };
  }
  const failed = report.cases.filter((c) => c.outcome === 'failed').length;
  const trouble = failed + report.loadErrors.length;
  if (run.exitCode === 0 && trouble > 0) {
    return {
      ...base,
      output,
      report,
      problem: `${RUNNER[preset]} exited with code 0, but its report lists ${failed} failed case${failed === 1 ? '' : 's'} and ${report.loadErrors.length} file${report.loadErrors.length === 1 ? '' : 's'} that did not load.`,
    };
  }
  const passed = report.cases.filter((c) => c.outcome === 'passed').length;
  if (run.exitCode !== 0 && trouble === 0 && passed > 0 && (report.unknown?.length ?? 0) === 0) {
    return {
      ...base,
      output,
      report,
      problem: `${RUNNER[preset]} exited with code ${run.exitCode}, but its report says every case that ran passed and every file loaded.`,
    };
  }
  return { ...base, output, report, problem: null };
}

// ── the acceptance check ─────────────────────────────────────────────────────────────────────

/** The cases a task's matrix names, all in its test file. */
export interface NamedCases {
  taskId: string;
  file: string;
  tests: string[];
}

/**
 * Whether an acceptance run passed, by its report: exit 0, a report that agrees, at least one
 * case executed and none failed, and every case the given tasks name executed and passed (the
 * current task's in the loop, every done task's in the merge preview).
 * `reasons` says why not, one sentence each, for the worker and the reviewer.
 */
export function acceptanceVerdict(
  preset: ReportPreset,
  reported: ReportedRun,
  files: string[],
  named: NamedCases[] = [],
): { passed: boolean; reasons: string[] } {
  const { run, report, problem } = reported;
  if (run.timedOut || run.spawnError !== null) return { passed: false, reasons: [] };
  if (problem !== null || report === null) return { passed: false, reasons: [problem ?? `${RUNNER[preset]} wrote no report.`] };
  const reasons: string[] = [];
  const executed = report.cases.filter((c) => c.outcome !== 'skipped');
  for (const e of report.loadErrors) reasons.push(`${e.file ?? 'a test file'} did not load, so none of its cases ran.`);
  if (executed.length === 0) {
    const bare = report.bare?.length
      ? ` unittest collects only test_… methods of a unittest.TestCase subclass, and ${report.bare.map((b) => `${b.file}: ${b.name}`).join(', ')} ${report.bare.length === 1 ? 'is a bare function' : 'are bare functions'}.`
      : '';
    reasons.push(`No test case ran in ${files.join(', ')}: a run that executes nothing is never a pass.${bare}`);
  }
  for (const task of named) {
    for (const test of task.tests) {
      const { cases } = namedCaseIn(preset, report, task.file, test);
      const ran = cases.filter((c) => c.outcome !== 'skipped');
      if (ran.length === 0) reasons.push(`${notRunMessage(preset, report, task.taskId, task.file, test, cases.length > 0)}.`);
      else if (ran.some((c) => c.outcome === 'failed')) reasons.push(`${task.taskId}'s case \`${test}\` failed.`);
    }
  }
  const failed = executed.filter((c) => c.outcome === 'failed');
  const passed = run.exitCode === 0 && failed.length === 0 && reasons.length === 0;
  return { passed, reasons };
}
