/**
 * What Tilth knows about a repository's environment (issue 12): its languages, package manager,
 * test runner, TypeScript, Python interpreter and layout, and where its tests live. Detected at
 * the workspace check and at session creation (server/env/), shown on the new-session page and in
 * seed review, and used to give the worktree the project's environment and to pick the checks.
 */
import { z } from 'zod';

export const PackageManagerSchema = z.enum(['npm', 'pnpm', 'yarn', 'bun']);
export type PackageManager = z.infer<typeof PackageManagerSchema>;

export const TestRunnerSchema = z.enum(['vitest', 'jest', 'mocha', 'ava', 'tap', 'uvu', 'node', 'pytest', 'unittest', 'go', 'cargo']);
export type TestRunner = z.infer<typeof TestRunnerSchema>;

/** AVA 6's default `files`: its own folders and suffixes, in its default extensions. */
const AVA_FILES = [
  'test.{js,cjs,mjs}',
  '{src,source}/test.{js,cjs,mjs}',
  '**/__tests__/**/*.{js,cjs,mjs}',
  '**/*.{spec,test}.{js,cjs,mjs}',
  '**/test-*.{js,cjs,mjs}',
  '**/{test,tests}/**/*.{js,cjs,mjs}',
];

/** node-tap's default `include` (tap 18+, its TypeScript plugin loaded as by default): test folders, `.test`/`.spec` files, `test.js`. */
const TAP_EXTENSIONS = '{js,cjs,mjs,jsx,ts,cts,mts,tsx}';
const TAP_FILES = [
  `**/@(test|tests|__tests__|__test__)/**/*.${TAP_EXTENSIONS}`,
  `**/*.@(test|tests|spec).${TAP_EXTENSIONS}`,
  `**/@(test|tests).${TAP_EXTENSIONS}`,
];

/** uvu's CLI with no folder: files in test folders, `.test`/`.spec` files, `test.js` at the root (its default pattern). */
const UVU_FILES = [
  '**/@(test|tests|__test__|__tests__)/**/*.{js,mjs,cjs,jsx,ts,tsx}',
  '**/*.@(test|tests|spec).{js,mjs,cjs,jsx,ts,tsx}',
  '@(test|tests).{js,mjs,cjs}',
];

/**
 * Which files each runner picks up when its config does not say (relative to the root): vitest's
 * `include`, jest's `testMatch`, mocha's `spec`, AVA's `files`, node-tap's `include`, uvu's default pattern, Node 20's `node --test` with no arguments,
 * pytest's `python_files`, unittest discovery's `test*.py`, go's `_test.go` files, cargo's
 * integration tests (each file directly under `tests/` is a test target).
 */
export const DEFAULT_TEST_GLOBS: Record<TestRunner, string[]> = {
  vitest: ['**/*.{test,spec}.?(c|m)[jt]s?(x)'],
  jest: ['**/__tests__/**/*.?([mc])[jt]s?(x)', '**/?(*.)+(spec|test).?([mc])[jt]s?(x)'],
  mocha: ['./test/*.{js,cjs,mjs}'],
  ava: AVA_FILES,
  tap: TAP_FILES,
  uvu: UVU_FILES,
  node: ['**/*.test.?(c|m)js', '**/*-test.?(c|m)js', '**/*_test.?(c|m)js', '**/test-*.?(c|m)js', '**/test.?(c|m)js', '**/test/**/*.?(c|m)js'],
  pytest: ['**/test_*.py', '**/*_test.py'],
  unittest: ['**/test*.py'],
  go: ['**/*_test.go'],
  cargo: ['tests/*.rs'],
};

/**
 * Runners a project can name that Tilth does not drive yet (issue 29). Found, they are named on
 * the workspace check and in seed review, and the session gets the custom preset: never another
 * runner in their place, which would run the project's tests in a way its users do not.
 */
export const UndrivenRunnerSchema = z.enum(['ava', 'uvu', 'tap', 'bun', 'deno', 'cargo_workspace']);
export type UndrivenRunner = z.infer<typeof UndrivenRunnerSchema>;

/**
 * Each undriven runner by the name its users know it by, and the custom command seed review starts
 * from (null when it cannot take files): with `{junit}` where the runner writes JUnit XML that names
 * each case, so the custom checks get the whole evidence (per case, red and green proofs).
 */
