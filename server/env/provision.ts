/**
 * The worktree gets the project's environment (issue 12): whoever's tests pass in their checkout
 * gets a session whose checks pass in the worktree, with no network in the sandbox and nothing of
 * the checkout touched.
 *
 * - Node: the checkout's installed `node_modules` reaches the worktree as a real `node_modules`
 *   folder holding one symlink per entry of the checkout's (a few hundred links, milliseconds, a
 *   few kB; see bench/provision.ts). Not one symlink for the whole folder, measured against it:
 *   tools write caches under the project's `node_modules` (Vite's config bundle in `.vite-temp`,
 *   vitest's results in `.vite`), which then land in the user's folder, or fail where the sandbox
 *   shows it read-only; and git's usual `node_modules/` ignore pattern does not match a symlink,
 *   so the link would be committed. Not a hardlink copy (`cp -al`): thousands of files and folders
 *   per worktree, and a write to a hardlinked file changes the user's own copy. Node resolves the
 *   links to their real paths, so packages load from the checkout, as they do there. The
 *   worktree's folder holds a `.gitignore` of `*`, so neither the harness's commits nor the user's
 *   git in the worktree ever see it, whatever the repository ignores — and no git file of the
 *   user's is changed for it (a linked worktree has no `info/exclude` of its own: git reads the
 *   repository's, which is the user's). In the sandbox the checkout's `node_modules` is mounted
 *   read-only (proc/sandbox.ts), so the worker's commands cannot change the user's dependencies.
 * - No installed `node_modules` but a lockfile: an offline install from the package manager's
 *   cache, in the worktree. The lockfile's install scripts are repository code, so it runs
 *   through runUntrusted, with the network only if the session allows it.
 * - Python: the project's virtualenv leads PATH (and VIRTUAL_ENV is set), so `python3`, `pytest`
 *   and the venv's tools are the project's; PYTHONPATH puts the worktree's sources (`src/` in the
 *   src layout, then the root) first, ahead of an editable install, which points at the checkout:
 *   PYTHONPATH entries precede site-packages and the paths its `.pth` files add, and setuptools'
 *   editable finder is appended after the path-based one. The venv is mounted read-only too.
 * - A setup command — `.tilth/setup` committed in the repository, or one set in seed review —
 *   replaces linking and installing: it runs in the worktree before the worker, through
 *   runUntrusted, its output streamed as `setup_*` events; a venv it makes in the worktree is
 *   preferred to the checkout's.
 *
 * The plan is decided at prep (planEnvironment), recorded in the checkpoint, and applied at prep,
 * again when resume re-creates a worktree deleted by hand, and to the merge preview's scratch
 * worktree (applyEnvironment); every untrusted command in the worktree gets projectScope's
 * variables and read-only folders.
 */
import fs from 'node:fs';
import path from 'node:path';
import { boundCheckOutput, type EnvReason, type EventInput } from '../../shared/events.ts';
import type { EnvPlan } from '../../shared/files.ts';
import type { PackageManager, ProjectEnv } from '../../shared/project-env.ts';
import { Tree } from '../fs/tree.ts';
import type { GitDirs } from '../git/worktree-git.ts';
import type { SandboxConfig } from '../proc/sandbox.ts';
import { processCapNote, runUntrusted, type Command, type UntrustedScope } from '../proc/untrusted.ts';
import { findOnPath } from '../proc/which.ts';

/** The committed setup command, relative to the repository root. */
export const SETUP_FILE = '.tilth/setup';

/** An install or a setup may download and build a good deal; ten minutes, then it is stopped. */
export const SETUP_TIMEOUT_MS = 600_000;

/**
 * Entries of the checkout's `node_modules` that are not linked: caches tools write as they run
 * (Vite, vitest, babel-loader, …). The worktree gets its own, empty, so nothing a test run writes
 * reaches the checkout.
 */
export const NODE_TOOL_CACHES: ReadonlySet<string> = new Set(['.cache', '.vite', '.vite-temp', '.vitest', '.tmp', '.temp']);

/** Written into the worktree's own `node_modules`: git ignores the folder, whatever the repository's ignore files say. */
const IGNORE_ALL = '# Made by Tilth: the installed packages of this worktree, never committed.\n*\n';

