/**
 * Creating and discarding sessions: the folder, the `session/<id>` worktree from the workspace's
 * HEAD, the interview job. The source repo's working tree is never touched.
 */
import fs from 'node:fs';
import type { SessionListItem } from '../../shared/api.ts';
import type { SessionStatus } from '../../shared/events.ts';
import type { ChecksPreset } from '../../shared/files.ts';
import { AppError, ConflictError } from '../errors.ts';
import type { JobRunner } from '../jobs/job-runner.ts';
import { addWorktree, inspectWorkspace, removeWorktree, type WorkspaceInfo } from '../git/repo.ts';
import type { ModelClient } from '../llm/client.ts';
import type { SessionStore } from '../store/session-store.ts';
import { runInterview, type InterviewDeps } from './engine.ts';
import { detectPreset } from './presets.ts';

/** Statuses that make a new session on the same repo worth a second thought. */
const OPEN_STATUSES = new Set<SessionStatus>(['interviewing', 'prepared', 'running', 'stopped']);

export interface SeedingDeps {
  store: SessionStore;
  jobs: JobRunner;
  llm: ModelClient;
  /** The model client for one session (the demo's scripted model for a demo session), else `llm`. */
  llmFor?: (id: string) => ModelClient;
  interview?: Omit<InterviewDeps, 'llm'>;
}

export function openSessionsFor(store: SessionStore, repoRoot: string): SessionListItem[] {
  return store.list().filter((s) => s.source === repoRoot && OPEN_STATUSES.has(s.status) && s.problem === null);
}

export async function checkWorkspace(store: SessionStore, path: string): Promise<WorkspaceInfo & { preset: ChecksPreset | null; existing: SessionListItem[] }> {
  const info = await inspectWorkspace(path);
  if (info.kind !== 'repo' || info.root === null) return { ...info, preset: null, existing: [] };
  return { ...info, preset: await detectPreset(info.root), existing: openSessionsFor(store, info.root) };
}

/** Starts (or continues) the interview; after a job still winding down, if there is one. */
export function startInterviewJob(deps: SeedingDeps, id: string): void {
  deps.jobs.startAfter('interview', id, (ctx) => runInterview(ctx, { llm: deps.llmFor?.(id) ?? deps.llm, ...deps.interview }));
}

export async function createSession(
  deps: SeedingDeps,
  input: { workspace: string; brief: string; alongside?: boolean | undefined; checks_preset?: ChecksPreset | undefined },
): Promise<SessionListItem> {
  const info = await inspectWorkspace(input.workspace);
  if (info.kind !== 'repo' || info.root === null || info.head === null) throw new AppError('workspace_not_ready', info.message, 400);
  const prep = deps.llm.describeEndpoint('prep');
  if (!prep) {
    throw new AppError(
      'provider_not_configured',
      'No model is configured for the interview, so no session was created. Set up a provider on the settings page (base URL, API key and worker model; the interviewer uses the worker\'s unless you give it its own), or set TILTH_BASE_URL, TILTH_API_KEY and TILTH_WORKER_MODEL in the environment.',
      409,
    );
  }
  const existing = openSessionsFor(deps.store, info.root);
  if (existing.length > 0 && input.alongside !== true) {
    throw new ConflictError(
      'workspace_has_sessions',
      `${info.root} already has ${existing.length} open session(s): ${existing.map((s) => `${s.id} (${s.status})`).join(', ')}. Open one, discard it, or start alongside.`,
    );
  }
  const preset = input.checks_preset ?? (await detectPreset(info.root));
  const created = deps.store.create({ source: info.root, brief: input.brief.trim(), baseBranch: info.branch, baseSha: info.head, status: 'interviewing' });
  const id = created.session_id;
  try {
    const gitDirs = await addWorktree(info.root, created.worktree, created.branch, info.head);
    deps.store.updateCheckpoint(id, () => gitDirs);
  } catch (err) {
    fs.rmSync(deps.store.dir(id), { recursive: true, force: true });
    deps.store.bus.sessionsChanged();
    throw err;
  }
  const worker = deps.llm.describeEndpoint('worker');
  const evaluator = deps.llm.describeEndpoint('evaluator');
  deps.store.updateCheckpoint(id, () => ({
    checks_preset: preset,
    models: { worker: worker?.model ?? '', evaluator: evaluator?.model ?? '', prep: prep.model },
  }));
  startInterviewJob(deps, id);
  return deps.store.listItem(id);
}

/** Removes the worktree, the branch and the session folder. The source repo's tree is untouched. */
export async function discardSession(deps: SeedingDeps, id: string): Promise<void> {
  const checkpoint = deps.store.readCheckpoint(id);
  await deps.jobs.stop(id, 'session discarded');
  // A source repo that is gone took its branch with it; the folder is all that is left to remove.
  if (fs.existsSync(checkpoint.source)) await removeWorktree(checkpoint.source, checkpoint.worktree, checkpoint.branch);
  deps.store.forget(id);
  fs.rmSync(deps.store.dir(id), { recursive: true, force: true });
  deps.store.bus.sessionsChanged();
}
