/**
 * Seeding routes (SPEC §5, §8): workspace check, session creation and discard, session detail,
 * answering the interview, reading and editing the seed.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { AnswerSchema, CreateSessionSchema, WorkspaceCheckQuerySchema, type SessionDetail, type WorkspaceCheck } from '../../shared/api.ts';
import { PrdSchema } from '../../shared/files.ts';
import { EmptyBodySchema } from '../../shared/review.ts';
import { SeedEditSchema, SeedQuerySchema } from '../../shared/seed.ts';
import type { AppDeps } from '../app-deps.ts';
import { ConflictError, ValidationError } from '../errors.ts';
import { answerQuestion, readInterview } from '../interview/engine.ts';
import { editSeed, seedView } from '../interview/seed-review.ts';
import { checkWorkspace, createSession, discardSession, retryInterview, startInterviewJob, type SeedingDeps } from '../interview/session-setup.ts';
import { forgetPreview } from '../review/merge.ts';
import { readJsonFile } from '../store/json-file.ts';
import { assertNotLockedElsewhere } from '../store/run-lock.ts';
import { FILES } from '../store/session-store.ts';
import { existingSessionId, parseInput } from './validate.ts';

const DiscardQuerySchema = z.strictObject({ confirm: z.string().min(1, 'confirm must repeat the session id') });

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

  const sessionId = (params: unknown) => existingSessionId(store, params);

  app.get('/api/workspaces/check', async (request): Promise<WorkspaceCheck> => {
    const { path } = parseInput(WorkspaceCheckQuerySchema, request.query, 'query');
    const info = await checkWorkspace(store, path);
    return { ...info, ok: info.kind === 'repo' };
  });

  /** A demo session: the bundled example and the scripted model, no provider needed. */
  app.post('/api/demo', async (request, reply) => {
    parseInput(EmptyBodySchema, request.body, 'body');
    if (!deps.demo) throw new ConflictError('demo_unavailable', 'Demo mode is not available in this server.');
    const session = await deps.demo.createSession(seeding);
    return reply.status(201).send({ session });
  });

  app.post('/api/sessions', async (request, reply) => {
    const body = parseInput(CreateSessionSchema, request.body, 'body');
    const session = await createSession(seeding, body);
    return reply.status(201).send({ session });
  });

  app.get('/api/sessions/:id', async (request): Promise<SessionDetail> => {
    const id = sessionId(request.params);
    const cp = store.readCheckpoint(id);
    const interview = readInterview(store, id);
    return {
      session: store.listItem(id),
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
      has_seed: store.hasSeed(id),
      tasks: readJsonFile(store.file(id, FILES.prd), PrdSchema) ?? [],
      run: deps.runs.state(id),
      usage: cp.usage,
      caps: cp.caps,
      allow_network: cp.allow_network,
      demo: cp.demo,
    };
  });

  app.post('/api/sessions/:id/answer', async (request) => {
    const id = sessionId(request.params);
    const { questionId, answer } = parseInput(AnswerSchema, request.body, 'body');
    answerQuestion(store, id, questionId, answer);
    startInterviewJob(seeding, id);
    return { ok: true as const };
  });

  /** A failed interview, again: same session and brief, from its saved conversation. */
  app.post('/api/sessions/:id/interview/retry', async (request) => {
    const id = sessionId(request.params);
    parseInput(EmptyBodySchema, request.body, 'body');
    assertNotLockedElsewhere(store.dir(id));
    return { session: await retryInterview(seeding, id) };
  });

  app.delete('/api/sessions/:id', async (request) => {
    const id = sessionId(request.params);
    const { confirm } = parseInput(DiscardQuerySchema, request.query, 'query');
    if (confirm !== id) throw new ValidationError(`confirm must repeat the session id (${id}) to discard it`);
    assertNotLockedElsewhere(store.dir(id));
    deps.runs.cancel(id);
    forgetPreview(id);
    await discardSession(seeding, id);
    return { ok: true as const };
  });

  app.get('/api/sessions/:id/seed', async (request) => {
    const id = sessionId(request.params);
    const { recheck } = parseInput(SeedQuerySchema, request.query, 'query');
    return seedView(store, id, { recheck: recheck === '1' });
  });

  app.put('/api/sessions/:id/seed', async (request) => {
    const id = sessionId(request.params);
    const edit = parseInput(SeedEditSchema, request.body, 'body');
    return editSeed(store, id, edit);
  });
}
