/**
 * Review and getting the work out (SPEC §7): the task review, the session review, and the merge,
 * push, PR and cleanse actions. Diffs travel as unified-diff text plus a file list; the web parses
 * and renders the text.
 */
import { z } from 'zod';
import { EvidenceStatusSchema } from './evidence.ts';
import { CheckResultSchema } from './events.ts';
import { RedResultSchema } from './files.ts';
import {
  CaseProofSchema,
  CaseSchema,
  LedgerEntrySchema,
  MutationReportSchema,
  PrdEntrySchema,
  SendBackSchema,
  SessionIdSchema,
  TaskIdSchema,
} from './files.ts';
import { intFromQuery } from './query.ts';
import { TaskSummarySchema } from './summary.ts';

export const TaskParamsSchema = z.strictObject({
  id: SessionIdSchema,
  taskId: TaskIdSchema,
});

export const DiffFileSchema = z.object({
  path: z.string(),
  /** The old path of a rename. */
  old_path: z.string().nullable(),
  status: z.enum(['added', 'modified', 'deleted', 'renamed']),
  additions: z.number().int().nonnegative(),
  deletions: z.number().int().nonnegative(),
  binary: z.boolean(),
});
export type DiffFile = z.infer<typeof DiffFileSchema>;

/** The unified diff is cut past this many characters (the file list is always whole). */
export const DIFF_TEXT_CAP = 2_000_000;

export const DiffSchema = z.object({
  files: z.array(DiffFileSchema),
  /** `git diff` output (no binary payloads: binary files appear as "Binary files differ"). */
  text: z.string(),
  truncated: z.boolean(),
});
export type Diff = z.infer<typeof DiffSchema>;

export const CommitSchema = z.object({ sha: z.string(), subject: z.string(), date: z.string() });

/** GET …/tasks/:taskId/diff: one revision's commit; without it, the latest revision's. */
export const TaskDiffQuerySchema = z.strictObject({
  revision: z.coerce.number().int().positive().optional(),
});

// ── Review comments (issue 15) ───────────────────────────────────────────────────────────────

export const CommentIdSchema = z.string().regex(/^c-[a-z0-9]{6,32}$/, 'a comment id looks like c-1a2b3c');
/** A diff line's side: `new` is the line as the branch has it, `old` as the base had it (a removed line). */
export const CommentSideSchema = z.enum(['old', 'new']);

/** What a reviewer writes on a diff line: the file, the line on its side, and the words. */
export const CommentInputSchema = z.strictObject({
  /** The task whose diff it was written on; null (or absent) on the session diff. */
  task_id: TaskIdSchema.nullable().optional(),
  file: z.string().trim().min(1).max(1_000),
  line: z.number().int().positive(),
  side: CommentSideSchema,
  text: z.string().trim().min(1, 'a comment needs some text').max(10_000),
});
export const CommentEditSchema = z.strictObject({ text: z.string().trim().min(1, 'a comment needs some text').max(10_000) });
export const CommentParamsSchema = z.strictObject({ id: SessionIdSchema, commentId: CommentIdSchema });

export const ReviewCommentSchema = z.object({
  id: CommentIdSchema,
  ts: z.iso.datetime(),
  task_id: TaskIdSchema.nullable(),
  file: z.string(),
  line: z.number().int().positive(),
  side: CommentSideSchema,
  text: z.string(),
  /** Set when the comment went back to the worker with a task: which task and revision answers it. Fixed from then on. */
  sent: z.object({ task_id: TaskIdSchema, revision: z.number().int().min(2), ts: z.iso.datetime() }).nullable(),
});
export type ReviewComment = z.infer<typeof ReviewCommentSchema>;

/**
 * The most comments a session keeps, open and sent together. A thorough review of a large change
 * runs to tens of comments, a send-back takes at most 200, and a session is reviewed a handful of
 * times: a person does not reach a thousand. A script that loops does, and every comment is
 * kept in one file that the review pages list and each send-back reads, so past the cap a new one
 * is refused (`too_many_comments`) rather than letting that file and the list grow without end.
 */
