/**
 * The shapes the proof modules share: a runner's report read into one form (report-parsers.ts and
 * each runner's reader), and the verdict on a run of a test file (contract-check.ts and each
 * runner's classifier). Types only, so a runner's module and the modules that dispatch to it do
 * not import each other.
 */

export type CaseOutcome = 'passed' | 'failed' | 'skipped';

export interface ReportCase {
  /** Relative to the worktree where the runner says; null where it does not (node 20's junit). */
  file: string | null;
  /** The case's own name (a method, a test function, an `it` title). */
  name: string;
  /** How the matrix may name it: pytest `Class::name`, unittest `Class.name`, JS describe titles and the name joined by spaces. */
  fullTitle: string;
  outcome: CaseOutcome;
  /** The failure's message (empty for a pass). */
  message: string;
}

export interface LoadError {
  /** Relative to the worktree; null where the runner does not say which file. */
  file: string | null;
  message: string;
}

export interface RunnerReport {
  cases: ReportCase[];
  /** Files that failed to load (import, collection), with the runner's message. */
  loadErrors: LoadError[];
  /** unittest: module-level `test_…` functions, which unittest never collects. */
  bare?: { file: string; name: string }[];
  /** unittest: names given that are not in their module (the loader's "Failed to access attribute"). */
  unknown?: { name: string; message: string }[];
}

export type RunVerdict =
  | { kind: 'fails_as_expected'; reason: string }
  | { kind: 'passes' }
  /** `runner`: the runner itself cannot run, so every file says the same. */
  | { kind: 'environment'; message: string; runner?: true }
  | { kind: 'does_not_load'; message: string }
  | { kind: 'timed_out'; message: string };
