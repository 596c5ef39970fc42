/**
 * The seed contract shared by the sink (server), the seed review page (web) and the interview's
 * `write_seed` tool: checks presets with their test-file patterns, the bundle the interviewer
 * writes, and the contract-check warnings shown before a run.
 */
import { z } from 'zod';
import {
  CaseProofSchema,
  ChecksPresetSchema,
  CustomChecksSchema,
  PrdEntrySchema,
  RedResultSchema,
  SeedMetaSchema,
  type CaseProof,
  type ChecksPreset,
  type PrdEntry,
  type RedResult,
} from './files.ts';
import { globMatches } from './glob.ts';
import { DEFAULT_TEST_GLOBS, drivenPackages, packageEnv, type ProjectEnv } from './project-env.ts';

export { CaseProofSchema, RedResultSchema, type CaseProof, type RedResult };

export { ChecksPresetSchema, CustomChecksSchema, type ChecksPreset, type CustomChecks } from './files.ts';

/**
 * The test runner behind each preset, by the name its users know it by. `custom` is left to each
 * side: the server's messages say "the custom command", the pickers say "Custom".
 */
export const RUNNER_NAMES: Record<Exclude<ChecksPreset, 'custom'>, string> = {
  vitest: 'Vitest',
  jest: 'Jest',
  mocha: 'Mocha',
  ava: 'AVA',
  tap: 'node-tap',
  uvu: 'uvu',
  node: 'node --test',
  pytest: 'pytest',
  unittest: 'unittest',
  go: 'go test',
  cargo: 'cargo test',
};

/**
 * Where a preset's acceptance tests go and how they are named, for an environment (SPEC §6,
 * "Checks"; issue 12). The file must be one the project's own runner picks up with its own
 * config — so `npm test` runs it after the merge too — and must carry the task's number, which
 * is how a file is paired with its task. Sessions without an environment (from before issue 12)
 * keep the original names: `tests/t<NNN>_<slug>.test.js` and `tests/test_t<NNN>_<slug>.py`.
 */
export interface TestFileRule {
  /** A whole path relative to the root; group 1 is the task's digits. */
  regex: RegExp;
  /** The name for T-001, e.g. `tests/t001_add_parser.test.ts`. */
  example: string;
  /** The rule in words, e.g. `tests/t<NNN>_<slug>.test.ts (or .test.tsx)`. */
  describe: string;
  /** The folder the files go in, relative to the root (`tests`, `test`, `src/__tests__`, …). */
  dir: string;
  /** The start of the name for a task's digits: `tests/t001_`, `tests/test_t001_`. */
  prefix: (digits: string) => string;
  /** The name's accepted endings, the usual one first: `.test.ts`, `.py`. */
  endings: string[];
  /** What the slug and ending may be, in words, for error messages. */
  slugRule: string;
}

/** Folders tried for the tests when the project's own do not settle it, most usual first. */
const CONVENTIONAL_DIRS = ['tests', 'test', '__tests__', 'spec', 'src/__tests__'];
const SAFE_DIR = /^(?!node_modules(\/|$))[A-Za-z0-9_][\w-]*(\/[A-Za-z0-9_][\w-]*)*$/;
const EXAMPLE_SLUG = 'add_parser';
/** A Go package folder, with its trailing slash: none of go's ignored folders on the way. */
const SAFE_GO_DIR = /^(?!(?:.*\/)?(?:vendor|testdata)\/)(?:[A-Za-z0-9][\w.-]*\/)+$/;

