/**
 * REST request and response schemas. The server validates what it sends against these in tests,
 * and the web client parses every response with them.
 */
import { z } from 'zod';
import { SessionStatusSchema, StopReasonSchema, TilthEventSchema } from './events.ts';
import { ProjectEnvSchema } from './project-env.ts';
import { CapsSchema, ChecksPresetSchema, PrdEntrySchema, SessionIdSchema, SteeringNoteSchema, UsageSchema } from './files.ts';
import { PriceSchema } from './price.ts';
import { intFromQuery } from './query.ts';
import { SummarySchema } from './summary.ts';
import { AddTaskStateSchema } from './review.ts';

/** `{error: {code, message}}`, the one error shape; `code` is stable snake_case. */
export const ErrorBodySchema = z.object({
  error: z.object({
    code: z.string().regex(/^[a-z][a-z0-9_]*$/),
    message: z.string(),
    /**
     * What is wrong with each field of the request body that has a problem, by field name, in
     * words that do not repeat the name: a form shows each beside its own input.
     */
    fields: z.record(z.string(), z.string()).optional(),
  }),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

export const HealthSchema = z.object({
  ok: z.literal(true),
  name: z.literal('tilth'),
  version: z.string(),
  uptime_s: z.number().nonnegative(),
});

/** `{ok: true}`: what auth, answer and discard return. */
export const OkSchema = z.object({ ok: z.literal(true) });

/** POST /api/auth: swap the token from the URL fragment for an HttpOnly cookie. */
export const AuthRequestSchema = z.object({ token: z.string().min(1, 'token is required') });

export const ConfigSourceSchema = z.enum(['flag', 'env', 'dotenv', 'file', 'default']);
export type ConfigSource = z.infer<typeof ConfigSourceSchema>;

/** The roles a provider serves; `prep` is the interviewer (its variables are TILTH_PREP_*). */
export const ModelRoleSchema = z.enum(['worker', 'evaluator', 'prep']);
export type ModelRole = z.infer<typeof ModelRoleSchema>;

/** The limits on a run (and on runs at once), in the order the settings page lists them. */
export const CAP_CONFIG_KEYS = [
  'TILTH_MAX_ITERATIONS_PER_TASK',
  'TILTH_MAX_WALL_CLOCK_MINUTES',
  'TILTH_MAX_TOKENS',
  'TILTH_MAX_DOLLARS',
  'TILTH_MAX_EVALUATOR_CALLS_PER_TASK',
  'TILTH_MAX_CONCURRENT_RUNS',
] as const;

/**
 * What the settings page edits. The rest (host, port, sessions folder, token, sandbox, context
 * files) is read at startup and stays in flags, the environment, .env or a hand-edited config.json.
 */
export const EDITABLE_CONFIG_KEYS = [
  'TILTH_BASE_URL',
  'TILTH_API_KEY',
  'TILTH_WORKER_MODEL',
  'TILTH_EVALUATOR_BASE_URL',
  'TILTH_EVALUATOR_API_KEY',
  'TILTH_EVALUATOR_MODEL',
  'TILTH_PREP_BASE_URL',
  'TILTH_PREP_API_KEY',
  'TILTH_PREP_MODEL',
  'TILTH_WORKER_CONTEXT_WINDOW',
  'TILTH_EVALUATOR_CONTEXT_WINDOW',
  'TILTH_PREP_CONTEXT_WINDOW',
  'TILTH_WORKER_PRICE_IN',
  'TILTH_WORKER_PRICE_OUT',
  'TILTH_EVALUATOR_PRICE_IN',
  'TILTH_EVALUATOR_PRICE_OUT',
  'TILTH_PREP_PRICE_IN',
  'TILTH_PREP_PRICE_OUT',
  ...CAP_CONFIG_KEYS,
] as const;
export type EditableConfigKey = (typeof EDITABLE_CONFIG_KEYS)[number];

export const ConfigEntrySchema = z.object({
  key: z.string(),
  /** Display value in effect; a secret shows only "set" (null: not set), never any of its text. */
  value: z.string().nullable(),
  source: ConfigSourceSchema,
  secret: z.boolean(),
  description: z.string(),
  /** The settings page can change it (it writes config.json). */
  editable: z.boolean(),
  /** What config.json holds for it, shown like `value` ("set" for a secret); null when absent. */
  file_value: z.string().nullable(),
  /**
   * A flag, the environment or .env sets it, and those win over config.json: what the page saves
   * is kept but not used until that setting is removed.
   */
  overridden: z.boolean(),
});
export type ConfigEntry = z.infer<typeof ConfigEntrySchema>;

/** Where a role's model calls go, after the evaluator and interviewer fall back to the worker's. */
export const RoleViewSchema = z.object({
  configured: z.boolean(),
  base_url: z.string().nullable(),
  model: z.string().nullable(),
  key_set: z.boolean(),
  /** Configured context window in tokens (after the fallback to the worker's); null: discovered or unknown. */
  context_window: z.number().int().positive().nullable(),
  /** Configured price (after the fallback); null: only what the provider reports is counted. */
  price: PriceSchema.nullable(),
});
export type RoleView = z.infer<typeof RoleViewSchema>;

export const ConfigResponseSchema = z.object({
  entries: z.array(ConfigEntrySchema),
  /** The worker is configured (the evaluator and interviewer fall back to it). */
  provider_configured: z.boolean(),
  roles: z.object({ worker: RoleViewSchema, evaluator: RoleViewSchema, prep: RoleViewSchema }),
  paths: z.object({ home: z.string(), sessions: z.string(), config_file: z.string(), dotenv: z.string() }),
  /** Not errors, but worth knowing (say, a role on another endpoint borrowing the worker's key). */
  warnings: z.array(z.string()),
  /** The shell sandbox for the worker's bash and the checks; `detail` says why when it is off. */
  sandbox: z.object({ available: z.boolean(), tool: z.enum(['bwrap']).nullable(), detail: z.string() }),
  /**
   * The root of the git repository `tilth serve` was started in, which the new-session form offers
   * as its workspace; null when it was started outside one.
   */
  default_workspace: z.string().nullable(),
  /**
   * The run queue (TILTH_QUEUE) as the server sees it: its URL without credentials and the
   * workers connected to it now; null when runs execute inside the server.
   */
  queue: z
    .object({
      url: z.string(),
      workers: z.array(z.object({ name: z.string(), connected_s: z.number().nonnegative() })),
      /** Why the workers could not be listed (Redis unreachable); null when they were. */
      problem: z.string().nullable(),
    })
    .nullable(),
});
export type ConfigResponse = z.infer<typeof ConfigResponseSchema>;

/** A plain value: text (or a number) sets it; null or blank removes it from config.json. */
const ConfigValueChangeSchema = z.union([z.string().max(2_000, 'at most 2,000 characters'), z.number(), z.null()], {
  error: 'must be a string, a number, or null to remove it from the config file',
});
/**
 * An API key is write-only: send a new one, or clear the saved one; leave it out to keep it.
 * Nothing ever sends it back.
 */
export const SecretChangeSchema = z.union(
  [
    z.strictObject({ set: z.string().trim().min(1, 'is empty; to remove the key send {"clear": true}').max(2_000, 'at most 2,000 characters') }),
    z.strictObject({ clear: z.literal(true) }),
  ],
  { error: 'must be {"set": "<the key>"} or {"clear": true}' },
);
export type SecretChange = z.infer<typeof SecretChangeSchema>;

/** PUT /api/config: only the keys to change; each is checked with the parser the config uses. */
export const ConfigUpdateSchema = z.strictObject({
  TILTH_BASE_URL: ConfigValueChangeSchema.optional(),
  TILTH_API_KEY: SecretChangeSchema.optional(),
  TILTH_WORKER_MODEL: ConfigValueChangeSchema.optional(),
  TILTH_EVALUATOR_BASE_URL: ConfigValueChangeSchema.optional(),
  TILTH_EVALUATOR_API_KEY: SecretChangeSchema.optional(),
  TILTH_EVALUATOR_MODEL: ConfigValueChangeSchema.optional(),
  TILTH_PREP_BASE_URL: ConfigValueChangeSchema.optional(),
  TILTH_PREP_API_KEY: SecretChangeSchema.optional(),
  TILTH_PREP_MODEL: ConfigValueChangeSchema.optional(),
  TILTH_WORKER_CONTEXT_WINDOW: ConfigValueChangeSchema.optional(),
  TILTH_EVALUATOR_CONTEXT_WINDOW: ConfigValueChangeSchema.optional(),
  TILTH_PREP_CONTEXT_WINDOW: ConfigValueChangeSchema.optional(),
  TILTH_WORKER_PRICE_IN: ConfigValueChangeSchema.optional(),
  TILTH_WORKER_PRICE_OUT: ConfigValueChangeSchema.optional(),
  TILTH_EVALUATOR_PRICE_IN: ConfigValueChangeSchema.optional(),
  TILTH_EVALUATOR_PRICE_OUT: ConfigValueChangeSchema.optional(),
  TILTH_PREP_PRICE_IN: ConfigValueChangeSchema.optional(),
  TILTH_PREP_PRICE_OUT: ConfigValueChangeSchema.optional(),
  TILTH_MAX_ITERATIONS_PER_TASK: ConfigValueChangeSchema.optional(),
  TILTH_MAX_WALL_CLOCK_MINUTES: ConfigValueChangeSchema.optional(),
  TILTH_MAX_TOKENS: ConfigValueChangeSchema.optional(),
  TILTH_MAX_DOLLARS: ConfigValueChangeSchema.optional(),
  TILTH_MAX_EVALUATOR_CALLS_PER_TASK: ConfigValueChangeSchema.optional(),
  TILTH_MAX_CONCURRENT_RUNS: ConfigValueChangeSchema.optional(),
} satisfies Record<EditableConfigKey, z.ZodType>);
export type ConfigUpdate = z.infer<typeof ConfigUpdateSchema>;

/** POST /api/config/test: try the saved (or environment's) endpoint of one role. */
export const ConnectionTestRequestSchema = z.strictObject({ role: ModelRoleSchema });
export const ConnectionTestResultSchema = z.object({
  role: ModelRoleSchema,
  ok: z.boolean(),
  /** On failure, the provider's own words (status and message), never the key. */
  detail: z.string(),
});
export type ConnectionTestResult = z.infer<typeof ConnectionTestResultSchema>;

/** Where a context window figure came from: the configuration, a provider's own API, or nowhere. */
export const ContextWindowSourceSchema = z.enum(['config', 'openrouter', 'vllm', 'llamacpp', 'lmstudio', 'ollama', 'unknown']);
export type ContextWindowSource = z.infer<typeof ContextWindowSourceSchema>;

export const ContextWindowSchema = z.object({
  /** Tokens; null when unknown. */
  tokens: z.number().int().positive().nullable(),
  source: ContextWindowSourceSchema,
  /** What the user should know about the figure (Ollama's default, a model not loaded yet, why it is unknown). */
  note: z.string().nullable(),
});
export type ContextWindowView = z.infer<typeof ContextWindowSchema>;

/**
 * A role's window as configured and as its provider tells it. Both, because they can disagree:
 * a local server runs the model with the context it was started with, whatever is set here.
 */
export const RoleContextWindowSchema = z.object({
  /** TILTH_*_CONTEXT_WINDOW in effect (after the fallback to the worker's); null: not set. */
  configured: z.number().int().positive().nullable(),
  /** What the provider's API says; source `unknown` (tokens null) when it says nothing. */
  discovered: ContextWindowSchema,
});
export type RoleContextWindow = z.infer<typeof RoleContextWindowSchema>;

/** GET /api/config/context-windows: one role (`?role=`) or all three. */
export const ContextWindowsQuerySchema = z.strictObject({ role: ModelRoleSchema.optional() });
export const ContextWindowsResponseSchema = z.object({
  roles: z.object({ worker: RoleContextWindowSchema.optional(), evaluator: RoleContextWindowSchema.optional(), prep: RoleContextWindowSchema.optional() }),
});
export type ContextWindowsResponse = z.infer<typeof ContextWindowsResponseSchema>;

export const SessionListItemSchema = z.object({
  id: SessionIdSchema,
  status: SessionStatusSchema,
  source: z.string(),
  title: z.string(),
  brief: z.string(),
  tasks: z.object({ total: z.number().int().nonnegative(), done: z.number().int().nonnegative() }),
  cost_usd: z.number().nonnegative(),
  last_stop: StopReasonSchema.nullable(),
  /** The server's sentence about that stop (the checkpoint's `last_error`): for a provider, its own words. */
  last_error: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  /** Set when a session folder exists but a file in it is unreadable; the list still shows it. */
  problem: z.string().nullable(),
  /** A question waits for the user's answer (the interview's pending question): the list says "needs you". */
  needs_you: z.boolean(),
});
export type SessionListItem = z.infer<typeof SessionListItemSchema>;
export const SessionListSchema = z.object({ sessions: z.array(SessionListItemSchema) });

export const EVENTS_PAGE_MAX = 5_000;
const optionalInt = (name: string, min: number) => intFromQuery(name, min, Number.MAX_SAFE_INTEGER, -1).transform((n) => (n === -1 ? undefined : n));

/**
 * Three ways to page, one at a time: `after=S` (forward, the default from 0), `before=S` (the
 * page just before seq S), `tail=1` (the newest page — where a long session opens).
 */
export const EventsQuerySchema = z
  .strictObject({
    after: optionalInt('after', 0),
    before: optionalInt('before', 1),
    tail: z.enum(['1', 'true']).optional(),
    limit: intFromQuery('limit', 1, EVENTS_PAGE_MAX, 500),
  })
  .refine((q) => [q.after, q.before, q.tail].filter((v) => v !== undefined).length <= 1, {
    message: 'use at most one of after, before and tail',
  });
export type EventsQuery = z.infer<typeof EventsQuerySchema>;

/** A span of the run's timeline to view (ms since the epoch), for zooming in; both optional. */
export const SummaryQuerySchema = z
  .strictObject({
    from: optionalInt('from', 0),
    to: optionalInt('to', 0),
  })
  .refine((q) => q.from === undefined || q.to === undefined || q.from <= q.to, { message: 'from must not be after to' });

/** The summary with its timeline thinned for the span shown (shared/timeline-view.ts). */
export const SummaryViewSchema = SummarySchema.extend({
  timeline_view: z.object({
    span: z.object({ from: z.number(), to: z.number() }).nullable(),
    full: z.object({ from: z.number(), to: z.number() }).nullable(),
    thinned: z.boolean(),
  }),
});
export type SummaryView = z.infer<typeof SummaryViewSchema>;

export const EventsPageSchema = z.object({
  /** Oldest first, contiguous. */
  events: z.array(TilthEventSchema),
  /** Pass as `after` to get the next page. */
  next_after: z.number().int().nonnegative(),
  /** Events exist after this page. */
  has_more: z.boolean(),
  /** Events exist before this page (pass the first event's seq as `before`). */
  has_earlier: z.boolean(),
  last_seq: z.number().int().nonnegative(),
});
export type EventsPage = z.infer<typeof EventsPageSchema>;

export const SessionParamsSchema = z.strictObject({ id: SessionIdSchema });

/** DELETE /api/sessions/:id?confirm=<id>: the id repeated, so a stray request cannot discard. */
export const DiscardQuerySchema = z.strictObject({ confirm: z.string().min(1, 'confirm must repeat the session id') });

// ── Seeding (issue 3) ────────────────────────────────────────────────────────────────────────

/** Linux's PATH_MAX; no filesystem we run on takes a longer path. */
export const MAX_PATH_LENGTH = 4096;
/** "4,096": grouped by hand, since a locale formatter made at import loads the locale data at every start. */
const MAX_PATH_WRITTEN = String(MAX_PATH_LENGTH).replace(/\B(?=(\d{3})+$)/g, ',');

/**
 * A filesystem path the user typed. What no filesystem would take is refused here, with what
 * to fix, rather than left for `fs` to throw on: a NUL byte ends a C string, so the system call
 * would see a different path than the one shown.
 */
export function fsPathSchema(required: string) {
  return z
    .string()
    .min(1, required)
    .max(MAX_PATH_LENGTH, `is ${MAX_PATH_WRITTEN} characters at most`)
    .refine((value) => !value.includes('\0'), 'must not contain a NUL byte (\\0)');
}

export const WorkspaceCheckQuerySchema = z.strictObject({ path: fsPathSchema('path is required') });

/** What `GET /api/workspaces/check?path=` found. `ok` means a session can start there. */
export const WorkspaceCheckSchema = z.object({
  path: z.string(),
  ok: z.boolean(),
  kind: z.enum(['repo', 'missing', 'not_a_directory', 'not_a_repo', 'bare', 'no_commits']),
  /** Why it is not ok, or a note (e.g. uncommitted changes), in words for the user. */
  message: z.string(),
  root: z.string().nullable(),
  branch: z.string().nullable(),
  head: z.string().nullable(),
  clean: z.boolean().nullable(),
  preset: ChecksPresetSchema.nullable(),
  /** What the repository runs its tests with (issue 12); null when it is not a repository yet. */
  env: ProjectEnvSchema.nullable(),
  /** Sessions on this repo that are prepared, running or stopped: open, discard, or start alongside. */
  existing: z.array(SessionListItemSchema),
});
export type WorkspaceCheck = z.infer<typeof WorkspaceCheckSchema>;

export const CreateSessionSchema = z.strictObject({
  workspace: z.string().trim().pipe(fsPathSchema('workspace is required: the path of a local git repository')),
  brief: z.string().trim().min(1, 'brief is required: describe the feature').max(20_000, 'brief is at most 20,000 characters'),
  /** Set to start even though the repo has other open sessions (the "start alongside" choice). */
  alongside: z.boolean().optional(),
  checks_preset: ChecksPresetSchema.optional(),
});
export const CreatedSessionSchema = z.object({ session: SessionListItemSchema });

export const PendingQuestionViewSchema = z.object({
  question_id: z.string(),
  text: z.string(),
  options: z.array(z.string()).optional(),
});

export const RunStateSchema = z.object({
  state: z.enum(['idle', 'queued', 'running']),
  /** 1-based place in the queue while queued. */
  queue_position: z.number().int().positive().nullable(),
});
export type RunState = z.infer<typeof RunStateSchema>;

export const SessionDetailSchema = z.object({
  session: SessionListItemSchema,
  branch: z.string(),
  base_branch: z.string().nullable(),
  base_sha: z.string().nullable(),
  worktree: z.string(),
  checks_preset: ChecksPresetSchema.nullable(),
  last_error: z.string().nullable(),
  interview: z
    .object({
      pending: PendingQuestionViewSchema.nullable(),
      iterations: z.number().int().nonnegative(),
      running: z.boolean(),
    })
    .nullable(),
  interview_usage: UsageSchema,
  has_seed: z.boolean(),
  /** The plan with each task's status (empty before the seed). */
  tasks: z.array(PrdEntrySchema),
  run: RunStateSchema,
  /** A task is being added (the model writes its test), by this server or a `tilth add-task`: the session is held until it ends or is cancelled. */
  adding_task: z.boolean(),
  /** The last add-task: running, added or failed, so the review page finds it after a reload; null before the first. */
  add_task: AddTaskStateSchema.nullable(),
  /** The run's spend so far (the interview's is apart). */
  usage: UsageSchema,
  caps: CapsSchema.nullable(),
  allow_network: z.boolean(),
  /** A demo session: every page says "demo model — scripted, not AI". */
  demo: z.boolean(),
});
export type SessionDetail = z.infer<typeof SessionDetailSchema>;

export const AnswerSchema = z.strictObject({
  questionId: z.string().min(1, 'questionId is required'),
  answer: z.string().trim().min(1, 'answer must not be empty'),
});

// ── Run (issue 4) ────────────────────────────────────────────────────────────────────────────

export const NoteRequestSchema = z.strictObject({
  text: z.string().trim().min(1, 'text must not be empty').max(4_000, 'a note is at most 4,000 characters'),
});
export const NoteResponseSchema = z.object({ note: SteeringNoteSchema });
/** Starting or resuming a run; options given here are kept for later resumes. */
export const RunRequestSchema = z.strictObject({
  allow_network: z.boolean().optional(),
});
export type RunRequest = z.infer<typeof RunRequestSchema>;
export const ResumePlanSchema = z.object({
  last_stop: z.string().nullable(),
  retried: z.array(z.string()),
  pending: z.array(z.string()),
  repaired: z.array(z.string()),
  unwind: z.boolean(),
  worktree_missing: z.boolean(),
  plan: z.string(),
});
export type ResumePlan = z.infer<typeof ResumePlanSchema>;
export const RunResponseSchema = z.object({ session: SessionListItemSchema, run: RunStateSchema });
export const StopResponseSchema = z.object({ session: SessionListItemSchema, was: z.enum(['running', 'queued']) });
