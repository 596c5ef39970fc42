/**
 * The event taxonomy. Every line of `events.jsonl` is `{seq, ts, type, data}` where `data` is
 * validated by the schema registered for `type` below.
 *
 * Names and fields follow the Python edition (reference §5) so its users and logs map one to one;
 * the events this edition adds (questions, seed edits, steering, merge/push, status changes) use
 * the same snake_case style. The first event of every log is `log_opened`, carrying LOG_VERSION;
 * a reader upgrades older logs on read instead of shapes changing in place.
 */
import { z } from 'zod';

/** A run's limits: the checkpoint keeps them, and a run's `session_start` records them. */
export const CapsSchema = z.object({
  max_iterations_per_task: z.number().int().nonnegative(),
  max_wall_clock_minutes: z.number().nonnegative(),
  max_tokens: z.number().int().nonnegative(),
  max_dollars: z.number().nonnegative(),
  max_evaluator_calls_per_task: z.number().int().nonnegative(),
});
export type Caps = z.infer<typeof CapsSchema>;

/** Bump when an event's shape changes incompatibly, and add an upgrade step in `upgradeEvent`. */
export const LOG_VERSION = 1;

const TraceId = z.string().regex(/^[0-9a-f]{32}$/, 'trace_id is 32 lowercase hex characters');
const SpanId = z.string().regex(/^[0-9a-f]{16}$/, 'span_id is 16 lowercase hex characters');
const TaskId = z.string().regex(/^T-\d{3,}$/, 'task ids look like T-001');

/** Fields carried by worker-side events (reference §5.3: task_id, trace_id, span_id, iter). */
const WorkerBase = {
  task_id: TaskId,
  trace_id: TraceId,
  span_id: SpanId,
  iter: z.number().int().nonnegative(),
};

/** Phase marker on model/tool events that are not the worker's. */
const Phase = z.enum(['interview', 'evaluator', 'self_improve']);

export const SessionStatusSchema = z.enum(['interviewing', 'prepared', 'running', 'stopped', 'failed', 'all_done', 'merged', 'archived']);
export type SessionStatus = z.infer<typeof SessionStatusSchema>;

/** Why a run or interview stopped. The Python names plus this edition's additions. */
export const StopReasonSchema = z.enum([
  'all_done',
  'wall_clock',
  'token_cap',
  'dollar_cap',
  'iter_cap',
  'evaluator_cap',
  'empty_responses',
  'no_case',
  'provider_failure',
  /** The worktree's git pointers no longer say what was recorded at prep (a worker rewrote them). */
  'git_tampered',
  /** The evaluator answered twice in a row with nothing Tilth could read as a verdict. */
  'evaluator_unreadable',
  /** The worker's conversation no longer fits the model's context window, even with old tool output dropped. */
  'context_overflow',
  /** The worktree could not get the project's environment: its setup command or offline install failed. */
  'setup_failed',
  /** A reviewer sent a done task back: the session waits for Run to work its next revision. */
  'sent_back',
  /** A task was added after the run: the session waits for Run to build it. */
  'task_added',
  'interrupted',
  'crash',
  'error',
]);
export type StopReason = z.infer<typeof StopReasonSchema>;

export const RejectionCategorySchema = z.enum(['scope_creep', 'acceptance_gap', 'weak_test', 'tests_pass_but_wrong', 'half_finished', 'spec_violation']);

/** The evaluator's word on one acceptance criterion, by its number in the task (1-based). */
export const CriterionWordSchema = z.object({ n: z.number().int().positive(), met: z.boolean(), note: z.string() });
export type CriterionWord = z.infer<typeof CriterionWordSchema>;

/** The evaluator's judgement; the ledger stores it and `evaluator_verdict` spreads it in. */
export const verdictFields = {
  verdict: z.enum(['accept', 'reject']),
  rejection_category: RejectionCategorySchema.optional(),
  concern: z.string(),
  evidence: z.array(z.string()),
  next_step: z.string().optional(),
  /** Its word per criterion; optional, as models from before issue 14 (and some today) leave it out. */
  criteria: z.array(CriterionWordSchema).optional(),
  parse_failed: z.boolean().optional(),
};

