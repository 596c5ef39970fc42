/**
 * The red-team pass's escapes, each written as the worker would run it (a `bash` tool call
 * through the real tool layer, the real sandbox, real git), followed by what the harness does
 * next. Each must fail to get out: no hook runs as the server, no file appears outside the
 * worktree, the user's repository stays whole, no secret reaches model-written code.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runChecks } from '../proof/checks.ts';
import { runWorkerTool } from '../tools/worker-tools.ts';
import { addWorktree, inspectWorkspace } from '../git/repo.ts';
import { commitAll, diffSummary, GitTamperedError, pointerProblems, restorePointers, workingDiff, type WorktreeRef } from '../git/worktree-git.ts';
import { checkContract } from '../proof/contract-check.ts';
import { makeExampleRepo, type ExampleRepo } from '../demo/example-repo.ts';
import { detectSandbox, type SandboxConfig } from './sandbox.ts';
import type { UntrustedScope } from './untrusted.ts';
import { NO_SANDBOX, TEST_SANDBOX } from '../testing/sandbox.ts';

const sandboxed = detectSandbox('auto').available;

let repo: ExampleRepo;
let ref: WorktreeRef;
/** Outside the worktree and outside /tmp (the sandbox's /tmp is private): where a hook that ran as the server would leave its mark. */
let marks: string;
let made: string[] = [];

beforeEach(async () => {
  repo = await makeExampleRepo('js-todo');
  const parent = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tilth-escape-wt-')));
  marks = fs.realpathSync(fs.mkdtempSync(path.join('/var/tmp', 'tilth-escape-marks-')));
  made = [parent, marks];
  const worktree = path.join(parent, 'workspace');
  const head = (await inspectWorkspace(repo.dir)).head!;
  const dirs = await addWorktree(repo.dir, worktree, 'session/escape', head);
  ref = { worktree, source: repo.dir, gitDir: dirs.git_dir, commonDir: dirs.git_common_dir };
});

