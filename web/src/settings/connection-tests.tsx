import type { ConfigResponse, ModelRole } from '../../../shared/api.ts';
import { ROLE_LABELS } from './settings-draft.ts';

export type TestState = { state: 'testing' } | { state: 'done'; ok: boolean; detail: string };

const ROLES: readonly ModelRole[] = ['worker', 'evaluator', 'prep'];

/** Where each role's calls go (after falling back to the worker's), with Test connection for each. */
export function ConnectionTests(props: {
  roles: ConfigResponse['roles'];
  results: Partial<Record<ModelRole, TestState>>;
  unsaved: boolean;
  onTest: (role: ModelRole) => void;
}) {
  return (
    <section className="panel connection-tests" data-testid="connection-tests" aria-labelledby="connection-tests-title">
      <h2 id="connection-tests-title">Test connection</h2>
      <p className="muted settings-intro">
        Asks each role's endpoint for its model list (or, where there is none, a one-token reply), with the settings in effect now.
        {props.unsaved && <strong className="warning-text"> Unsaved changes are not tested: save first.</strong>}
      </p>
      <ul className="role-list">
        {ROLES.map((role) => {
          const view = props.roles[role];
          const result = props.results[role];
          return (
            <li key={role} className="role-item" data-testid="role-test" data-role={role} data-configured={view.configured}>
              <div className="role-head">
                <strong className="role-name">{ROLE_LABELS[role]}</strong>
                {view.configured ? (
                  <span className="role-endpoint">
                    <code>{view.model}</code> at <code>{view.base_url}</code>
                    {!view.key_set && <span className="muted"> (no key)</span>}
                  </span>
                ) : (
                  <span className="muted">not configured</span>
                )}
                <button
                  type="button"
                  className="button button-secondary button-small role-test-button"
                  data-testid="test-connection"
                  disabled={!view.configured || result?.state === 'testing'}
                  onClick={() => props.onTest(role)}
                >
                  {result?.state === 'testing' ? 'Testing…' : 'Test connection'}
                </button>
              </div>
              {result?.state === 'done' && (
                <p
                  className={`test-result ${result.ok ? 'test-ok' : 'test-failed'}`}
                  data-testid="test-result"
                  data-ok={result.ok}
                  role={result.ok ? 'status' : 'alert'}
                >
                  <span aria-hidden="true">{result.ok ? '✓ ' : '✗ '}</span>
                  {result.detail}
                </p>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