const RawToolCalls = z.array(z.object({ name: z.string(), arguments: z.string() }));

/** One check's outcome. Output is carried in full up to CHECK_OUTPUT_CAP so the UI can show it. */
export const CheckResultSchema = z.object({
  name: z.string(),
  passed: z.boolean(),
  exit_code: z.number().int().nullable().optional(),
  duration_ms: z.number().nonnegative().optional(),
  output: z.string().optional(),
  output_chars: z.number().int().nonnegative().optional(),
  /**
   * The acceptance check's account of what ran: `report` from the runner's own structured report
   * (each case collected, run, passed, failed or skipped); `text` from the exit code and output
   * alone (the custom preset), weaker evidence.
   */
  evidence: z.enum(['report', 'text']).optional(),
});
export const CHECK_OUTPUT_CAP = 20_000;

/** A check's output as its result carries it: whole up to CHECK_OUTPUT_CAP, else its start and end. */
export function boundCheckOutput(output: string): { output: string; output_chars: number } {
  if (output.length <= CHECK_OUTPUT_CAP) return { output, output_chars: output.length };
  const half = Math.floor(CHECK_OUTPUT_CAP / 2);
  return {
    output: `${output.slice(0, half)}\n... [${output.length - CHECK_OUTPUT_CAP} chars cut] ...\n${output.slice(-half)}`,
    output_chars: output.length,
  };
}

const usageFields = {
  prompt_tokens: z.number().int().nonnegative(),
  eval_tokens: z.number().int().nonnegative(),
  tokens_used_total: z.number().int().nonnegative(),
  cost_usd: z.number().nonnegative().nullable().optional(),
  cost_total_usd: z.number().nonnegative().optional(),
  cached_tokens: z.number().int().nonnegative().optional(),
  reasoning_tokens: z.number().int().nonnegative().optional(),
};

/**
 * Why a worktree's environment was (re)applied: at prep, at a run's start when prep had not
 * finished it, to a worktree re-created from its branch, for a setup command changed in seed
 * review, or to the merge preview's scratch worktree.
 */
/**
 * The mutation probe of one accepted task: mutants of the lines its commit changed, run against
 * its acceptance tests. `off` when the budget is 0; `running` while it runs beside the next task.
 */
/** Lines (1-based) by file, relative to the worktree root. */
const LinesByFile = z.record(z.string(), z.array(z.number().int().positive()));

/**
 * Which changed lines each criterion's named cases execute (issue 28): each case run alone with
 * line coverage during the probe — a `sys.settrace` tracer for Python, V8's own coverage
 * (`NODE_V8_COVERAGE`) for node --test and mocha, the runner's own (istanbul's JSON) for jest and
 * vitest, go's cover profile for go.
 */
export const MutationCoverageSchema = z.object({
  method: z.enum(['settrace', 'v8', 'istanbul', 'goprofile']),
  /** Per criterion, in the task's order: the changed lines its cases ran, by file; null when they could not be traced. */
  criteria: z.array(LinesByFile.nullable()),
  /** The changed lines a mutant was made of, by file: "the changed code" a criterion's cases should run. */
  mutated: LinesByFile,
  /** What could not be traced, and why (a runner that transforms the code, a case that wrote no coverage); null when all was. */
  note: z.string().nullable(),
  /** What the traced runs of the cases added to the probe. */
  duration_ms: z.number().nonnegative().optional(),
});
export type MutationCoverage = z.infer<typeof MutationCoverageSchema>;

