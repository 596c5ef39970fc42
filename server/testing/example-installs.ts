/**
 * An example's dependencies installed in its copy (`makeExampleRepo`), for tests that need what a
 * real checkout has: its runner in `node_modules`, a virtualenv, another package manager's layout.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import type { ExampleName } from '../demo/example-repo.ts';
import type { ProjectEnv } from '../../shared/project-env.ts';

/** What detection says of the cjs-mocha example once `installExample` has installed it. */
export const CJS_MOCHA_ENV: ProjectEnv = {
  languages: ['javascript'],
  package_manager: 'npm',
  lockfile: 'package-lock.json',
  module_type: 'commonjs',
  typescript: false,
  test_runner: 'mocha',
  test_runner_evidence: 'devDependencies.mocha',
  test_dirs: ['test'],
  test_globs: ['test/**/*.test.js'],
  python: null,
  node_modules: true,
  setup_command: null,
};

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
    case 'ava-todo':
    case 'tap-todo':
    case 'uvu-todo':
    case 'bun-todo':
    case 'deno-todo':
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
    case 'pnpm-mono':
      // A pnpm workspace as its users install it: pnpm from its packageManager pin, the lockfile frozen.
      await execa('npx', ['--yes', PACKAGE_MANAGERS.pnpm, 'install', '--frozen-lockfile', '--prefer-offline'], {
        cwd: dir,
        timeout: INSTALL_TIMEOUT_MS,
        stdin: 'ignore',
        all: true,
        env: { CI: '1' },
      });
      return;
    case 'js-todo':
    case 'py-todo':
    case 'go-todo':
    case 'rust-todo':
      // Standard library only: `go test ./...` and `cargo test` are all their users run.
      return;
  }
}

/**
 * The cjs-mocha example's copy turned into a jest project, as a jest user has it: jest 29 from the
 * registry instead of mocha, `npm test` running jest. The changed package files are not committed.
 */
export async function turnIntoJestProject(dir: string): Promise<void> {
  const pkgPath = path.join(dir, 'package.json');
  const pkg = JSON.parse(await fs.readFile(pkgPath, 'utf8')) as { devDependencies?: unknown; scripts: Record<string, string> };
  delete pkg.devDependencies;
  pkg.scripts.test = 'jest';
  await fs.writeFile(pkgPath, `${JSON.stringify(pkg, null, 2)}\n`);
  await fs.rm(path.join(dir, 'package-lock.json'));
  await addDevPackage(dir, 'jest@29');
}

/** One more dev dependency from the registry, the way a user adds it (`npm install --save-dev`); not committed. */
export async function addDevPackage(dir: string, spec: string): Promise<void> {
  await execa('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--save-dev', spec], {
    cwd: dir,
    timeout: INSTALL_TIMEOUT_MS,
    stdin: 'ignore',
    all: true,
  });
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
  const lockPath = path.join(dir, 'package-lock.json');
  const pinned = manager === 'yarn' ? { resolutions: await hoistedVersions(lockPath) } : {};
  await fs.writeFile(pkgPath, `${JSON.stringify({ ...pkg, packageManager: spec, ...pinned }, null, 2)}\n`);
  await fs.rm(lockPath);
  await execa('npx', ['--yes', spec, 'install'], { cwd: dir, timeout: INSTALL_TIMEOUT_MS, stdin: 'ignore', all: true, env: { CI: '1' } });
  const git = (...args: string[]) => execa('git', args, { cwd: dir, timeout: 20_000, env: { GIT_CONFIG_NOSYSTEM: '1' } });
  await git('add', '-A');
  await git('commit', '-q', '--no-verify', '-m', `Use ${manager}`);
}

/**
 * The version npm's lockfile holds of each package at the top of `node_modules`. Yarn 1 cannot
 * read a v3 lockfile and resolves afresh, and a fresh resolution takes whatever the registry has
 * that day: when vite 8's newest release named an optional dependency missing from the registry,
 * yarn 1 (which fails on a missing optional one) could not install at all. Pinned through
 * `resolutions`, the yarn checkout has the versions the npm one has, as a user's own yarn.lock would.
 */
async function hoistedVersions(lockPath: string): Promise<Record<string, string>> {
  const lock = JSON.parse(await fs.readFile(lockPath, 'utf8')) as { packages?: Record<string, { version?: string; optional?: boolean }> };
  const pins: Record<string, string> = {};
  for (const [where, entry] of Object.entries(lock.packages ?? {})) {
    const name = /^node_modules\/((?:@[^/]+\/)?[^/]+)$/.exec(where)?.[1];
    // Optional ones are platform builds (rolldown's per-OS bindings): pinned, yarn would install them everywhere.
    if (name && entry.version && entry.optional !== true) pins[name] = entry.version;
  }
  return pins;
}
