import type { ContractWarning } from '../../../shared/seed.ts';

const KIND_LABELS: Record<ContractWarning['kind'], string> = {
  criteria_vs_assertions: 'criteria vs assertions',
  no_assertions: 'cannot fail',
  does_not_load: 'does not load',
  already_passes: 'already passes',
  check_failed: 'check not run',
  environment: 'environment problem',
  case_error: 'test fails for the wrong reason',
};

/** The contract check, one warning per problem, before anything runs. */
export function ContractWarnings({ warnings }: { warnings: readonly ContractWarning[] }) {
  return (
    <section className="contract" aria-label="Contract check">
      <h2>Contract check</h2>
      {warnings.length === 0 ? (
        <p className="muted" data-testid="contract-ok">
          Every test file loads, has assertions, and matches its task's criteria.
        </p>
      ) : (
        <ul className="contract-list">
          {warnings.map((w, i) => (
            <li
              // biome-ignore lint/suspicious/noArrayIndexKey: one check's warnings, fixed once loaded; two can read the same
              key={i}
              className={`callout ${w.kind === 'environment' ? 'callout-error' : 'callout-warning'} contract-warning`}
              data-testid="contract-warning"
              data-kind={w.kind}
              data-task-id={w.task_id ?? undefined}
            >
              <span className="badge">{KIND_LABELS[w.kind]}</span> {w.task_id !== null && <strong>{w.task_id}: </strong>}
              {w.message}
              {w.file !== null && <div className="mono small">{w.file}</div>}
              {w.output !== undefined && w.output !== '' && (
                <details className="contract-output" open={w.kind === 'environment'}>
                  <summary>Output</summary>
                  <pre className="error-detail">{w.output}</pre>
                </details>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