/** The extensions a JavaScript runner's tests may have here, the usual one first. */
function extensions(preset: 'vitest' | 'jest' | 'mocha' | 'ava' | 'tap' | 'uvu' | 'node', env: ProjectEnv | null): string[] {
  const ts = env?.typescript === true;
  switch (preset) {
    case 'node':
      // Node 20 cannot load TypeScript; ESM or CommonJS JavaScript only.
      return ['js', 'mjs', 'cjs'];
    case 'vitest':
      return ts ? ['ts', 'tsx', 'mts', 'js', 'mjs'] : ['js', 'mjs', 'jsx', 'ts'];
    case 'jest':
      // Jest's default moduleFileExtensions leave out .mjs and .cjs: such a file is never found.
      return ts ? ['ts', 'tsx', 'js', 'jsx'] : ['js', 'jsx'];
    case 'mocha':
      return ts ? ['ts', 'js', 'mjs', 'cjs'] : ['js', 'mjs', 'cjs'];
    case 'ava':
      // AVA's default extensions; TypeScript needs a loader the project configures itself.
      return ['js', 'mjs', 'cjs'];
    case 'uvu':
      // Loaded by node as they are: TypeScript needs a loader (`uvu -r tsm`) the checks do not add.
      return ['js', 'mjs', 'cjs'];
    case 'tap':
      // tap 18+ loads TypeScript through its default plugin.
      return ts ? ['ts', 'mts', 'js', 'mjs', 'cjs'] : ['js', 'mjs', 'cjs'];
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/**
 * How acceptance test files are named. In a workspace whose detected runner the session kept, a
 * test lives in one package, under that package's rule (its runner's folders and endings), with
 * the package's folder in front: `packages/core/tests/t001_add_parser.test.ts`.
 */
export function testFileRule(preset: ChecksPreset, env: ProjectEnv | null = null): TestFileRule {
  const packages = env && preset === env.test_runner ? drivenPackages(env) : [];
  if (env === null || packages.length === 0) return projectRule(preset, env);
  const rules = packages.map((p) => ({ dir: p.dir, rule: projectRule(p.test_runner!, packageEnv(env, p)) }));
  // Each package's whole rule, its digits uncaptured, checked ahead; the digits then taken from the name.
  const bodies = rules.map(
    ({ dir, rule }) => `${escapeRegExp(dir)}/${rule.regex.source.replace(/^\^/, '').replace(/\$$/, '').replace('(\\d{3,})', '(?:\\d{3,})')}`,
  );
  const first = rules[0]!;
  const shown = rules.slice(0, 3).map(({ dir, rule }) => `${dir}/${rule.describe}`);
  const more = rules.length > shown.length ? `, or in one of the workspace's ${rules.length - shown.length} other packages` : '';
  return {
    regex: new RegExp(`^(?=(?:${bodies.join('|')})$)(?:[^/]+/)*(?:test_)?t(\\d{3,})_[^/]*$`),
    example: `${first.dir}/${first.rule.example}`,
    describe: `${shown.join(', or ')}${more} (in the package whose code it tests)`,
    dir: `${first.dir}/${first.rule.dir}`,
    prefix: (digits) => `${first.dir}/${first.rule.prefix(digits)}`,
    endings: [...new Set(rules.flatMap(({ rule }) => rule.endings))],
    slugRule: `the file goes in the package whose code it tests, under that package's rule; ${first.rule.slugRule}`,
  };
}

function projectRule(preset: ChecksPreset, env: ProjectEnv | null): TestFileRule {
  const globs = env && env.test_runner === preset && env.test_globs.length > 0 ? env.test_globs : preset === 'custom' ? [] : DEFAULT_TEST_GLOBS[preset];
  const picked = (names: (dir: string) => string[]) => {
    const dirs = [...new Set([...(env?.test_dirs ?? []), ...CONVENTIONAL_DIRS])].filter((d) => SAFE_DIR.test(d));
    for (const dir of dirs) {
      const matching = names(dir).filter((name) => globs.some((g) => globMatches(g, name)));
      if (matching.length > 0) return { dir, matching };
    }
    return null;
  };
  switch (preset) {
    case 'pytest':
    case 'unittest': {
      const dir = env ? (picked((d) => [`${d}/test_t001_${EXAMPLE_SLUG}.py`])?.dir ?? 'tests') : 'tests';
      return {
        regex: new RegExp(`^${escapeRegExp(dir)}/test_t(\\d{3,})_[a-z0-9_]+\\.py$`),
        example: `${dir}/test_t001_${EXAMPLE_SLUG}.py`,
        describe: `${dir}/test_t<NNN>_<slug>.py`,
        dir,
        prefix: (digits) => `${dir}/test_t${digits}_`,
        endings: ['.py'],
        slugRule: 'the slug uses lowercase letters, digits and _ only',
      };
    }
    case 'go': {
      // Go tests live in the folder of the package they test (same package or its `_test`
      // twin), so the folder is the interviewer's choice; go ignores `vendor/`, `testdata/` and
      // folders starting with `.` or `_`, so those are not allowed.
      const dir = env?.test_dirs.find((d) => SAFE_GO_DIR.test(`${d}/`)) ?? '';
      const at = dir === '' ? '' : `${dir}/`;
      return {
        regex: /^(?!(?:.*\/)?(?:vendor|testdata)\/)(?:[A-Za-z0-9][\w.-]*\/)*t(\d{3,})_[a-z0-9_]+_test\.go$/,
        example: `${at}t001_${EXAMPLE_SLUG}_test.go`,
        describe: '<package folder>/t<NNN>_<slug>_test.go',
        dir: dir === '' ? '.' : dir,
        prefix: (digits) => `${at}t${digits}_`,
        endings: ['_test.go'],
        slugRule:
          'the file goes in the folder of the package it tests (the module root for the root package), the slug uses lowercase letters, digits and _ only, and the name ends in _test.go',
      };
    }
    case 'cargo':
      // Integration tests: cargo builds each file directly under `tests/` as its own test target,
      // named by the file's stem, which `--test <stem>` selects; a stem is a Rust identifier.
      return {
        regex: /^tests\/t(\d{3,})_[a-z0-9_]+\.rs$/,
        example: `tests/t001_${EXAMPLE_SLUG}.rs`,
        describe: 'tests/t<NNN>_<slug>.rs',
        dir: 'tests',
        prefix: (digits) => `tests/t${digits}_`,
        endings: ['.rs'],
        slugRule: 'the file sits directly in tests/, the slug uses lowercase letters, digits and _ only, and the name ends in .rs',
      };
    case 'custom':
      return {
        regex: /^tests\/t(\d{3,})_[a-z0-9_.-]+$/,
        example: `tests/t001_${EXAMPLE_SLUG}.test.ts`,
        describe: 'tests/t<NNN>_<slug>.<ext>',
        dir: 'tests',
        prefix: (digits) => `tests/t${digits}_`,
        endings: [''],
        slugRule: 'the rest of the name uses lowercase letters, digits, _, - and . only',
      };
    default: {
      const exts = extensions(preset, env);
      const endingsIn = (suffix: string) => exts.map((e) => `${suffix}.${e}`);
      const found = env
        ? (picked((d) => endingsIn('.test').map((end) => `${d}/t001_${EXAMPLE_SLUG}${end}`)) ??
          picked((d) => endingsIn('.spec').map((end) => `${d}/t001_${EXAMPLE_SLUG}${end}`)))
        : null;
      const dir = found?.dir ?? 'tests';
      const endings = found ? found.matching.map((name) => name.slice(`${dir}/t001_${EXAMPLE_SLUG}`.length)) : endingsIn('.test');
      const [first, ...others] = endings as [string, ...string[]];
      const alternatives = others.slice(0, 2);
      return {
        regex: new RegExp(`^${escapeRegExp(dir)}/t(\\d{3,})_[a-z0-9_-]+(?:${endings.map(escapeRegExp).join('|')})$`),
        example: `${dir}/t001_${EXAMPLE_SLUG}${first}`,
        describe: `${dir}/t<NNN>_<slug>${first}${alternatives.length > 0 ? ` (or ${alternatives.join(', ')})` : ''}`,
        dir,
        prefix: (digits) => `${dir}/t${digits}_`,
        endings,
        slugRule: `the slug uses lowercase letters, digits, _ and - only, and the name ends in ${endings.slice(0, 3).join(' or ')}`,
      };
    }
  }
}

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
  /**
   * `environment`: the tests cannot run in this environment (runner or dependency not installed,
   * a file the runner cannot parse or does not pick up); it blocks the run until fixed. The rest
   * are warnings the user may accept — except `case_error`: a test case the seed names for a
   * criterion failed on the seed commit for a reason other than the missing work (the red proof),
   * which blocks the run too.
   */
  kind: z.enum(['criteria_vs_assertions', 'no_assertions', 'does_not_load', 'already_passes', 'check_failed', 'environment', 'case_error']),
  message: z.string(),
  /** The first lines of the run's output, for does_not_load, environment and check_failed. */
  output: z.string().optional(),
});
export type ContractWarning = z.infer<typeof ContractWarningSchema>;

