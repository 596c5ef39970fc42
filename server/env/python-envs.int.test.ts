/**
 * Python projects whose environment a tool made (issue 29, step 5), with the real tools: Poetry's
 * and Pipenv's virtualenvs outside the repository (Debian's Poetry and Pipenv, offline: the project
 * needs nothing from an index) and a tox environment inside it. Detection finds each without running it, the plan shows
 * it read-only to the sandbox, and a named case is proved red, then green, with that interpreter.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import type { PrdEntry } from '../../shared/files.ts';
import { makeExampleRepo, type ExampleRepo } from '../demo/example-repo.ts';
import { detectSandbox } from '../proc/sandbox.ts';
import { proveCases } from '../proof/red-proof.ts';
import { proofTask } from '../testing/proof-seed.ts';
import { tempDir } from '../testing/temp-dir.ts';
import { detectProjectEnv } from './detect.ts';
import { planEnvironment, projectScope } from './provision.ts';

const SLOW = 180_000;
let repo: ExampleRepo | null = null;
const made: string[] = [];
const saved = { POETRY_VIRTUALENVS_PATH: process.env.POETRY_VIRTUALENVS_PATH, WORKON_HOME: process.env.WORKON_HOME };
afterEach(async () => {
  await repo?.cleanup();
  repo = null;
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

const POETRY_PYPROJECT = `[tool.poetry]
name = "py-poetry-todo"
version = "1.0.0"
description = "The py-src todo list, managed with Poetry."
authors = ["Tilth examples <examples@tilth.invalid>"]
packages = [{ include = "todo", from = "src" }]

[tool.poetry.dependencies]
python = ">=3.10"

[build-system]
requires = ["poetry-core>=1.0.0"]
build-backend = "poetry.core.masonry.api"
`;

const TOX_INI = `[tox]
envlist = py311
skipsdist = true

[testenv]
skip_install = true
setenv = PYTHONPATH = {toxinidir}/src
commands = python -m unittest discover -s tests
`;

/** A case of the task, and one that says which environment runs it (`prefix`: the virtualenv's folder). */
const countTest = (prefix: string) => `import os
import sys
import unittest

from todo import add_todo


class CountDoneTest(unittest.TestCase):
    def test_counts_only_done_todos(self):
        from todo import count_done

        self.assertEqual(count_done(add_todo([], "a")), 0)

    def test_runs_in_the_project_environment(self):
        self.assertEqual(os.path.realpath(sys.prefix), os.path.realpath(${JSON.stringify(prefix)}))
`;
import { TEST_SANDBOX } from '../testing/sandbox.ts';

const COUNT_DONE = '\n\ndef count_done(todos: list[Todo]) -> int:\n    """How many todos are done."""\n    return sum(1 for t in todos if t.done)\n';

/** py-src made into `files`' project, committed; `tool` then makes its environment. */
async function project(files: Record<string, string>, tool: [string, ...string[]][]): Promise<string> {
  repo = await makeExampleRepo('py-src');
  for (const [file, content] of Object.entries(files)) fs.writeFileSync(path.join(repo.dir, file), content);
  for (const [command, ...args] of tool)
    await execa(command, args, { cwd: repo.dir, stdin: 'ignore', all: true, timeout: 120_000, env: { PIP_NO_INDEX: '1', PIPENV_YES: '1' } });
  return repo.dir;
}

/**
 * The task's case red on the checkout as it is, then green once count_done is written; each run
 * in the environment at `prefix`, as the other case says.
 */
