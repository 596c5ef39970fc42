/**
 * The modules a Python test run imports, so that the worktree cannot stand in for them. Python
 * looks for a module in the folders of `sys.path` in order, and a Python run of the checks has
 * worktree folders ahead of the installed packages and the standard library: the folder it starts
 * in (`python -m pytest`, the unittest runner passed with `-c`), PYTHONPATH's (the worktree, `src`),
 * and the folder pytest puts first for a test file outside a package. A `pytest.py`, a `_pytest/`,
 * a `unittest.py` or a `json.py` there is imported in place of the runner's own, and can write a
 * report in which every test passed.
 *
 * Which modules: the interpreter the checks use runs the runner once on two small tests (one
 * passes, one fails on a list comparison, so the failure path's imports count too) in a folder of
 * its own, isolated (`-I`: no PYTHONPATH, no start folder on the path), inside the sandbox (a
 * virtualenv a setup made in the worktree is code the worker could have changed), and lists the
 * top-level modules then loaded, less the built-in ones and those loaded before the probe began
 * (the interpreter's start: no file can replace them) and the project's own (an editable install of the project, a plugin it is). `test-machinery.ts` then
 * treats those names, in the worktree's path folders, as test machinery.
 */
import path from 'node:path';
import type { EnvPlan } from '../../shared/files.ts';
import type { ProjectEnv } from '../../shared/project-env.ts';
import type { ChecksPreset } from '../../shared/seed.ts';
import { pythonOf } from '../env/presets.ts';
import { runUntrusted, type UntrustedScope } from '../proc/untrusted.ts';
import { UNITTEST_RUNNER } from './runner-report.ts';
import type { ShadowRule } from './test-machinery.ts';

const MARK = 'TILTH-RUNNER-MODULES ';

/** The probe: argv is the preset, the unittest runner, then the folders whose modules are the project's. */
const PROBE = `
import sys
started = set(m.split('.')[0] for m in sys.modules)
import contextlib, io, json, os, shutil, tempfile
preset, runner, own = sys.argv[1], sys.argv[2], [os.path.realpath(p) for p in sys.argv[3:]]
tmp = tempfile.mkdtemp(prefix='tilth-probe-')
report = os.path.join(tmp, 'report')
test = os.path.join(tmp, 'test_probe.py')
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    try:
        if preset == 'pytest':
            with open(test, 'w') as f:
                f.write('def test_pass():\\n    assert 1 == 1\\n\\n\\ndef test_fail():\\n    assert [1, 2] == [1, 3]\\n')
            import pytest
            pytest.main([tmp, '-q', '-p', 'no:cacheprovider', '--continue-on-collection-errors', '-o', 'junit_family=xunit1', '--junit-xml=' + report])
        else:
            with open(test, 'w') as f:
                f.write('import unittest\\n\\n\\nclass T(unittest.TestCase):\\n    def test_pass(self):\\n        self.assertEqual(1, 1)\\n\\n    def test_fail(self):\\n        self.assertEqual([1, 2], [1, 3])\\n')
            os.chdir(tmp)
            sys.path.insert(0, tmp)
            sys.argv = ['-c', report, 'test_probe.py']
            exec(compile(runner, '<runner>', 'exec'), {'__name__': '__main__'})
    except SystemExit:
        pass
def theirs(mod):
    f = getattr(mod, '__file__', None)
    if not f:
        return True
    real = os.path.realpath(f)
    return not any(real == o or real.startswith(o + os.sep) for o in own)
names = set()
for name in list(sys.modules):
    top = name.split('.')[0]
    if top in sys.builtin_module_names or top in started or top in ('__main__', 'test_probe'):
        continue
    if theirs(sys.modules.get(top)):
        names.add(top)
shutil.rmtree(tmp, ignore_errors=True)
print('${MARK}' + json.dumps(sorted(names)))
`;

/** The module names the probe printed; null when it printed none (it could not run the runner). */
export function parseRunnerModules(output: string): string[] | null {
  const line = output.split('\n').find((l) => l.startsWith(MARK));
  // Stryker disable next-line ConditionalExpression: without the line, parsing `undefined` throws and is caught below, to the same null
  if (!line) return null;
  try {
    const names: unknown = JSON.parse(line.slice(MARK.length));
    return Array.isArray(names) && names.every((n) => typeof n === 'string' && /^[\w-]+$/.test(n)) ? (names as string[]) : null;
  } catch {
    return null;
  }
}

/**
 * The top-level modules a run of `preset` imports in the session's environment; null for a
 * runner that is not Python's, or when the probe could not run it (the checks then go without
 * this part of the machinery).
 */
export async function pythonRunnerModules(
  preset: ChecksPreset,
  env: ProjectEnv | null,
  scope: UntrustedScope,
  own: readonly string[],
  signal?: AbortSignal,
): Promise<string[] | null> {
  if (preset !== 'pytest' && preset !== 'unittest') return null;
  const run = await runUntrusted({ kind: 'argv', command: pythonOf(env), args: ['-I', '-c', PROBE, preset, UNITTEST_RUNNER, ...own], env: {} }, scope, {
    timeoutMs: 60_000,
    signal,
  });
  return parseRunnerModules(run.output);
}

/**
 * The worktree folders a Python run has on `sys.path` ahead of the installed packages, relative
 * (`''` is the root): the root (where it starts), the plan's PYTHONPATH folders, `src` in the src
 * layout, and each acceptance test's folder and those above it (pytest puts a test's first folder
 * outside a package first on the path).
 */
export function pythonPathFolders(plan: EnvPlan | null, env: ProjectEnv | null, lockedTests: readonly string[]): string[] {
  const folders = new Set<string>(['']);
  for (const dir of plan?.python_path ?? []) folders.add(normalize(dir));
  if (env?.python?.src_layout) folders.add('src');
  for (const test of lockedTests) {
    if (path.posix.isAbsolute(test)) continue;
    for (let dir = path.posix.dirname(normalize(test)); dir !== '.'; dir = path.posix.dirname(dir)) folders.add(dir);
  }
  return [...folders];
}

function normalize(dir: string): string {
  const rel = path.posix.normalize(dir.replace(/\\/g, '/')).replace(/\/$/, '');
  return rel === '.' ? '' : rel;
}

/**
 * The shadow rule of a session's Python runner (test-machinery.ts): its modules and the folders
 * where a file would stand in for one. Undefined for other runners, and when the probe could not
 * run the runner (the checks then go without this part of the machinery).
 */
export async function shadowRuleFor(input: {
  preset: ChecksPreset;
  env: ProjectEnv | null;
  plan: EnvPlan | null;
  lockedTests: readonly string[];
  scope: UntrustedScope;
  /** Folders whose modules are the project's own: the checkout and the worktree. */
  own: readonly string[];
  signal?: AbortSignal | undefined;
}): Promise<ShadowRule | undefined> {
  const modules = await pythonRunnerModules(input.preset, input.env, input.scope, input.own, input.signal);
  if (!modules) return undefined;
  return { folders: pythonPathFolders(input.plan, input.env, input.lockedTests), modules: new Set(modules) };
}