export const SESSION_COMMENTS_MAX = 1_000;
/** The most comments one page of the list carries (a page is at most ~2 MB even at the longest text). */
export const COMMENTS_PAGE_MAX = 200;

/** GET …/comments: oldest first, `limit` at a time (100 unless asked), from after the comment `after` names. */
export const CommentsQuerySchema = z.strictObject({
  after: CommentIdSchema.optional(),
  limit: intFromQuery('limit', 1, COMMENTS_PAGE_MAX, 100),
});

export const CommentListSchema = z.object({
  /** Oldest first. */
  comments: z.array(ReviewCommentSchema),
  /** Pass as `after` for the next page: the last comment of this page (or the `after` asked, on an empty page); null when there are none. */
  next_after: CommentIdSchema.nullable(),
  /** Comments exist after this page. */
  has_more: z.boolean(),
});
export type CommentList = z.infer<typeof CommentListSchema>;

/** Send a done task back: a note, and the comments that go with it (absent: every open one on its diff). */
export const ReopenRequestSchema = z.strictObject({
  note: z.string().trim().max(10_000).optional(),
  comment_ids: z.array(CommentIdSchema).max(200).optional(),
});
export const ReopenResultSchema = z.object({ task: PrdEntrySchema, send_back: SendBackSchema });
export type ReopenResult = z.infer<typeof ReopenResultSchema>;

/** A task added after the run: what the reviewer says it is; the model writes its test. */
export const NewTaskSchema = z.strictObject({
  title: z.string().trim().min(1, 'a task needs a title').max(200),
  description: z.string().trim().min(1, 'a task needs a description').max(10_000),
  acceptance_criteria: z
    .array(z.string().trim().min(1, 'a criterion cannot be empty').max(2_000))
    .min(1, 'a task needs at least one acceptance criterion')
    .max(20),
});
export type NewTask = z.infer<typeof NewTaskSchema>;

export const AddedTaskSchema = z.object({
  task: PrdEntrySchema,
  test_file: z.string(),
  /** The red proof of its cases on the current tip (empty for the custom preset, which runs whole files). */
  red: z.array(CaseProofSchema),
  sha: z.string().nullable(),
});
export type AddedTask = z.infer<typeof AddedTaskSchema>;

/**
 * The last add-task of a session (`add-task.json`), as the page follows it across reloads: running
 * while the model writes the test and the proof runs, then added or failed (declined, refused,
 * cancelled, past its deadline — `code` says which, `message` says it in words). `interrupted`
 * is how the server reports a running one that nothing holds any more (the process ended).
 */
export const AddTaskStateSchema = z.discriminatedUnion('state', [
  z.object({ state: z.literal('running'), title: z.string(), started_at: z.string() }),
  z.object({
    state: z.literal('added'),
    title: z.string(),
    started_at: z.string(),
    ended_at: z.string(),
    task_id: z.string(),
    test_file: z.string(),
    /** Its cases proven failing before the work. */
    red: z.number().int().nonnegative(),
  }),
  z.object({ state: z.literal('failed'), title: z.string(), started_at: z.string(), ended_at: z.string(), code: z.string(), message: z.string() }),
  z.object({ state: z.literal('interrupted'), title: z.string(), started_at: z.string() }),
]);
export type AddTaskState = z.infer<typeof AddTaskStateSchema>;

/** `cancelled` is false when no task was being added, or it was already written when the cancel came. */
export const AddTaskCancelSchema = z.object({ cancelled: z.boolean() });
export type AddTaskCancel = z.infer<typeof AddTaskCancelSchema>;

/**
 * One line of `review-comments.jsonl`: the operations, appended in order and folded into the
 * current list, so a crash mid-append loses at most the last one and never an earlier send.
 */