export const VENV_NAMES: readonly string[] = ['.venv', 'venv'];

/**
 * How the worktree will get the project's environment, from what detection found in the checkout.
 * `setupCommand` is the one set in seed review; a committed `.tilth/setup` is looked for in the
 * worktree (what is committed is what runs). Detection's answers are kept even when a setup
 * command replaces them, so removing the command in seed review falls back to them.
 */
export function planEnvironment(input: { source: string; worktree: string; env: ProjectEnv | null; setupCommand?: string | null | undefined }): EnvPlan {
  const { env, source } = input;
  const nodeModules = path.join(source, 'node_modules');
  const installed = env?.node_modules === true && isDirectory(nodeModules);
  const python = env?.python ?? null;
  const js = env?.workspace && env.workspace.tool !== 'cargo' && env.workspace.tool !== 'go' ? env.workspace.packages : [];
  return {
    node_modules_from: installed ? nodeModules : null,
    ...(js.length > 0 ? { workspace_packages: js.map((p) => p.dir) } : {}),
    install: !installed && env?.package_manager && env.lockfile ? { package_manager: env.package_manager, lockfile: env.lockfile } : null,
    // The repository's virtualenv, Poetry's outside it, or a tox/nox environment: shown read-only in the sandbox, its bin first on PATH.
    venv: python && python.source !== 'system' ? venvOf(path.resolve(source, python.interpreter)) : null,
    python_path: python ? (python.src_layout ? ['src', '.'] : ['.']) : [],
    setup: setupFor(input.worktree, input.setupCommand),
  };
}

/** The setup command in force: the one set in seed review, else a committed `.tilth/setup`, else none. */
export function setupFor(worktree: string, setupCommand: string | null | undefined): EnvPlan['setup'] {
  if (setupCommand) return { command: setupCommand, origin: 'seed_review' };
  return fs.statSync(path.join(worktree, SETUP_FILE), { throwIfNoEntry: false })?.isFile() ? { command: SETUP_FILE, origin: 'committed' } : null;
}

/** `<venv>` for an interpreter at `<venv>/bin/python`; null when it is not in a venv's `bin`. */
function venvOf(interpreter: string): string | null {
  const bin = path.dirname(interpreter);
  if (path.basename(bin) !== 'bin') return null;
  const venv = path.dirname(bin);
  return fs.existsSync(path.join(venv, 'pyvenv.cfg')) ? venv : null;
}

function isDirectory(p: string): boolean {
  return fs.statSync(p, { throwIfNoEntry: false })?.isDirectory() === true;
}

/** A virtualenv the worktree has of its own (a setup command made it), else null. */
function ownVenv(worktree: string): string | null {
  for (const name of VENV_NAMES) {
    const venv = path.join(worktree, name);
    if (fs.existsSync(path.join(venv, 'pyvenv.cfg'))) return venv;
  }
  return null;
}

/**
 * What every untrusted command in `worktree` gets from the plan (proc/untrusted.ts): PATH led by
 * the worktree's `node_modules/.bin` and the venv's `bin`, VIRTUAL_ENV, PYTHONPATH with the
 * worktree's sources first, and the dependency folders outside the worktree, read-only. Read at
 * each command, so a venv or `node_modules` a setup command has just made counts.
 */
export function projectScope(plan: EnvPlan | null, worktree: string): UntrustedScope['project'] {
  if (!plan) return undefined;
  const env: Record<string, string> = {};
  const readOnly: string[] = [];
  const pathHead: string[] = [];
  const bin = path.join(worktree, 'node_modules', '.bin');
  if (isDirectory(bin)) pathHead.push(bin);
  // Even when a setup command replaced linking: links made before it still lead there.
  if (plan.node_modules_from) {
    readOnly.push(plan.node_modules_from);
    const source = path.dirname(plan.node_modules_from);
    for (const dir of plan.workspace_packages ?? []) {
      const installed = path.join(source, dir, 'node_modules');
      if (isDirectory(installed)) readOnly.push(installed);
    }
  }
  // Only a setup command makes a virtualenv in the worktree; one there without it is not the
  // user's environment (dependency-guard.ts names it), so it is never the one the commands use.
  const venv = (plan.setup ? ownVenv(worktree) : null) ?? plan.venv;
  if (venv) {
    pathHead.push(path.join(venv, 'bin'));
    env.VIRTUAL_ENV = venv;
    if (!isInside(venv, worktree)) readOnly.push(venv);
  }
  if (pathHead.length > 0) env.PATH = [...pathHead, process.env.PATH ?? '/usr/bin:/bin'].join(path.delimiter);
  if (plan.python_path.length > 0) env.PYTHONPATH = plan.python_path.map((p) => path.join(worktree, p)).join(path.delimiter);
  return { env, readOnly };
}