export const MutationReportSchema = z.object({
  status: z.enum(['running', 'done', 'off']),
  killed: z.number().int().nonnegative(),
  survived: z.number().int().nonnegative(),
  /**
   * The first survivors: a mistake at this line that no test notices. `criteria`: the criteria
   * (indexes, in the task's order) whose cases run the line; absent when it was not attributed.
   */
  survivors: z.array(
    z.object({
      file: z.string(),
      line: z.number().int().positive(),
      description: z.string(),
      criteria: z.array(z.number().int().nonnegative()).optional(),
    }),
  ),
  /** Why the probe tried nothing, or what it left untried; null when it ran all. */
  note: z.string().nullable(),
  duration_ms: z.number().nonnegative(),
  /** The criteria's line coverage; absent from probes before issue 28, null when it was not taken (custom checks, no matrix). */
  coverage: MutationCoverageSchema.nullable().optional(),
});
export type MutationReport = z.infer<typeof MutationReportSchema>;

export const EnvReasonSchema = z.enum(['prep', 'resume', 'recreated', 'setup_changed', 'packages_changed', 'merge_preview', 'mutation_probe']);
export type EnvReason = z.infer<typeof EnvReasonSchema>;

const SetupStep = z.enum(['install', 'setup']);

/** Payload schemas keyed by event type. Adding an event means adding one line here. */
export const EventDataSchemas = {
  log_opened: z.object({ log_version: z.number().int().positive(), session_id: z.string() }),
  session_start: z.object({
    source: z.string(),
    phase: z.enum(['prep-feature', 'run']),
    worktree: z.string(),
    branch: z.string(),
    /** The run's limits as they were when it started (a replay shows what the run was held to). */
    caps: CapsSchema.optional(),
    models: z.object({ worker: z.string(), evaluator: z.string() }).optional(),
    /** Whether the shell ran sandboxed, and whether it could reach the network. */
    sandbox: z.object({ available: z.boolean(), network: z.boolean(), detail: z.string() }).optional(),
    /** Which process runs it: `tilth serve`, a headless `tilth run`, or a queue worker (`worker host:pid`). */
    runner: z.string().optional(),
  }),
  status_changed: z.object({
    from: SessionStatusSchema.nullable(),
    to: SessionStatusSchema,
    reason: z.string().optional(),
  }),
  session_prepared: z.object({
    trace_id: TraceId,
    interviewer_model: z.string(),
    prd_entries: z.number().int().nonnegative(),
    test_files: z.number().int().nonnegative(),
    tokens_used: z.number().int().nonnegative(),
  }),
  seed_committed: z.object({ sha: z.string(), branch: z.string() }),
  seed_written: z.object({
    task_ids: z.array(TaskId),
    test_files: z.array(z.string()),
    checks_preset: z.string(),
  }),
  seed_edited: z.object({ sha: z.string().nullable(), changed: z.array(z.string()) }),
  /** A task added after the run, its acceptance test written by the interview's model and committed. */
  task_added: z.object({ task_id: z.string(), title: z.string(), test_file: z.string(), sha: z.string().nullable() }),
  /** Adding a task began: the model is writing its test. */
  add_task_started: z.object({ title: z.string() }),
  /** Adding a task ended without adding it: declined, refused, cancelled or past its deadline. Nothing was written. */
  add_task_failed: z.object({ title: z.string(), code: z.string(), message: z.string() }),
  /** A reviewer sent a done task back as its next revision (send-backs/<task>.jsonl holds the request). */
  task_sent_back: z.object({ task_id: z.string(), revision: z.number().int().min(2), note: z.string().nullable(), comments: z.number().int().nonnegative() }),
  question_asked: z.object({
    question_id: z.string().min(1),
    text: z.string().min(1),
    options: z.array(z.string()).optional(),
  }),
  question_answered: z.object({ question_id: z.string().min(1), answer: z.string().min(1) }),
  session_resume: z.object({
    session_id: z.string(),
    last_stop: z.string().nullable(),
    retried: z.array(TaskId),
    pending: z.array(TaskId),
    unwound_commit: z.boolean(),
    plan: z.string(),
  }),
  /** The session branch went back to after the seed or a task; later tasks are pending again (their files archived). */
  rewound: z.object({
    after: z.union([z.literal('seed'), TaskId]),
    /** n of `archive/rewind-<n>/` and of the backup ref. */
    rewind: z.number().int().positive(),
    from_sha: z.string(),
    to_sha: z.string(),
    backup_ref: z.string(),
    tasks: z.array(TaskId),
  }),
  context_reset: z.object({ task_id: TaskId, trace_id: TraceId, span_id: SpanId }),
  memory_load: z.object({
    task_id: TaskId,
    trace_id: TraceId,
    span_id: SpanId,
    trigger: z.literal('task_start'),
    channels: z.record(z.string(), z.unknown()),
    user_prompt_chars: z.number().int().nonnegative(),
  }),
  prompt_assembled: z.object({
    task_id: TaskId,
    trace_id: TraceId,
    span_id: SpanId,
    iter: z.number().int().nonnegative(),
    role: z.enum(['worker', 'evaluator', 'self_improve']),
    content: z.string(),
    chars: z.number().int().nonnegative(),
    truncated: z.boolean(),
  }),
  model_call: z.object({
    task_id: TaskId.optional(),
    trace_id: TraceId.optional(),
    span_id: SpanId.optional(),
    iter: z.number().int().nonnegative().optional(),
    phase: Phase.optional(),
    attempt: z.number().int().positive().optional(),
    role: z.enum(['worker', 'evaluator', 'prep']).optional(),
    model: z.string().optional(),
    ...usageFields,
    duration_ms: z.number().nonnegative().optional(),
    health: z.enum(['ok', 'empty', 'error_finish', 'error', 'content_filter']).optional(),
    finish_reason: z.string().nullable().optional(),
    reasoning: z.string().optional(),
    reasoning_details: z.array(z.unknown()).optional(),
    /** The provider sent no usage: the token figures are estimated from characters. */
    usage_estimated: z.boolean().optional(),
    /** Tokens the request was estimated at before it was sent. */
    prompt_estimate: z.number().int().nonnegative().optional(),
    /** The role's context window in tokens, when known (configured or discovered). */
    context_window: z.number().int().positive().optional(),
    /** Tool calls that came written in the reply's text and were parsed from it. */
    text_tool_calls: z.number().int().positive().optional(),
  }),
  /** A model call failed and will be tried again after `wait_ms`. */
  model_retry: z.object({
    task_id: TaskId.optional(),
    trace_id: TraceId.optional(),
    span_id: SpanId.optional(),
    iter: z.number().int().nonnegative().optional(),
    phase: Phase.optional(),
    role: z.enum(['worker', 'evaluator', 'prep']),
    model: z.string(),
    /** The attempt that failed (1-based) and how many there may be in all. */
    attempt: z.number().int().positive(),
    max_attempts: z.number().int().positive(),
    wait_ms: z.number().int().nonnegative(),
    /** What went wrong, in the provider's words, at most ~500 characters. */
    reason: z.string(),
    status: z.number().int().nullable(),
  }),
  /** Old tool output was left out of the worker's conversation to fit the context window. */
  context_elided: z.object({
    ...WorkerBase,
    role: z.enum(['worker', 'evaluator', 'prep']),
    window_tokens: z.number().int().positive(),
    estimated_before: z.number().int().nonnegative(),
    estimated_after: z.number().int().nonnegative(),
    dropped_messages: z.number().int().nonnegative(),
    dropped_chars: z.number().int().nonnegative(),
  }),
  /** Something about the provider the user should know, said once per session and kind. */
  provider_notice: z.object({
    task_id: TaskId.optional(),
    phase: Phase.optional(),
    role: z.enum(['worker', 'evaluator', 'prep']),
    model: z.string(),
    kind: z.enum(['usage_missing', 'price_missing', 'truncation_suspected', 'text_tool_calls', 'content_filter']),
    message: z.string(),
  }),
  empty_model_response: z.object({
    ...WorkerBase,
    streak: z.number().int().positive(),
    finish_reason: z.string().nullable(),
    prompt_tokens: z.number().int().nonnegative(),
    eval_tokens: z.number().int().nonnegative(),
  }),
  tool_call: z.object({
    task_id: TaskId.optional(),
    trace_id: TraceId.optional(),
    span_id: SpanId.optional(),
    iter: z.number().int().nonnegative().optional(),
    phase: Phase.optional(),
    tool: z.string(),
    args: z.unknown(),
    args_chars: z.number().int().nonnegative().optional(),
  }),
  hook_run: z.object({
    ...WorkerBase,
    tool: z.string(),
    hook: z.enum(['pre_tool', 'post_edit']),
    outcome: z.enum(['allow', 'block', 'silent', 'warned']),
    reason: z.string().optional(),
  }),
  tool_result: z.object({
    task_id: TaskId.optional(),
    trace_id: TraceId.optional(),
    span_id: SpanId.optional(),
    iter: z.number().int().nonnegative().optional(),
    phase: Phase.optional(),
    tool: z.string(),
    result_preview: z.string(),
    result_chars: z.number().int().nonnegative(),
    duration_ms: z.number().nonnegative().optional(),
  }),
  pre_tool_block: z.object({
    ...WorkerBase,
    tool: z.string(),
    result_preview: z.string(),
    result_chars: z.number().int().nonnegative(),
  }),
  case_parse_error: z.object({ ...WorkerBase, error: z.string(), raw_tool_calls: RawToolCalls }),
  /** The mutation probe of an accepted task began, beside the next task or at the end of the run. */
  mutation_probe_started: z.object({ task_id: z.string() }),
  /** The probe made its mutants: how many it will try, within its budget. */
  mutation_probe_planned: z.object({ task_id: z.string(), mutants: z.number().int().nonnegative() }),
  /** The mutation probe of an accepted task ended (see MutationReport). */
  mutation_probe: z.object({ task_id: z.string(), ...MutationReportSchema.shape }),
  /** A case whose `ac_coverage` leaves criteria out: answered at once, before checks and the evaluator. */
  coverage_gap: z.object({ ...WorkerBase, missing: z.array(z.string()).min(1), criteria: z.number().int().positive() }),
  /** A sent-back task's case came with no change since the reviewer sent it back; the worker was told so, once. */
  revision_unchanged: z.object({ ...WorkerBase, revision: z.number().int().min(2) }),
  validator_run: z.object({ ...WorkerBase, passed: z.boolean(), results: z.array(CheckResultSchema) }),
  evaluator_parse_error: z.object({
    ...WorkerBase,
    attempt: z.number().int().positive(),
    error: z.string(),
    raw_tool_calls: RawToolCalls,
  }),
  evaluator_verdict: z.object({
    ...WorkerBase,
    schema_version: z.literal(1),
    ...verdictFields,
  }),
  ledger_appended: z.object({ ...WorkerBase, verdict_summary: z.string() }),
  task_done: z.object({ task_id: TaskId, trace_id: TraceId, span_id: SpanId, summary: z.string() }),
  task_failed: z.object({
    task_id: TaskId,
    trace_id: TraceId,
    span_id: SpanId.optional(),
    reason: StopReasonSchema,
    streak: z.number().int().optional(),
    nudges: z.number().int().optional(),
    evaluator_calls: z.number().int().optional(),
    /** What happened, for the stops that need it: evaluator_unreadable, context_overflow, and no_case (the worker's last words, when it said any). */
    detail: z.string().optional(),
  }),
  proposed_learnings: z.object({
    task_id: TaskId,
    trace_id: TraceId,
    span_id: SpanId,
    emitted: z.boolean(),
    entry: z.string().optional(),
    reason: z.enum(['unparseable', 'no_proposal', 'empty_learning', 'error']).optional(),
    raw: z.string().optional(),
  }),
  commit: z.object({ task_id: TaskId, trace_id: TraceId, sha: z.string().nullable() }),
  steering_note: z.object({
    note_id: z.string(),
    text: z.string().min(1),
    consumed_by: z.object({ task_id: TaskId, iter: z.number().int() }).optional(),
  }),
  merge: z.object({
    strategy: z.enum(['merge', 'squash', 'ff']),
    into: z.string(),
    sha: z.string(),
    backup_ref: z.string(),
  }),
  push: z.object({ remote: z.string(), branch: z.string() }),
  pr: z.object({ url: z.string(), via: z.enum(['gh', 'compare_url']) }),
  cleanse: z.object({ removed_worktree: z.boolean(), removed_branch: z.boolean() }),
  /** The worktree got the project's environment (server/env/provision.ts). */
  env_prepared: z.object({
    reason: EnvReasonSchema,
    /** The checkout's node_modules its entries were linked from, and how many. */
    node_modules_from: z.string().nullable(),
    linked: z.number().int().nonnegative(),
    /** The virtualenv leading PATH. */
    venv: z.string().nullable(),
    /** Worktree folders first on PYTHONPATH. */
    python_path: z.array(z.string()),
  }),
  /** A setup command (or the offline install of the dependencies) started in the worktree. */
  setup_started: z.object({
    step: SetupStep,
    command: z.string(),
    origin: z.enum(['detected', 'committed', 'seed_review']),
    reason: EnvReasonSchema,
    network: z.boolean(),
  }),
  /** A piece of its output, as it arrived. */
  setup_output: z.object({ step: SetupStep, text: z.string() }),
  setup_finished: z.object({
    step: SetupStep,
    passed: z.boolean(),
    exit_code: z.number().int().nullable(),
    duration_ms: z.number().nonnegative(),
    timed_out: z.boolean(),
    output_chars: z.number().int().nonnegative(),
    /** When it failed: what happened, how the output ends, and what to do. */
    problem: z.string().optional(),
  }),
  stop: z.object({
    reason: StopReasonSchema,
    phase: z.enum(['interview', 'run']).optional(),
    error: z.string().optional(),
  }),
} as const;