export const UNDRIVEN_RUNNERS: Record<UndrivenRunner, { name: string; command: string | null }> = {
  /** Driven since issue 29; kept so a session detected before then still reads. */
  ava: { name: 'AVA', command: 'node_modules/.bin/ava {files}' },
  /** Driven since issue 29, through a runner of Tilth's own; kept so a session detected before then still reads. */
  uvu: { name: 'uvu', command: null },
  /** Driven since issue 29 from tap 18 on; an older tap is named so, with its own flag for no coverage check. */
  tap: { name: 'node-tap', command: 'node_modules/.bin/tap --no-coverage {files}' },
  bun: { name: 'bun test', command: 'bun test {files} --reporter=junit --reporter-outfile={junit}' },
  deno: { name: 'deno test', command: 'deno test {files} --junit-path={junit}' },
  /** A Cargo.toml that is a workspace of crates and no crate itself: its tests live in the members (issue 29, step 4). */
  cargo_workspace: { name: 'cargo test in a Cargo workspace', command: null },
};

/** Whether go builds the packages in a folder of this name: it skips `vendor`, `testdata` and names starting with `.` or `_`. */
export function goBuildsFolder(name: string): boolean {
  return name !== 'vendor' && name !== 'testdata' && !/^[._]/.test(name);
}

/** The tool a Python project declares for its environment (issue 29, step 5). */
export const PythonManagerSchema = z.enum(['uv', 'poetry', 'pipenv', 'hatch', 'tox', 'nox']);
export type PythonManager = z.infer<typeof PythonManagerSchema>;

export const PythonEnvSchema = z.object({
  /**
   * The interpreter the project's tests run with, as its users run them: the absolute path of its
   * `.venv`/`venv` one (run in place, so the venv's packages come with it; uv's too), Poetry's or
   * Pipenv's virtualenv outside the repository, a tox or nox environment, else the `python3.X` its
   * `.python-version` names when the PATH has it, else `python3` from the PATH.
   */
  interpreter: z.string(),
  /** Where the interpreter comes from: a virtualenv in the repository (`venv`), Poetry's or Pipenv's outside it, tox's or nox's, or the PATH. */
  source: z.enum(['venv', 'poetry', 'pipenv', 'tox', 'nox', 'system']),
  /** The environment tool the project declares, with where it says so; absent in environments recorded before it. */
  manager: z.object({ tool: PythonManagerSchema, evidence: z.string() }).nullable().optional(),
  /** The version `.python-version` asks for (`3.11`), when the repository has one. */
  python_version: z.string().nullable().optional(),
  /** Packages live under `src/` (the src layout). */
  src_layout: z.boolean(),
  /** Top-level import packages of the project (e.g. `todo` for `src/todo/`). */
  packages: z.array(z.string()),
});
export type PythonEnv = z.infer<typeof PythonEnvSchema>;

/**
 * One package of a workspace (issue 29, step 4): an npm/pnpm/yarn/bun workspace package, a Cargo
 * workspace member or a module of a go.work. Its tests run from its own folder with its own
 * runner, as its users run them (`pnpm --filter a test`, `cargo test -p a`, `cd a && go test`).
 * `test_dirs` and `test_globs` are relative to the package's folder.
 */
export const WorkspacePackageSchema = z.object({
  /** The package's folder, relative to the repository root (`packages/core`). */
  dir: z.string(),
  /** Its name (package.json's `name`, the crate's, the Go module path), else its folder. */
  name: z.string(),
  test_runner: TestRunnerSchema.nullable(),
  test_runner_evidence: z.string().nullable(),
  undriven_runner: z.object({ runner: UndrivenRunnerSchema, evidence: z.string() }).nullable(),
  test_dirs: z.array(z.string()),
  test_globs: z.array(z.string()),
  typescript: z.boolean(),
  module_type: z.enum(['esm', 'commonjs']).nullable(),
  rust_crate: z.string().nullable().optional(),
  /** The package has its own installed `node_modules` (pnpm's links, npm's nested installs). */
  node_modules: z.boolean(),
});
export type WorkspacePackage = z.infer<typeof WorkspacePackageSchema>;

export const WorkspaceSchema = z.object({
  /** What declares the workspace: the package manager's `workspaces` / pnpm-workspace.yaml, Cargo's `[workspace]`, go.work. */
  tool: z.enum(['npm', 'pnpm', 'yarn', 'bun', 'cargo', 'go']),
  /** Where it says so: `pnpm-workspace.yaml`, `package.json workspaces`, `Cargo.toml [workspace]`, `go.work`. */
  evidence: z.string(),
  packages: z.array(WorkspacePackageSchema),
});
export type Workspace = z.infer<typeof WorkspaceSchema>;