function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Links the checkout's installed `node_modules` into the worktree as the plan says: the root's,
 * then each workspace package's into the package's folder. Returns how many entries are linked,
 * and the entries put back in place of something that was not the link (linkNodeModules).
 */
export function linkPlanned(plan: EnvPlan, worktree: string): { linked: number; replaced: string[] } {
  if (!plan.node_modules_from) return { linked: 0, replaced: [] };
  const source = path.dirname(plan.node_modules_from);
  const root = linkNodeModules(plan.node_modules_from, worktree, { source });
  let linked = root.linked;
  const replaced = [...root.replaced];
  for (const dir of plan.workspace_packages ?? []) {
    const from = path.join(source, dir, 'node_modules');
    // A package folder the worktree no longer has (its commit removed it) gets nothing.
    if (!isDirectory(from) || !Tree.at(worktree).isRealDirectory(dir)) continue;
    const own = linkNodeModules(from, worktree, { source, dir });
    linked += own.linked;
    replaced.push(...own.replaced);
  }
  return { linked, replaced };
}

/**
 * Links every entry of `from` (the checkout's `node_modules`) into `<worktree>/<dir>/node_modules`,
 * a real folder, except tool caches; adds the `.gitignore` that keeps the folder out of git.
 * Idempotent: an entry already linked right is kept, and a missing or wrong link is made again.
 * What stands in the place of an entry the checkout has, not a link (a folder or a file the worker
 * or something a test ran put there: a `.bin/vitest` that prints a passing run, a `vitest` whose
 * `expect` never fails) is removed and linked again, and named in `replaced` (relative to the
 * worktree): the checks run on the packages the user installed. A package the checkout lacks is
 * left alone. Returns how many entries are linked.
 *
 * In a workspace (`source`, the checkout's root, given) the checkout's links to its own packages
 * (`@mono/core -> ../../packages/core`, as pnpm, npm, yarn and bun make them) lead to the worktree's
 * copy of the package instead, so a package's tests load the session's code of the packages it
 * uses, never the checkout's; a scope folder (`@mono`) holding such links is made a real folder,
 * its entries linked one by one.
 */
export function linkNodeModules(
  from: string,
  worktree: string,
  workspace: { source: string; dir?: string } | null = null,
): { linked: number; replaced: string[] } {
  const tree = Tree.at(worktree);
  const own = path.join(worktree, workspace?.dir ?? '', 'node_modules');
  // A link here (the worker's, a setup script's, or an older layout) would send writes into its
  // target: it is removed (the link itself) and a real folder made in its place.
  if (!tree.isRealDirectory(own)) tree.remove(own);
  tree.mkdir(own, { recursive: true });
  writeIgnoreFile(tree, workspace?.dir ?? '');
  const inWorkspace = workspace ? workspaceTarget(workspace.source, worktree) : () => null;
  let linked = 0;
  const replaced: string[] = [];
  const linkEntry = (target: string, link: string) => {
    const existing = fs.lstatSync(link, { throwIfNoEntry: false });
    if (existing?.isSymbolicLink() && fs.readlinkSync(link) === target) {
      linked++;
      return;
    }
    if (existing && !existing.isSymbolicLink()) replaced.push(path.relative(worktree, link));
    if (existing) tree.remove(link, { recursive: true });
    tree.symlink(target, link);
    linked++;
  };
  for (const name of fs.readdirSync(from)) {
    // Stryker disable next-line ConditionalExpression,StringLiteral: the ignore file is written before this loop, so the branch below would keep it anyway; this says why it is not linked
    if (NODE_TOOL_CACHES.has(name) || name === '.gitignore') continue;
    const target = path.join(from, name);
    const link = path.join(own, name);
    const scoped = name.startsWith('@') ? scopeEntries(target) : [];
    if (workspace && scoped.some((entry) => inWorkspace(path.join(target, entry)) !== null)) {
      // A scope holding a link into the workspace: a real folder, its entries linked one by one.
      if (fs.lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink()) tree.remove(link);
      tree.mkdir(link, { recursive: true });
      for (const entry of scoped) {
        const inner = path.join(target, entry);
        linkEntry(inWorkspace(inner) ?? inner, path.join(link, entry));
      }
      continue;
    }
    linkEntry(inWorkspace(target) ?? target, link);
  }
  return { linked, replaced };
}

