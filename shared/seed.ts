/**
 * The seed contract shared by the sink (server), the seed review page (web) and the interview's
 * `write_seed` tool: checks presets with their test-file patterns, the bundle the interviewer
 * writes, and the contract-check warnings shown before a run.
 */
import { z } from 'zod';
import { PrdEntrySchema, SeedMetaSchema, ChecksPresetSchema, CustomChecksSchema, type ChecksPreset } from './files.ts';

export { ChecksPresetSchema, CustomChecksSchema, type ChecksPreset, type CustomChecks } from './files.ts';

/** Test files live under `tests/` in the worktree; names by preset (SPEC §6, "Checks"). */
export const TEST_DIR = 'tests';

export const TEST_FILE_PATTERNS: Record<ChecksPreset, { regex: RegExp; example: string; describe: string }> = {
  pytest: { regex: /^tests\/test_t(\d{3,})_[a-z0-9_]+\.py$/, example: 'tests/test_t001_add_parser.py', describe: 'tests/test_t<NNN>_<slug>.py' },
  node: { regex: /^tests\/t(\d{3,})_[a-z0-9_-]+\.test\.(js|mjs)$/, example: 'tests/t001_add_parser.test.js', describe: 'tests/t<NNN>_<slug>.test.js (or .mjs)' },
  custom: { regex: /^tests\/t(\d{3,})_[a-z0-9_.-]+$/, example: 'tests/t001_add_parser.test.ts', describe: 'tests/t<NNN>_<slug>.<ext>' },
};

/** What `write_seed` carries (and `PUT /seed` edits): tasks plus one test file per task. */
export const SeedBundleSchema = z.object({
  prd_entries: z.array(z.unknown()),
  /** Path relative to the worktree (e.g. `tests/test_t001_x.py`) → file content. */
  test_files: z.record(z.string(), z.unknown()),
  tldr: z.unknown().optional(),
  open_questions: z.unknown().optional(),
  blockers: z.unknown().optional(),
  scope_notes: z.unknown().optional(),
});
export type SeedBundle = z.infer<typeof SeedBundleSchema>;

export const ContractWarningSchema = z.object({
  task_id: z.string().nullable(),
  file: z.string().nullable(),
  kind: z.enum(['criteria_vs_assertions', 'no_assertions', 'does_not_load', 'already_passes', 'check_failed']),
  message: z.string(),
  /** The first lines of the run's output, for does_not_load. */
  output: z.string().optional(),
});
export type ContractWarning = z.infer<typeof ContractWarningSchema>;

export const SeedViewSchema = z.object({
  prd: z.array(PrdEntrySchema),
  meta: SeedMetaSchema,
  test_files: z.record(z.string(), z.string()),
  contract: z.array(ContractWarningSchema),
});
export type SeedView = z.infer<typeof SeedViewSchema>;

/** PUT /api/sessions/:id/seed: the edited tasks and test files (ids and file set stay the sink's to check). */
export const SeedEditSchema = z.strictObject({
  prd_entries: z.array(z.strictObject({ id: z.string(), title: z.string(), description: z.string(), acceptance_criteria: z.array(z.string()) })),
  test_files: z.record(z.string(), z.string()),
  checks_preset: ChecksPresetSchema.optional(),
  custom_checks: CustomChecksSchema.optional(),
  /** A shell command run in the worktree before the worker (overrides `.tilth/setup` and detection); null removes it. */
  setup_command: z.string().trim().min(1).max(2_000).nullable().optional(),
});
export type SeedEdit = z.infer<typeof SeedEditSchema>;
