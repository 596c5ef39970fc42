/**
 * Throwaway git repositories copied from `examples/<name>`, for tests and the demo (STYLE: tests
 * make their own repos; nobody mutates a checked-in one).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { PACKAGE_ROOT } from '../package-root.ts';

/** The package carries js-todo for demo mode; a checkout has them all. */
export const EXAMPLES_DIR = path.join(PACKAGE_ROOT, 'examples');
export type ExampleName = 'js-todo' | 'py-todo' | 'ts-vitest' | 'cjs-mocha' | 'py-src';

/** Left behind by running an example's tests in place; never part of the copy. */
const SKIP = new Set(['__pycache__', '.pytest_cache', 'node_modules', '.venv', '.git']);

export interface ExampleRepo {
  /** The repository root (a folder named after the example, inside a fresh temp folder). */
  dir: string;
  cleanup: () => Promise<void>;
}

/**
 * Copies the example, then `git init -b main` and one commit with a local identity. The copy goes
 * into a fresh temp folder, or a fresh folder under `under` (the demo keeps its repos with the
 * sessions).
 */
export async function makeExampleRepo(name: ExampleName, under?: string): Promise<ExampleRepo> {
  if (under) await fs.mkdir(under, { recursive: true });
  const parent = await fs.mkdtemp(path.join(under ?? os.tmpdir(), `tilth-${name}-`));
  const cleanup = () => fs.rm(parent, { recursive: true, force: true });
  const dir = path.join(parent, name);
  try {
    await fs.cp(path.join(EXAMPLES_DIR, name), dir, { recursive: true, filter: (src) => !SKIP.has(path.basename(src)) });
    // The user's global git config (signing, hooks, templates) must not change what the test sees.
    const git = (...args: string[]) => execa('git', args, { cwd: dir, timeout: 20_000, env: { GIT_CONFIG_NOSYSTEM: '1' } });
    await git('init', '-q', '-b', 'main');
    await git('config', 'user.name', 'Example Dev');
    await git('config', 'user.email', 'dev@example.com');
    await git('config', 'commit.gpgsign', 'false');
    await git('add', '-A');
    await git('commit', '-q', '--no-verify', '-m', `Initial commit of ${name}`);
  } catch (err) {
    await cleanup();
    throw err;
  }
  return { dir, cleanup };
}

/** Long enough for a cold npm cache on a small machine; a warm one takes seconds. */
const INSTALL_TIMEOUT_MS = 300_000;

/**
 * Installs an example's dependencies in its copy the way its README tells a user to, so a test
 * sees what a real checkout has: `npm ci` from the lockfile (the default npm cache keeps repeats
 * fast), or a virtualenv with the package installed editable. Examples without dependencies
 * need nothing. The installed folders are git-ignored by the examples, so the copy stays clean.
 */
export async function installExample(dir: string, name: ExampleName): Promise<void> {
  const run = (file: string, args: string[]) => execa(file, args, { cwd: dir, timeout: INSTALL_TIMEOUT_MS, stdin: 'ignore', all: true });
  switch (name) {
    case 'ts-vitest':
    case 'cjs-mocha':
      await run('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline']);
      return;
    case 'py-src': {
      await run('python3', ['-m', 'venv', '.venv']);
      // Without build isolation pip needs nothing from an index, but the setuptools a venv ships
      // (65 with Python 3.11) cannot build an editable wheel without the `wheel` package; then
      // the ordinary install, which fetches its build backend from pip's configured index.
      const offline = await execa('.venv/bin/pip', ['install', '-q', '-e', '.', '--no-build-isolation'], {
        cwd: dir,
        timeout: INSTALL_TIMEOUT_MS,
        stdin: 'ignore',
        all: true,
        reject: false,
      });
      if (offline.exitCode !== 0) await run('.venv/bin/pip', ['install', '-q', '-e', '.']);
      return;
    }
    case 'js-todo':
    case 'py-todo':
      return;
  }
}

/** The package managers beside npm, at the versions the tests fetch with `npx` (none needs installing). */
export const PACKAGE_MANAGERS = { pnpm: 'pnpm@9.15.9', yarn: 'yarn@1.22.22', bun: 'bun@1.3.3' } as const;
export type OtherPackageManager = keyof typeof PACKAGE_MANAGERS;

/**
 * Turns a copied npm example into one its users keep with another package manager, the way they
 * have it: `packageManager` in package.json, that manager's own lockfile committed instead of
 * npm's, and `node_modules` as that manager lays it out (pnpm's `.pnpm` store of symlinks, yarn's
 * and bun's hoisted tree). Needs the npm registry, as `npm ci` does.
 */
export async function installWith(dir: string, manager: OtherPackageManager): Promise<void> {
  const spec = PACKAGE_MANAGERS[manager];
  const pkgPath = path.join(dir, 'package.json');
  const pkg = JSON.parse(await fs.readFile(pkgPath, 'utf8')) as Record<string, unknown>;
  await fs.writeFile(pkgPath, `${JSON.stringify({ ...pkg, packageManager: spec }, null, 2)}\n`);
  await fs.rm(path.join(dir, 'package-lock.json'));
  await execa('npx', ['--yes', spec, 'install'], { cwd: dir, timeout: INSTALL_TIMEOUT_MS, stdin: 'ignore', all: true, env: { CI: '1' } });
  const git = (...args: string[]) => execa('git', args, { cwd: dir, timeout: 20_000, env: { GIT_CONFIG_NOSYSTEM: '1' } });
  await git('add', '-A');
  await git('commit', '-q', '--no-verify', '-m', `Use ${manager}`);
}
