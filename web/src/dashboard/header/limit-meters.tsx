import { memo } from 'react';
import type { Meter } from './meters.ts';

/** The bar's colour says it too; the words are for those who cannot tell amber from green. The text already says "(no cap)". */
const LEVEL_WORDS = { off: '', ok: '', amber: 'past 75%', red: 'past 90%' } as const;

/** Cost, wall clock and tokens for the session; iterations and evaluator calls for the task at hand. */
export const LimitMeters = memo(function LimitMeters({ meters }: { meters: readonly Meter[] }) {
  return (
    <section className="meters" aria-label="Limits" data-testid="limit-meters">
      {meters.map((m) => (
        <div key={m.key} className={`meter meter-${m.level}`} data-testid={`meter-${m.key}`} data-level={m.level} data-value={m.value} data-cap={m.cap}>
          <div className="meter-label">
            <span>{m.label}</span>
            {LEVEL_WORDS[m.level] !== '' && <span className="meter-flag">{LEVEL_WORDS[m.level]}</span>}
          </div>
          {/* biome-ignore lint/a11y/useSemanticElements: a <meter> cannot be styled alike across browsers; role=meter says the same */}
          <div
            className="meter-bar"
            role="meter"
            aria-label={m.label}
            aria-valuemin={0}
            aria-valuemax={m.cap > 0 ? m.cap : undefined}
            aria-valuenow={m.value}
            aria-valuetext={m.text}
          >
            <span style={{ width: `${(m.fraction * 100).toFixed(1)}%` }} />
          </div>
          <div className="meter-text mono" data-testid="meter-text">
            {m.text}
          </div>
        </div>
      ))}
    </section>
  );
});
