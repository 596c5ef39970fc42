import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventInput } from '../../shared/events.ts';
import type { EnvPlan } from '../../shared/files.ts';
import type { ProjectEnv, WorkspacePackage } from '../../shared/project-env.ts';
import { detectSandbox } from '../proc/sandbox.ts';
import { projectEnv as baseEnv } from '../testing/project-env.ts';
import { runUntrusted } from '../proc/untrusted.ts';
import { applyEnvironment, installCommand, linkNodeModules, linkPlanned, planEnvironment, projectScope, SETUP_FILE } from './provision.ts';
import { TEST_SANDBOX } from '../testing/sandbox.ts';

const sandboxed = detectSandbox('auto').available;

let made: string[] = [];
let source: string;
let worktree: string;

function tempDir(prefix: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

function write(file: string, content: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

beforeEach(() => {
  made = [];
  source = tempDir('tilth-prov-src-');
  worktree = tempDir('tilth-prov-wt-');
});

afterEach(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

/** A node:test project with its tests under tests/, as detection would report it. */
const projectEnv = (extra: Partial<ProjectEnv> = {}): ProjectEnv =>
  baseEnv({ test_runner: 'node', test_runner_evidence: 'scripts.test: node --test', test_dirs: ['tests'], test_globs: ['tests/**/*.test.js'], ...extra });

const EMPTY_PLAN: EnvPlan = { node_modules_from: null, install: null, venv: null, python_path: [], setup: null };

/** A fake installed package tree in the checkout: two packages, a scoped one, .bin, and tool caches. */
function installFakeNodeModules(): string {
  const nm = path.join(source, 'node_modules');
  write(path.join(nm, 'left-pad', 'index.js'), 'module.exports = (s) => " " + s;\n');
  write(path.join(nm, 'left-pad', 'package.json'), '{"name":"left-pad","main":"index.js"}\n');
  write(path.join(nm, '@scope', 'util', 'index.js'), 'module.exports = 42;\n');
  write(path.join(nm, '@scope', 'util', 'package.json'), '{"name":"@scope/util","main":"index.js"}\n');
  write(path.join(nm, '.bin', 'hello'), '#!/bin/sh\necho hello from bin\n');
  fs.chmodSync(path.join(nm, '.bin', 'hello'), 0o755);
  write(path.join(nm, '.package-lock.json'), '{}\n');
  write(path.join(nm, '.vite', 'results.json'), '{}\n');
  write(path.join(nm, '.cache', 'babel', 'x'), 'x\n');
  return nm;
}

/** A folder that looks like a virtualenv to provisioning (pyvenv.cfg and bin/python). */
function fakeVenv(dir: string): string {
  write(path.join(dir, 'pyvenv.cfg'), 'home = /usr/bin\n');
  write(path.join(dir, 'bin', 'python'), '#!/bin/sh\n');
  return dir;
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });
}

describe('planEnvironment', () => {
  it("links the checkout's node_modules when it is installed", () => {
    installFakeNodeModules();
    const plan = planEnvironment({ source, worktree, env: projectEnv() });
    expect(plan).toEqual({ ...EMPTY_PLAN, node_modules_from: path.join(source, 'node_modules') });
  });

  it('plans an offline install from the lockfile when the checkout has no node_modules', () => {
    const plan = planEnvironment({ source, worktree, env: projectEnv({ node_modules: false, package_manager: 'pnpm', lockfile: 'pnpm-lock.yaml' }) });
    expect(plan.node_modules_from).toBeNull();
    expect(plan.install).toEqual({ package_manager: 'pnpm', lockfile: 'pnpm-lock.yaml' });
  });

  it('does not trust a node_modules the detection saw but the checkout no longer has', () => {
    const plan = planEnvironment({ source, worktree, env: projectEnv({ node_modules: true }) });
    expect(plan.node_modules_from).toBeNull();
    expect(plan.install).toEqual({ package_manager: 'npm', lockfile: 'package-lock.json' });
  });

  it("uses the project's virtualenv and puts src/ then the root first on PYTHONPATH in the src layout", () => {
    fakeVenv(path.join(source, '.venv'));
    const env = projectEnv({
      languages: ['python'],
      package_manager: null,
      lockfile: null,
      node_modules: false,
      python: { interpreter: '.venv/bin/python', source: 'venv', src_layout: true, packages: ['todo'] },
    });
    expect(planEnvironment({ source, worktree, env })).toEqual({ ...EMPTY_PLAN, venv: path.join(source, '.venv'), python_path: ['src', '.'] });
    const flat = { ...env, python: { interpreter: '/usr/bin/python3', source: 'system' as const, src_layout: false, packages: ['todo'] } };
    expect(planEnvironment({ source, worktree, env: flat })).toEqual({ ...EMPTY_PLAN, python_path: ['.'] });
  });

  it('takes the setup command from seed review first, then a committed .tilth/setup, and keeps what detection found', () => {
    installFakeNodeModules();
    expect(planEnvironment({ source, worktree, env: projectEnv() }).setup).toBeNull();
    write(path.join(worktree, SETUP_FILE), 'echo setting up\n');
    const committed = planEnvironment({ source, worktree, env: projectEnv() });
    expect(committed.setup).toEqual({ command: SETUP_FILE, origin: 'committed' });
    expect(committed.node_modules_from).toBe(path.join(source, 'node_modules'));
    expect(planEnvironment({ source, worktree, env: null, setupCommand: 'make deps' }).setup).toEqual({ command: 'make deps', origin: 'seed_review' });
  });

  it('plans nothing without detection but a committed setup command', () => {
    installFakeNodeModules();
    expect(planEnvironment({ source, worktree, env: null })).toEqual(EMPTY_PLAN);
  });
});

describe('linkNodeModules', () => {
  it('links every entry but the tool caches into a real node_modules folder that git ignores', () => {
    const from = installFakeNodeModules();
    expect(linkNodeModules(from, worktree)).toEqual({ linked: 4, replaced: [] });
    const own = path.join(worktree, 'node_modules');
    expect(fs.lstatSync(own).isDirectory()).toBe(true);
    expect(fs.readdirSync(own).sort()).toEqual(['.bin', '.gitignore', '.package-lock.json', '@scope', 'left-pad']);
    expect(fs.readlinkSync(path.join(own, 'left-pad'))).toBe(path.join(from, 'left-pad'));
    const required = execFileSync(process.execPath, ['-e', 'console.log(require("left-pad")("x"), require("@scope/util"))'], {
      cwd: worktree,
      encoding: 'utf8',
    });
    expect(required.trim()).toBe('x 42');
  });

  it('is idempotent and repairs a link the worker removed or replaced with a symlink of the whole folder', () => {
    const from = installFakeNodeModules();
    linkNodeModules(from, worktree);
    const own = path.join(worktree, 'node_modules');
    fs.unlinkSync(path.join(own, 'left-pad'));
    fs.mkdirSync(path.join(own, 'own-package'));
    expect(linkNodeModules(from, worktree)).toEqual({ linked: 4, replaced: [] });
    expect(fs.readlinkSync(path.join(own, 'left-pad'))).toBe(path.join(from, 'left-pad'));
    expect(fs.existsSync(path.join(own, 'own-package'))).toBe(true);
    fs.rmSync(own, { recursive: true });
    fs.symlinkSync(from, own);
    linkNodeModules(from, worktree);
    expect(fs.lstatSync(own).isDirectory()).toBe(true);
    expect(fs.existsSync(path.join(from, 'left-pad', 'index.js'))).toBe(true);
  });

  it("keeps a right link as it is, re-points a wrong one, puts the checkout's package back in place of the worktree's own copy, and never links the checkout's ignore file", () => {
    const from = installFakeNodeModules();
    write(path.join(from, '.gitignore'), 'the checkout’s own\n');
    const own = path.join(worktree, 'node_modules');
    fs.mkdirSync(own);
    write(path.join(own, 'left-pad', 'index.js'), 'module.exports = () => "faked";\n'); // put there in the worktree
    write(path.join(own, '.bin', 'vitest'), '#!/bin/sh\nexit 0\n'); // a .bin of its own, with a runner that passes
    write(path.join(own, 'only-here', 'index.js'), 'module.exports = 1;\n'); // a package the checkout lacks
    fs.symlinkSync(path.join(source, 'elsewhere'), path.join(own, '@scope'));
    expect(linkNodeModules(from, worktree)).toEqual({ linked: 4, replaced: ['node_modules/.bin', 'node_modules/left-pad'] });
    expect(fs.readlinkSync(path.join(own, 'left-pad'))).toBe(path.join(from, 'left-pad'));
    expect(fs.readlinkSync(path.join(own, '.bin'))).toBe(path.join(from, '.bin'));
    expect(fs.readFileSync(path.join(own, 'only-here', 'index.js'), 'utf8')).toBe('module.exports = 1;\n');
    expect(fs.readlinkSync(path.join(own, '@scope'))).toBe(path.join(from, '@scope'));
    expect(fs.lstatSync(path.join(own, '.gitignore')).isFile()).toBe(true);
    expect(fs.readFileSync(path.join(own, '.gitignore'), 'utf8')).toMatch(/^\*$/m);
    // A right link is kept as it is, not made again (its own time would change).
    const past = new Date(2020, 0, 1);
    fs.lutimesSync(path.join(own, '.bin'), past, past);
    expect(linkNodeModules(from, worktree)).toEqual({ linked: 4, replaced: [] });
    expect(fs.lstatSync(path.join(own, '.bin')).mtime.getFullYear()).toBe(2020);
  });

  it('replaces an ignore file that is a link with a real one, leaving what the link pointed at alone', () => {
    const from = installFakeNodeModules();
    const victim = path.join(source, 'precious.txt');
    write(victim, 'precious\n');
    fs.mkdirSync(path.join(worktree, 'node_modules'));
    fs.symlinkSync(victim, path.join(worktree, 'node_modules', '.gitignore'));
    linkNodeModules(from, worktree);
    const ignore = path.join(worktree, 'node_modules', '.gitignore');
    expect(fs.lstatSync(ignore).isFile()).toBe(true);
    expect(fs.readFileSync(ignore, 'utf8')).toMatch(/^\*$/m);
    expect(fs.readFileSync(victim, 'utf8')).toBe('precious\n');
    // A second call keeps the real file as it is.
    const inode = fs.statSync(ignore).ino;
    linkNodeModules(from, worktree);
    expect(fs.statSync(ignore).ino).toBe(inode);
  });

  it('writes no ignore file through a node_modules a setup step left as a link leading out', async () => {
    const elsewhere = tempDir('tilth-prov-elsewhere-');
    fs.symlinkSync(elsewhere, path.join(worktree, 'node_modules'));
    const plan: EnvPlan = { ...EMPTY_PLAN, setup: { command: 'true', origin: 'seed_review' } };
    const applied = await applyEnvironment(plan, worktree, { sandbox: TEST_SANDBOX, git: null, network: false, reason: 'prep', source });
    expect(applied.ok).toBe(true);
    expect(fs.readdirSync(elsewhere)).toEqual([]);
    // And linking later replaces the link with a real folder instead of writing into its target.
    linkNodeModules(installFakeNodeModules(), worktree);
    expect(fs.lstatSync(path.join(worktree, 'node_modules')).isDirectory()).toBe(true);
    expect(fs.readdirSync(elsewhere)).toEqual([]);
  });

  it("keeps the links out of git even when the repository ignores nothing, without touching the user's git files", () => {
    const repo = tempDir('tilth-prov-repo-');
    git(repo, 'init', '-q', '-b', 'main');
    write(path.join(repo, 'a.txt'), 'a\n');
    git(repo, 'add', '-A');
    git(repo, '-c', 'user.name=T', '-c', 'user.email=t@e', 'commit', '-q', '-m', 'init');
    const wt = path.join(tempDir('tilth-prov-wts-'), 'wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'session/x', wt);
    const exclude = path.join(repo, '.git', 'info', 'exclude');
    const excludeBefore = fs.readFileSync(exclude, 'utf8');
    linkNodeModules(installFakeNodeModules(), wt);
    expect(git(wt, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    git(wt, 'add', '-A');
    expect(git(wt, 'diff', '--cached', '--name-only')).toBe('');
    expect(fs.readFileSync(exclude, 'utf8')).toBe(excludeBefore);
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });
});

describe('projectScope', () => {
  it('puts node_modules/.bin and the venv first on PATH, the worktree first on PYTHONPATH, and shows the dependencies read-only', () => {
    const from = installFakeNodeModules();
    const venv = fakeVenv(path.join(source, '.venv'));
    linkNodeModules(from, worktree);
    const scope = projectScope({ ...EMPTY_PLAN, node_modules_from: from, venv, python_path: ['src', '.'] }, worktree)!;
    expect(scope.env.PATH!.split(path.delimiter).slice(0, 2)).toEqual([path.join(worktree, 'node_modules', '.bin'), path.join(venv, 'bin')]);
    expect(scope.env.VIRTUAL_ENV).toBe(venv);
    expect(scope.env.PYTHONPATH).toBe(`${path.join(worktree, 'src')}${path.delimiter}${worktree}`);
    expect(scope.readOnly).toEqual([from, venv]);
  });

  it('prefers a virtualenv the worktree has of its own when a setup command made it, ignores one made without, and sets nothing without a plan', () => {
    const own = fakeVenv(path.join(worktree, '.venv'));
    const checkouts = fakeVenv(path.join(source, '.venv'));
    const scope = projectScope({ ...EMPTY_PLAN, venv: checkouts, setup: { command: 'make venv', origin: 'seed_review' } }, worktree)!;
    expect(scope.env.VIRTUAL_ENV).toBe(own);
    expect(scope.readOnly).toEqual([]);
    // Without a setup only the worker (or a test run) could have made it: the checkout's is used.
    const linked = projectScope({ ...EMPTY_PLAN, venv: checkouts }, worktree)!;
    expect(linked.env.VIRTUAL_ENV).toBe(checkouts);
    expect(linked.env.PATH!.split(path.delimiter)[0]).toBe(path.join(checkouts, 'bin'));
    expect(linked.readOnly).toEqual([checkouts]);
    expect(projectScope(EMPTY_PLAN, tempDir('tilth-prov-bare-'))).toEqual({ env: {}, readOnly: [] });
    expect(projectScope(null, worktree)).toBeUndefined();
  });
});

describe('installCommand', () => {
  it('installs from the lockfile only, from the cache without the network and cache-first with it', () => {
    expect(installCommand('npm', false)).toBe('npm ci --offline --no-audit --no-fund');
    expect(installCommand('npm', true)).toBe('npm ci --prefer-offline --no-audit --no-fund');
    expect(installCommand('pnpm', false)).toBe('pnpm install --frozen-lockfile --offline');
    expect(installCommand('yarn', false)).toBe('yarn install --frozen-lockfile --offline');
    expect(installCommand('bun', false)).toBe('bun install --frozen-lockfile');
  });
});

describe('applyEnvironment', () => {
  const options = (events: EventInput[]) => ({
    sandbox: TEST_SANDBOX,
    git: null,
    network: false,
    reason: 'prep' as const,
    source,
    emit: (e: EventInput) => events.push(e),
  });

  it('links the dependencies and says so in one event', async () => {
    const from = installFakeNodeModules();
    const events: EventInput[] = [];
    const result = await applyEnvironment({ ...EMPTY_PLAN, node_modules_from: from }, worktree, options(events));
    expect(result).toMatchObject({ ok: true, problem: null, command: null });
    expect(events).toEqual([{ type: 'env_prepared', data: { reason: 'prep', node_modules_from: from, linked: 4, venv: null, python_path: [] } }]);
  });

  it('runs a committed setup script in the worktree instead of linking, streaming its output as events', async () => {
    const from = installFakeNodeModules();
    write(path.join(worktree, SETUP_FILE), 'echo "setting up in $(pwd)"\nmkdir -p build && echo ok > build/ready\n');
    const events: EventInput[] = [];
    const result = await applyEnvironment(
      { ...EMPTY_PLAN, node_modules_from: from, setup: { command: SETUP_FILE, origin: 'committed' } },
      worktree,
      options(events),
    );
    expect(result.ok).toBe(true);
    expect(fs.readFileSync(path.join(worktree, 'build', 'ready'), 'utf8')).toBe('ok\n');
    expect(fs.existsSync(path.join(worktree, 'node_modules'))).toBe(false);
    expect(events.map((e) => e.type)).toEqual(['setup_started', 'setup_output', 'setup_finished']);
    expect(events[0]).toEqual({ type: 'setup_started', data: { step: 'setup', command: SETUP_FILE, origin: 'committed', reason: 'prep', network: false } });
    expect(events[1]).toEqual({ type: 'setup_output', data: { step: 'setup', text: `setting up in ${worktree}\n` } });
    expect(events[2]).toMatchObject({ type: 'setup_finished', data: { step: 'setup', passed: true, exit_code: 0, timed_out: false } });
  });

  it("keeps a node_modules an install or a setup made out of git, whatever the repository ignores: the root's and each workspace package's", async () => {
    const result = await applyEnvironment(
      {
        ...EMPTY_PLAN,
        workspace_packages: ['packages/a', 'packages/b', 'packages/gone'],
        setup: { command: 'mkdir -p node_modules/dep packages/a/node_modules/x packages/b && echo x > node_modules/dep/index.js', origin: 'seed_review' },
      },
      worktree,
      options([]),
    );
    expect(result.ok).toBe(true);
    expect(fs.readFileSync(path.join(worktree, 'node_modules', '.gitignore'), 'utf8')).toMatch(/^\*$/m);
    expect(fs.readFileSync(path.join(worktree, 'packages/a/node_modules', '.gitignore'), 'utf8')).toMatch(/^\*$/m);
    // A package without a node_modules gets none made for it.
    expect(fs.existsSync(path.join(worktree, 'packages/b/node_modules'))).toBe(false);
    expect(fs.existsSync(path.join(worktree, 'packages/gone'))).toBe(false);
  });

  it('runs an executable setup script as itself, and a seed-review command as a shell line', async () => {
    write(path.join(worktree, SETUP_FILE), `#!${process.execPath}\nrequire('fs').writeFileSync('by-node.txt', 'node')\n`);
    fs.chmodSync(path.join(worktree, SETUP_FILE), 0o755);
    expect((await applyEnvironment({ ...EMPTY_PLAN, setup: { command: SETUP_FILE, origin: 'committed' } }, worktree, options([]))).ok).toBe(true);
    expect(fs.readFileSync(path.join(worktree, 'by-node.txt'), 'utf8')).toBe('node');
    const shell = await applyEnvironment(
      { ...EMPTY_PLAN, setup: { command: 'echo a > a.txt && echo b > b.txt', origin: 'seed_review' } },
      worktree,
      options([]),
    );
    expect(shell.ok).toBe(true);
    expect(fs.readFileSync(path.join(worktree, 'b.txt'), 'utf8')).toBe('b\n');
  });

  it('reports a failed setup with its exit code, how its output ends and what to do', async () => {
    const events: EventInput[] = [];
    const result = await applyEnvironment(
      { ...EMPTY_PLAN, setup: { command: 'echo fetching deps; echo "no route to registry" >&2; exit 3', origin: 'seed_review' } },
      worktree,
      options(events),
    );
    expect(result.ok).toBe(false);
    expect(result.problem).toContain('exited with 3');
    expect(result.problem).toContain('no route to registry');
    expect(result.problem).toContain('allow the network for this session');
    expect(result.problem).toContain('remove it in seed review');
    const finished = events.find((e) => e.type === 'setup_finished');
    expect(finished).toMatchObject({ data: { passed: false, exit_code: 3, problem: result.problem } });
    expect(events.some((e) => e.type === 'env_prepared')).toBe(false);
  });

  it('stops a setup that outlives its time limit and says so', async () => {
    const result = await applyEnvironment({ ...EMPTY_PLAN, setup: { command: 'sleep 30', origin: 'seed_review' } }, worktree, {
      ...options([]),
      timeoutMs: 500,
    });
    expect(result.ok).toBe(false);
    expect(result.problem).toMatch(/timed out after 1 s/);
  });

  it("fails with advice when the checkout's node_modules is gone", async () => {
    const result = await applyEnvironment({ ...EMPTY_PLAN, node_modules_from: path.join(source, 'node_modules') }, worktree, options([]));
    expect(result.ok).toBe(false);
    expect(result.problem).toMatch(/is gone.*Install them again in/s);
  });

  it.runIf(sandboxed)("shows the checkout's node_modules read-only in the sandbox, its commands on PATH and its packages loadable", async () => {
    const from = installFakeNodeModules();
    linkNodeModules(from, worktree);
    const plan: EnvPlan = { ...EMPTY_PLAN, node_modules_from: from };
    const scope = { sandbox: TEST_SANDBOX, worktree, git: null, network: false, project: projectScope(plan, worktree) };
    const through = await runUntrusted({ kind: 'shell', script: 'echo changed > node_modules/left-pad/index.js' }, scope, { timeoutMs: 10_000 });
    expect(through.exitCode).not.toBe(0);
    expect(through.output).toMatch(/Read-only file system/);
    expect(fs.readFileSync(path.join(from, 'left-pad', 'index.js'), 'utf8')).toBe('module.exports = (s) => " " + s;\n');
    const reads = await runUntrusted({ kind: 'shell', script: 'hello && node -e \'console.log(require("left-pad")("y"))\'' }, scope, { timeoutMs: 10_000 });
    expect(reads.output).toBe('hello from bin\n y');
  });
});

describe('workspaces', () => {
  /** A checkout laid out as pnpm installs a workspace: the store at the root, each package's links in its own node_modules. */
  function installWorkspace(): void {
    write(path.join(source, 'packages/core/index.js'), 'module.exports = "checkout core";\n');
    write(path.join(source, 'packages/cli/index.js'), 'module.exports = require("@mono/core");\n');
    write(path.join(source, 'node_modules/.pnpm/left-pad@1/node_modules/left-pad/index.js'), 'module.exports = (s) => " " + s;\n');
    fs.mkdirSync(path.join(source, 'node_modules/@mono'), { recursive: true });
    fs.symlinkSync('../../packages/core', path.join(source, 'node_modules/@mono/core'));
    fs.mkdirSync(path.join(source, 'packages/cli/node_modules/@mono'), { recursive: true });
    fs.symlinkSync('../../../core', path.join(source, 'packages/cli/node_modules/@mono/core'));
    fs.symlinkSync('../../../node_modules/.pnpm/left-pad@1/node_modules/left-pad', path.join(source, 'packages/cli/node_modules/left-pad'));
    write(path.join(source, 'packages/cli/node_modules/.bin/tool'), '#!/bin/sh\n');
    // The worktree: the session's own copy of the packages' code.
    write(path.join(worktree, 'packages/core/index.js'), 'module.exports = "session core";\n');
    write(path.join(worktree, 'packages/cli/index.js'), 'module.exports = require("@mono/core");\n');
  }

  /** A package of the workspace tested with node's runner. */
  const nodePackage = (dir: string, name: string, node_modules: boolean): WorkspacePackage => ({
    dir,
    name,
    test_runner: 'node',
    test_runner_evidence: null,
    undriven_runner: null,
    test_dirs: [],
    test_globs: [],
    typescript: false,
    module_type: 'commonjs',
    node_modules,
  });

  const workspaceEnv = (): ProjectEnv =>
    projectEnv({
      workspace: {
        tool: 'pnpm',
        evidence: 'pnpm-workspace.yaml',
        packages: [nodePackage('packages/cli', '@mono/cli', true), nodePackage('packages/core', '@mono/core', false)],
      },
    });

  it("links each package's installed node_modules into the worktree's package, a link to a workspace package leading to the worktree's copy", () => {
    installWorkspace();
    const plan = planEnvironment({ source, worktree, env: workspaceEnv() });
    expect(plan.workspace_packages).toEqual(['packages/cli', 'packages/core']);
    expect(linkPlanned(plan, worktree).linked).toBe(5);
    const cli = path.join(worktree, 'packages/cli/node_modules');
    expect(fs.readlinkSync(path.join(cli, '@mono/core'))).toBe(path.join(worktree, 'packages/core'));
    expect(fs.readlinkSync(path.join(cli, 'left-pad'))).toBe(path.join(source, 'packages/cli/node_modules/left-pad'));
    expect(fs.readlinkSync(path.join(worktree, 'node_modules/@mono/core'))).toBe(path.join(worktree, 'packages/core'));
    expect(fs.lstatSync(path.join(worktree, 'node_modules/@mono')).isDirectory()).toBe(true);
    expect(fs.readFileSync(path.join(cli, '.gitignore'), 'utf8')).toMatch(/^\*$/m);
    // Node loads the session's core from the worktree's cli, and the checkout's store for the rest.
    const out = execFileSync(process.execPath, ['-e', 'console.log(require("./index.js"), require("left-pad")("x"))'], {
      cwd: path.join(worktree, 'packages/cli'),
      encoding: 'utf8',
    });
    expect(out.trim()).toBe('session core  x');
    // Again: idempotent, nothing relinked wrong.
    expect(linkPlanned(plan, worktree).linked).toBe(5);
    // The checkout's package folders stay read-only in the sandbox.
    expect(projectScope(plan, worktree)?.readOnly).toEqual([path.join(source, 'node_modules'), path.join(source, 'packages/cli/node_modules')]);
  });

  it('links what is not a workspace package as it is: a scope of real folders whole, links out of the checkout or to its root, broken links, a file named like a scope', () => {
    installWorkspace();
    const elsewhere = tempDir('tilth-prov-elsewhere-');
    const nm = path.join(source, 'packages/cli/node_modules');
    write(path.join(nm, '@types/node/index.d.ts'), '');
    fs.symlinkSync(elsewhere, path.join(nm, 'linked-elsewhere'));
    fs.symlinkSync(source, path.join(nm, 'the-root'));
    fs.symlinkSync(path.join(source, 'gone'), path.join(nm, 'broken'));
    fs.symlinkSync(path.join(source, 'gone'), path.join(nm, '@broken'));
    write(path.join(nm, '@file'), '');
    // An older layout left the worktree's scope as a link to the checkout's: it becomes a real folder.
    fs.mkdirSync(path.join(worktree, 'packages/cli/node_modules'), { recursive: true });
    fs.symlinkSync(path.join(nm, '@mono'), path.join(worktree, 'packages/cli/node_modules/@mono'));
    const plan = planEnvironment({ source, worktree, env: workspaceEnv() });
    linkPlanned(plan, worktree);
    const own = path.join(worktree, 'packages/cli/node_modules');
    for (const name of ['@types', 'linked-elsewhere', 'the-root', 'broken', '@broken', '@file'])
      expect(fs.readlinkSync(path.join(own, name)), name).toBe(path.join(nm, name));
    expect(fs.lstatSync(path.join(own, '@mono')).isDirectory()).toBe(true);
    expect(fs.readlinkSync(path.join(own, '@mono/core'))).toBe(path.join(worktree, 'packages/core'));
    // No plan to link: nothing linked.
    expect(linkPlanned({ ...plan, node_modules_from: null }, worktree)).toEqual({ linked: 0, replaced: [] });
  });

  it('links no package folder the worktree does not have', () => {
    installWorkspace();
    fs.rmSync(path.join(worktree, 'packages/cli'), { recursive: true });
    const plan = planEnvironment({ source, worktree, env: workspaceEnv() });
    linkPlanned(plan, worktree);
    expect(fs.existsSync(path.join(worktree, 'packages/cli'))).toBe(false);
  });
});
