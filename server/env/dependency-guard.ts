/**
 * The installed packages the checks run on are the ones the user installed, never ones the worker
 * left in the worktree. A test runner loads its own code and the tests' imports from the
 * worktree's `node_modules` (linked from the checkout, provision.ts) and from the nearest
 * `node_modules` above each file; a Python run takes the virtualenv on its PATH. Each is a place
 * where a worker that cannot make the code pass could make the tests look as if it did: a
 * `node_modules/.bin/vitest` that prints a passing run, a `vitest` whose `expect` never fails, a
 * `test/node_modules/vitest` nearer the tests than the real one, a `.venv/bin/python` that writes
 * a passing report.
 *
 * So before the checks run (and again after, for what the run itself changed):
 * - every entry the checkout has is linked again in the worktree's `node_modules` (the root's and
 *   each workspace package's), and what stood in its place is named (`replaced`);
 * - a `node_modules` anywhere else, or a virtualenv where no setup command could have made one,
 *   is named (`stray`) unless the base commit tracks files in it (a repository that commits its
 *   fixtures' packages).
 * - where an install or a setup command made the packages in the worktree itself (no checkout
 *   install to link), each folder it made is fingerprinted when the step succeeds
 *   (`fingerprintInstalled`); a folder whose fingerprint changed since is removed and the step
 *   run again (session-env.ts), and named (`remade`).
 * Any of these fails the checks with `dependencyMessage`, before any test runs.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { EnvPlan } from '../../shared/files.ts';
import { Tree } from '../fs/tree.ts';
import { linkPlanned, NODE_TOOL_CACHES, VENV_NAMES } from './provision.ts';

export interface DependencyFindings {
  /** Entries of a linked `node_modules` that were something else, linked again (relative to the worktree, `/`). */
  replaced: string[];
  /** Folders of installed packages the plan did not make (relative, `/`). */
  stray: string[];
  /** Folders an install or a setup made that changed since, made again (relative, `/`). */
  remade?: string[];
  /** Why making them again failed, when it did. */
  problem?: string | null;
}

/** The `node_modules` folders the plan makes: the root's and each workspace package's. */
function plannedNodeModules(plan: EnvPlan): Set<string> {
  return new Set(['node_modules', ...(plan.workspace_packages ?? []).map((dir) => `${dir}/node_modules`)]);
}

/**
 * Of the dependency folders found in the worktree (`node_modules` folders and virtualenvs, as
 * test-machinery's walk lists them), those the plan did not make and the base commit does not
 * track. A virtualenv is the plan's only when a setup command ran (it is the only step that makes
 * one in the worktree); the plan's own venv lives in the checkout.
 */
export function strayDependencyDirs(plan: EnvPlan, found: readonly string[], baseFiles: ReadonlySet<string>): string[] {
  const planned = plannedNodeModules(plan);
  const tracked = (dir: string) => {
    const prefix = `${dir}/`;
    for (const file of baseFiles) if (file.startsWith(prefix)) return true;
    return false;
  };
  return found.filter((dir) => {
    const ours = path.posix.basename(dir) === 'node_modules' ? planned.has(dir) : plan.setup !== null;
    return !ours && !tracked(dir);
  });
}

/** Links the plan's `node_modules` entries again, and names the stray folders. */
export function guardDependencies(plan: EnvPlan, worktree: string, found: readonly string[], baseFiles: ReadonlySet<string>): DependencyFindings {
  const replaced = plan.node_modules_from && !plan.setup ? linkPlanned(plan, worktree).replaced.map((rel) => rel.split(path.sep).join('/')) : [];
  return { replaced, stray: strayDependencyDirs(plan, found, baseFiles) };
}

/**
 * The folders of packages an install or a setup made in the worktree itself (relative): the
 * plan's `node_modules` folders that are real folders, and after a setup its virtualenvs. None
 * when the packages are linked from the checkout (the links are guarded instead).
 */