export type EventType = keyof typeof EventDataSchemas;
export const EVENT_TYPES = Object.keys(EventDataSchemas) as EventType[];

export type EventData<T extends EventType> = z.infer<(typeof EventDataSchemas)[T]>;

/** A stored event: the envelope plus a typed payload. */
export type TilthEvent = {
  [T in EventType]: { seq: number; ts: string; type: T; data: EventData<T> };
}[EventType];

const envelope = { seq: z.number().int().positive(), ts: z.iso.datetime() };

function eventSchemaFor<T extends EventType>(type: T) {
  return z.object({ ...envelope, type: z.literal(type), data: EventDataSchemas[type] });
}

// EVENT_TYPES is never empty, so `firstEventSchema!` below is always there.
const [firstEventSchema, ...otherEventSchemas] = EVENT_TYPES.map((t) => eventSchemaFor(t));

/**
 * The discriminated union of every event, validated on write and on read.
 *
 * The cast: built by mapping over EVENT_TYPES, the union's inferred type pairs any `type` with any
 * event's `data`; TilthEvent pairs each type with its own data, which is what the schema checks
 * at run time (each member is `z.literal(type)` with that type's data schema). TypeScript cannot
 * follow that correlation through the map, so it is asserted here, once, where the schema is built.
 */
export const TilthEventSchema = z.discriminatedUnion('type', [firstEventSchema!, ...otherEventSchemas]) as z.ZodType<TilthEvent>;

/** An event as a job emits it, before the log assigns seq and ts. */
export type EventInput = {
  [T in EventType]: { type: T; data: EventData<T> };
}[EventType];

/**
 * Upgrade a raw event line from an older log version to the current shape. Version 1 is the
 * first, so this is the identity today; the hook exists so shapes never change in place.
 */
export function upgradeEvent(raw: unknown, fromVersion: number): unknown {
  if (fromVersion > LOG_VERSION) {
    throw new Error(`log version ${fromVersion} is newer than this Tilth understands (${LOG_VERSION})`);
  }
  return raw;
}
