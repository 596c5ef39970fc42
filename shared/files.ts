/**
 * Schemas for every file in a session folder (SPEC §3). Each file is validated when read; a file
 * that does not match gives a clear error naming it.
 */
import { z } from 'zod';
import { CapsSchema, CheckResultSchema, SessionStatusSchema, StopReasonSchema, verdictFields } from './events.ts';
import { PackageManagerSchema, ProjectEnvSchema } from './project-env.ts';

/** `YYYYMMDD-HHMMSS-<6 hex>`, e.g. `20260525-103149-3800ea`; sorts chronologically. */
export const SESSION_ID_PATTERN = /^\d{8}-\d{6}-[0-9a-f]{6}$/;
export const SessionIdSchema = z.string().regex(SESSION_ID_PATTERN, 'a session id looks like 20260525-103149-3800ea (YYYYMMDD-HHMMSS-6 hex)');

export const TaskIdSchema = z.string().regex(/^T-\d{3,}$/, 'a task id looks like T-001');

export const UsageSchema = z.object({
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
  total_tokens: z.number().int().nonnegative(),
  cost_usd: z.number().nonnegative(),
  calls: z.number().int().nonnegative(),
});
export type Usage = z.infer<typeof UsageSchema>;
export const EMPTY_USAGE: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, cost_usd: 0, calls: 0 };

/** Defined beside the events (a run's `session_start` records its caps); the checkpoint keeps them too. */
export { CapsSchema, type Caps } from './events.ts';

/**
 * How acceptance tests are named and run: one preset per test runner, plus the user's own
 * commands. Sessions from before issue 12 have only pytest, node and custom, which keep their
 * meaning.
 */
export const ChecksPresetSchema = z.enum(['vitest', 'jest', 'mocha', 'ava', 'tap', 'uvu', 'node', 'pytest', 'unittest', 'go', 'cargo', 'custom']);
export type ChecksPreset = z.infer<typeof ChecksPresetSchema>;

/**
 * The user's own commands for the `custom` preset. `{files}` is replaced by the test files. With
 * `{junit}` the command writes a JUnit XML report there, and the custom runner's evidence is read
 * from it, as a built-in runner's is (per case, red and green proofs); without it only the exit
 * code speaks. `case`, optional, runs one named case of one file: `{file}`, `{case}` (the name) and
 * `{case_pattern}` (the name as an anchored regular expression), and `{junit}`; without it a case's
 * proof runs its whole file and reads the case from the report.
 */
export const CustomChecksSchema = z
  .object({
    test: z
      .string()
      .min(1)
      .refine((s) => s.includes('{files}'), 'the test command must contain {files}'),
    lint: z.string().optional(),
    case: z
      .string()
      .min(1)
      .refine((s) => s.includes('{file}'), 'the one-case command must contain {file}')
      .refine((s) => s.includes('{case}') || s.includes('{case_pattern}'), 'the one-case command must contain {case} or {case_pattern}')
      .refine(writesJunit, 'the one-case command must contain {junit}: its result is read from the report')
      .optional(),
  })
  .refine((c) => c.case === undefined || writesJunit(c.test), {
    message: 'a one-case command needs a test command with {junit}: both are read from the JUnit report',
    path: ['case'],
  });
export type CustomChecks = z.infer<typeof CustomChecksSchema>;

/** Whether a custom command writes a JUnit report (`{junit}`): the one test the server, the schema and the editor share. */
export function writesJunit(command: string): boolean {
  return command.includes('{junit}');
}

export const ModelsSchema = z.object({ worker: z.string(), evaluator: z.string(), prep: z.string() });

/**
 * How a session's worktree gets the project's environment (server/env/provision.ts), decided at
 * prep from what detection found, and applied again to a re-created worktree and to the merge
 * preview's scratch worktree.
 */
