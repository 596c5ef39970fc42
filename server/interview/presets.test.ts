import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXAMPLES_DIR } from '../testing/example-repo.ts';
import { describePresetForPrompt, detectPreset, expectedTestPrefix, shellQuote, taskIdOfTestFile, testCommand, testFilePattern } from './presets.ts';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tilth-presets-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function files(...names: string[]): string {
  for (const name of names) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), '');
  }
  return dir;
}

describe('detectPreset', () => {
  it('detects the example repositories', async () => {
    expect(await detectPreset(path.join(EXAMPLES_DIR, 'js-todo'))).toBe('node');
    expect(await detectPreset(path.join(EXAMPLES_DIR, 'py-todo'))).toBe('pytest');
  });

  it.each([
    ['pyproject.toml'],
    ['setup.py'],
    ['setup.cfg'],
    ['requirements.txt'],
    ['requirements-dev.txt'],
  ])('takes %s as Python', async (name) => {
    expect(await detectPreset(files(name))).toBe('pytest');
  });

  it('prefers Python over a package.json when a manifest says Python', async () => {
    expect(await detectPreset(files('package.json', 'pyproject.toml'))).toBe('pytest');
  });

  it('prefers Python over a package.json when tests/ holds pytest files', async () => {
    expect(await detectPreset(files('package.json', 'tests/test_api.py'))).toBe('pytest');
  });

  it('keeps a JS repo with one helper script as node', async () => {
    expect(await detectPreset(files('package.json', 'build_docs.py'))).toBe('node');
  });

  it('takes loose .py files without any manifest as Python', async () => {
    expect(await detectPreset(files('tool.py'))).toBe('pytest');
    fs.rmSync(path.join(dir, 'tool.py'));
    expect(await detectPreset(files('tests/check.py'))).toBe('pytest');
  });

  it('falls back to custom for anything else, or a missing folder', async () => {
    expect(await detectPreset(files('Cargo.toml', 'src/main.rs'))).toBe('custom');
    expect(await detectPreset(path.join(dir, 'missing'))).toBe('custom');
  });
});

describe('naming', () => {
  it('gives the prefix each preset expects for a task', () => {
    expect(expectedTestPrefix('pytest', 'T-001')).toBe('tests/test_t001_');
    expect(expectedTestPrefix('node', 'T-001')).toBe('tests/t001_');
    expect(expectedTestPrefix('custom', 'T-1234')).toBe('tests/t1234_');
    expect(() => expectedTestPrefix('node', 'T-1')).toThrow(/not a task id/);
  });

  it('finds the task of a test file by the digits as written', () => {
    expect(taskIdOfTestFile('pytest', 'tests/test_t001_due.py')).toBe('T-001');
    expect(taskIdOfTestFile('node', 'tests/t012_due.test.mjs')).toBe('T-012');
    expect(taskIdOfTestFile('node', 'tests/t012_due.spec.js')).toBeNull();
    expect(taskIdOfTestFile('pytest', 'tests/t001_due.test.js')).toBeNull();
  });

  it('exposes the shared pattern of each preset', () => {
    expect(testFilePattern('pytest').regex.test('tests/test_t001_add_parser.py')).toBe(true);
    expect(testFilePattern('node').example).toBe('tests/t001_add_parser.test.js');
  });
});

describe('testCommand', () => {
  it('runs pytest without leaving caches in the worktree', () => {
    expect(testCommand('pytest', ['tests/test_t001_a.py'])).toEqual({
      kind: 'argv',
      command: 'python3',
      args: ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'tests/test_t001_a.py'],
      env: { PYTHONDONTWRITEBYTECODE: '1' },
    });
  });

  it('runs node --test with the files', () => {
    expect(testCommand('node', ['tests/t001_a.test.js', 'tests/t002_b.test.mjs'])).toEqual({ kind: 'argv', command: 'node', args: ['--test', 'tests/t001_a.test.js', 'tests/t002_b.test.mjs'], env: {} });
  });

  it("fills the custom template's {files} with shell-quoted paths", () => {
    const cmd = testCommand('custom', ['tests/t001_a.ts', "tests/it's here.ts"], { test: 'npx vitest run {files} --reporter dot' });
    expect(cmd).toEqual({ kind: 'shell', script: `npx vitest run tests/t001_a.ts 'tests/it'\\''s here.ts' --reporter dot` });
  });

  it('refuses the custom preset without a command', () => {
    expect(() => testCommand('custom', ['tests/t001_a.sh'])).toThrow(/needs a test command with a \{files\} placeholder/);
  });

  it('quotes anything a shell would interpret', () => {
    expect(shellQuote('tests/t001_a.test.js')).toBe('tests/t001_a.test.js');
    expect(shellQuote('$(rm -rf ~)')).toBe(`'$(rm -rf ~)'`);
  });
});

describe('describePresetForPrompt', () => {
  it('tells the interviewer the pattern and the test style of each preset', () => {
    const pytest = describePresetForPrompt('pytest');
    expect(pytest).toContain('tests/test_t<NNN>_<slug>.py');
    expect(pytest).toContain('tests/test_t001_add_parser.py');
    expect(pytest).toMatch(/bare `assert`/);
    const node = describePresetForPrompt('node');
    expect(node).toContain('tests/t<NNN>_<slug>.test.js');
    expect(node).toContain("import { test } from 'node:test'");
    expect(node).toContain('node:assert/strict');
    expect(describePresetForPrompt('custom', { test: 'cargo test {files}' })).toContain('`cargo test {files}`');
    expect(describePresetForPrompt('custom')).toMatch(/not set yet/);
  });
});
