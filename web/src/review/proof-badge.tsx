import type { RedResult } from '../../../shared/files.ts';
import type { TaskCriterion } from '../../../shared/review.ts';

/**
 * The red proof in words: each named case, run alone on the seed commit, should fail because the
 * work is not done yet. One that passes already cannot tell done from not done; one that fails for
 * another reason (a syntax error, a missing framework, no case by that name) proves nothing.
 */
const RED: Record<RedResult | 'none', { text: string; tone: string; title: string }> = {
  failed: { text: 'fails before the work ✓', tone: 'good', title: 'Red proof: on the seed commit these tests fail, as a test of work not yet done should.' },
  passed: { text: 'passes already', tone: 'warning', title: 'Red proof: these tests pass before any work, so they cannot tell whether the work was done.' },
  error: {
    text: 'fails for the wrong reason',
    tone: 'error',
    title: 'Red proof: these tests fail on the seed commit for a reason other than the missing work.',
  },
  not_run: {
    text: 'never ran',
    tone: 'error',
    title: "Red proof: the runner's report shows a named test never ran on the seed commit (no case by that name, or skipped).",
  },
  flaky: {
    text: 'flaky',
    tone: 'error',
    title: 'Red proof: a named test both passed and failed over repeated runs on the seed commit, so it proves nothing.',
  },
  none: { text: 'not proven yet', tone: 'none', title: 'The red proof has not run for these tests yet.' },
};

type Green = NonNullable<TaskCriterion['green']>;

const GREEN: Record<Green | 'none', { text: string; tone: string; title: string }> = {
  passed: { text: 'passes after the work ✓', tone: 'good', title: "Green proof: every named test passes at the task's commit." },
  failed: { text: 'fails after the work', tone: 'error', title: "Green proof: a named test fails at the task's commit." },
  none: { text: 'not proven after', tone: 'none', title: 'The green proof runs each time the checks pass, before the evaluator is asked.' },
};

export function RedBadge({ red }: { red: RedResult | null }) {
  const { text, tone, title } = RED[red ?? 'none'];
  return (
    <span className={`badge proof proof-${tone}`} data-testid="red-badge" data-red={red ?? 'none'} title={title}>
      {text}
    </span>
  );
}

export function GreenBadge({ green }: { green: Green | null }) {
  const { text, tone, title } = GREEN[green ?? 'none'];
  return (
    <span className={`badge proof proof-${tone}`} data-testid="green-badge" data-green={green ?? 'none'} title={title}>
      {text}
    </span>
  );
}

/** A criterion's test case names, in monospace; JavaScript titles may hold commas, so one chip each. */
export function TestNames({ tests }: { tests: readonly string[] }) {
  if (tests.length === 0) {
    return (
      <span className="muted small" data-testid="criterion-tests" data-count={0}>
        no test named
      </span>
    );
  }
  return (
    <span className="test-names" data-testid="criterion-tests" data-count={tests.length}>
      {tests.map((name) => (
        <code key={name} className="test-name" data-testid="criterion-test">
          {name}
        </code>
      ))}
    </span>
  );
}

/** The evaluator's word on one criterion in its last verdict, and its one-sentence reason. */
export function EvaluatorWord({ word }: { word: TaskCriterion['evaluator'] }) {
  if (word === null) {
    return (
      <span className="badge proof proof-none" data-testid="evaluator-word" data-met="none" title="The evaluator gave no word on this criterion.">
        evaluator: no word
      </span>
    );
  }
  return (
    <>
      <span
        className={`badge proof ${word.met ? 'proof-good' : 'proof-error'}`}
        data-testid="evaluator-word"
        data-met={word.met}
        title="The evaluator's word on this criterion in its last verdict."
      >
        {word.met ? 'evaluator: met ✓' : 'evaluator: not met'}
      </span>
      <span className="muted small evaluator-note" data-testid="evaluator-note">
        {word.note}
      </span>
    </>
  );
}

/** The test machinery the seed lets the task change; nothing when none (the usual case). */
export function MayChangeTestSetup({ paths }: { paths: readonly string[] | undefined }) {
  if (!paths || paths.length === 0) return null;
  return (
    <p className="small" data-testid="may-change-test-setup">
      May change how the tests run: <span className="mono">{paths.join(', ')}</span>
    </p>
  );
}

/**
 * What the mutation probe says of a criterion's tests: they never run the task's changed code, or
 * they run lines where a mistake went unnoticed. Nothing when they ran it and noticed every one.
 */
export function MutantBadge({ survivors, runsChangedCode }: { survivors: number; runsChangedCode: boolean | null }) {
  if (runsChangedCode === false) {
    return (
      <span
        className="badge proof proof-error"
        data-testid="mutant-badge"
        data-mutants="not-run"
        title="Line coverage: these tests never run the lines of the task's code."
      >
        never runs the changed code
      </span>
    );
  }
  if (survivors === 0) return null;
  return (
    <span
      className="badge proof proof-warning"
      data-testid="mutant-badge"
      data-mutants="survived"
      title="Mutation probe: these tests run a line where a small mistake went unnoticed."
    >
      {survivors === 1 ? 'misses a mistake' : `misses ${survivors} mistakes`}
    </span>
  );
}
