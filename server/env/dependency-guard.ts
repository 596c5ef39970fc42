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
 * Either fails the checks with `dependencyMessage`, before any test runs.
 *
 * Not covered: a worktree whose packages an install or a setup command made in place (no
 * checkout install to compare with); the worker can change those, as the user's own setup allows.
 */
import path from 'node:path';
import type { EnvPlan } from '../../shared/files.ts';
import { linkPlanned } from './provision.ts';

export interface DependencyFindings {
  /** Entries of a linked `node_modules` that were something else, linked again (relative to the worktree, `/`). */
  replaced: string[];
  /** Folders of installed packages the plan did not make (relative, `/`). */
  stray: string[];
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

/** What the worker is told: what was found, what Tilth did, what to do. */
export function dependencyMessage(findings: DependencyFindings, during: boolean): string {
  const parts: string[] = [];
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
