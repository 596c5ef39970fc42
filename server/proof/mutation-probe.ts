/**
 * The mutation probe (issue 14): after a task is accepted and committed, the lines its commit
 * changed are mutated one small mistake at a time, and the task's acceptance tests run against
 * each mutant in a scratch worktree at that commit, sandboxed, within a time budget. A mutant the
 * tests still pass "survives": a mistake they would not notice. Before the mutants, each case the
 * task's matrix names runs alone with line coverage (line-coverage.ts), so a survivor is told
 * with the criteria whose cases run its line (issue 28). A survivor informs; a task whose every
 * mutant survives, or a criterion whose cases never run the changed code, is unproven at merge
 * (server/review/review.ts).
 *
 * It runs beside the next task (its own worktree, its own processes), so the run is not held up;
 * the run waits for the last probes before it says all done.
 */
import path from 'node:path';
import type { Checkpoint, CustomChecks, MutationCoverage, MutationReport } from '../../shared/files.ts';
import type { ProjectEnv } from '../../shared/project-env.ts';
import type { ChecksPreset } from '../../shared/seed.ts';
import { scratchScope } from '../env/session-env.ts';
import { inOneProcess, packageGroups, packageScope, taskIdOfTestFile, testCommand } from '../env/presets.ts';
import { LinkRefusedError, Tree } from '../fs/tree.ts';
import { git } from '../git/git-base.ts';
import { withScratchWorktree } from '../git/repo.ts';
import type { SandboxConfig } from '../proc/sandbox.ts';
import { runUntrusted } from '../proc/untrusted.ts';
import { coverCases } from './line-coverage.ts';
import { type Mutant, mutantsFor, mutatedUnder } from './mutants.ts';

export const DEFAULT_PROBE_BUDGET_MS = 60_000;
/** Survivors listed in the report; the counts cover all. */
const MAX_SURVIVORS = 20;

export interface ProbeInput {
  /** The session's sandbox, which the tests of each mutant run in. */
  sandbox: SandboxConfig;
  checkpoint: Checkpoint;
  taskId: string;
  /** The task's commit. */
  sha: string;
  /** Where the scratch worktree goes (removed before and after). */
  scratch: string;
  preset: ChecksPreset;
  customChecks?: CustomChecks | undefined;
  project: ProjectEnv | null;
  /** The seed's locked test files (paths): the task's own are found among them. */
  lockedTests: string[];
  /** The task's matrix: per criterion, the cases that check it (each is run alone with line coverage). */
  criteriaTests?: string[][] | undefined;
  budgetMs: number;
  signal?: AbortSignal | undefined;
  now?: () => number;
  /** Told how many mutants there are to try, once they are made (before the first runs). */
  onPlanned?: (mutants: number) => void;
}

/** What a preset's tests exercise, in words, for the note when the commit changed none of it. */
const LANGUAGE_WORDS: Record<ChecksPreset, string> = {
  vitest: 'JavaScript or TypeScript',
  jest: 'JavaScript or TypeScript',
  mocha: 'JavaScript or TypeScript',
  ava: 'JavaScript or TypeScript',
  tap: 'JavaScript or TypeScript',
  uvu: 'JavaScript or TypeScript',
  node: 'JavaScript or TypeScript',
  pytest: 'Python',
  unittest: 'Python',
  go: 'Go',
  cargo: 'Rust',
  custom: 'JavaScript, TypeScript, Python, Go or Rust',
};

/** Added lines per file in `sha` against its parent, for the files a mutant can be made of. */
async function changedLines(source: string, sha: string, tests: Set<string>, preset: ChecksPreset): Promise<Map<string, number[]>> {
  const out = await git(source).raw(['diff', '-U0', '--no-color', '--no-ext-diff', `${sha}^`, sha]);
  const lines = new Map<string, number[]>();
  let file: string | null = null;
  for (const line of out.split('\n')) {
    const target = /^\+\+\+ b\/(.+)$/.exec(line);
    if (target) {
      file = target[1]!;
      continue;
    }
    if (line.startsWith('+++ ')) file = null;
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (hunk && file !== null && !tests.has(file) && mutatedUnder(preset, file)) {
      const start = Number(hunk[1]);
      const count = hunk[2] === undefined ? 1 : Number(hunk[2]);
      const list = lines.get(file) ?? [];
      for (let i = 0; i < count; i++) list.push(start + i);
      lines.set(file, list);
    }
  }
  return lines;
}

/** A file of the scratch worktree as text; null when it is a link, not a regular file, or reached through a link leading out. */
function readOwnFile(scratch: Tree, file: string): string | null {
  try {
    return scratch.readFileNoFollow(file)?.toString('utf8') ?? null;
  } catch (err) {
    if (err instanceof LinkRefusedError) return null;
    throw err;
  }
}

