import type { CriterionProblem, Survivor } from '../../../shared/review.ts';
import { SurvivorList } from '../components/survivor-list.tsx';

/**
 * What the mutation probes found the done tasks' tests would not notice: shown, and a reason to
 * hold the merge only when the mutation gate (TILTH_MUTATION_GATE) is on.
 */
export function MutationSurvivors({ survivors, gated = false }: { survivors: Survivor[]; gated?: boolean }) {
  if (survivors.length === 0) return null;
  return (
    <div className={`callout criteria-problems${gated ? ' callout-warning' : ''}`} role="note" data-testid="session-survivors" data-gated={gated}>
      <p>
        The mutation probe made small changes to the tasks' code, and {survivors.length === 1 ? 'one of them' : `${survivors.length} of them`} went unnoticed by
        their tests: {gated ? 'the mutation gate is on, so merging needs the explicit override.' : 'worth a look, or a stronger test.'}
      </p>
      <SurvivorList survivors={survivors} />
    </div>
  );
}

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