function scopeEntries(folder: string): string[] {
  try {
    return fs.statSync(folder).isDirectory() ? fs.readdirSync(folder) : [];
  } catch {
    return [];
  }
}

/**
 * For a `node_modules` entry of the checkout: the worktree's copy of what it leads to when that
 * is a folder of the checkout outside every `node_modules` (a workspace package), else null.
 */
function workspaceTarget(source: string, worktree: string): (entry: string) => string | null {
  const root = fs.realpathSync(source);
  return (entry) => {
    let real: string;
    try {
      if (!fs.lstatSync(entry).isSymbolicLink()) return null;
      real = fs.realpathSync(entry);
    } catch {
      return null;
    }
    const rel = path.relative(root, real);
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel) || rel.split(path.sep).includes('node_modules')) return null;
    return path.join(worktree, rel);
  };
}

/**
 * Writes the worktree's `node_modules/.gitignore`, only when `node_modules` is a real folder of
 * the worktree (not a link a setup script or the worker made), and by rename: an ignore file that
 * is itself a link is replaced, never written through.
 */
function writeIgnoreFile(tree: Tree, dir = ''): void {
  if (!tree.isRealDirectory(path.join(dir, 'node_modules'))) return;
  const file = path.join(dir, 'node_modules', '.gitignore');
  // Stryker disable next-line ObjectLiteral,BooleanLiteral: durable only adds fsyncs, which no test can observe; the file is rewritten at every provisioning
  if (tree.readFileNoFollow(file)?.toString('utf8') !== IGNORE_ALL) tree.writeFileAtomic(file, IGNORE_ALL, { durable: false });
}

/** The offline (or, with the network, cache-first) install for a package manager, from its lockfile only. */
export function installCommand(pm: PackageManager, network: boolean): string {
  const cache = network ? '--prefer-offline' : '--offline';
  switch (pm) {
    case 'npm':
      return `npm ci ${cache} --no-audit --no-fund`;
    case 'pnpm':
      return `pnpm install --frozen-lockfile ${cache}`;
    case 'yarn':
      return `yarn install --frozen-lockfile ${cache}`;
    case 'bun':
      // bun has no offline switch; without the network it installs from its cache or fails.
      return 'bun install --frozen-lockfile';
  }
}

/** The step that runs a command in the worktree: the setup command, else the offline install, else none. */
interface Step {
  kind: 'install' | 'setup';
  /** As shown in events and messages. */
  command: string;
  origin: 'detected' | 'committed' | 'seed_review';
  run: Command;
}

function stepFor(plan: EnvPlan, worktree: string, network: boolean): Step | null {
  if (plan.setup) {
    const { command, origin } = plan.setup;
    if (origin === 'seed_review') return { kind: 'setup', command, origin, run: { kind: 'shell', script: command } };
    const file = path.join(worktree, command);
    // An executable runs as itself (its own `#!`); a plain file is a shell script.
    const executable = ((fs.statSync(file, { throwIfNoEntry: false })?.mode ?? 0) & 0o111) !== 0;
    return {
      kind: 'setup',
      command,
      origin,
      run: executable ? { kind: 'argv', command: file, args: [], env: {} } : { kind: 'argv', command: '/bin/sh', args: [command], env: {} },
    };
  }
  // A package manager that is not installed here cannot install anything: the worktree goes
  // without, and the seed's contract check names the missing runner as an environment problem.
  if (plan.install && findOnPath(plan.install.package_manager) !== null) {
    const command = installCommand(plan.install.package_manager, network);
    return { kind: 'install', command, origin: 'detected', run: { kind: 'shell', script: command } };
  }
  return null;
}

