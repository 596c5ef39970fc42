import type { ChecksPreset, ContractWarning } from '../../../shared/seed.ts';

const KIND_LABELS: Record<ContractWarning['kind'], string> = {
  criteria_vs_assertions: 'criteria vs assertions',
  no_assertions: 'cannot fail',
  does_not_load: 'does not load',
  already_passes: 'already passes',
  check_failed: 'check not run',
  environment: 'environment problem',
  case_error: 'test fails for the wrong reason',
};

/**
 * The contract check, one warning per problem, before anything runs; while it runs again (after
 * a save, or on "Check again") it says so instead of showing what no longer holds.
 */
export function ContractWarnings(props: { warnings: readonly ContractWarning[]; checking: boolean; preset: ChecksPreset }) {
  const { warnings, checking } = props;
  return (
    <section className="contract" aria-label="Contract check" aria-busy={checking}>
      <h2>Contract check</h2>
      {checking ? (
        <p className="muted" role="status" data-testid="contract-checking">
          Checking the tests again on the plan as it is now…
        </p>
      ) : warnings.length === 0 ? (
        <div data-testid="contract-ok">
          <p>Checked before any work, and nothing to fix:</p>
          <ul className="contract-checked">
            <li>every task has an acceptance test file, with at least one assertion per acceptance criterion;</li>
            <li>each test file loads and runs here, and fails — none passes already, so passing later means the work was done;</li>
            {/* The custom command runs whole files: no case is run alone. */}
            {props.preset !== 'custom' && (
              <li>each test case named for a criterion, run alone, fails because the work is missing, not for another reason (a typo, a missing fixture).</li>
            )}
          </ul>
        </div>
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