export const ProjectEnvSchema = z.object({
  languages: z.array(z.enum(['javascript', 'typescript', 'python', 'go', 'rust'])),
  package_manager: PackageManagerSchema.nullable(),
  /** The lockfile the package manager was read from, relative to the repository root. */
  lockfile: z.string().nullable(),
  /** `type` in package.json: how `.js` files load. */
  module_type: z.enum(['esm', 'commonjs']).nullable(),
  typescript: z.boolean(),
  test_runner: TestRunnerSchema.nullable(),
  /** Why that runner: "vitest.config.ts", "devDependencies.mocha", "scripts.test: jest". */
  test_runner_evidence: z.string().nullable(),
  /**
   * A runner the project names that Tilth does not drive yet, with why (as `test_runner_evidence`);
   * `test_runner` is then null. Absent in environments recorded before it existed.
   */
  undriven_runner: z.object({ runner: UndrivenRunnerSchema, evidence: z.string() }).nullable().optional(),
  /** Folders that hold the project's tests, relative to the root. */
  test_dirs: z.array(z.string()),
  /** Which files the runner picks up, as globs relative to the root. */
  test_globs: z.array(z.string()),
  python: PythonEnvSchema.nullable(),
  /**
   * Rust: the name integration tests import the crate's library by (`[lib] name`, else the
   * package's name with `-` as `_`); null when the crate has no library (no `src/lib.rs`), which
   * its tests under `tests/` cannot reach. Absent outside Rust and in environments recorded before it.
   */
  rust_crate: z.string().nullable().optional(),
  /** The checkout has its dependencies installed (`node_modules` at the root). */
  node_modules: z.boolean(),
  /** A committed setup command (`.tilth/setup`, the path relative to the root) that overrides detection. */
  setup_command: z.string().nullable(),
  /** The workspace the root declares, with its packages; absent or null for a single project. */
  workspace: WorkspaceSchema.nullable().optional(),
});
export type ProjectEnv = z.infer<typeof ProjectEnvSchema>;

/** The packages of a workspace whose tests Tilth runs with the runner it detected for them. */
export function drivenPackages(env: ProjectEnv | null | undefined): WorkspacePackage[] {
  return (env?.workspace?.packages ?? []).filter((p) => p.test_runner !== null);
}

/** The workspace package `file` (relative to the root) lies in: the one with the longest folder that holds it. */
export function packageOf(env: ProjectEnv | null | undefined, file: string): WorkspacePackage | null {
  let best: WorkspacePackage | null = null;
  for (const p of env?.workspace?.packages ?? []) {
    if (file.startsWith(`${p.dir}/`) && (best === null || p.dir.length > best.dir.length)) best = p;
  }
  return best;
}

/** The environment a package's tests run in: the root's (its package manager, interpreter) with the package's runner and layout. */
export function packageEnv(env: ProjectEnv, p: WorkspacePackage): ProjectEnv {
  return {
    ...env,
    test_runner: p.test_runner,
    test_runner_evidence: p.test_runner_evidence,
    undriven_runner: p.undriven_runner,
    test_dirs: p.test_dirs,
    test_globs: p.test_globs,
    typescript: p.typescript,
    module_type: p.module_type,
    ...(p.rust_crate !== undefined ? { rust_crate: p.rust_crate } : {}),
    node_modules: p.node_modules,
    workspace: null,
  };
}

/**
 * Where and how a test file of a session runs: in a workspace whose detected runner the session
 * kept, from its package's folder (`dir`, relative to the root; '' for the root) with the
 * package's runner, environment and the file's path inside the package; elsewhere as it is.
 */
export interface PackageRun<P extends string> {
  dir: string;
  preset: P | TestRunner;
  env: ProjectEnv | null;
  file: string;
}

export function packageRun<P extends string>(preset: P, env: ProjectEnv | null | undefined, file: string): PackageRun<P> {
  const p = env && preset === env.test_runner ? packageOf(env, file) : null;
  if (!env || !p || p.test_runner === null) return { dir: '', preset, env: env ?? null, file };
  return { dir: p.dir, preset: p.test_runner, env: packageEnv(env, p), file: file.slice(p.dir.length + 1) };
}
