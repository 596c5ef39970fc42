import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../testing/temp-dir.ts';
import { machineryWriteLock } from '../proof/test-machinery.ts';
import { ConfinedRoot } from './read-tools.ts';
import { MAX_BASH_OUTPUT_CHARS, MAX_EDIT_BYTES, MAX_WRITE_CHARS, resolveForWrite, runWorkerTool, workerToolSchemas } from './worker-tools.ts';
import type { SandboxConfig } from '../proc/sandbox.ts';
import { NO_SANDBOX, TEST_SANDBOX } from '../testing/sandbox.ts';

let base: string;
let wt: string;
beforeEach(() => {
  base = tempDir('tilth-wtools-');
  wt = path.join(base, 'wt');
  fs.mkdirSync(path.join(wt, 'src'), { recursive: true });
  fs.mkdirSync(path.join(wt, '.git'));
  fs.writeFileSync(path.join(wt, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  fs.writeFileSync(path.join(wt, 'src', 'app.js'), 'export const a = 1;\nexport const b = 1;\n');
  fs.writeFileSync(path.join(base, 'outside.txt'), 'outside\n');
  fs.mkdirSync(path.join(base, 'outdir'));
  fs.symlinkSync(path.join(base, 'outside.txt'), path.join(wt, 'link-out.txt'));
  fs.symlinkSync(path.join(base, 'outdir'), path.join(wt, 'dir-out'));
  fs.symlinkSync(path.join(base, 'nowhere.txt'), path.join(wt, 'dangling.txt'));
  fs.symlinkSync(path.join(wt, 'src', 'app.js'), path.join(wt, 'link-in.js'));
});
afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

const run = (tool: string, args: Record<string, unknown>, extra: { bashTimeoutMs?: number; signal?: AbortSignal; sandbox?: SandboxConfig } = {}) => {
  const { sandbox = TEST_SANDBOX, ...rest } = extra;
  return runWorkerTool(tool, args, { scope: { sandbox, worktree: wt, git: null, network: false }, ...rest });
};
const out = async (tool: string, args: Record<string, unknown>) => (await run(tool, args)).output;

describe('file tools', () => {
  it('reads, writes (creating folders), edits, globs and greps inside the worktree', async () => {
    expect(await out('read_file', { path: 'src/app.js' })).toContain('export const a = 1;');
    expect(await out('write_file', { path: 'lib/deep/new.js', content: 'hello\n' })).toBe('wrote 6 chars to lib/deep/new.js');
    expect(fs.readFileSync(path.join(wt, 'lib/deep/new.js'), 'utf8')).toBe('hello\n');
    expect(await out('edit_file', { path: 'src/app.js', old_string: 'a = 1', new_string: 'a = 2' })).toBe('edited src/app.js (-5 +5 chars)');
    expect(fs.readFileSync(path.join(wt, 'src/app.js'), 'utf8')).toBe('export const a = 2;\nexport const b = 1;\n');
    expect((await out('glob', { pattern: '**/*.js' })).split('\n')).toEqual(['lib/deep/new.js', 'src/app.js']);
    expect(await out('grep', { pattern: 'const b', path_glob: 'src/**' })).toBe('src/app.js:2: export const b = 1;');
    expect(await out('grep', { pattern: 'hello' })).toBe('lib/deep/new.js:1: hello');
  });

  it('writes through a symlink that stays inside, keeping the link and the file mode', async () => {
    fs.chmodSync(path.join(wt, 'src/app.js'), 0o755);
    expect(await out('write_file', { path: 'link-in.js', content: 'x' })).toBe('wrote 1 chars to link-in.js');
    expect(fs.lstatSync(path.join(wt, 'link-in.js')).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(path.join(wt, 'src/app.js'), 'utf8')).toBe('x');
    expect(fs.statSync(path.join(wt, 'src/app.js')).mode & 0o777).toBe(0o755);
  });

  it.each([
    ['../escape.txt', /outside the repository/],
    ['src/../../escape.txt', /outside the repository/],
    [path.join('/', 'tmp', 'escape.txt'), /not absolute/],
    ['link-out.txt', /through a symlink/],
    ['dir-out/new.txt', /through a symlink/],
    ['dangling.txt', /symlink to nothing/],
  ])('write_file and edit_file refuse %s', async (p, message) => {
    const w = await out('write_file', { path: p, content: 'pwned' });
    expect(w).toMatch(/^ERROR: /);
    expect(w).toMatch(message);
    const e = await out('edit_file', { path: p, old_string: 'outside', new_string: 'pwned' });
    expect(e).toMatch(message);
    expect(fs.readFileSync(path.join(base, 'outside.txt'), 'utf8')).toBe('outside\n');
    expect(fs.readdirSync(base).sort()).toEqual(['outdir', 'outside.txt', 'wt']);
    expect(fs.readdirSync(path.join(base, 'outdir'))).toEqual([]);
  });

  it("refuses a sibling folder whose name starts with the worktree's, directly or through a symlink", async () => {
    fs.mkdirSync(path.join(base, 'wt2'));
    fs.writeFileSync(path.join(base, 'wt2', 'secret.txt'), 'secret\n');
    fs.symlinkSync(path.join(base, 'wt2'), path.join(wt, 'next-door'));
    const OUTSIDE = /^ERROR: path is outside the repository/;
    const THROUGH_LINK = /^ERROR: path leads outside the repository \(through a symlink\)/;
    for (const [p, read, write] of [
      ['../wt2/secret.txt', OUTSIDE, OUTSIDE],
      ['../wt2/new.txt', OUTSIDE, OUTSIDE],
      ['next-door/secret.txt', THROUGH_LINK, THROUGH_LINK],
      ['next-door/new.txt', /^ERROR: no such file/, THROUGH_LINK],
    ] as const) {
      expect(await out('read_file', { path: p }), p).toMatch(read);
      expect(await out('write_file', { path: p, content: 'pwned' }), p).toMatch(write);
      expect(await out('edit_file', { path: p, old_string: 'secret', new_string: 'pwned' }), p).toMatch(write);
    }
    expect(fs.readdirSync(path.join(base, 'wt2'))).toEqual(['secret.txt']);
    expect(fs.readFileSync(path.join(base, 'wt2', 'secret.txt'), 'utf8')).toBe('secret\n');
  });

  it('confines a write by itself too, behind the guard: .git, the root, blank and NUL paths', () => {
    fs.symlinkSync(path.join(wt, '.git'), path.join(wt, 'git-link'));
    const root = new ConfinedRoot(wt);
    const refusal = (rel: string) => {
      try {
        return resolveForWrite(root, rel);
      } catch (err) {
        return (err as Error).message;
      }
    };
    expect(refusal('.git/HEAD')).toBe('the .git folder is not writable: .git/HEAD');
    expect(refusal('src/.git/x')).toBe('the .git folder is not writable: src/.git/x');
    expect(refusal('git-link/HEAD')).toBe('the .git folder is not writable: git-link/HEAD');
    expect(refusal('git-link/new/x')).toBe('the .git folder is not writable: git-link/new/x');
    expect(refusal('.')).toBe('path is outside the repository: .');
    expect(refusal('src/..')).toBe('path is outside the repository: src/..');
    expect(refusal('  ')).toBe("'path' must be a non-empty string");
    expect(refusal('src/a\0b')).toBe('path must not contain NUL bytes');
    expect(refusal('src/new/deep.js')).toBe(path.join(root.real, 'src/new/deep.js'));
    expect(refusal('link-in.js')).toBe(path.join(root.real, 'src/app.js'));
  });

  it('never writes into .git (guard first, confinement behind it)', async () => {
    const r = await run('write_file', { path: '.git/HEAD', content: 'x' });
    expect(r.blocked).toMatch(/\.git/);
    expect(r.output).toMatch(/^BLOCKED/);
    const e = await run('edit_file', { path: 'src/../.git/HEAD', old_string: 'main', new_string: 'evil' });
    expect(e.blocked).toBeDefined();
    expect(fs.readFileSync(path.join(wt, '.git', 'HEAD'), 'utf8')).toBe('ref: refs/heads/main\n');
  });

  it('edit_file: the exactly-one-match rule and its messages', async () => {
    expect(await out('edit_file', { path: 'src/app.js', old_string: 'nope', new_string: 'x' })).toBe('ERROR: old_string not found in src/app.js');
    expect(await out('edit_file', { path: 'src/app.js', old_string: '= 1', new_string: '= 3' })).toBe(
      'ERROR: old_string matches 2 places in src/app.js; expand it to a unique anchor.',
    );
    expect(await out('edit_file', { path: 'src/app.js', old_string: 'x', new_string: 'x' })).toBe('ERROR: old_string and new_string are identical');
    expect(await out('edit_file', { path: 'missing.js', old_string: 'x', new_string: 'y' })).toBe('ERROR: not a file: missing.js');
    expect(await out('edit_file', { path: 'src', old_string: 'x', new_string: 'y' })).toBe('ERROR: not a file: src');
  });

  it('edit_file refuses a file over MAX_EDIT_BYTES, pointing to bash, and edits one under it as before', async () => {
    const big = path.join(wt, 'big.txt');
    fs.writeFileSync(big, `anchor\n${'x'.repeat(MAX_EDIT_BYTES - 6)}`); // one byte over
    const refused = `ERROR: big.txt is ${MAX_EDIT_BYTES + 1} bytes; edit_file works on files up to 1048576 bytes (1 MiB). For a large file use bash, e.g. sed -i 's/old/new/' big.txt`;
    expect(await out('edit_file', { path: 'big.txt', old_string: 'anchor', new_string: 'changed' })).toBe(refused);
    expect(fs.readFileSync(big, 'utf8').startsWith('anchor\n')).toBe(true);
    fs.truncateSync(big, 1024 ** 3); // a sparse 1 GiB file is refused from its size alone
    expect(await out('edit_file', { path: 'big.txt', old_string: 'anchor', new_string: 'changed' })).toBe(
      refused.replace(String(MAX_EDIT_BYTES + 1), String(1024 ** 3)),
    );

    fs.writeFileSync(big, `anchor\n${'x'.repeat(MAX_EDIT_BYTES - 7)}`); // exactly at the limit: read, then the write cap speaks
    expect(await out('edit_file', { path: 'big.txt', old_string: 'anchor', new_string: 'changed' })).toBe(
      `ERROR: the edited file would exceed ${MAX_WRITE_CHARS} chars; split the work.`,
    );
    fs.writeFileSync(big, `anchor\n${'x'.repeat(150_000)}`);
    expect(await out('edit_file', { path: 'big.txt', old_string: 'anchor', new_string: 'changed' })).toBe('edited big.txt (-6 +7 chars)');
    expect(fs.readFileSync(big, 'utf8')).toBe(`changed\n${'x'.repeat(150_000)}`);
  });

  it('write_file argument errors and the size cap', async () => {
    expect(await out('write_file', { path: 'a.txt' })).toBe("ERROR: 'content' is required (pass an empty string for an empty file)");
    expect(await out('write_file', { path: 'a.txt', content: 5 })).toBe("ERROR: 'content' must be a string");
    expect(await out('write_file', { path: 'a.txt', content: 'x'.repeat(MAX_WRITE_CHARS + 1) })).toBe('ERROR: content exceeds 200000 chars; split the work.');
    expect(await out('write_file', { path: '', content: '' })).toBe("ERROR: 'path' must be a non-empty string");
    expect(await out('write_file', { path: 'empty.txt', content: '' })).toBe('wrote 0 chars to empty.txt');
    expect(fs.existsSync(path.join(wt, 'a.txt'))).toBe(false);
  });

  it('turns bad arguments and unknown tools into messages, never throws', async () => {
    expect(await out('bash', {})).toBe("ERROR: 'command' must be a non-empty string.");
    expect(await out('read_file', { path: 7 })).toMatch(/^ERROR: 'path' must be/);
    expect(await out('glob', { pattern: null })).toMatch(/^ERROR: pattern must be/);
    expect(await out('grep', { pattern: '(' })).toMatch(/^ERROR: pattern is not a valid regular expression/);
    expect(await out('delete_everything', {})).toBe(
      "ERROR: unknown tool 'delete_everything'. Available: [bash, edit_file, glob, grep, read_file, submit_case, write_file]",
    );
  });
});

describe('the test machinery lock', () => {
  it('refuses write_file and edit_file on a machinery path with its sentence, and lets a package.json dependency through', async () => {
    const repo = path.join(base, 'repo');
    fs.mkdirSync(repo);
    fs.writeFileSync(path.join(repo, 'package.json'), `${JSON.stringify({ name: 'x', scripts: { test: 'mocha' } }, null, 2)}\n`);
    fs.writeFileSync(path.join(repo, '.mocharc.yml'), 'require: ./setup.js\n');
    fs.writeFileSync(path.join(repo, 'setup.js'), '// setup\n');
    const sh = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();
    sh('init', '-q');
    sh('add', '-A');
    sh('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'base');
    const machinery = await machineryWriteLock({ source: repo, baseSha: sh('rev-parse', 'HEAD'), allowed: [] }, repo, []);
    const tool = async (name: string, args: Record<string, unknown>) =>
      (await runWorkerTool(name, args, { scope: { sandbox: TEST_SANDBOX, worktree: repo, git: null, network: false }, machinery })).output;
    expect(await tool('edit_file', { path: 'setup.js', old_string: '// setup', new_string: 'require("assert").ok = () => {};' })).toBe(
      'ERROR: setup.js decides how the tests run, so the worker may not change it (make the code pass the tests as they are); the user can allow this task to change it in seed review ("may change test setup").',
    );
    expect(await tool('write_file', { path: 'conftest.py', content: 'x = 1\n' })).toMatch(/^ERROR: conftest\.py decides how the tests run/);
    expect(await tool('edit_file', { path: 'package.json', old_string: '"mocha"', new_string: '"true"' })).toMatch(
      /^ERROR: the test settings of package\.json decide/,
    );
    expect(await tool('edit_file', { path: 'package.json', old_string: '"name": "x",', new_string: '"name": "x",\n  "dependencies": { "ms": "2" },' })).toMatch(
      /^edited package\.json/,
    );
    expect(await tool('write_file', { path: 'src/a.js', content: 'ok\n' })).toBe('wrote 3 chars to src/a.js');
    expect(fs.readFileSync(path.join(repo, 'setup.js'), 'utf8')).toBe('// setup\n');
    expect(fs.existsSync(path.join(repo, 'conftest.py'))).toBe(false);
  });
});

describe('bash', () => {
  it('runs real bash in the worktree and reports the exit code', async () => {
    expect(await out('bash', { command: '[[ 1 == 1 ]] && echo ok; pwd' })).toBe(`ok\n${fs.realpathSync(wt)}\n[exit 0]`);
    expect(await out('bash', { command: 'echo oops >&2; exit 3' })).toBe('oops\n[exit 3]');
  });

  it('caps the output with a marker', async () => {
    const r = await out('bash', { command: 'head -c 20000 /dev/zero | tr "\\0" x' });
    expect(r).toBe(`${'x'.repeat(MAX_BASH_OUTPUT_CHARS)}\n... [truncated, total 20000 chars]\n[exit 0]`);
  });

  it('kills the whole process group at the timeout (unsandboxed: the pid it writes is a host pid)', async () => {
    const started = Date.now();
    const r = await run('bash', { command: 'sleep 30 & echo $! > bg.pid; echo started; sleep 30' }, { bashTimeoutMs: 500, sandbox: NO_SANDBOX });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(r.output).toMatch(/^ERROR: command timed out after 0\.5s; it and everything it started were stopped\.\n\$ sleep 30 &/);
    expect(r.output).toContain('started');
    const pid = Number(fs.readFileSync(path.join(wt, 'bg.pid'), 'utf8'));
    expect(pid).toBeGreaterThan(0);
    await expect.poll(() => isGone(pid), { timeout: 3_000, interval: 50 }).toBe(true);
  });

  it('stops the command when the run is aborted', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = Date.now();
    const r = await run('bash', { command: 'sleep 30' }, { signal: controller.signal });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(r.output).toMatch(/^ERROR: command interrupted/);
  });

  it('is guarded: a blocked command never runs', async () => {
    const r = await run('bash', { command: 'touch ran.txt && git push' });
    expect(r.blocked).toMatch(/git push/);
    expect(r.output).toBe(`BLOCKED by the pre-tool guard: ${r.blocked}`);
    expect(fs.existsSync(path.join(wt, 'ran.txt'))).toBe(false);
  });
});

describe('schemas', () => {
  it('lists the six tools in the reference order, then submit_case', () => {
    const schemas = workerToolSchemas();
    expect(schemas.map((s) => (s.type === 'function' ? s.function.name : ''))).toEqual([
      'bash',
      'read_file',
      'write_file',
      'edit_file',
      'glob',
      'grep',
      'submit_case',
    ]);
    const submit = schemas[6]!;
    expect(submit.type === 'function' && submit.function.parameters).toMatchObject({ additionalProperties: false, required: ['summary', 'ac_coverage'] });
  });
});

/** Gone, or a zombie waiting for its reaper: either way no longer running. */
function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    return /^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}