async function redThenGreen(dir: string, prefix: string): Promise<void> {
  const env = await detectProjectEnv(dir);
  const plan = planEnvironment({ source: dir, worktree: dir, env });
  const file = 'tests/test_t001_count.py';
  const test = countTest(prefix);
  fs.writeFileSync(path.join(dir, file), test);
  const prd: PrdEntry[] = [
    proofTask('T-001', 'Count done todos.', [['CountDoneTest::test_counts_only_done_todos'], ['CountDoneTest::test_runs_in_the_project_environment']]),
  ];
  const input = { prd, testFiles: { [file]: test }, preset: 'unittest' as const, project: env, env: {}, repeats: 1 };
  const scope = { sandbox: TEST_SANDBOX, worktree: dir, git: null, network: false, project: projectScope(plan, dir) };
  const red = (await proveCases({ ...input, scope }, prd))['T-001']!;
  expect(red.map((p) => [p.result, p.detail])).toEqual([
    ['failed', 'what the task adds is missing'],
    ['passed', 'it passes already'],
  ]);
  fs.appendFileSync(path.join(dir, 'src/todo/__init__.py'), COUNT_DONE);
  const green = (await proveCases({ ...input, scope }, prd))['T-001']!;
  expect(green.map((p) => p.result)).toEqual(['passed', 'passed']);
}

/**
 * The virtualenv the tool says it made (`said`, outside the repository) is the one detection
 * finds, under the tool's name, shown read-only to the sandbox; the case is red, then green, in it.
 */
async function usedFromOutside(dir: string, said: string, tool: 'poetry' | 'pipenv', evidence: string): Promise<void> {
  const env = await detectProjectEnv(dir);
  expect(env.python).toMatchObject({ interpreter: path.join(said, 'bin', 'python'), source: tool, manager: { tool, evidence } });
  const plan = planEnvironment({ source: dir, worktree: dir, env });
  expect(plan.venv).toBe(said);
  expect(projectScope(plan, dir)?.readOnly).toContain(said);
  await redThenGreen(dir, said);
}

const sandboxed = detectSandbox('auto').available;

describe.runIf(sandboxed)('Python environments made by their tools', () => {
  it(
    "Poetry: its virtualenv outside the repository found by Poetry's name for it, shown read-only to the sandbox, the case proved red then green in it",
    async () => {
      const venvs = tempDir('tilth-poetry-venvs-');
      made.push(venvs);
      process.env.POETRY_VIRTUALENVS_PATH = venvs;
      const dir = await project({ 'pyproject.toml': POETRY_PYPROJECT }, [
        ['poetry', 'lock', '-n'],
        ['poetry', 'install', '-n'],
      ]);
      const said = (await execa('poetry', ['env', 'info', '-p'], { cwd: dir })).stdout.trim();
      await usedFromOutside(dir, said, 'poetry', 'poetry.lock');
    },
    SLOW,
  );

  it(
    'Pipenv: its virtualenv outside the repository found by the project path it records, shown read-only to the sandbox, the case proved red then green in it',
    async () => {
      const workon = tempDir('tilth-pipenv-venvs-');
      made.push(workon);
      process.env.WORKON_HOME = workon;
      const dir = await project({ Pipfile: '[packages]\n\n[dev-packages]\n' }, [['pipenv', '--python', 'python3']]);
      const said = (await execa('pipenv', ['--venv'], { cwd: dir })).stdout.trim();
      expect(path.dirname(said)).toBe(workon);
      await usedFromOutside(dir, said, 'pipenv', 'Pipfile');
    },
    SLOW,
  );

  it(
    'tox: the environment tox made in the checkout, the case proved red then green with its interpreter',
    async () => {
      const dir = await project({ 'tox.ini': TOX_INI }, [['tox', '--notest']]);
      const env = await detectProjectEnv(dir);
      expect(env.python).toMatchObject({
        interpreter: path.join(dir, '.tox', 'py311', 'bin', 'python'),
        source: 'tox',
        manager: { tool: 'tox', evidence: 'tox.ini' },
      });
      await redThenGreen(dir, path.join(dir, '.tox', 'py311'));
      // tox itself agrees, in the checkout, once the work is done.
      const own = await execa('tox', [], { cwd: dir, all: true, reject: false, stdin: 'ignore', timeout: 120_000 });
      expect(own.exitCode, own.all).toBe(0);
    },
    SLOW,
  );
});
