/**
 * Checks presets (SPEC §6, "Checks"): which one a workspace gets, how its acceptance tests are
 * named, how they are run, and what the interviewer is told about them. The patterns themselves
 * live in `shared/seed.ts` so the sink, the seed review page and the prompt agree on them.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Command as TestCommand } from '../proc/untrusted.ts';
import { TEST_FILE_PATTERNS, type ChecksPreset, type CustomChecks } from '../../shared/seed.ts';
import { AppError } from '../errors.ts';

/** Files only a Python project has; any one of them settles the question. */
const PYTHON_MANIFESTS = ['pyproject.toml', 'setup.py', 'setup.cfg', 'Pipfile', 'conftest.py'];

/**
 * Picks the preset for a repo. Precedence, and why:
 *
 * 1. `pytest` when the repo is clearly Python: a Python manifest at the top level
 *    (pyproject.toml, setup.py, setup.cfg, Pipfile, requirements*.txt, conftest.py) or
 *    pytest-style files in `tests/` (`test_*.py`, `*_test.py`, conftest.py). This wins over a
 *    package.json, because Python projects often carry one for a front end or a linter while
 *    their tests stay in pytest.
 * 2. `node` when there is a package.json.
 * 3. `pytest` when there are only loose `*.py` files (top level or `tests/`): a folder of scripts
 *    without a manifest is still Python, but one helper script in a JS repo must not make it so —
 *    hence below package.json.
 * 4. `custom` otherwise: the user gives the commands in seed review.
 */
export async function detectPreset(repoRoot: string): Promise<ChecksPreset> {
  const [top, tests] = await Promise.all([listDir(repoRoot), listDir(path.join(repoRoot, 'tests'))]);
  const manifest = top.some((name) => PYTHON_MANIFESTS.includes(name) || /^requirements.*\.txt$/.test(name));
  const pytestFiles = tests.some((name) => /^(test_.+|.+_test)\.py$/.test(name) || name === 'conftest.py');
  if (manifest || pytestFiles) return 'pytest';
  if (top.includes('package.json')) return 'node';
  if ([...top, ...tests].some((name) => name.endsWith('.py'))) return 'pytest';
  return 'custom';
}

async function listDir(dir: string): Promise<string[]> {
  try {
    return await fs.readdir(dir);
  } catch {
    return []; // missing or not a folder: nothing to detect from
  }
}

/** The acceptance-test naming rule of a preset: regex (group 1 = the task's digits), example, wording. */
export function testFilePattern(preset: ChecksPreset): (typeof TEST_FILE_PATTERNS)[ChecksPreset] {
  return TEST_FILE_PATTERNS[preset];
}

/** What the rest of a test file's name may contain, in words, for error messages. */
export function slugRule(preset: ChecksPreset): string {
  switch (preset) {
    case 'pytest':
      return 'the slug uses lowercase letters, digits and _ only';
    case 'node':
      return 'the slug uses lowercase letters, digits, _ and - only, and the name ends in .test.js or .test.mjs';
    case 'custom':
      return 'the rest of the name uses lowercase letters, digits, _, - and . only';
  }
}

/** The digits of a task id: `T-001` → `001`; null when the id is not `T-<3+ digits>`. */
export function taskDigits(taskId: string): string | null {
  return /^T-(\d{3,})$/.exec(taskId)?.[1] ?? null;
}

/** `T-001` → `tests/test_t001_` (pytest) or `tests/t001_` (node, custom). */
export function expectedTestPrefix(preset: ChecksPreset, taskId: string): string {
  const digits = taskDigits(taskId);
  if (digits === null) throw new AppError('invalid_task_id', `'${taskId}' is not a task id like T-001`, 400);
  return preset === 'pytest' ? `tests/test_t${digits}_` : `tests/t${digits}_`;
}

/**
 * The task a test file belongs to, by the digits in its name (`tests/t001_x.test.js` → T-001),
 * or null when the path does not follow the preset's pattern. The digits are kept as written, so
 * T-001's file is `t001_…`, never `t0001_…` — the same rule as `expectedTestPrefix`.
 */
export function taskIdOfTestFile(preset: ChecksPreset, file: string): string | null {
  const digits = TEST_FILE_PATTERNS[preset].regex.exec(file)?.[1];
  return digits === undefined ? null : `T-${digits}`;
}

export type { Command as TestCommand } from '../proc/untrusted.ts';

/**
 * How to run some acceptance tests, from the worktree root.
 *
 * pytest runs with its cache plugin off and without bytecode files: the worktree is committed
 * with `git add -A`, so `.pytest_cache/` and `__pycache__/` must not appear in it.
 */
export function testCommand(preset: ChecksPreset, files: string[], custom?: CustomChecks): TestCommand {
  switch (preset) {
    case 'pytest':
      return { kind: 'argv', command: 'python3', args: ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', ...files], env: { PYTHONDONTWRITEBYTECODE: '1' } };
    case 'node':
      return { kind: 'argv', command: 'node', args: ['--test', ...files], env: {} };
    case 'custom':
      if (!custom) {
        throw new AppError('custom_checks_missing', 'The custom checks preset needs a test command with a {files} placeholder; set it in seed review.', 400);
      }
      return { kind: 'shell', script: custom.test.replaceAll('{files}', files.map(shellQuote).join(' ')) };
  }
}

/** POSIX single quoting: safe for any string, quotes and spaces included. */
export function shellQuote(value: string): string {
  return /^[A-Za-z0-9_./=-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

const FAIL_FIRST =
  'Give every acceptance criterion at least one assertion. The tests must fail now, because the feature does not exist yet, and pass once it is built.';

/** A short paragraph for the interviewer's prompt: how to name and write the acceptance tests. */
export function describePresetForPrompt(preset: ChecksPreset, custom?: CustomChecks): string {
  const { describe, example } = TEST_FILE_PATTERNS[preset];
  const naming = `Write exactly one acceptance test file per task, named ${describe} with the task's number (for T-001: ${example}); ${slugRule(preset)}.`;
  switch (preset) {
    case 'pytest':
      return [
        `This repository's tests run with pytest (\`python3 -m pytest -q <file>\` from the repository root). ${naming}`,
        'Write plain pytest functions (`def test_…():`) with bare `assert` statements, and `pytest.raises` for expected errors; no unittest classes.',
        `Import the code under test the way the existing tests do. ${FAIL_FIRST}`,
      ].join(' ');
    case 'node':
      return [
        `This repository's tests run with Node's built-in test runner (\`node --test <file>\`). ${naming}`,
        "Use ES modules: `import { test } from 'node:test';` and `import assert from 'node:assert/strict';`, then import the code under test by a relative path with its extension (e.g. `../src/x.js`). No test framework dependencies.",
        FAIL_FIRST,
      ].join(' ');
    case 'custom':
      return [
        `This repository's tests run with the user's own command${custom ? `: \`${custom.test}\` ({files} becomes the test files)` : ' (not set yet; the user sets it in seed review)'}. ${naming}`,
        "Write the tests in the repository's language and in the style of its existing tests, so that command runs them.",
        FAIL_FIRST,
      ].join(' ');
  }
}
