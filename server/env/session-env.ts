/**
 * A session's side of provisioning (provision.ts): the plan recorded in its checkpoint, applied
 * to its worktree at prep (the interview job, before the first question), and at a run's start
 * when prep did not finish it, when the worktree was re-created from its branch, or when seed
 * review changed the setup command. A failure is the session's to show: the interview fails, the
 * run stops with `setup_failed`, each with the step's output and what to do.
 */
import type { EnvReason, EventInput } from '../../shared/events.ts';
import type { Checkpoint, EnvPlan } from '../../shared/files.ts';
import { lookupGitDirs, type GitDirs } from '../git/worktree-git.ts';
import type { SandboxConfig } from '../proc/sandbox.ts';
import type { UntrustedScope } from '../proc/untrusted.ts';
import type { SessionHandle } from '../store/session-handle.ts';
import { Tree } from '../fs/tree.ts';
import { changedInstalled, fingerprintInstalled } from './dependency-guard.ts';
import { applyEnvironment, linkPlanned, projectScope, setupFor, type ApplyResult } from './provision.ts';

export interface SessionEnvContext {
  session: SessionHandle;
  signal?: AbortSignal | undefined;
  emit: (event: EventInput) => void;
}

export interface PrepareOptions {
  reason: EnvReason;
  /** The worktree's recorded git dirs (read-only in the sandbox). */
  git: GitDirs | null;
  /** Apply the whole plan even if it was applied before (the worktree was re-created). */
  force?: boolean;
  /** The setup command seed review set (null: none); undefined before there is a seed. */
  setupCommand?: string | null | undefined;
}

export type PrepareResult = { ok: true } | { ok: false; problem: string };

/**
 * Makes sure the session's worktree has its environment. Cheap when it has: the `node_modules`
 * links are checked and any the worker removed are made again. Sessions from before the plan was
 * recorded have none, and are left as they were.
 */
export async function prepareSessionEnvironment(ctx: SessionEnvContext, options: PrepareOptions): Promise<PrepareResult> {
  const cp = ctx.session.checkpoint.read();
  if (!cp.environment) return { ok: true };
  let plan = cp.environment.plan;
  let reason = options.reason;
  let due = options.force === true || cp.environment.ready_at === null;
  if (options.setupCommand !== undefined) {
    const setup = setupFor(cp.worktree, options.setupCommand);
    if (JSON.stringify(setup) !== JSON.stringify(plan.setup)) {
      plan = { ...plan, setup };
      if (!due) reason = 'setup_changed';
      due = true;
    }
  }
  if (!due) {
    if (plan.node_modules_from && !plan.setup) linkPlanned(plan, cp.worktree);
    return { ok: true };
  }
  const applied = await applyEnvironment(plan, cp.worktree, {
    sandbox: ctx.session.sandbox,
    git: options.git,
    network: cp.allow_network,
    reason,
    source: cp.source,
    emit: ctx.emit,
    signal: ctx.signal,
  });
  recordApplied(ctx, plan, applied.ok);
  return applied.ok ? { ok: true } : { ok: false, problem: applied.problem ?? 'The environment could not be prepared.' };
}

/** The plan as applied: when, and what the packages it made in the worktree hold (dependency-guard.ts). */
function recordApplied(ctx: SessionEnvContext, plan: EnvPlan, ok: boolean): void {
  const worktree = ctx.session.checkpoint.read().worktree;
  const installed = ok ? fingerprintInstalled(plan, worktree) : {};
  ctx.session.checkpoint.update(() => ({
    environment: { plan, ready_at: ok ? new Date().toISOString() : null, ...(Object.keys(installed).length > 0 ? { installed } : {}) },
  }));
}

/**
 * The packages an install or a setup made in the worktree, against what they held when it
 * succeeded: each folder that changed since (the worker's shell, something a test ran) is removed
 * and the step run again, so the checks run on packages as the step installs them. Returns the
 * folders that changed (none: nothing to do) and the step's problem when it failed.
 */
export async function remakeChangedPackages(ctx: SessionEnvContext, git: GitDirs | null): Promise<{ changed: string[]; problem: string | null }> {
  const cp = ctx.session.checkpoint.read();
  const recorded = cp.environment?.installed;
  if (!cp.environment || !recorded) return { changed: [], problem: null };
  const changed = changedInstalled(recorded, cp.worktree);
  if (changed.length === 0) return { changed, problem: null };
  const tree = Tree.at(cp.worktree);
  for (const dir of changed) tree.remove(dir, { recursive: true });
  const { plan } = cp.environment;
  const applied = await applyEnvironment(plan, cp.worktree, {
    sandbox: ctx.session.sandbox,
    git,
    network: cp.allow_network,
    reason: 'packages_changed',
    source: cp.source,
    emit: ctx.emit,
    signal: ctx.signal,
  });
  recordApplied(ctx, plan, applied.ok);
  return { changed, problem: applied.ok ? null : (applied.problem ?? 'The environment could not be prepared.') };
}

/** The plan a checkpoint records (null for sessions from before it was). */
export function planOf(cp: Pick<Checkpoint, 'environment'>): EnvPlan | null {
  return cp.environment?.plan ?? null;
}

/** Where an untrusted command of the session runs: the worktree, its git dirs, the network setting, and the project's environment. */
export function sessionScope(
  sandbox: SandboxConfig,
  cp: Pick<Checkpoint, 'environment' | 'allow_network'>,
  worktree: string,
  git: GitDirs | null,
): UntrustedScope {
  return { sandbox, worktree, git, network: cp.allow_network, project: projectScope(planOf(cp), worktree) };
}

/**
 * A scratch worktree of the session (the merge's, the mutation probe's) given the environment the
 * session's checks had: the plan applied in the sandbox, then the scope its untrusted commands
 * run in, with the scratch worktree's git metadata read-only. Or the failed step, when the plan
 * could not be applied.
 */
export async function scratchScope(
  sandbox: SandboxConfig,
  cp: Checkpoint,
  dir: string,
  reason: EnvReason,
  signal?: AbortSignal,
): Promise<{ ok: true; scope: UntrustedScope } | { ok: false; applied: ApplyResult }> {
  const gitDirs = await lookupGitDirs(cp.source, dir);
  const plan = planOf(cp);
  if (plan) {
    const applied = await applyEnvironment(plan, dir, { sandbox, git: gitDirs, network: cp.allow_network, reason, source: cp.source, signal });
    if (!applied.ok) return { ok: false, applied };
  }
  return { ok: true, scope: sessionScope(sandbox, cp, dir, gitDirs) };
}
