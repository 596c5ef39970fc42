/**
 * Every HTTP endpoint once: method, path, and the zod schemas of its path parameters, query,
 * body and response. The server registers its handlers from this list and validates each request
 * and each response with these schemas (server/http/routes/contract.ts); the web calls endpoints by
 * name through one function that builds the path and parses the answer (web/src/api/client.ts).
 *
 * Leaving out `params`, `query` or `body` means "none": a query string or a body on such an
 * endpoint is refused. `status` is the usual success status (a handler may answer another).
 */
import type { z } from 'zod';
import {
  AnswerSchema,
  AuthRequestSchema,
  ConfigResponseSchema,
  ConfigUpdateSchema,
  ConnectionTestRequestSchema,
  ConnectionTestResultSchema,
  ContextWindowsQuerySchema,
  ContextWindowsResponseSchema,
  CreatedSessionSchema,
  CreateSessionSchema,
  DiscardQuerySchema,
  EventsPageSchema,
  EventsQuerySchema,
  SummaryQuerySchema,
  SummaryViewSchema,
  HealthSchema,
  NoteRequestSchema,
  NoteResponseSchema,
  OkSchema,
  ResumePlanSchema,
  RunRequestSchema,
  RunResponseSchema,
  SessionDetailSchema,
  SessionListSchema,
  SessionParamsSchema,
  StopResponseSchema,
  WorkspaceCheckQuerySchema,
  WorkspaceCheckSchema,
} from './api.ts';
import {
  CleanseResultSchema,
  CommentEditSchema,
  CommentInputSchema,
  CommentListSchema,
  CommentParamsSchema,
  CommentsQuerySchema,
  DiffSchema,
  EmptyBodySchema,
  MergePreviewRequestSchema,
  MergePreviewSchema,
  MergeRequestSchema,
  MergeResultSchema,
  PrRequestSchema,
  PrResultSchema,
  PushRequestSchema,
  PushResultSchema,
  NewTaskSchema,
  AddedTaskSchema,
  AddTaskCancelSchema,
  ReopenRequestSchema,
  ReopenResultSchema,
  ReviewCommentSchema,
  RewindPlanQuerySchema,
  RewindPlanSchema,
  RewindRequestSchema,
  RewindResultSchema,
  SessionReviewSchema,
  TaskDiffQuerySchema,
  TaskParamsSchema,
  TaskReviewSchema,
} from './review.ts';
import { EvidenceSchema } from './evidence.ts';
import { SeedEditSchema, SeedQuerySchema, SeedSavedSchema, SeedViewSchema } from './seed.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface Endpoint {
  readonly method: HttpMethod;
  /** Fastify's syntax: `:name` for a path parameter. */
  readonly path: string;
  readonly params?: z.ZodType;
  readonly query?: z.ZodType;
  readonly body?: z.ZodType;
  readonly response: z.ZodType;
  readonly status?: 200 | 201 | 202;
}

