import type { Case } from '../../../shared/files.ts';
import type { Claim, CoverageView } from '../../../shared/coverage.ts';
import type { TaskCriterion } from '../../../shared/review.ts';
import { MiniMarkdown } from '../components/mini-markdown.tsx';
import { EvaluatorWord, GreenBadge, MutantBadge, RedBadge, TestNames } from './proof-badge.tsx';

export interface CaseCoverageProps {
  finalCase: Case | null;
  coverage: CoverageView;
  accepted: boolean;
  /** The server's row per criterion (same order): the test cases that check it, red before and green after. */
  proofs: readonly TaskCriterion[];
}

/**
 * The worker's case: its summary, then each acceptance criterion with the test cases that check
 * it (red on the seed commit, green at the task's commit) beside where the worker says it is
 * addressed and its evidence — or "not covered" — and any claims about nothing in the plan.
 */
export function CaseCoverage({ finalCase, coverage, accepted, proofs }: CaseCoverageProps) {
  const uncovered = coverage.criteria.filter((c) => c.claims.length === 0).length;
  return (
    <div className="case-coverage" data-testid="case-coverage" data-has-case={finalCase !== null} data-uncovered={uncovered}>
      {finalCase === null ? (
        <p className="muted" data-testid="case-missing">
          The worker has not submitted a case for this task.
        </p>
      ) : (
        <div className="case-summary" data-testid="case-summary">
          <h3 className="section-label">{accepted ? 'Final case (accepted)' : 'Latest case'}</h3>
          <MiniMarkdown text={finalCase.summary} />
        </div>
      )}
      <h3 className="section-label">
        Acceptance criteria{' '}
        <span className="muted">
          — {coverage.criteria.length - uncovered} of {coverage.criteria.length} covered by the case
        </span>
      </h3>
      <ol className="criteria-coverage">
        {coverage.criteria.map((c) => {
          const proof = proofs[c.index];
          const survivors = proof?.survivors ?? [];
          const unproven = survivors.length > 0 || proof?.runs_changed_code === false;
          return (
            <li
              key={c.index}
              className={`criterion ${c.claims.length > 0 ? 'criterion-covered' : 'criterion-uncovered'}${unproven ? ' criterion-mutants' : ''}`}
              data-testid="criterion"
              data-index={c.index}
              data-covered={c.claims.length > 0}
              data-red={proof?.red ?? 'none'}
              data-green={proof?.green ?? 'none'}
              data-claimed-by={proof?.claimed_by ?? undefined}
              data-survivors={survivors.length}
              data-runs-changed-code={proof?.runs_changed_code ?? 'unknown'}
            >
              <div className="criterion-text">
                <span className="criterion-mark" aria-hidden="true">
                  {unproven ? '!' : c.claims.length > 0 ? '✓' : '○'}
                </span>
                <span>{c.criterion}</span>
              </div>
              {proof !== undefined && (
                <div className="criterion-proof" data-testid="criterion-matrix">
                  <TestNames tests={proof.tests} />
                  <span className="muted small">before</span>
                  <RedBadge red={proof.red} />
                  <span className="muted small">after</span>
                  <GreenBadge green={proof.green} />
                  <EvaluatorWord word={proof.evaluator} />
                  <MutantBadge survivors={survivors.length} runsChangedCode={proof.runs_changed_code ?? null} />
                </div>
              )}
              {proof?.runs_changed_code === false && (
                <p className="criterion-missing" data-testid="criterion-not-run">
                  Its tests never run the task's changed code, so they cannot be what proves it.
                </p>
              )}
              {survivors.length > 0 && (
                <ul className="criterion-survivors" data-testid="criterion-survivors">
                  {survivors.map((s) => (
                    <li key={`${s.file}:${s.line}:${s.description}`} data-testid="criterion-survivor">
                      Its tests run <span className="mono">{`${s.file}:${s.line}`}</span>, and none notices if it {s.description}.
                    </li>
                  ))}
                </ul>
              )}
              {c.claims.length === 0 ? (
                <p className="criterion-missing" data-testid="criterion-not-covered">
                  Not covered by the case.
                </p>
              ) : (
                <ClaimList claims={c.claims} showCriterion={false} />
              )}
            </li>
          );
        })}
      </ol>
      {coverage.unmatched.length > 0 && (
        <div className="unmatched-claims" data-testid="unmatched-claims">
          <h3 className="section-label">Claims that match no criterion</h3>
          <ClaimList claims={coverage.unmatched} showCriterion />
        </div>
      )}
      {finalCase?.work_arounds !== undefined && finalCase.work_arounds.length > 0 && <NoteList title="Work-arounds" items={finalCase.work_arounds} />}
      {finalCase?.uncertainties !== undefined && finalCase.uncertainties.length > 0 && <NoteList title="Uncertainties" items={finalCase.uncertainties} />}
    </div>
  );
}

function ClaimList({ claims, showCriterion }: { claims: readonly Claim[]; showCriterion: boolean }) {
  return (
    <ul className="claims">
      {claims.map((claim, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a submitted case never changes; the position in its list is the identity
        <li key={i} className="claim" data-testid="claim">
          {showCriterion && <p className="claim-criterion">“{claim.criterion}”</p>}
          <dl className="claim-facts">
            <dt>Addressed by</dt>
            <dd className="mono" data-testid="claim-addressed-by">
              {claim.addressed_by}
            </dd>
            {claim.evidence !== undefined && claim.evidence !== '' && (
              <>
                <dt>Evidence</dt>
                <dd data-testid="claim-evidence">{claim.evidence}</dd>
              </>
            )}
          </dl>
        </li>
      ))}
    </ul>
  );
}

function NoteList({ title, items }: { title: string; items: readonly string[] }) {
  return (
    <div className="case-notes">
      <h3 className="section-label">{title}</h3>
      <ul>
        {items.map((item, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a submitted case never changes; the position in its list is the identity
          <li key={i}>{item}</li>
        ))}
      </ul>
    </div>
  );
}