export interface ApplyOptions {
  /** The sandbox the install or setup runs in (the session's). */
  sandbox: SandboxConfig;
  /** The worktree's git metadata, read-only in the sandbox (null for a worktree that is not a session's). */
  git: GitDirs | null;
  /** The session allows the network. */
  network: boolean;
  reason: EnvReason;
  /** The source repository, named in the advice when an install fails. */
  source: string;
  emit?: ((event: EventInput) => void) | undefined;
  signal?: AbortSignal | undefined;
  timeoutMs?: number | undefined;
}

export interface ApplyResult {
  ok: boolean;
  /** When not ok: what failed, how its output ends, and what the user can do. */
  problem: string | null;
  /** The step's output, bounded (the merge preview shows it as a check). */
  output: string;
  /** The command that ran, when one did. */
  command: string | null;
  duration_ms: number;
}

/** Live output goes out in pieces at most this often, and at most this much in all (the finish event has the end). */
const OUTPUT_FLUSH_MS = 300;
const OUTPUT_FLUSH_CHARS = 4_000;
const OUTPUT_STREAM_CAP = 64_000;

/**
 * Gives `worktree` the environment `plan` describes: links the checkout's `node_modules`, or runs
 * the setup command or the offline install in the sandbox, telling `emit` as it goes. A failed
 * step is reported, not thrown: prep and resume stop with its message, the merge preview shows it.
 */
export async function applyEnvironment(plan: EnvPlan, worktree: string, options: ApplyOptions): Promise<ApplyResult> {
  const started = performance.now();
  const emit = options.emit ?? (() => {});
  let linked = 0;
  if (plan.node_modules_from && !plan.setup) {
    if (!isDirectory(plan.node_modules_from)) {
      const problem = `The checkout's ${plan.node_modules_from} is gone, so the worktree has no dependencies to link. Install them again in ${options.source} (or commit a ${SETUP_FILE} script that prepares the worktree).`;
      return { ok: false, problem, output: '', command: null, duration_ms: Math.round(performance.now() - started) };
    }
    linked = linkPlanned(plan, worktree).linked;
  }
  const step = stepFor(plan, worktree, options.network);
  let output = '';
  if (step) {
    const ran = await runStep(step, plan, worktree, options);
    output = ran.output;
    if (ran.problem) return { ok: false, problem: ran.problem, output, command: step.command, duration_ms: Math.round(performance.now() - started) };
    // What an install or a setup put in node_modules is never the session's work to commit,
    // whatever the repository ignores: the root's, and each workspace package's.
    const tree = Tree.at(worktree);
    for (const dir of ['', ...(plan.workspace_packages ?? [])]) writeIgnoreFile(tree, dir);
  }
  const scope = projectScope(plan, worktree);
  const venv = scope?.env.VIRTUAL_ENV ?? null;
  if (linked > 0 || venv !== null || plan.python_path.length > 0) {
    emit({
      type: 'env_prepared',
      data: { reason: options.reason, node_modules_from: linked > 0 ? plan.node_modules_from : null, linked, venv, python_path: plan.python_path },
    });
  }
  return { ok: true, problem: null, output, command: step?.command ?? null, duration_ms: Math.round(performance.now() - started) };
}