export async function probeTask(input: ProbeInput): Promise<MutationReport> {
  const now = input.now ?? (() => performance.now());
  const started = now();
  const cp = input.checkpoint;
  const report = (over: Partial<MutationReport>): MutationReport => ({
    status: 'done',
    killed: 0,
    survived: 0,
    survivors: [],
    note: null,
    duration_ms: Math.round(now() - started),
    ...over,
  });
  const tests = input.lockedTests.filter((f) => taskIdOfTestFile(input.preset, f, input.project) === input.taskId);
  if (tests.length === 0) return report({ note: 'the task has no acceptance test file' });
  // In a workspace the task's tests run from their package's folder, with its runner.
  const where = packageGroups(input.preset, input.project, tests)[0]!;
  const lines = await changedLines(cp.source, input.sha, new Set(input.lockedTests), where.preset);
  if (lines.size === 0) return report({ note: `the commit changed no ${LANGUAGE_WORDS[where.preset]} lines outside the tests` });

  return withScratchWorktree(cp.source, input.scratch, input.sha, async () => {
    const env = await scratchScope(input.sandbox, cp, input.scratch, 'mutation_probe', input.signal);
    if (!env.ok) return report({ note: `the environment could not be prepared: ${env.applied.problem ?? 'unknown problem'}` });
    // The tests stay as committed while the commit's code runs against its mutants.
    const scope = packageScope({ ...env.scope, frozen: input.lockedTests }, where.dir);
    const tree = Tree.at(input.scratch);
    const read = (f: string) => tree.readFileNoFollow(path.posix.join(where.dir, f))?.toString('utf8') ?? null;
    const command = inOneProcess(testCommand(where.preset, where.files, input.customChecks, where.env, read));
    const deadline = started + input.budgetMs;
    // Beside the next task: the run's own work gets the CPU first.
    const run = (timeoutMs: number) => runUntrusted(command, scope, { timeoutMs, env: {}, signal: input.signal, background: true });
    const baselineStarted = now();
    const baseline = await run(Math.max(1_000, deadline - now()));
    if (baseline.exitCode !== 0) return report({ note: 'the acceptance tests do not pass at the commit, so a mutant proves nothing' });
    // A mutant's run gets the baseline's time and some slack: a mutant that loops is killed by its timeout.
    const perRun = Math.max(2_000, Math.round((now() - baselineStarted) * 3));

    // Mutants are written only into the scratch copy, through the tree: a file the commit made a
    // link (to the user's checkout, a dotfile, Tilth's own config), or one reached through a
    // linked folder, is not mutated, so nothing outside the scratch worktree is ever rewritten.
    const scratch = Tree.at(input.scratch);
    const notMutated: string[] = [];
    const plans: { file: string; original: string; mutants: Mutant[] }[] = [];
    for (const [file, changed] of lines) {
      const original = readOwnFile(scratch, file);
      if (original === null) notMutated.push(file);
      else plans.push({ file, original, mutants: mutantsFor(file, original, changed) });
    }

    input.onPlanned?.(plans.reduce((n, p) => n + p.mutants.length, 0));

    // Which criterion's cases run which changed line, before any mutant is written.
    const tracingStarted = now();
    const traced =
      input.criteriaTests && input.criteriaTests.length > 0
        ? await coverCases({
            preset: where.preset,
            project: where.env,
            testFile: where.files[0]!,
            criteriaTests: input.criteriaTests,
            changed: new Map(plans.map((p) => [p.file, lines.get(p.file)!])),
            tree: scratch,
            scope,
            timeoutMs: Math.max(5_000, perRun * 2),
            remainingMs: () => deadline - now(),
            signal: input.signal,
          })
        : null;
    const coverage: MutationCoverage | null =
      traced && !('why' in traced)
        ? {
            ...traced,
            mutated: Object.fromEntries(plans.map((p) => [p.file, [...new Set(p.mutants.map((m) => m.line))]])),
            duration_ms: Math.round(now() - tracingStarted),
          }
        : null;
    const criteriaOf = (file: string, line: number) =>
      coverage ? { criteria: coverage.criteria.flatMap((ran, i) => (ran?.[file]?.includes(line) ? [i] : [])) } : {};

    let killed = 0;
    let survived = 0;
    let untried = 0;
    const survivors: MutationReport['survivors'] = [];
    for (const { file, original, mutants } of plans) {
      for (const mutant of mutants) {
        if (now() + perRun > deadline) {
          untried++;
          continue;
        }
        input.signal?.throwIfAborted();
        scratch.writeFile(file, mutant.source);
        const result = await run(perRun);
        if (result.exitCode === 0 && !result.timedOut) {
          survived++;
          if (survivors.length < MAX_SURVIVORS) survivors.push({ file, line: mutant.line, description: mutant.description, ...criteriaOf(file, mutant.line) });
        } else killed++;
      }
      scratch.writeFile(file, original);
    }
    const notes = [
      ...(notMutated.length > 0 ? [`not mutated, being a symbolic link or reached through one: ${notMutated.join(', ')}`] : []),
      ...(untried > 0 ? [`${untried} more mutants were not tried within the budget`] : []),
      ...(traced && 'why' in traced ? [`survivors are not attributed to criteria: ${traced.why}`] : []),
    ];
    return report({ killed, survived, survivors, note: notes.length > 0 ? notes.join('; ') : null, coverage });
  });
}