afterEach(async () => {
  delete process.env.TILTH_API_KEY;
  sandbox = TEST_SANDBOX;
  await repo.cleanup();
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

/** The sandbox the scope runs its commands in: a test turns it off (TILTH_SANDBOX=off) or hides a folder. */
let sandbox: SandboxConfig = TEST_SANDBOX;
const scope = (): UntrustedScope => ({ sandbox, worktree: ref.worktree, git: ref, network: false });

async function bash(command: string, timeoutMs = 30_000): Promise<string> {
  const result = await runWorkerTool('bash', { command }, { scope: scope(), bashTimeoutMs: timeoutMs });
  expect(result.blocked, result.blocked).toBeUndefined();
  return result.output;
}

/**
 * A git dir of the attacker's, planted in the worktree (bare, so the harness's `git add` takes it
 * for plain files), whose config points `core.hooksPath` at hooks that copy the environment (the
 * API key, the token) to `marks`. Every hook the harness's git could run is there. The writes
 * into git metadata go through python, as a worker dodging the guard's shell checks would.
 */
function plantScript(): string {
  const hook = `#!/bin/sh\nenv > ${marks}/hook-ran-$$.txt\n`;
  const hooks = ['post-index-change', 'pre-commit', 'prepare-commit-msg', 'commit-msg', 'post-commit', 'reference-transaction', 'post-checkout'];
  return [
    'P="$PWD/.cache/planted"',
    'git init -q --bare "$P"',
    'mkdir -p "$P/evil-hooks"',
    ...hooks.map((h) => `printf '%s' ${JSON.stringify(hook)} > "$P/evil-hooks/${h}" && chmod +x "$P/evil-hooks/${h}"`),
    'git --git-dir="$P" config core.hooksPath "$P/evil-hooks"',
    'git --git-dir="$P" config core.fsmonitor "$P/evil-hooks/post-commit"',
    'G="$(git rev-parse --absolute-git-dir)"',
    `put() { python3 -c 'import sys; open(sys.argv[1], "w").write(sys.argv[2] + "\\n")' "$1" "$2"; }`,
  ].join('\n');
}

/** What the harness does after a worker turn that submitted a case: diff, ledger summary, commit. */
async function harnessAfterTheTurn(): Promise<'ran' | 'refused'> {
  fs.writeFileSync(path.join(ref.worktree, 'feature.txt'), 'work\n');
  try {
    await workingDiff(ref);
    await diffSummary(ref);
    await commitAll(ref, 'T-001: Feature');
    return 'ran';
  } catch (err) {
    if (err instanceof GitTamperedError) return 'refused';
    throw err;
  }
}

function marksLeft(): string[] {
  return fs.readdirSync(marks);
}

const withKey = () => {
  process.env.TILTH_API_KEY = 'sk-escape-test-key';
};

describe.skipIf(!sandboxed)('in the sandbox, the git metadata is read-only to the worker', () => {
  it('refuses a new commondir pointing at a planted git dir, and the harness runs no hook', async () => {
    withKey();
    const out = await bash(`${plantScript()}\nput "$G/commondir" "$P" && echo WROTE-COMMONDIR`);
    expect(out).not.toMatch(/WROTE-COMMONDIR/);
    expect(out).toMatch(/Read-only file system/);
    expect(pointerProblems(ref)).toEqual([]);
    expect(await harnessAfterTheTurn()).toBe('ran');
    expect(marksLeft()).toEqual([]);
    expect(execFileSync('git', ['log', '-1', '--format=%s', 'session/escape'], { cwd: repo.dir, encoding: 'utf8' }).trim()).toBe('T-001: Feature');
  });

  it('refuses a rewritten .git pointer file, and the harness runs no hook', async () => {
    withKey();
    const out = await bash(`${plantScript()}\nput .git "gitdir: $P" && echo WROTE-POINTER; python3 -c 'import os; os.remove(".git")' && echo REMOVED-POINTER`);
    expect(out).not.toMatch(/WROTE-POINTER|REMOVED-POINTER/);
    expect(pointerProblems(ref)).toEqual([]);
    expect(await harnessAfterTheTurn()).toBe('ran');
    expect(marksLeft()).toEqual([]);
  });

  it("cannot delete the source repository's objects, refs or config", async () => {
    const before = execFileSync('git', ['rev-parse', 'main'], { cwd: repo.dir, encoding: 'utf8' }).trim();
    const out = await bash(
      [
        'C="$(git rev-parse --git-common-dir)"',
        `python3 -c 'import shutil, sys; shutil.rmtree(sys.argv[1])' "$C/objects" && echo DELETED-OBJECTS`,
        'git update-ref refs/heads/main HEAD~1 && echo MOVED-MAIN',
        'git config --file "$C/config" core.hooksPath /tmp && echo CHANGED-CONFIG',
        `python3 -c 'import sys; open(sys.argv[1], "w").write("x")' "$C/hooks/post-checkout" && echo WROTE-HOOK`,
      ].join('\n'),
    );
    expect(out).not.toMatch(/DELETED-OBJECTS|MOVED-MAIN|CHANGED-CONFIG|WROTE-HOOK/);
    expect(execFileSync('git', ['rev-parse', 'main'], { cwd: repo.dir, encoding: 'utf8' }).trim()).toBe(before);
    execFileSync('git', ['fsck', '--no-progress'], { cwd: repo.dir, stdio: 'pipe' }); // throws on a broken store
  });

  it('still lets the worker read its history and diff: git status, diff, log and show work', async () => {
    fs.writeFileSync(path.join(ref.worktree, 'src', 'todo.js'), '// changed\n');
    const out = await bash('git status --short; git diff --stat; git log --oneline -1; git show --stat HEAD | head -3');
    expect(out).toMatch(/ M src\/todo\.js/);
    expect(out).toMatch(/1 file changed/);
    expect(out).toMatch(/\[exit 0\]$/);
  });
});

describe('without the sandbox, the harness still never follows a rewritten pointer', () => {
  it.each([
    ['commondir', 'put "$G/commondir" "$P"', /commondir was changed to point at .*planted/],
    ['the .git file', 'put .git "gitdir: $P"', /\.git was changed to point at .*planted/],
    [
      'the .git file, replaced by a folder',
      `python3 -c 'import os, shutil, sys; os.remove(".git"); shutil.copytree(sys.argv[1], ".git")' "$P"`,
      /\.git was replaced by a folder/,
    ],
  ])('stops at %s with git_tampered, naming it, and runs no hook', async (_what, attack, named) => {
    sandbox = NO_SANDBOX;
    withKey();
    const out = await bash(`${plantScript()}\n${attack} && echo ATTACKED`);
    expect(out).toMatch(/ATTACKED/); // nothing stopped the write this time
    const error = await harnessAfterTheTurn().catch((err: unknown) => err);
    expect(error).toBe('refused');
    await expect(commitAll(ref, 'x')).rejects.toThrow(named);
    expect(marksLeft()).toEqual([]);
    // Resume puts the pointers back as recorded, and git works again, still without the hooks.
    expect(restorePointers(ref).length).toBeGreaterThan(0);
    expect(pointerProblems(ref)).toEqual([]);
    expect(await harnessAfterTheTurn()).toBe('ran');
    expect(marksLeft()).toEqual([]);
  });
});

describe.skipIf(!sandboxed)('model-written code outside the worker shell', () => {
  const leak = (file: string) =>
    [
      "import { test } from 'node:test';",
      "import fs from 'node:fs';",
      `test('leaks', () => { console.log('KEY=[' + (process.env.TILTH_API_KEY ?? '') + ']'); fs.writeFileSync(${JSON.stringify(file)}, 'pwned'); });`,
      '',
    ].join('\n');

  it('the seed contract check runs the interviewer-written tests sandboxed and without secrets', async () => {
    withKey();
    const file = path.join(marks, 'from-contract-check.txt');
    const test = leak(file);
    fs.mkdirSync(path.join(ref.worktree, 'tests'), { recursive: true });
    fs.writeFileSync(path.join(ref.worktree, 'tests', 't001_leak.test.js'), test);
    const warnings = await checkContract({
      prd: [{ id: 'T-001', title: 'Leak', description: 'x', acceptance_criteria: ['a'], status: 'pending' }],
      testFiles: { 'tests/t001_leak.test.js': test },
      preset: 'node',
      scope: scope(),
    });
    expect(fs.existsSync(file)).toBe(false);
    expect(JSON.stringify(warnings)).not.toMatch(/sk-escape-test-key/);
  });

  it('the merge preview (any check run) cannot read the Tilth home, where the settings page keeps the keys', async () => {
    const home = fs.realpathSync(fs.mkdtempSync(path.join('/var/tmp', 'tilth-escape-home-')));
    made.push(home);
    fs.writeFileSync(path.join(home, 'config.json'), '{"TILTH_API_KEY":"sk-in-config-json"}');
    sandbox = { mode: 'auto', hide: [home] }; // what a store built from the configuration hides (storeOptionsOf)
    const r = await runChecks({
      scope: scope(),
      preset: 'custom',
      customChecks: { test: `cat ${home}/config.json; ls -A ${home}; echo done {files}` },
      testFiles: ['tests/t001_a.test.js'],
      changedFiles: [],
      lockedTests: {},
    });
    expect(r.results[0]!.output).toMatch(/done tests\/t001_a\.test\.js/);
    expect(r.results[0]!.output).not.toMatch(/sk-in-config-json|config\.json\n/);
  });
});

describe.skipIf(!sandboxed)('the process cap', () => {
  it('stops an obfuscated fork bomb within seconds, and the server stays responsive', async () => {
    let worstGap = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      worstGap = Math.max(worstGap, now - last);
      last = now;
    }, 50);
    const started = performance.now();
    // Not the literal `:(){ :|:& };:` the guard knows; the sleep keeps the sandbox alive (when its
    // first process exits, the PID namespace and every bomb in it end anyway).
    const out = await bash('bomb() { bomb | bomb & }; bomb; sleep 100', 120_000).finally(() => clearInterval(ticker));
    const took = performance.now() - started;
    expect(out).toMatch(/reached the sandbox's cap of \d+ processes/);
    expect(took).toBeLessThan(20_000); // the timeout was 120 s: the cap stopped it, not the clock
    expect(worstGap).toBeLessThan(1_000);
    const cap = detectSandbox('auto').processCap!;
    // Its cgroup is removed once the killed processes have left it.
    if (cap.mode === 'cgroup')
      await expect.poll(() => fs.readdirSync(cap.cgroupParent!).filter((d) => d.startsWith(`run-${process.pid}-`)), { timeout: 10_000 }).toEqual([]);
  });

  it('leaves an ordinary command with many processes alone', async () => {
    const out = await bash('for i in $(seq 50); do sleep 0.2 & done; wait; echo fine');
    expect(out).toMatch(/^fine$/m);
    expect(out).toMatch(/\[exit 0\]$/);
  });
});
