import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runChecks } from '../proof/checks.ts';
import { hashTestFiles } from '../store/seed-input.ts';
import { isSecretEnvName, runBounded, type Command } from './runner.ts';
import { detectSandbox, sandboxCommand } from './sandbox.ts';
import { BACKGROUND_NICENESS, idleClassHere, niced, runUntrusted, type UntrustedScope } from './untrusted.ts';
import { findOnPath } from './which.ts';
import { runWorkerTool } from '../tools/worker-tools.ts';
import { NO_SANDBOX, TEST_SANDBOX } from '../testing/sandbox.ts';

const sandboxed = detectSandbox('auto').available;

/** Folders this file made, removed after each test. */
let made: string[] = [];
/** A worktree under /tmp (where the tests' worktrees live; the sandbox replaces /tmp). */
let worktree: string;
/** A folder outside /tmp, so "cannot write there" is the read-only root, not the private /tmp. */
let outside: string;

function tempDir(parent: string, prefix: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(parent, prefix)));
  made.push(dir);
  return dir;
}

beforeEach(() => {
  made = [];
  worktree = tempDir(os.tmpdir(), 'tilth-sbx-wt-');
  outside = tempDir('/var/tmp', 'tilth-sbx-out-');
});

afterEach(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

function policy(extra: Partial<UntrustedScope> = {}): UntrustedScope {
  return { sandbox: TEST_SANDBOX, worktree, git: null, network: false, ...extra };
}

/** The worker's bash tool on `scope`; `null` runs it with the sandbox turned off (TILTH_SANDBOX=off). */
async function bash(command: string, scope: UntrustedScope | null = policy(), bashTimeoutMs?: number): Promise<string> {
  const result = await runWorkerTool('bash', { command }, { scope: scope ?? policy({ sandbox: NO_SANDBOX }), ...(bashTimeoutMs ? { bashTimeoutMs } : {}) });
  expect(result.blocked).toBeUndefined();
  return result.output;
}

function processesMatching(marker: string): string[] {
  try {
    return execFileSync('pgrep', ['-f', marker], { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

describe('detectSandbox', () => {
  it('reports the sandbox as off, saying why, when TILTH_SANDBOX=off', () => {
    const info = detectSandbox('off');
    expect(info).toMatchObject({ available: false, tool: null });
    expect(info.detail).toMatch(/TILTH_SANDBOX=off/);
  });

  it.skipIf(!sandboxed)('finds bubblewrap and its version on this machine', () => {
    expect(detectSandbox('auto')).toMatchObject({ available: true, tool: 'bwrap', version: expect.stringMatching(/^\d+\.\d+/) });
  });

  it("finds the same sandbox with its trials run while the event loop turns (a server's check after it listens), and keeps it", async () => {
    vi.resetModules();
    const fresh = await import('./sandbox.ts');
    let turns = 0;
    const timer = setInterval(() => turns++, 1);
    const info = await fresh.detectSandboxAsync('auto');
    clearInterval(timer);
    expect(info).toEqual(detectSandbox('auto'));
    expect(fresh.detectSandbox('auto')).toBe(info);
    expect(await fresh.detectSandboxAsync('off')).toEqual(detectSandbox('off'));
    // bwrap's trials take milliseconds each: the timer ran while they did.
    if (sandboxed) expect(turns).toBeGreaterThan(0);
  });
});

describe.skipIf(!sandboxed)('the worker bash tool in the sandbox', () => {
  it('writes inside the worktree (which lives under /tmp) but not outside it', async () => {
    const out = await bash(`echo inside > inside.txt && cat inside.txt; echo outside > ${outside}/escaped.txt`);
    expect(out).toMatch(/^inside$/m);
    expect(out).toMatch(/Read-only file system/);
    expect(fs.readFileSync(path.join(worktree, 'inside.txt'), 'utf8')).toBe('inside\n');
    expect(fs.existsSync(path.join(outside, 'escaped.txt'))).toBe(false);
  });

  it('runs the same command unconfined with the sandbox off, so the sandbox is what stops the write', async () => {
    const out = await bash(`echo outside > ${outside}/escaped.txt`, null);
    expect(out).toMatch(/\[exit 0\]$/);
    expect(fs.existsSync(path.join(outside, 'escaped.txt'))).toBe(true);
  });

  it('cannot reach a server on the host loopback unless the policy allows the network', async () => {
    let connections = 0;
    const server = net.createServer((socket) => {
      connections++;
      socket.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    const connect = `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`;
    try {
      const denied = await bash(connect);
      expect(denied).not.toMatch(/connected/);
      expect(denied).not.toMatch(/\[exit 0\]$/);
      expect(connections).toBe(0);

      const allowed = await bash(connect, policy({ network: true }));
      expect(allowed).toMatch(/^connected$/m);
      expect(await waitFor(() => connections === 1, 2_000)).toBe(true);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('hides the sessions root and the Tilth home, except the worktree inside it, which stays writable', async () => {
    const sessions = tempDir('/var/tmp', 'tilth-sbx-sessions-');
    const home = tempDir('/var/tmp', 'tilth-sbx-home-');
    fs.writeFileSync(path.join(home, '.env'), 'TILTH_API_KEY=sk-hidden-in-dotenv\n');
    fs.mkdirSync(path.join(sessions, 'other', 'workspace'), { recursive: true });
    fs.writeFileSync(path.join(sessions, 'other', 'checkpoint.json'), '{"secret":"another-session"}');
    const own = path.join(sessions, 'mine', 'workspace');
    fs.mkdirSync(own, { recursive: true });
    fs.writeFileSync(path.join(sessions, 'mine', 'events.jsonl'), 'own-session-log\n');

    // What a session's scope carries: its store's sandbox, which hides the sessions and the home.
    const hide = [sessions, home, path.join(outside, 'does-not-exist')];
    const out = await bash(
      `cat ${home}/.env; cat ${sessions}/other/checkpoint.json; cat ${sessions}/mine/events.jsonl; ls -A ${sessions}; echo ok > done.txt && cat done.txt`,
      policy({ worktree: own, sandbox: { mode: 'auto', hide } }),
    );
    expect(out).not.toMatch(/sk-hidden-in-dotenv|another-session|own-session-log/);
    expect(out).toMatch(/^mine$/m); // only the path down to the worktree exists in the sandbox
    expect(out).not.toMatch(/^other$/m);
    expect(out).toMatch(/^ok$/m);
    expect(fs.readFileSync(path.join(own, 'done.txt'), 'utf8')).toBe('ok\n');
  });

  it('gives the command a private /tmp', async () => {
    const hostFile = path.join(tempDir(os.tmpdir(), 'tilth-sbx-host-'), 'visible-on-the-host.txt');
    fs.writeFileSync(hostFile, 'host');
    const scratch = `/tmp/tilth-sbx-scratch-${randomBytes(6).toString('hex')}.txt`;
    const out = await bash(`test -e ${hostFile} && echo visible || echo invisible; echo scratch > ${scratch} && cat ${scratch}`);
    expect(out).toMatch(/^invisible$/m);
    expect(out).toMatch(/^scratch$/m);
    expect(fs.existsSync(scratch)).toBe(false);
  });

  it('kills everything the command started at the timeout, even a setsid child and one that ignores SIGTERM', async () => {
    // A sleep length no other process uses doubles as the marker pgrep looks for.
    const marker = `1000.${randomBytes(4).readUInt32BE(0)}`;
    const pending = bash(`sleep ${marker} & sleep ${marker} & setsid sleep ${marker} & (trap '' TERM; sleep ${marker}) & wait`, policy(), 1_500);
    // Proves the processes were there to kill: the marker shows in bwrap's and bash's command lines too.
    expect(await waitFor(() => processesMatching(marker).length >= 5, 3_000)).toBe(true);
    const out = await pending;
    expect(out).toMatch(/timed out after 1\.5s/);
    expect(await waitFor(() => processesMatching(marker).length === 0, 3_000)).toBe(true);
  });

  it('does not show the server its secrets, inside the sandbox or out', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, {
      TILTH_API_KEY: 'sk-tilth-secret-1',
      OPENAI_API_KEY: 'sk-openai-secret-2',
      GITHUB_TOKEN: 'ghp-secret-3',
      TILTH_SANDBOX_PROBE: 'tilth-var-4',
    });
    try {
      for (const sandbox of [policy(), null]) {
        const out = await bash('env', sandbox);
        expect(out).not.toMatch(/secret-1|secret-2|secret-3|tilth-var-4/);
        expect(out).toMatch(/^PATH=/m);
      }
    } finally {
      for (const key of ['TILTH_API_KEY', 'OPENAI_API_KEY', 'GITHUB_TOKEN', 'TILTH_SANDBOX_PROBE']) {
        if (saved[key] === undefined) delete process.env[key];
        else process.env[key] = saved[key];
      }
    }
  });

  it("cannot read the server's environment through /proc", async () => {
    const out = await bash(`cat /proc/${process.pid}/environ; ps -e -o comm= | grep -c . ; true`);
    expect(out).toMatch(/No such file or directory/);
    expect(out).not.toMatch(/PATH=/);
  });

  it('runs unconfined (secrets still scrubbed) when the sandbox is turned off', async () => {
    try {
      process.env.TILTH_API_KEY = 'sk-tilth-secret-5';
      const out = await bash(`echo outside > ${outside}/escaped.txt; env`, null);
      expect(fs.existsSync(path.join(outside, 'escaped.txt'))).toBe(true);
      expect(out).not.toMatch(/secret-5/);
    } finally {
      delete process.env.TILTH_API_KEY;
    }
  });
});

describe.skipIf(!sandboxed)('the checks in the sandbox', () => {
  it('run the acceptance and lint commands confined, without secrets', async () => {
    fs.mkdirSync(path.join(worktree, 'tests'));
    fs.writeFileSync(path.join(worktree, 'tests', 't001_a.test.js'), '');
    process.env.TILTH_API_KEY = 'sk-tilth-secret-6';
    try {
      const r = await runChecks({
        scope: policy(),
        preset: 'custom',
        customChecks: {
          test: `echo testing {files} > report.txt; echo "key=[$TILTH_API_KEY]"; echo x > ${outside}/from-test.txt`,
          lint: `echo x > ${outside}/from-lint.txt`,
        },
        testFiles: ['tests/t001_a.test.js'],
        changedFiles: ['src/a.js'],
        lockedTests: {},
      });
      expect(r.results.map((x) => [x.name, x.passed])).toEqual([
        ['acceptance', false],
        ['lint', false],
      ]);
      expect(r.results[0]!.output).toMatch(/key=\[\]/);
      expect(r.results[0]!.output).toMatch(/Read-only file system/);
      expect(fs.readFileSync(path.join(worktree, 'report.txt'), 'utf8')).toBe('testing tests/t001_a.test.js\n');
      expect(fs.existsSync(path.join(outside, 'from-test.txt'))).toBe(false);
      expect(fs.existsSync(path.join(outside, 'from-lint.txt'))).toBe(false);
    } finally {
      delete process.env.TILTH_API_KEY;
    }
  });
});

describe('the locked tests while the checks run them', () => {
  const TEST = 'tests/t001_a.test.js';
  const ORIGINAL = 'assert.equal(add(1, 2), 3);\n';
  // What a build script or a module the first test imports could do to a test read after it.
  const REWRITE = `printf 'forged\\n' > ${TEST}; mv ${TEST} moved.js; rm -f ${TEST}; cat ${TEST}`;

  async function checksRewriting(scope = policy()): Promise<Awaited<ReturnType<typeof runChecks>>> {
    fs.mkdirSync(path.join(worktree, 'tests'));
    fs.writeFileSync(path.join(worktree, TEST), ORIGINAL);
    const hash = hashTestFiles(worktree, [TEST])[TEST];
    expect(hash).toEqual(expect.any(String));
    return runChecks({
      scope,
      preset: 'custom',
      customChecks: { test: REWRITE },
      testFiles: [TEST],
      changedFiles: [],
      lockedTests: { [TEST]: hash! },
    });
  }

  it.skipIf(!sandboxed)('cannot be written, moved or deleted by what the run executes, in the sandbox', async () => {
    const r = await checksRewriting();
    expect(fs.readFileSync(path.join(worktree, TEST), 'utf8')).toBe(ORIGINAL);
    expect(fs.existsSync(path.join(worktree, 'moved.js'))).toBe(false);
    expect(r.results.map((x) => x.name)).toEqual(['acceptance']);
    expect(r.results[0]!.output).toMatch(/Read-only file system/);
    expect(r.results[0]!.output).toMatch(/Device or resource busy/);
    expect(r.results[0]!.output).toContain(ORIGINAL.trim());
  });

  it('fail the checks when changed during the run, where no sandbox froze them', async () => {
    {
      const r = await checksRewriting(policy({ sandbox: NO_SANDBOX }));
      expect(r.passed).toBe(false);
      expect(r.results.map((x) => [x.name, x.passed])).toEqual([
        ['locked_tests', false],
        ['acceptance', false],
      ]);
      expect(r.results[0]!.output).toBe(
        `These acceptance tests changed while the checks ran them, so what ran is not the seed's test: ${TEST}. Something the run executes (a build script, a module the tests import) writes to them; make the code pass the tests without touching them.`,
      );
    }
  });
});

describe('sandboxCommand', () => {
  it('binds frozen files read-only after the worktree, skipping missing ones, links and paths that lead out', () => {
    fs.mkdirSync(path.join(worktree, 'tests'));
    fs.writeFileSync(path.join(worktree, 'tests/a.rs'), '');
    fs.writeFileSync(path.join(outside, 'b.rs'), '');
    fs.symlinkSync(path.join(outside, 'b.rs'), path.join(worktree, 'tests/b.rs'));
    const cmd = sandboxCommand(
      { kind: 'shell', script: 'true' },
      { worktree, hide: [], frozen: ['tests/a.rs', 'tests/b.rs', 'tests/missing.rs', '../x.rs', 'tests'], network: false, git: null, processCap: null },
    );
    const args = cmd.kind === 'argv' ? cmd.args.join(' ') : '';
    const a = path.join(worktree, 'tests/a.rs');
    expect(args.indexOf(`--ro-bind ${a} ${a}`)).toBeGreaterThan(args.indexOf(`--bind ${worktree} ${worktree}`));
    expect(args.match(/--ro-bind /g)).toHaveLength(2); // the root, and a.rs
  });

  it('binds the worktree after /tmp and the hidden folders, and keeps a hidden folder inside the worktree hidden', () => {
    const inner = path.join(worktree, 'private');
    fs.mkdirSync(inner);
    const cmd = sandboxCommand({ kind: 'shell', script: 'true' }, { worktree, hide: [outside, inner], network: true, git: null, processCap: null });
    expect(cmd.kind).toBe('argv');
    const args = cmd.kind === 'argv' ? cmd.args.join(' ') : '';
    const at = (s: string) => args.indexOf(s);
    expect(at('--tmpfs /tmp ')).toBeGreaterThan(-1);
    expect(at(`--tmpfs ${outside} `)).toBeGreaterThan(at('--tmpfs /tmp '));
    expect(at(`--bind ${worktree} ${worktree}`)).toBeGreaterThan(at(`--tmpfs ${outside} `));
    expect(at(`--tmpfs ${inner} `)).toBeGreaterThan(at(`--bind ${worktree} ${worktree}`));
    expect(args).not.toMatch(/--unshare-net/);
    expect(args.endsWith('-- /bin/sh -c true')).toBe(true);
  });
});

describe('sandboxCommand with dependency folders', () => {
  it('binds them read-only after /tmp and the hidden folders (which would cover them) and before the worktree, skipping missing ones', () => {
    const deps = path.join(os.tmpdir(), path.basename(worktree) + '-deps');
    fs.mkdirSync(deps);
    made.push(deps);
    const cmd = sandboxCommand(
      { kind: 'shell', script: 'true' },
      { worktree, hide: [outside], readOnly: [deps, path.join(deps, 'missing')], network: false, git: null, processCap: null },
    );
    const args = cmd.kind === 'argv' ? cmd.args.join(' ') : '';
    const at = (s: string) => args.indexOf(s);
    expect(at(`--ro-bind ${deps} ${deps}`)).toBeGreaterThan(at(`--tmpfs ${outside} `));
    expect(at(`--bind ${worktree} ${worktree}`)).toBeGreaterThan(at(`--ro-bind ${deps} ${deps}`));
    expect(args).not.toContain('missing');
  });
});

describe('isSecretEnvName', () => {
  it("drops Tilth's own variables and anything named like a credential, and keeps the rest", () => {
    for (const name of [
      'TILTH_API_KEY',
      'TILTH_HOME',
      'OPENAI_API_KEY',
      'ANTHROPIC_APIKEY',
      'GITHUB_TOKEN',
      'AWS_SECRET_ACCESS_KEY',
      'AWS_ACCESS_KEY_ID',
      'PGPASSWORD',
      'npm_config__authtoken',
    ]) {
      expect(isSecretEnvName(name), name).toBe(true);
    }
    for (const name of ['PATH', 'HOME', 'LANG', 'NODE_OPTIONS', 'VIRTUAL_ENV']) expect(isSecretEnvName(name), name).toBe(false);
  });

  it('is applied by runBounded only when asked', async () => {
    process.env.TILTH_API_KEY = 'sk-tilth-secret-7';
    try {
      const cmd = { kind: 'shell', script: 'echo "[$TILTH_API_KEY]"' } as const;
      expect((await runBounded(cmd, { cwd: worktree, timeoutMs: 10_000, env: {} })).output).toBe('[sk-tilth-secret-7]');
      expect((await runBounded(cmd, { cwd: worktree, timeoutMs: 10_000, env: {}, scrubSecrets: true })).output).toBe('[]');
    } finally {
      delete process.env.TILTH_API_KEY;
    }
  });
});

describe("a command started in a workspace package's folder (scope.cwd)", () => {
  for (const mode of sandboxed ? (['auto', 'off'] as const) : (['off'] as const)) {
    it(`starts there, and refuses a folder that is not a real folder of the worktree (sandbox ${mode})`, async () => {
      {
        fs.mkdirSync(path.join(worktree, 'packages/core'), { recursive: true });
        fs.symlinkSync(outside, path.join(worktree, 'packages/out'));
        fs.writeFileSync(path.join(worktree, 'packages/file'), '');
        const pwd = (cwd: string) => runUntrusted({ kind: 'shell', script: 'pwd' }, policy({ cwd, sandbox: { mode, hide: [] } }), { timeoutMs: 20_000 });
        const inside = await pwd('packages/core');
        expect(inside.exitCode).toBe(0);
        expect(inside.output.trim()).toBe(path.join(worktree, 'packages/core'));
        expect((await pwd('')).output.trim()).toBe(worktree);
        for (const bad of ['packages/out', 'packages/missing', 'packages/file', '..', '../..', '/etc', '.']) {
          const refused = await pwd(bad);
          expect(refused.exitCode, bad).toBeNull();
          expect(refused.spawnError, bad).toBe(`the package folder ${bad} is not a folder inside the worktree`);
          expect(refused.output, bad).toBe('');
        }
      }
    });
  }
});

describe('background work (the mutation probe, beside the run)', () => {
  it('is started through nice, and through chrt --idle 0 first when the idle class is there, for a shell script and a program alike', () => {
    const n = String(BACKGROUND_NICENESS);
    const script: Command = { kind: 'shell', script: 'make test' };
    const program: Command = { kind: 'argv', command: 'node', args: ['t.js'], env: { A: '1' } };
    expect(niced(script, false)).toEqual({ kind: 'argv', command: 'nice', args: ['-n', n, '/bin/sh', '-c', 'make test'], env: {} });
    expect(niced(program, false)).toEqual({ kind: 'argv', command: 'nice', args: ['-n', n, 'node', 't.js'], env: { A: '1' } });
    expect(niced(script, true)).toEqual({ kind: 'argv', command: 'chrt', args: ['--idle', '0', 'nice', '-n', n, '/bin/sh', '-c', 'make test'], env: {} });
    expect(niced(program, true)).toEqual({ kind: 'argv', command: 'chrt', args: ['--idle', '0', 'nice', '-n', n, 'node', 't.js'], env: { A: '1' } });
  });

  it('uses the idle class on Linux exactly when chrt is on PATH', () => {
    const saved = process.env.PATH;
    const chrt = findOnPath('chrt');
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'tilth-no-chrt-'));
    try {
      expect(idleClassHere()).toBe(process.platform === 'linux' && chrt !== null);
      process.env.PATH = empty;
      expect(idleClassHere()).toBe(false);
      if (chrt !== null) {
        fs.symlinkSync(chrt, path.join(empty, 'chrt'));
        expect(idleClassHere()).toBe(process.platform === 'linux');
      }
    } finally {
      process.env.PATH = saved;
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });

  for (const mode of sandboxed ? (['auto', 'off'] as const) : (['off'] as const)) {
    it(`runs at a lower CPU priority, every process it starts with it, and the run's own commands at the server's (sandbox ${mode})`, async () => {
      const scope = policy({ sandbox: { mode, hide: [] } });
      // The niceness the shell sees, and that of a process it starts (field 19 of its /proc stat),
      // then that process's scheduling policy (field 41: 5 is SCHED_IDLE, 0 the normal one).
      const script = 'nice; cut -d" " -f19 /proc/self/stat; cut -d" " -f41 /proc/self/stat';
      const own = os.getPriority();
      const background = await runUntrusted({ kind: 'shell', script }, scope, { timeoutMs: 20_000, background: true });
      expect(background.exitCode).toBe(0);
      const idle = findOnPath('chrt') === null ? '0' : '5';
      expect(background.output.trim().split('\n')).toEqual([String(own + BACKGROUND_NICENESS), String(own + BACKGROUND_NICENESS), idle]);
      const foreground = await runUntrusted({ kind: 'shell', script }, scope, { timeoutMs: 20_000 });
      expect(foreground.output.trim().split('\n')).toEqual([String(own), String(own), '0']);
    });
  }
});
