/**
 * Throwaway git repositories copied from `examples/<name>`, for the demo and tests (STYLE: tests
 * make their own repos; nobody mutates a checked-in one). Installing an example's dependencies is
 * for tests only: `server/testing/example-installs.ts`.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PACKAGE_ROOT } from '../config/package-root.ts';

/** The package carries js-todo for demo mode; a checkout has them all. */
export const EXAMPLES_DIR = path.join(PACKAGE_ROOT, 'examples');
export type ExampleName =
  | 'js-todo'
  | 'py-todo'
  | 'ts-vitest'
  | 'cjs-mocha'
  | 'py-src'
  | 'go-todo'
  | 'rust-todo'
  | 'ava-todo'
  | 'tap-todo'
  | 'uvu-todo'
  | 'bun-todo'
  | 'deno-todo'
  | 'pnpm-mono';

/** Left behind by running an example's tests in place; never part of the copy. */
const SKIP = new Set(['__pycache__', '.pytest_cache', 'node_modules', '.venv', '.git', '.tap']);

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
    const { execa } = await import('execa');
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
