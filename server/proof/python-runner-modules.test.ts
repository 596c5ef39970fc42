import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EnvPlan } from '../../shared/files.ts';
import type { ProjectEnv } from '../../shared/project-env.ts';
import type { UntrustedScope } from '../proc/untrusted.ts';
import { tempDir } from '../testing/temp-dir.ts';
import { parseRunnerModules, pythonPathFolders, pythonRunnerModules, shadowRuleFor } from './python-runner-modules.ts';
import { TEST_SANDBOX } from '../testing/sandbox.ts';

const PLAN: EnvPlan = { node_modules_from: null, install: null, venv: null, python_path: [], setup: null };

describe('parseRunnerModules', () => {
  it("reads the probe's line among whatever else was printed", () => {
    expect(parseRunnerModules('noise\nTILTH-RUNNER-MODULES ["_pytest", "pytest", "_sysconfigdata__linux_x86_64-linux-gnu"]\n')).toEqual([
      '_pytest',
      'pytest',
      '_sysconfigdata__linux_x86_64-linux-gnu',
    ]);
  });

  it('is null without the line, with a line that is not JSON, not a list of names, or names with a path in them', () => {
    expect(parseRunnerModules('Traceback (most recent call last):\n')).toBeNull();
    expect(parseRunnerModules('TILTH-RUNNER-MODULES [oops')).toBeNull();
    expect(parseRunnerModules('TILTH-RUNNER-MODULES {"a": 1}')).toBeNull();
    expect(parseRunnerModules('TILTH-RUNNER-MODULES [1]')).toBeNull();
    expect(parseRunnerModules('TILTH-RUNNER-MODULES ["../x"]')).toBeNull();
    expect(parseRunnerModules('TILTH-RUNNER-MODULES ["a b"]')).toBeNull();
    expect(parseRunnerModules('TILTH-RUNNER-MODULES []')).toEqual([]);
  });
});

describe('pythonPathFolders', () => {
  it("lists the root, the plan's path folders, src in the src layout, and each acceptance test's folders up to the root", () => {
    const env = { python: { src_layout: true } } as unknown as ProjectEnv;
    expect(
      pythonPathFolders({ ...PLAN, python_path: ['.', 'lib/sub/', 'win\\dir'] }, env, ['tests/unit/test_a.py', 'tests/test_b.py', 'test_c.py']).sort(),
    ).toEqual(['', 'lib/sub', 'win/dir', 'src', 'tests', 'tests/unit'].sort());
    // A test named by an absolute path (never a seed's) adds no folder.
    expect(pythonPathFolders(PLAN, null, ['/abs/tests/test_a.py'])).toEqual(['']);
    expect(pythonPathFolders(null, null, [])).toEqual(['']);
    expect(pythonPathFolders(PLAN, { python: { src_layout: false } } as unknown as ProjectEnv, [])).toEqual(['']);
  });
});

describe('pythonRunnerModules, asked of the real interpreter', () => {
  let worktree: string;
  let scope: UntrustedScope;
  let sitePackages: string;
  beforeAll(() => {
    worktree = tempDir('tilth-runner-modules-');
    // What the worktree holds must not count: the probe runs isolated, away from it.
    fs.writeFileSync(path.join(worktree, 'json.py'), 'raise SystemExit("the worktree was on the path")\n');
    scope = { sandbox: TEST_SANDBOX, worktree, git: null, network: false };
    sitePackages = path.dirname(path.dirname(execFileSync('python3', ['-I', '-c', 'import pytest; print(pytest.__file__)'], { encoding: 'utf8' }).trim()));
  });
  afterAll(() => fs.rmSync(worktree, { recursive: true, force: true }));

  it("lists pytest's own modules and the standard library's it loads, and no built-in or start-up module", async () => {
    const modules = await pythonRunnerModules('pytest', null, scope, [worktree]);
    expect(modules).toEqual(expect.arrayContaining(['pytest', '_pytest', 'pluggy', 'json', 'xml', 'difflib']));
    expect(modules).not.toContain('sys');
    expect(modules).not.toContain('builtins');
    expect(modules).not.toContain('os');
    expect(modules).not.toContain('test_probe');
    expect(modules).not.toContain('__main__');
  });

  it("lists unittest's, through Tilth's own unittest runner, which pytest's list does not need", async () => {
    const modules = await pythonRunnerModules('unittest', null, scope, [worktree]);
    expect(modules).toEqual(expect.arrayContaining(['unittest', 'json', 'difflib']));
    expect(modules).not.toContain('pytest');
  });

  it("leaves out the modules that live in the project's own folders", async () => {
    const modules = await pythonRunnerModules('pytest', null, scope, [worktree, sitePackages]);
    expect(modules).not.toContain('pytest');
    expect(modules).not.toContain('_pytest');
    expect(modules).toContain('json');
  });

  it('asks nothing for a runner that is not Python’s, and is null when the interpreter cannot run the runner', async () => {
    expect(await pythonRunnerModules('vitest', null, scope, [])).toBeNull();
    const missing = { python: { interpreter: path.join(worktree, 'no-python') } } as unknown as ProjectEnv;
    expect(await pythonRunnerModules('pytest', missing, scope, [])).toBeNull();
  });

  it('makes the rule of a session: the modules and the folders', async () => {
    const rule = await shadowRuleFor({ preset: 'pytest', env: null, plan: PLAN, lockedTests: ['tests/test_a.py'], scope, own: [worktree] });
    expect(rule?.folders).toEqual(['', 'tests']);
    expect(rule?.modules.has('_pytest')).toBe(true);
    expect(await shadowRuleFor({ preset: 'jest', env: null, plan: PLAN, lockedTests: [], scope, own: [] })).toBeUndefined();
  });
});
