import type { CriterionProblem, Survivor } from '../../../shared/review.ts';

/**
 * The criteria of done tasks whose evidence falls short — no test, not red before the work, not
 * green at the commit, or never claimed — for the session review and the merge dialog alike.
 */
/** What the mutation probes found the done tasks' tests would not notice: shown, never a reason to refuse. */
export function MutationSurvivors({ survivors }: { survivors: Survivor[] }) {
  if (survivors.length === 0) return null;
  return (
    <div className="callout criteria-problems" role="note" data-testid="mutation-survivors">
      <p>
        The mutation probe changed the tasks' code in ways {survivors.length === 1 ? 'one change' : `${survivors.length} changes`} went unnoticed by their
        tests: worth a look, or a stronger test.
      </p>
      <ul>
        {survivors.map((s, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a report never changes; two survivors can read the same
          <li key={i} data-testid="mutation-survivor">
            <span className="mono">{s.task_id}</span> <span className="mono">{`${s.file}:${s.line}`}</span>: no test notices if it {s.description}
          </li>
        ))}
      </ul>
    </div>
  );
}

export function CriteriaProblems({ problems }: { problems: CriterionProblem[] }) {
  if (problems.length === 0) return null;
  return (
    <div className="callout callout-warning criteria-problems" role="note" data-testid="criteria-problems">
      <p>
        {problems.length === 1 ? 'One acceptance criterion is' : `${problems.length} acceptance criteria are`} not backed by evidence; merging needs the
        explicit override.
      </p>
      <ul>
        {problems.map((p) => (
          <li key={`${p.task_id}:${p.criterion}`} data-testid="criterion-problem" data-problem={p.problem}>
            <span className="mono">{p.task_id}</span> “{p.criterion}”: {p.detail}
          </li>
        ))}
      </ul>
    </div>
  );
}