const SEVERITY: Record<RedResult, number> = { failed: 0, passed: 1, flaky: 2, not_run: 3, error: 4 };

/** The worst of a criterion's case proofs: an error over one that never ran over a flaky one over one that passes already over a good red. */
export function worstProof(proofs: readonly CaseProof[]): CaseProof | null {
  return proofs.reduce<CaseProof | null>((worst, p) => (worst === null || SEVERITY[p.result] > SEVERITY[worst.result] ? p : worst), null);
}

/** The proofs among `proofs` of the test cases `task` names for criterion `index`. */
export function proofsOfCriterion(task: PrdEntry, index: number, proofs: readonly CaseProof[]): CaseProof[] {
  const tests = task.criteria_tests?.[index] ?? [];
  return proofs.filter((p) => tests.includes(p.test));
}

/** seed-proof.json: the red proof of the seed as it was when `key` was computed. */
export const SeedProofSchema = z.object({
  key: z.string(),
  at: z.iso.datetime(),
  /** Per task id, one entry per named test case. */
  tasks: z.record(z.string(), z.array(CaseProofSchema)),
});
export type SeedProof = z.infer<typeof SeedProofSchema>;

/** One acceptance criterion in seed review: the test cases that check it and their red proof. */
export const SeedCriterionSchema = z.object({
  criterion: z.string(),
  tests: z.array(z.string()),
  /** The worst red result of its tests (error over passed over failed); null before the proof ran. */
  red: RedResultSchema.nullable(),
  red_detail: z.string().nullable(),
});
export type SeedCriterion = z.infer<typeof SeedCriterionSchema>;