export const CommentOpSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('add'), comment: ReviewCommentSchema }),
  z.object({ op: z.literal('edit'), id: CommentIdSchema, text: z.string().min(1), ts: z.iso.datetime() }),
  z.object({ op: z.literal('delete'), id: CommentIdSchema, ts: z.iso.datetime() }),
  z.object({ op: z.literal('send'), ids: z.array(CommentIdSchema).min(1), task_id: TaskIdSchema, revision: z.number().int().min(2), ts: z.iso.datetime() }),
]);
export type CommentOp = z.infer<typeof CommentOpSchema>;

/** One check run of a case, in order: failed ones included (those never reached the evaluator). */
export const CheckAttemptSchema = z.object({
  ts: z.string(),
  iter: z.number().int(),
  passed: z.boolean(),
  results: z.array(CheckResultSchema),
  /** The task's revision this attempt belongs to; absent for the first. */
  revision: z.number().int().min(2).optional(),
});
export type CheckAttempt = z.infer<typeof CheckAttemptSchema>;

/** One acceptance criterion in the task review: its tests, red before, green after, who claimed it. */
export const TaskCriterionSchema = z.object({
  criterion: z.string(),
  tests: z.array(z.string()),
  red: RedResultSchema.nullable(),
  /** Every named test case at the task's commit: passed, or (any of them) failed; null before it was proven. */
  green: z.enum(['passed', 'failed']).nullable(),
  /** Where the worker's final case says it is addressed; null when the case does not claim it. */
  claimed_by: z.string().nullable(),
  /** The evaluator's word on it in its last verdict (the accepting one for a done task); null when it gave none. */
  evaluator: z.object({ met: z.boolean(), note: z.string() }).nullable(),
  /** Surviving mutants on lines its tests run (the mutation probe's line coverage): they run it, and none notices the change. */
  survivors: z.array(z.object({ file: z.string(), line: z.number().int().positive(), description: z.string() })).optional(),
  /** Whether its tests run any line of the task's code a mutant was made of; null when that was not traced. */
  runs_changed_code: z.boolean().nullable().optional(),
});
export type TaskCriterion = z.infer<typeof TaskCriterionSchema>;

/**
 * A criterion of a done task that the evidence does not hold up: no test case checks it, its
 * tests did not fail before the work (red), did not pass at the commit (green), never run the
 * task's changed code, noticed none of the task's mutants, or the worker's case never claimed
 * it. Merging with any of them needs the explicit override, mutation gate or not.
 */
export const CriterionProblemSchema = z.object({
  task_id: TaskIdSchema,
  criterion: z.string(),
  problem: z.enum(['no_tests', 'not_red', 'not_green', 'unclaimed', 'changed_code_not_run', 'mutants_unnoticed']),
  /** In words, for the session review and the merge dialog. */
  detail: z.string(),
});
export type CriterionProblem = z.infer<typeof CriterionProblemSchema>;

/** A mutant of a done task's changed lines that its tests did not notice (informs; never blocks). */
export const SurvivorSchema = z.object({
  task_id: TaskIdSchema,
  file: z.string(),
  line: z.number().int().positive(),
  description: z.string(),
  /** The criteria whose tests run this line (their text); absent when the probe could not trace them. */
  run_by: z.array(z.string()).optional(),
});
export type Survivor = z.infer<typeof SurvivorSchema>;

/** A task's ledger and checks from before a rewind, kept in `archive/rewind-<n>/`. */
export const EarlierAttemptSchema = z.object({
  rewind: z.number().int().positive(),
  ledger: z.array(LedgerEntrySchema),
  checks: z.array(CheckAttemptSchema),
});
export type EarlierAttempt = z.infer<typeof EarlierAttemptSchema>;