export function installedInPlace(plan: EnvPlan, worktree: string): string[] {
  if (!plan.setup && !plan.install) return [];
  const tree = Tree.at(worktree);
  const dirs = [...plannedNodeModules(plan)].filter((dir) => tree.isRealDirectory(dir));
  if (plan.setup) dirs.push(...VENV_NAMES.filter((name) => tree.isRealDirectory(name) && fs.existsSync(path.join(worktree, name, 'pyvenv.cfg'))));
  return dirs;
}

/**
 * What a folder of packages holds, as one hash: each entry's path and mode, and for all but
 * folders its size, inode and change time (which no one can set back) and a link's target. Left
 * out: the tool caches at the top of a `node_modules` and Python's bytecode, which runs write;
 * a folder's own times, which change when they do.
 */
export function fingerprintFolder(worktree: string, dir: string): string {
  const hash = createHash('sha256');
  const walk = (abs: string, rel: string, top: boolean) => {
    let names: string[];
    try {
      names = fs.readdirSync(abs).sort();
    } catch {
      hash.update(`unreadable ${rel}\n`);
      return;
    }
    for (const name of names) {
      if ((top && NODE_TOOL_CACHES.has(name)) || name === '__pycache__' || name.endsWith('.pyc')) continue;
      const child = path.join(abs, name);
      const childRel = `${rel}/${name}`;
      const st = fs.lstatSync(child, { bigint: true });
      if (st.isDirectory()) {
        hash.update(`${childRel}\0${st.mode}\n`);
        walk(child, childRel, false);
        continue;
      }
      hash.update(`${childRel}\0${st.mode}\0${st.size}\0${st.ino}\0${st.ctimeNs}\0${st.isSymbolicLink() ? fs.readlinkSync(child) : ''}\n`);
    }
  };
  walk(path.join(worktree, dir), dir, path.posix.basename(dir) === 'node_modules');
  return hash.digest('hex');
}

/** The fingerprint of each folder `installedInPlace` lists, to record when the step succeeded. */
export function fingerprintInstalled(plan: EnvPlan, worktree: string): Record<string, string> {
  return Object.fromEntries(installedInPlace(plan, worktree).map((dir) => [dir, fingerprintFolder(worktree, dir)]));
}

/** The recorded folders whose fingerprint is not what was recorded (a folder gone included). */
export function changedInstalled(recorded: Record<string, string>, worktree: string): string[] {
  return Object.entries(recorded)
    .filter(([dir, print]) => !Tree.at(worktree).isRealDirectory(dir) || fingerprintFolder(worktree, dir) !== print)
    .map(([dir]) => dir);
}

/** What the worker is told: what was found, what Tilth did, what to do. */
export function dependencyMessage(findings: DependencyFindings, during: boolean): string {
  const parts: string[] = [];
  if (findings.remade && findings.remade.length > 0) {
    const when = during ? 'while the checks ran' : 'after the install or setup made them';
    const outcome = findings.problem ? `; that failed: ${findings.problem}` : '';
    parts.push(
      `These folders of installed packages changed ${when}: ${findings.remade.join(', ')}. Tilth removed them and ran the step that makes them again${outcome}. The tests run only on the packages as that step installs them.`,
    );
  }
  if (findings.replaced.length > 0) {
    const when = during ? 'were replaced while the checks ran' : 'were not the packages the user installed';
    parts.push(
      `These entries of node_modules ${when}: ${findings.replaced.join(', ')}. Tilth linked the user's install back in their place; the tests run only on the packages the user installed.`,
    );
  }
  if (findings.stray.length > 0) {
    const removal = findings.stray.map((dir) => `rm -rf ${dir}`).join('; ');
    parts.push(
      `These folders of installed packages are not the environment the session was given, and a test run would load them before it: ${findings.stray.join(', ')}. Remove them (${removal}).`,
    );
  }
  parts.push(
    'Make the code pass the tests with the packages as installed. To add a dependency, add it to the manifest (package.json, pyproject.toml) and its lockfile and say so in the case: the user installs it.',
  );
  return parts.join('\n\n');
}