export const SeedViewSchema = z.object({
  prd: z.array(PrdEntrySchema),
  meta: SeedMetaSchema,
  test_files: z.record(z.string(), z.string()),
  contract: z.array(ContractWarningSchema),
  /** Per task id, one row per acceptance criterion, in order. */
  criteria: z.record(z.string(), z.array(SeedCriterionSchema)),
});
export type SeedView = z.infer<typeof SeedViewSchema>;

/**
 * PUT /api/sessions/:id/seed: the seed as saved, its contract check run again on it, and the
 * commit that recorded the edit (null when the edit changed nothing, so nothing was committed).
 */
export const SeedSavedSchema = SeedViewSchema.extend({
  saved: z.object({ sha: z.string().nullable(), changed: z.array(z.string()) }),
});
export type SeedSaved = z.infer<typeof SeedSavedSchema>;

/** GET /api/sessions/:id/seed: `recheck=1` runs a contract check with an environment problem again. */
export const SeedQuerySchema = z.strictObject({ recheck: z.literal('1').optional() });

/** PUT /api/sessions/:id/seed: the edited tasks and test files (ids and file set stay the sink's to check). */
export const SeedEditSchema = z.strictObject({
  prd_entries: z.array(
    z.strictObject({
      id: z.string(),
      title: z.string(),
      description: z.string(),
      acceptance_criteria: z.array(z.string()),
      /** Per criterion, the test cases that check it; the sink says what is missing or unknown. */
      criteria_tests: z.array(z.array(z.string())).optional(),
      /** Test machinery paths the task may change (only the user sets this). */
      may_change_test_setup: z.array(z.string()).optional(),
    }),
  ),
  test_files: z.record(z.string(), z.string()),
  checks_preset: ChecksPresetSchema.optional(),
  custom_checks: CustomChecksSchema.optional(),
  /** A shell command run in the worktree before the worker (overrides `.tilth/setup` and detection); null removes it. */
  setup_command: z.string().trim().min(1).max(2_000).nullable().optional(),
});
export type SeedEdit = z.infer<typeof SeedEditSchema>;