export const ROUTES = {
  getHealth: { method: 'GET', path: '/api/health', response: HealthSchema },
  postAuth: { method: 'POST', path: '/api/auth', body: AuthRequestSchema, response: OkSchema },

  getConfig: { method: 'GET', path: '/api/config', response: ConfigResponseSchema },
  putConfig: { method: 'PUT', path: '/api/config', body: ConfigUpdateSchema, response: ConfigResponseSchema },
  testConnection: { method: 'POST', path: '/api/config/test', body: ConnectionTestRequestSchema, response: ConnectionTestResultSchema },
  getContextWindows: { method: 'GET', path: '/api/config/context-windows', query: ContextWindowsQuerySchema, response: ContextWindowsResponseSchema },

  checkWorkspace: { method: 'GET', path: '/api/workspaces/check', query: WorkspaceCheckQuerySchema, response: WorkspaceCheckSchema },
  listSessions: { method: 'GET', path: '/api/sessions', response: SessionListSchema },
  createSession: { method: 'POST', path: '/api/sessions', body: CreateSessionSchema, response: CreatedSessionSchema, status: 201 },
  startDemo: { method: 'POST', path: '/api/demo', body: EmptyBodySchema, response: CreatedSessionSchema, status: 201 },
  getSession: { method: 'GET', path: '/api/sessions/:id', params: SessionParamsSchema, response: SessionDetailSchema },
  discardSession: { method: 'DELETE', path: '/api/sessions/:id', params: SessionParamsSchema, query: DiscardQuerySchema, response: OkSchema },
  getSummary: { method: 'GET', path: '/api/sessions/:id/summary', params: SessionParamsSchema, query: SummaryQuerySchema, response: SummaryViewSchema },
  getEvents: { method: 'GET', path: '/api/sessions/:id/events', params: SessionParamsSchema, query: EventsQuerySchema, response: EventsPageSchema },

  answerQuestion: { method: 'POST', path: '/api/sessions/:id/answer', params: SessionParamsSchema, body: AnswerSchema, response: OkSchema },
  retryInterview: {
    method: 'POST',
    path: '/api/sessions/:id/interview/retry',
    params: SessionParamsSchema,
    body: EmptyBodySchema,
    response: CreatedSessionSchema,
  },
  getSeed: { method: 'GET', path: '/api/sessions/:id/seed', params: SessionParamsSchema, query: SeedQuerySchema, response: SeedViewSchema },
  putSeed: { method: 'PUT', path: '/api/sessions/:id/seed', params: SessionParamsSchema, body: SeedEditSchema, response: SeedSavedSchema },

  /** 202 when the run starts or is queued; 200 with its state when one is already going. */
  startRun: { method: 'POST', path: '/api/sessions/:id/run', params: SessionParamsSchema, body: RunRequestSchema, response: RunResponseSchema, status: 202 },
  stopRun: { method: 'POST', path: '/api/sessions/:id/stop', params: SessionParamsSchema, body: EmptyBodySchema, response: StopResponseSchema },
  getResumePlan: { method: 'GET', path: '/api/sessions/:id/resume-plan', params: SessionParamsSchema, response: ResumePlanSchema },
  addNote: { method: 'POST', path: '/api/sessions/:id/notes', params: SessionParamsSchema, body: NoteRequestSchema, response: NoteResponseSchema, status: 201 },

  getTaskReview: { method: 'GET', path: '/api/sessions/:id/tasks/:taskId', params: TaskParamsSchema, response: TaskReviewSchema },
  /** Answers once the task is added (or refused, cancelled or past its deadline): the model writes its test meanwhile. */
  addTask: { method: 'POST', path: '/api/sessions/:id/tasks', params: SessionParamsSchema, body: NewTaskSchema, response: AddedTaskSchema, status: 201 },
  cancelAddTask: { method: 'DELETE', path: '/api/sessions/:id/add-task', params: SessionParamsSchema, response: AddTaskCancelSchema },
  reopenTask: {
    method: 'POST',
    path: '/api/sessions/:id/tasks/:taskId/reopen',
    params: TaskParamsSchema,
    body: ReopenRequestSchema,
    response: ReopenResultSchema,
  },
  /** The task's evidence receipt (issue 28): 404 `evidence_not_found` until the task is accepted and committed. */
  getTaskEvidence: { method: 'GET', path: '/api/sessions/:id/tasks/:taskId/evidence', params: TaskParamsSchema, response: EvidenceSchema },
  getTaskDiff: { method: 'GET', path: '/api/sessions/:id/tasks/:taskId/diff', params: TaskParamsSchema, query: TaskDiffQuerySchema, response: DiffSchema },
  getSessionReview: { method: 'GET', path: '/api/sessions/:id/diff', params: SessionParamsSchema, response: SessionReviewSchema },
  previewMerge: {
    method: 'POST',
    path: '/api/sessions/:id/merge/preview',
    params: SessionParamsSchema,
    body: MergePreviewRequestSchema,
    response: MergePreviewSchema,
  },
  merge: { method: 'POST', path: '/api/sessions/:id/merge', params: SessionParamsSchema, body: MergeRequestSchema, response: MergeResultSchema },
  push: { method: 'POST', path: '/api/sessions/:id/push', params: SessionParamsSchema, body: PushRequestSchema, response: PushResultSchema },
  openPr: { method: 'POST', path: '/api/sessions/:id/pr', params: SessionParamsSchema, body: PrRequestSchema, response: PrResultSchema },
  cleanse: { method: 'POST', path: '/api/sessions/:id/cleanse', params: SessionParamsSchema, body: EmptyBodySchema, response: CleanseResultSchema },

  /** Line comments on the task and session diffs; editable and deletable until sent back with a task. */
  listComments: {
    method: 'GET',
    path: '/api/sessions/:id/comments',
    params: SessionParamsSchema,
    query: CommentsQuerySchema,
    response: CommentListSchema,
  },
  addComment: {
    method: 'POST',
    path: '/api/sessions/:id/comments',
    params: SessionParamsSchema,
    body: CommentInputSchema,
    response: ReviewCommentSchema,
    status: 201,
  },
  editComment: {
    method: 'PUT',
    path: '/api/sessions/:id/comments/:commentId',
    params: CommentParamsSchema,
    body: CommentEditSchema,
    response: ReviewCommentSchema,
  },
  deleteComment: { method: 'DELETE', path: '/api/sessions/:id/comments/:commentId', params: CommentParamsSchema, response: OkSchema },
  getRewindPlan: {
    method: 'GET',
    path: '/api/sessions/:id/rewind-plan',
    params: SessionParamsSchema,
    query: RewindPlanQuerySchema,
    response: RewindPlanSchema,
  },
  rewind: { method: 'POST', path: '/api/sessions/:id/rewind', params: SessionParamsSchema, body: RewindRequestSchema, response: RewindResultSchema },
} as const satisfies Record<string, Endpoint>;

export type Routes = typeof ROUTES;
export type EndpointName = keyof Routes;

/**
 * The WebSocket endpoint. Its frames are validated one by one against the schemas in
 * stream-protocol.ts (ClientFrameSchema in, ServerFrame out), not here.
 */
export const STREAM_ROUTE = { method: 'GET', path: '/api/stream' } as const;

/** The schema's input type when the endpoint declares it, else nothing may be given. */
type Part<E, K extends 'params' | 'query' | 'body'> = E extends { [P in K]: infer S extends z.ZodType }
  ? {} extends z.input<S>
    ? { [P in K]?: z.input<S> }
    : { [P in K]: z.input<S> }
  : { [P in K]?: undefined };

/** What a caller gives to call endpoint `N`: its params, query and body, each as its schema takes it. */
export type EndpointInput<N extends EndpointName> = Part<Routes[N], 'params'> & Part<Routes[N], 'query'> & Part<Routes[N], 'body'>;
export type EndpointResponse<N extends EndpointName> = z.output<Routes[N]['response']>;

/** `/api/sessions/:id` with `{id: 'x y'}` → `/api/sessions/x%20y`; a missing parameter is a bug. */
export function buildPath(path: string, params: Record<string, string> | undefined): string {
  return path.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    const value = params?.[name];
    if (value === undefined) throw new Error(`Path ${path} needs the parameter ${name}.`);
    return encodeURIComponent(value);
  });
}