export const EnvPlanSchema = z.object({
  /** The checkout's installed `node_modules`, linked entry by entry into the worktree's own. */
  node_modules_from: z.string().nullable(),
  /**
   * A JavaScript workspace's packages (folders relative to the root): the checkout's installed
   * `node_modules` of each is linked the same way into the worktree's package folder (a link to a
   * package of the workspace made to the worktree's copy of it), and a `node_modules` an install
   * or a setup makes there is kept out of git. Absent in plans recorded before workspaces.
   */
  workspace_packages: z.array(z.string()).optional(),
  /** No installed `node_modules` but a lockfile: an offline install in the worktree, in the sandbox. */
  install: z.object({ package_manager: PackageManagerSchema, lockfile: z.string() }).nullable(),
  /** The project's virtualenv (absolute): its `bin` leads PATH for the checks and the shell. */
  venv: z.string().nullable(),
  /** Worktree folders (relative) put first on PYTHONPATH, ahead of an editable install of the checkout. */
  python_path: z.array(z.string()),
  /** A setup command, which replaces linking and installing: `.tilth/setup` committed, or one set in seed review. */
  setup: z.object({ command: z.string(), origin: z.enum(['committed', 'seed_review']) }).nullable(),
});
export type EnvPlan = z.infer<typeof EnvPlanSchema>;