export const TaskReviewSchema = z.object({
  task: PrdEntrySchema,
  criteria: z.array(TaskCriterionSchema),
  commits: z.array(CommitSchema),
  /** The worker's last case (the accepted one for a done task); null if it never made one. */
  final_case: CaseSchema.nullable(),
  /** Every verdict, oldest first. */
  ledger: z.array(LedgerEntrySchema),
  checks: z.array(CheckAttemptSchema),
  /** The mutation probe of the accepted task; null before it was accepted (or from before the probe). */
  mutation: MutationReportSchema.nullable(),
  /** Each time a reviewer sent the task back, oldest first: what revision 2, 3… was asked to answer. */
  send_backs: z.array(SendBackSchema),
  /** Iterations, cost, duration and counts from summary.json; null before the task ran. */
  stats: TaskSummarySchema.nullable(),
  /** What the task's attempts before each rewind left (oldest rewind first); empty when it was never rewound. */
  earlier_attempts: z.array(EarlierAttemptSchema),
});
export type TaskReview = z.infer<typeof TaskReviewSchema>;

/** A done task's receipt status and how many sentences say why it is not verified. */
export const TaskEvidenceStatusSchema = z.object({ task_id: TaskIdSchema, status: EvidenceStatusSchema, gaps: z.number().int().nonnegative() });
export type TaskEvidenceStatus = z.infer<typeof TaskEvidenceStatusSchema>;

export const SessionReviewSchema = z.object({
  branch: z.string(),
  base_branch: z.string().nullable(),
  base_sha: z.string().nullable(),
  /** The session branch's head, null when the branch is gone (cleansed). */
  head_sha: z.string().nullable(),
  tasks: z.array(PrdEntrySchema),
  commits: z.array(CommitSchema),
  diff: DiffSchema,
  /** proposed-learnings.md, or null when the run proposed none. */
  learnings: z.string().nullable(),
  /** Every criterion of a done task whose evidence falls short (empty when all hold up). */
  criteria_problems: z.array(CriterionProblemSchema),
  /** Surviving mutants of the done tasks, from their mutation probes. */
  survivors: z.array(SurvivorSchema),
  /** Each done task's evidence receipt status (issue 28); a done task without a receipt is left out. */
  evidence: z.array(TaskEvidenceStatusSchema).default([]),
  /** What may be done now, with the reason when not. */
  actions: z.object({
    merge: z.object({ allowed: z.boolean(), reason: z.string().nullable() }),
    push: z.object({ allowed: z.boolean(), reason: z.string().nullable(), remotes: z.array(z.string()) }),
    pr: z.object({ allowed: z.boolean(), reason: z.string().nullable(), gh: z.boolean() }),
    cleanse: z.object({ allowed: z.boolean(), reason: z.string().nullable() }),
    rewind: z.object({ allowed: z.boolean(), reason: z.string().nullable() }),
  }),
  merged: z.object({ into: z.string(), sha: z.string(), backup_ref: z.string(), undo: z.string() }).nullable(),
  pushed: z.object({ remote: z.string(), branch: z.string() }).nullable(),
});
export type SessionReview = z.infer<typeof SessionReviewSchema>;

export const MergeStrategySchema = z.enum(['merge', 'squash', 'ff']);
export type MergeStrategy = z.infer<typeof MergeStrategySchema>;

/** The dry run: the merge built in a scratch worktree and every acceptance test run on it. */
export const MergePreviewRequestSchema = z.strictObject({ strategy: MergeStrategySchema });
export const MergePreviewSchema = z.object({
  strategy: MergeStrategySchema,
  into: z.string(),
  /** The base branch's sha the preview was built on; the merge refuses if it moved since. */
  base_sha: z.string(),
  head_sha: z.string(),
  tests: z.array(CheckResultSchema),
  passed: z.boolean(),
  /** As in the session review: merging with any needs the override, like failing tests. */
  criteria_problems: z.array(CriterionProblemSchema),
  /** As in the session review; they need the override only when the mutation gate is on. */
  survivors: z.array(SurvivorSchema),
  /** TILTH_MUTATION_GATE: surviving mutants hold the merge back like an unproven criterion. */
  mutation_gate: z.boolean(),
});
export type MergePreview = z.infer<typeof MergePreviewSchema>;

