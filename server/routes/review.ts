/**
 * Review and getting the work out (SPEC §7, §8): the task review and its diff, the session review
 * and its diff, the merge preview and the merge, push, PR and cleanse. Every action on a session
 * in the wrong state is a 409 that says why.
 */
import type { FastifyInstance } from 'fastify';
import { EmptyBodySchema, MergePreviewRequestSchema, MergeRequestSchema, PrRequestSchema, PushRequestSchema, TaskParamsSchema } from '../../shared/review.ts';
import type { AppDeps } from '../app-deps.ts';
import { ConflictError } from '../errors.ts';
import { merge, previewMerge } from '../review/merge.ts';
import { cleanse, openPr, push } from '../review/publish.ts';
import { sessionReview, taskDiff, taskReview } from '../review/review.ts';
import { assertNotLockedElsewhere } from '../store/run-lock.ts';
import { existingSessionId, parseInput } from './validate.ts';

export function reviewRoutes(app: FastifyInstance, deps: AppDeps): void {
  const { store } = deps;

  /** Git actions on a session are serialised: two clicks must not merge twice. */
  const busy = new Set<string>();
  async function exclusive<T>(id: string, what: string, fn: () => Promise<T>): Promise<T> {
    assertNotLockedElsewhere(store.dir(id));
    if (busy.has(id)) throw new ConflictError('session_busy', `Another action on session ${id} is still in progress; wait for it, then ${what} again.`);
    if (deps.jobs.forSession(id)) throw new ConflictError('session_running', `Session ${id} has a job running; stop it before you ${what}.`);
    busy.add(id);
    try {
      return await fn();
    } finally {
      busy.delete(id);
    }
  }

  const taskParams = (params: unknown) => {
    const { id, taskId } = parseInput(TaskParamsSchema, params, 'params');
    return { id: existingSessionId(store, { id }), taskId };
  };

  app.get('/api/sessions/:id/tasks/:taskId', async (request) => {
    const { id, taskId } = taskParams(request.params);
    return taskReview(store, id, taskId);
  });

  app.get('/api/sessions/:id/tasks/:taskId/diff', async (request) => {
    const { id, taskId } = taskParams(request.params);
    return taskDiff(store, id, taskId);
  });

  app.get('/api/sessions/:id/diff', async (request) => {
    const id = existingSessionId(store, request.params);
    return sessionReview(store, id);
  });

  app.post('/api/sessions/:id/merge/preview', async (request) => {
    const id = existingSessionId(store, request.params);
    const { strategy } = parseInput(MergePreviewRequestSchema, request.body, 'body');
    return exclusive(id, 'preview the merge', () => previewMerge(store, id, strategy));
  });

  app.post('/api/sessions/:id/merge', async (request) => {
    const id = existingSessionId(store, request.params);
    const body = parseInput(MergeRequestSchema, request.body, 'body');
    return exclusive(id, 'merge', () => merge(store, id, body.strategy, body.override_failed_tests === true));
  });

  app.post('/api/sessions/:id/push', async (request) => {
    const id = existingSessionId(store, request.params);
    const { remote } = parseInput(PushRequestSchema, request.body, 'body');
    return exclusive(id, 'push', () => push(store, id, remote));
  });

  app.post('/api/sessions/:id/pr', async (request) => {
    const id = existingSessionId(store, request.params);
    const { remote } = parseInput(PrRequestSchema, request.body, 'body');
    return exclusive(id, 'open a pull request', () => openPr(store, id, remote));
  });

  app.post('/api/sessions/:id/cleanse', async (request) => {
    const id = existingSessionId(store, request.params);
    parseInput(EmptyBodySchema, request.body, 'body');
    return exclusive(id, 'cleanse', () => cleanse(store, id));
  });
}