export const CheckpointSchema = z.object({
  session_id: z.string(),
  status: SessionStatusSchema,
  source: z.string(),
  base_branch: z.string().nullable(),
  base_sha: z.string().nullable(),
  branch: z.string(),
  worktree: z.string(),
  /**
   * The worktree's git dir and the repository's common dir, recorded at prep through the source
   * repository. The harness runs git with these, never with what the worktree's `.git` file says.
   * Null in sessions from before they were recorded (looked up, then saved, at the next run).
   */
  git_dir: z.string().nullable().default(null),
  git_common_dir: z.string().nullable().default(null),
  brief: z.string().default(''),
  checks_preset: ChecksPresetSchema.nullable().default(null),
  custom_checks: CustomChecksSchema.nullable().default(null),
  /** The source repository's environment as detected when the session was created (null before issue 12). */
  project_env: ProjectEnvSchema.nullable().default(null),
  title: z.string().default(''),
  models: ModelsSchema.nullable().default(null),
  caps: CapsSchema.nullable().default(null),
  /** The run's spend; the interview's is kept apart (SPEC §13: interview tokens do not count). */
  usage: UsageSchema.default(EMPTY_USAGE),
  interview_usage: UsageSchema.default(EMPTY_USAGE),
  /** A demo session: its model is the scripted demo model, never a provider. */
  demo: z.boolean().default(false),
  /** The worker's shell and the checks may reach the network (the sandbox cuts it otherwise). */
  allow_network: z.boolean().default(false),
  /**
   * The project's environment in the worktree: the plan, and when it was last fully applied there
   * (null until the install or setup step has succeeded). Null in sessions from before issue 12.
   * `installed`: for each folder of packages an install or a setup made in the worktree itself,
   * a fingerprint of what it held when the step succeeded (server/env/dependency-guard.ts).
   */
  environment: z
    .object({ plan: EnvPlanSchema, ready_at: z.iso.datetime().nullable(), installed: z.record(z.string(), z.string()).optional() })
    .nullable()
    .default(null),
  /** Set once the session branch is merged (the backup ref undoes it). */
  merged: z
    .object({ strategy: z.enum(['merge', 'squash', 'ff']), into: z.string(), sha: z.string(), backup_ref: z.string(), undo: z.string(), at: z.iso.datetime() })
    .nullable()
    .default(null),
  pushed: z.object({ remote: z.string(), branch: z.string(), at: z.iso.datetime() }).nullable().default(null),
  last_stop: StopReasonSchema.nullable().default(null),
  last_error: z.string().nullable().default(null),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type Checkpoint = z.infer<typeof CheckpointSchema>;

export const TaskStatusSchema = z.enum(['pending', 'in_progress', 'done', 'failed']);
export const PrdEntrySchema = z.object({
  id: TaskIdSchema,
  title: z.string().min(1),
  description: z.string().min(1),
  acceptance_criteria: z.array(z.string().min(1)).min(1),
  /**
   * Per acceptance criterion (same order), the test cases in the task's test file that check it.
   * Every seed the sink writes has it; a seed from before it was asked for does not.
   */
  criteria_tests: z.array(z.array(z.string().min(1)).min(1)).optional(),
  /**
   * Test machinery files (conftest.py, runner configs, package.json's scripts…) this task may
   * change, relative to the worktree; only the user sets it, in seed review. Absent: none.
   */
  may_change_test_setup: z.array(z.string().min(1)).optional(),
  status: TaskStatusSchema.default('pending'),
  /**
   * Which attempt at the task this is: absent for the first; 2, 3… after a reviewer sent the
   * accepted task back (its work is then committed as `<id> (rev n): <title>` on top of the last).
   */
  revision: z.number().int().min(2).optional(),
});
export type PrdEntry = z.infer<typeof PrdEntrySchema>;
export const PrdSchema = z.array(PrdEntrySchema);

export const SeedMetaSchema = z.object({
  interviewer_model: z.string(),
  started_at: z.iso.datetime(),
  ended_at: z.iso.datetime(),
  tokens: z.object({ prompt: z.number().int(), completion: z.number().int(), total: z.number().int() }),
  cost_usd: z.number().nonnegative().default(0),
  tldr: z.string(),
  open_questions: z.array(z.string()),
  blockers: z.array(z.string()),
  scope_notes: z.string(),
  checks_preset: ChecksPresetSchema,
  custom_checks: CustomChecksSchema.optional(),
  /** A setup command set in seed review: run in the worktree before the worker, instead of what detection chose. */
  setup_command: z.string().min(1).optional(),
  /**
   * The environment the seed was written for: with the preset it fixes where the acceptance tests
   * live, how they are named and which interpreter runs them. Missing in seeds from before issue 12,
   * which keep the old names (`tests/…`) and `python3`.
   */
  project_env: ProjectEnvSchema.nullable().optional(),
  /** sha256 of each seed test file, by path relative to the worktree; a case may not change them. */
  locked_tests: z.record(z.string(), z.string()),
  /**
   * Ids of tasks removed in seed review. They are never given to a new task: an id names one task
   * for the whole session, in its events and commits.
   */
  removed_task_ids: z.array(z.string()).optional(),
});
export type SeedMeta = z.infer<typeof SeedMetaSchema>;

export const AcCoverageSchema = z.object({
  criterion: z.string(),
  addressed_by: z.string(),
  evidence: z.string().optional(),
});
export const CaseSchema = z.object({
  summary: z.string().min(1),
  ac_coverage: z.array(AcCoverageSchema),
  work_arounds: z.array(z.string()).optional(),
  uncertainties: z.array(z.string()).optional(),
});
export type Case = z.infer<typeof CaseSchema>;

export const VerdictSchema = z.object(verdictFields);
export type Verdict = z.infer<typeof VerdictSchema>;

/**
 * The red proof of one named test case, on the seed commit: `failed` is what a test of work not
 * yet done should do (an assertion, or the module or symbol the task adds is missing); `passed`
 * already (it cannot tell whether the work was done); `not_run` the runner's report shows it never
 * executed (no case by that name, skipped, a bare function unittest does not collect); `flaky` it
 * both passed and failed over the repeated runs, so it counts as neither; `error` it failed for
 * another reason — a syntax error, a missing framework, a runner refusing the file — or did not
 * finish. The green proof uses the same values at the task's commit.
 */
export const RedResultSchema = z.enum(['failed', 'passed', 'error', 'not_run', 'flaky']);
export type RedResult = z.infer<typeof RedResultSchema>;

export const CaseProofSchema = z.object({
  test: z.string(),
  result: RedResultSchema,
  /** Why, in words: the failure's reason, or what went wrong. */
  detail: z.string(),
  /** Each run's result when the case ran more than once (TILTH_PROOF_REPEATS), in order. */
  runs: z.array(RedResultSchema).optional(),
});
export type CaseProof = z.infer<typeof CaseProofSchema>;

export { MutationCoverageSchema, MutationReportSchema, type MutationCoverage, type MutationReport } from './events.ts';

export const LedgerEntrySchema = z.object({
  ts: z.iso.datetime(),
  iter: z.number().int().positive(),
  diff_summary: z.string(),
  case: CaseSchema.nullable(),
  verdict: VerdictSchema,
  checks: z.array(CheckResultSchema).optional(),
  /** On an accept: each test case the seed names for the task's criteria, run alone at the task's commit (the green proof). */
  green: z.array(CaseProofSchema).optional(),
  /** The task's revision this verdict belongs to; absent for the first. */
  revision: z.number().int().min(2).optional(),
});
export type LedgerEntry = z.infer<typeof LedgerEntrySchema>;

/**
 * A reviewer's send-back of a done task (issue 15): what the next revision must answer. Each
 * comment keeps the lines around its anchor as they were when it was sent, since the code moves on.
 */
export const SendBackSchema = z.object({
  revision: z.number().int().min(2),
  ts: z.iso.datetime(),
  note: z.string().nullable(),
  comments: z.array(
    z.object({
      id: z.string(),
      file: z.string(),
      line: z.number().int().positive(),
      side: z.enum(['old', 'new']),
      text: z.string(),
      /** The lines around the anchor (the first one's number), or null when the file could not be read there. */
      excerpt: z.object({ start: z.number().int().positive(), lines: z.array(z.string()) }).nullable(),
    }),
  ),
  /** The worker's accepted case and the evaluator's verdict on it, as they stood when the task was sent back. */
  previous_case: CaseSchema.nullable(),
  last_verdict: VerdictSchema.nullable(),
});
export type SendBack = z.infer<typeof SendBackSchema>;

export const SteeringNoteSchema = z.object({
  note_id: z.string(),
  ts: z.iso.datetime(),
  text: z.string().min(1),
  consumed_at: z.iso.datetime().nullable().default(null),
});
export type SteeringNote = z.infer<typeof SteeringNoteSchema>;

/** A chat message as the interview persists it (OpenAI shape, reasoning echoed back). */
export const ChatMessageSchema = z
  .object({
    role: z.enum(['system', 'user', 'assistant', 'tool']),
    content: z.string().nullable().optional(),
    tool_calls: z.array(z.unknown()).optional(),
    tool_call_id: z.string().optional(),
    reasoning: z.string().optional(),
    reasoning_details: z.array(z.unknown()).optional(),
  })
  .loose();
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

export const PendingQuestionSchema = z.object({
  question_id: z.string(),
  tool_call_id: z.string(),
  text: z.string(),
  options: z.array(z.string()).optional(),
  asked_at: z.iso.datetime(),
  /** Tool calls of the same turn after ask_user: answered "not run" once the user has answered. */
  skipped_tool_call_ids: z.array(z.string()).default([]),
  /** The model wrote ask_user as text: the answer goes back in a user message, not a tool message. */
  via_text: z.boolean().optional(),
});

export const InterviewStateSchema = z.object({
  trace_id: z.string(),
  started_at: z.iso.datetime(),
  /** Model turns so far (the cap is 60). */
  iterations: z.number().int().nonnegative(),
  messages: z.array(ChatMessageSchema),
  pending: PendingQuestionSchema.nullable(),
  /** Every question and its answer, for the interview page after a restart. */
  history: z.array(z.object({ question_id: z.string(), text: z.string(), options: z.array(z.string()).optional(), answer: z.string() })).default([]),
});
export type InterviewState = z.infer<typeof InterviewStateSchema>;

/**
 * A rewind under way (`rewind.json`): written before anything moves and removed once all is done,
 * so a rewind cut short by a crash is finished by the next rewind or resume (every step repeats
 * safely).
 */
export const RewindIntentSchema = z.object({
  after: z.union([z.literal('seed'), TaskIdSchema]),
  rewind: z.number().int().positive(),
  from_sha: z.string(),
  to_sha: z.string(),
  backup_ref: z.string(),
  tasks: z.array(TaskIdSchema),
  /** `seed: added` commits to put back on top of `to_sha`, oldest first (absent: none). */
  replay: z.array(z.string()).optional(),
  started_at: z.iso.datetime(),
});
export type RewindIntent = z.infer<typeof RewindIntentSchema>;

/** Names one Run asked through the API of a server whose runs go through the queue. */
export const RunRequestIdSchema = z.string().regex(/^r-[0-9a-f]{16}$/, 'a run request id looks like r- and 16 hex digits');

/**
 * run-request.json: the API asked for a run that goes through the queue. Written before the job
 * is queued; the worker that takes the job removes it, and a job that names no open request is
 * not run, so a job replayed from Redis cannot start a session nobody asked to run.
 */
export const RunRequestSchema = z.strictObject({
  request_id: RunRequestIdSchema,
  requested_at: z.iso.datetime(),
});
export type RunRequest = z.infer<typeof RunRequestSchema>;