export const MergeRequestSchema = z.strictObject({
  strategy: MergeStrategySchema,
  /** Merge even though the acceptance tests fail on the merge result, or a criterion's evidence falls short. */
  override_failed_tests: z.boolean().optional(),
});
export const MergeResultSchema = z.object({
  into: z.string(),
  sha: z.string(),
  backup_ref: z.string(),
  /** The command that undoes the merge. */
  undo: z.string(),
  tests: z.array(CheckResultSchema),
  passed: z.boolean(),
});
export type MergeResult = z.infer<typeof MergeResultSchema>;

export const PushRequestSchema = z.strictObject({ remote: z.string().min(1, 'name the remote, e.g. origin').max(200) });
export const PrRequestSchema = z.strictObject({ remote: z.string().min(1).max(200).optional() });
export const EmptyBodySchema = z.strictObject({});
export const PrResultSchema = z.object({ url: z.string(), via: z.enum(['gh', 'compare_url']) });
export type PrResult = z.infer<typeof PrResultSchema>;
export const PushResultSchema = z.object({ remote: z.string(), branch: z.string() });
export type PushResult = z.infer<typeof PushResultSchema>;
export const CleanseResultSchema = z.object({ removed_worktree: z.boolean(), removed_branch: z.boolean() });
export type CleanseResult = z.infer<typeof CleanseResultSchema>;

// ── Rewind (issue 15) ────────────────────────────────────────────────────────────────────────

/** Where a rewind moves the session branch: to after the seed, or after a done task's commit. */
export const RewindTargetSchema = z.string().regex(/^(?:seed|T-\d{3,})$/, 'after must be "seed" or a task id like T-001');
export type RewindTarget = z.infer<typeof RewindTargetSchema>;
export const RewindRequestSchema = z.strictObject({ after: RewindTargetSchema });
export const RewindPlanQuerySchema = z.strictObject({ after: RewindTargetSchema });

const ShaSubjectSchema = z.object({ sha: z.string(), subject: z.string() });

/**
 * What a rewind will do, computed without changing anything (like Resume's plan). A target with
 * nothing to undo answers a plan with `nothing_to_do` (and empty lists); the rewind itself is
 * then refused with `nothing_to_rewind`.
 */
export const RewindPlanSchema = z.object({
  after: RewindTargetSchema,
  /** n: the archive folder `archive/rewind-<n>/` and the backup ref's suffix. */
  rewind: z.number().int().positive(),
  /** The commit the branch moves to. */
  target: ShaSubjectSchema,
  /** The branch's tip now. */
  tip: ShaSubjectSchema,
  /** The commits that leave the branch, oldest first. */
  leaving: z.array(CommitSchema),
  /** Of those, the tests of tasks added after the run (`seed: added <id>`), put back on top of the target: the tasks stay, pending. */
  replayed: z.array(CommitSchema),
  /** Tasks that go back to pending (revision cleared), in plan order. */
  tasks: z.array(TaskIdSchema),
  /** Their ledger, checks and mutation files, as they will be kept under `archive/rewind-<n>/`. */
  archived: z.array(z.string()),
  /** Uncommitted changes in the worktree, discarded with the rest. */
  uncommitted: z.array(z.string()),
  /** The ref that will keep the old tip. */
  backup_ref: z.string(),
  nothing_to_do: z.boolean(),
});
export type RewindPlan = z.infer<typeof RewindPlanSchema>;

export const RewindResultSchema = z.object({
  after: RewindTargetSchema,
  rewind: z.number().int().positive(),
  from_sha: z.string(),
  to_sha: z.string(),
  backup_ref: z.string(),
  tasks: z.array(TaskIdSchema),
  /** Always `stopped`: Resume (or Run) continues from the target. */
  status: z.literal('stopped'),
});
export type RewindResult = z.infer<typeof RewindResultSchema>;
