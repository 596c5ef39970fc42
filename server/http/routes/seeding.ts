/**
 * Seeding routes (SPEC §5, §8): workspace check, session creation and discard, session detail,
 * answering the interview, reading and editing the seed.
 */
import type { FastifyInstance } from 'fastify';
import type { AddTaskState } from '../../../shared/review.ts';
import type { AppDeps } from '../base/app-deps.ts';
import { ConflictError, ValidationError } from '../../errors/app-error.ts';
import { refuseDuringAddTask } from '../../seed/add-task-job.ts';
import type { SeedingDeps } from '../../sessions/session-setup.ts';
import { handle } from './contract.ts';
import { existingSession } from './validate.ts';

// Sessions' setup, the interview and the seed's checks load at their first request, not with the
// server (issue 32).
const setup = () => import('../../sessions/session-setup.ts');
const seedReview = () => import('../../seed/seed-review.ts');

export function seedingRoutes(app: FastifyInstance, deps: AppDeps): void {
  const { store } = deps;
  const seeding: SeedingDeps = {
    store,
    jobs: deps.jobs,
    llm: deps.llm,
    llmFor: (id) => deps.demo?.clientFor(id) ?? deps.llm,
    config: deps.config,
    ...(deps.interview ? { interview: deps.interview } : {}),
    ...(deps.projectEnv ? { projectEnv: deps.projectEnv } : {}),
  };

  const sessionId = (params: { id: string }) => existingSession(store, params.id).id;

  handle(app, 'checkWorkspace', async ({ query: { path } }) => {
    const info = await (await setup()).checkWorkspace(store, path);
    return { ...info, ok: info.kind === 'repo' };
  });

  /** A demo session: the bundled example and the scripted model, no provider needed. */
  handle(app, 'startDemo', async () => {
    if (!deps.demo) throw new ConflictError('demo_unavailable', 'Demo mode is not available in this server.');
    return { session: await deps.demo.createSession(seeding) };
  });

  handle(app, 'createSession', async ({ body }) => ({ session: await (await setup()).createSession(seeding, body) }));

  handle(app, 'getSession', async ({ params }) => {
    const id = sessionId(params);
    const session = store.session(id);
    const cp = session.checkpoint.read();
    const interview = session.interview.read();
    const addingTask = deps.jobs.forSession(id)?.kind === 'add_task' || session.runLock.owner()?.job === 'add_task';
    return {
      session: session.listItem(),
      branch: cp.branch,
      base_branch: cp.base_branch,
      base_sha: cp.base_sha,
      worktree: cp.worktree,
      checks_preset: cp.checks_preset,
      last_error: cp.last_error,
      interview: interview
        ? {
            pending: interview.pending
              ? {
                  question_id: interview.pending.question_id,
                  text: interview.pending.text,
                  ...(interview.pending.options ? { options: interview.pending.options } : {}),
                }
              : null,
            iterations: interview.iterations,
            running: deps.jobs.forSession(id)?.kind === 'interview',
          }
        : null,
      interview_usage: cp.interview_usage,
      has_seed: session.hasSeed(),
      tasks: session.prd.tasks(),
      run: deps.runs.state(id),
      adding_task: addingTask,
      add_task: addTaskView(session.addTask.read(), addingTask),
      usage: cp.usage,
      caps: cp.caps,
      allow_network: cp.allow_network,
      demo: cp.demo,
    };
  });

  handle(app, 'answerQuestion', async ({ params, body: { questionId, answer } }) => {
    const id = sessionId(params);
    const [{ answerQuestion }, { startInterviewJob }] = await Promise.all([import('../../interview/interviewer.ts'), setup()]);
    answerQuestion(store.session(id), questionId, answer);
    startInterviewJob(seeding, id);
    return { ok: true as const };
  });

  /** A failed interview, again: same session and brief, from its saved conversation. */
  handle(app, 'retryInterview', async ({ params }) => {
    const id = sessionId(params);
    store.session(id).runLock.assertFree();
    return { session: await (await setup()).retryInterview(seeding, id) };
  });

  handle(app, 'discardSession', async ({ params, query: { confirm } }) => {
    const id = sessionId(params);
    if (confirm !== id) throw new ValidationError(`confirm must repeat the session id (${id}) to discard it`);
    store.session(id).runLock.assertFree();
    refuseDuringAddTask(deps.jobs, id, 'discard it');
    await deps.runs.cancel(id);
    await (await setup()).discardSession(seeding, id);
    return { ok: true as const };
  });

  handle(app, 'getSeed', async ({ params, query: { recheck } }) => {
    return (await seedReview()).seedView(store.session(sessionId(params)), { recheck: recheck === '1', repeats: deps.config.current.proofRepeats });
  });

  handle(app, 'putSeed', async ({ params, body }) => {
    const id = sessionId(params);
    refuseDuringAddTask(deps.jobs, id, 'edit the seed');
    return (await seedReview()).editSeed(store.session(id), body, deps.config.current.proofRepeats);
  });
}

/** The last add-task as the page shows it: one still marked running that nothing holds was cut short. */
function addTaskView(state: AddTaskState | null, holding: boolean): AddTaskState | null {
  return state?.state === 'running' && !holding ? { state: 'interrupted', title: state.title, started_at: state.started_at } : state;
}
