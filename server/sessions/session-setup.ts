/**
 * Creating and discarding sessions: the folder, the `session/<id>` worktree from the workspace's
 * HEAD, the interview job. The source repo's working tree is never touched.
 */
import fs from 'node:fs';
import type { SessionListItem } from '../../shared/api.ts';
import type { SessionStatus } from '../../shared/events.ts';
import type { ChecksPreset } from '../../shared/files.ts';
import type { ProjectEnv } from '../../shared/project-env.ts';
import { planEnvironment } from '../env/provision.ts';
import { detectProjectEnv } from '../env/detect.ts';
import { AppError, ConflictError } from '../errors/app-error.ts';
import type { JobRunner } from '../jobs/job-runner.ts';
import { addWorktree, inspectWorkspace, removeWorktree, type WorkspaceInfo } from '../git/repo.ts';
import type { ModelClient } from '../llm/client.ts';
import type { SessionStore } from '../store/session-store.ts';
import { runInterview, type InterviewDeps } from '../interview/interviewer.ts';
import type { LiveConfig } from '../config/live-config.ts';
import { presetFor } from '../env/presets.ts';
import { checkInterviewProvider } from '../interview/provider-check.ts';

/** Statuses that make a new session on the same repo worth a second thought. */
const OPEN_STATUSES = new Set<SessionStatus>(['interviewing', 'prepared', 'running', 'stopped']);

export interface SeedingDeps {
  store: SessionStore;
  jobs: JobRunner;
  llm: ModelClient;
  /** The model client for one session (the demo's scripted model for a demo session), else `llm`. */
  llmFor?: (id: string) => ModelClient;
  interview?: Omit<InterviewDeps, 'llm'>;
  /** The settings in force: the prep role's context window and price are read at each job start. */
  config?: LiveConfig;
  /**
   * What the repository's environment is (server/env/detect.ts), for the worktree's environment
   * plan. Without it only a committed `.tilth/setup` is used.
   */
  projectEnv?: (root: string) => Promise<ProjectEnv>;
}

export function openSessionsFor(store: SessionStore, repoRoot: string): SessionListItem[] {
  return store.list().filter((s) => s.source === repoRoot && OPEN_STATUSES.has(s.status) && s.problem === null);
}

/** The workspace check: the repository, what its environment is and the preset that follows, and its open sessions. */
export async function checkWorkspace(
  store: SessionStore,
  path: string,
): Promise<WorkspaceInfo & { preset: ChecksPreset | null; env: ProjectEnv | null; existing: SessionListItem[] }> {
  const info = await inspectWorkspace(path);
  if (info.kind !== 'repo' || info.root === null) return { ...info, preset: null, env: null, existing: [] };
  const env = await detectProjectEnv(info.root);
  return { ...info, preset: presetFor(env), env, existing: openSessionsFor(store, info.root) };
}

/** Starts (or continues) the interview; after a job still winding down, if there is one. */
export function startInterviewJob(deps: SeedingDeps, id: string): void {
  const current = deps.config?.current;
  const model = current ? { contextWindow: current.contextWindows.prep, price: current.prices.prep } : undefined;
  deps.jobs.startAfter('interview', id, (ctx) => runInterview(ctx, { llm: deps.llmFor?.(id) ?? deps.llm, ...(model ? { model } : {}), ...deps.interview }));
}