async function runStep(step: Step, plan: EnvPlan, worktree: string, options: ApplyOptions): Promise<{ output: string; problem: string | null }> {
  const emit = options.emit ?? (() => {});
  const scope: UntrustedScope = { sandbox: options.sandbox, worktree, git: options.git, network: options.network, project: projectScope(plan, worktree) };
  const timeoutMs = options.timeoutMs ?? SETUP_TIMEOUT_MS;
  const started = performance.now();
  const live = new LiveOutput((text) => emit({ type: 'setup_output', data: { step: step.kind, text } }));
  emit({ type: 'setup_started', data: { step: step.kind, command: step.command, origin: step.origin, reason: options.reason, network: options.network } });
  const run = await runUntrusted(step.run, scope, {
    timeoutMs,
    signal: options.signal,
    env: { CI: '1', npm_config_update_notifier: 'false' },
    onOutput: (text) => live.add(text),
  });
  live.end();
  const notes: string[] = [];
  const capped = processCapNote(run);
  if (capped) notes.push(`(${capped})`);
  if (run.spawnError) notes.push(`(it could not start: ${run.spawnError})`);
  if (run.timedOut) notes.push(`(timed out after ${Math.round(timeoutMs / 1000)} s and was stopped)`);
  const full = [run.output, ...notes].filter(Boolean).join('\n');
  const passed = run.exitCode === 0 && !run.timedOut && !options.signal?.aborted;
  const problem = passed ? null : failureMessage(step, plan, run.exitCode, full, options, run.sandboxed);
  const { output, output_chars } = boundCheckOutput(full);
  emit({
    type: 'setup_finished',
    data: {
      step: step.kind,
      passed,
      exit_code: run.timedOut ? 124 : run.exitCode,
      duration_ms: Math.round(performance.now() - started),
      timed_out: run.timedOut,
      output_chars,
      ...(problem ? { problem } : {}),
    },
  });
  return { output, problem };
}

/** The last lines of a command's output, for a message that must stay readable. */
function tail(output: string, lines = 15, chars = 2_000): string {
  const last = output.trimEnd().split('\n').slice(-lines).join('\n');
  return last.length > chars ? `…${last.slice(-chars)}` : last;
}

function failureMessage(step: Step, plan: EnvPlan, exitCode: number | null, output: string, options: ApplyOptions, sandboxed: boolean): string {
  const how = exitCode === null ? 'was stopped before it finished' : `exited with ${exitCode}`;
  const ends = output.trim() === '' ? 'It printed nothing.' : `Its output ends:\n${tail(output)}`;
  const where = `${sandboxed ? 'in the sandbox, ' : ''}${options.network ? 'with' : 'without'} network`;
  if (step.kind === 'install') {
    const pm = plan.install!.package_manager;
    return [
      `The offline install of the dependencies (\`${step.command}\`, from ${plan.install!.lockfile}) ${how}. ${ends}`,
      `It ran in the worktree ${where}, so every package must already be in ${pm}'s cache.`,
      `Install the dependencies in your checkout (\`${pm} install\` in ${options.source}) so Tilth can link them, or commit a ${SETUP_FILE} script (or set a setup command in seed review) that prepares the worktree${options.network ? '' : ', or allow the network for this session'}.`,
    ].join('\n');
  }
  return [
    `The setup command \`${step.command}\` (${step.origin === 'committed' ? 'committed in the repository' : 'set in seed review'}) ${how}. ${ends}`,
    `It runs in the worktree ${where}. Fix the command${options.network ? '' : ', or allow the network for this session if it downloads something'}${step.origin === 'seed_review' ? ', or remove it in seed review' : ''}.`,
  ].join('\n');
}

/**
 * A command's output as a few events rather than one per chunk: pieces go out when enough has
 * gathered or a moment has passed, up to a cap; past the cap one line says the rest is not
 * streamed (the finish event and the failure message carry the end).
 */
class LiveOutput {
  private buffer = '';
  private sent = 0;
  private timer: NodeJS.Timeout | null = null;
  private capped = false;

  constructor(private readonly send: (text: string) => void) {}

  add(text: string): void {
    if (this.capped) return;
    this.buffer += text;
    if (this.buffer.length >= OUTPUT_FLUSH_CHARS) this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), OUTPUT_FLUSH_MS);
      this.timer.unref();
    }
  }

  end(): void {
    this.flush();
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.buffer === '' || this.capped) return;
    let text = this.buffer;
    this.buffer = '';
    if (this.sent + text.length > OUTPUT_STREAM_CAP) {
      text = `${text.slice(0, Math.max(0, OUTPUT_STREAM_CAP - this.sent))}\n… (more output, not streamed)`;
      this.capped = true;
    }
    this.sent += text.length;
    this.send(text);
  }
}
