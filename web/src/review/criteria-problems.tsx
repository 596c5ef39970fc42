import type { CriterionProblem } from '../../../shared/review.ts';

/**
 * The criteria of done tasks whose evidence falls short — no test, not red before the work, not
 * green at the commit, or never claimed — for the session review and the merge dialog alike.
 */
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