export async function createSession(
  deps: SeedingDeps,
  input: { workspace: string; brief: string; alongside?: boolean | undefined; checks_preset?: ChecksPreset | undefined },
): Promise<SessionListItem> {
  const info = await inspectWorkspace(input.workspace);
  if (info.kind !== 'repo' || info.root === null || info.head === null) throw new AppError('workspace_not_ready', info.message);
  const prep = deps.llm.describeEndpoint('prep');
  if (!prep) {
    throw new AppError(
      'provider_not_configured',
      "No model is configured for the interview, so no session was created. Set up a provider on the settings page (base URL, API key and worker model; the interviewer uses the worker's unless you give it its own), or set TILTH_BASE_URL, TILTH_API_KEY and TILTH_WORKER_MODEL in the environment.",
    );
  }
  const existing = openSessionsFor(deps.store, info.root);
  if (existing.length > 0 && input.alongside !== true) {
    throw new ConflictError(
      'workspace_has_sessions',
      `${info.root} already has ${existing.length} open session(s): ${existing.map((s) => `${s.id} (${s.status})`).join(', ')}. Open one, discard it, or start alongside.`,
    );
  }
  // Before anything is written: a provider that is down is the user's to fix, and a session made
  // now would only leave a branch and a worktree behind an interview that cannot start.
  await checkInterviewProvider(deps.llm, 'create');
  // Recorded with the session: the seed's test names, the interpreter and the checks follow it,
  // whatever the repository looks like later. The worktree is given the same environment.
  const env = await detectProjectEnv(info.root);
  const preset = input.checks_preset ?? presetFor(env);
  const projectEnv = deps.projectEnv ? await deps.projectEnv(info.root) : env;
  const created = deps.store.create({ source: info.root, brief: input.brief.trim(), baseBranch: info.branch, baseSha: info.head, status: 'interviewing' });
  const id = created.session_id;
  try {
    const gitDirs = await addWorktree(info.root, created.worktree, created.branch, info.head);
    // Applied by the interview job before its first question (session-env.ts): an install or a
    // setup command may take minutes, and its output streams as events.
    const plan = planEnvironment({ source: info.root, worktree: created.worktree, env: projectEnv });
    deps.store.session(id).checkpoint.update(() => ({ ...gitDirs, environment: { plan, ready_at: null } }));
  } catch (err) {
    deps.store.session(id).remove();
    throw err;
  }
  const worker = deps.llm.describeEndpoint('worker');
  const evaluator = deps.llm.describeEndpoint('evaluator');
  deps.store.session(id).checkpoint.update(() => ({
    checks_preset: preset,
    project_env: env,
    models: { worker: worker?.model ?? '', evaluator: evaluator?.model ?? '', prep: prep.model },
  }));
  startInterviewJob(deps, id);
  return deps.store.session(id).listItem();
}

/** What a failed (or stopped) interview needs before it can be tried again; null when it can. */
function notRetryable(deps: SeedingDeps, id: string): string | null {
  if (!deps.store.session(id).exists()) return `Session ${id} was discarded.`;
  const checkpoint = deps.store.session(id).checkpoint.read();
  const ended = checkpoint.status === 'failed' || (checkpoint.status === 'stopped' && !deps.store.session(id).hasSeed());
  if (!ended) return `Session ${id} is ${checkpoint.status}; only an interview that failed or was stopped can be retried.`;
  if (deps.jobs.forSession(id)) return `Session ${id} still has a job winding down; try again in a moment.`;
  if (!fs.existsSync(checkpoint.source)) return `The source repository ${checkpoint.source} is gone, so the interview cannot read it. Discard this session.`;
  if (!fs.existsSync(checkpoint.worktree)) return `The session's worktree ${checkpoint.worktree} is gone. Discard this session and start a new one.`;
  return null;
}

/**
 * Tries a failed interview again: the same session, brief and branch, continuing from the
 * conversation saved after its last whole turn (interview.json), so nothing answered is asked
 * again. The provider is checked first, as at creation; while it is still down the session
 * stays failed and the answer says why.
 */
export async function retryInterview(deps: SeedingDeps, id: string): Promise<SessionListItem> {
  const before = notRetryable(deps, id);
  if (before !== null) throw new ConflictError('interview_not_retryable', before);
  await checkInterviewProvider(deps.llmFor?.(id) ?? deps.llm, 'retry');
  // The check took a while: another retry (or a discard) may have got there first.
  const after = notRetryable(deps, id);
  if (after !== null) throw new ConflictError('interview_not_retryable', after);
  deps.store.session(id).checkpoint.update(() => ({ last_stop: null, last_error: null }));
  deps.store.session(id).checkpoint.setStatus('interviewing');
  startInterviewJob(deps, id);
  return deps.store.session(id).listItem();
}

/** Removes the worktree, the branch and the session folder. The source repo's tree is untouched. */
export async function discardSession(deps: SeedingDeps, id: string): Promise<void> {
  const checkpoint = deps.store.session(id).checkpoint.read();
  await deps.jobs.stop(id, 'session discarded');
  // A source repo that is gone took its branch with it; the folder is all that is left to remove.
  if (fs.existsSync(checkpoint.source)) await removeWorktree(checkpoint.source, checkpoint.worktree, checkpoint.branch);
  deps.store.session(id).remove();
}
