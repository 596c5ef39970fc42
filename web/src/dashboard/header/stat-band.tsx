import { memo, type ReactNode } from 'react';
import type { StatBand as Band } from './stats.ts';
import { formatCount, formatSeconds, formatUsd } from '../../../../shared/format.ts';

function Stat({ label, value, children, testId }: { label: string; value: string; children?: ReactNode; testId: string }) {
  return (
    <div className="stat" data-testid={testId}>
      <div className="stat-label">{label}</div>
      <div className="stat-value" data-testid="stat-value">
        {value}
      </div>
      {children !== undefined && <div className="stat-detail">{children}</div>}
    </div>
  );
}

const words = (s: string) => s.replace(/_/g, ' ');

/** The run in numbers: tokens, spend, calls, tools, verdicts, guard blocks, pace. */
export const StatBand = memo(function StatBand({ band }: { band: Band }) {
  const { tokens, cost, calls, tools, verdicts } = band;
  return (
    <section className="stat-band" aria-label="Statistics" data-testid="stat-band">
      <Stat testId="stat-tokens" label="Tokens" value={formatCount(tokens.prompt + tokens.completion)}>
        {formatCount(tokens.prompt)} prompt · {formatCount(tokens.completion)} completion
        <br />
        {formatCount(tokens.cached)} cached · {formatCount(tokens.reasoning)} reasoning
        {band.interviewTokens > 0 && (
          <>
            <br />
            interview apart: {formatCount(band.interviewTokens)}
          </>
        )}
      </Stat>
      <Stat testId="stat-cost" label="Cost" value={formatUsd(cost.total)}>
        worker {formatUsd(cost.worker)} · evaluator {formatUsd(cost.evaluator)}
        {cost.learnings > 0 && <> · learnings {formatUsd(cost.learnings)}</>}
      </Stat>
      <Stat testId="stat-calls" label="Model calls" value={formatCount(calls.worker + calls.evaluator + calls.learnings)}>
        worker {calls.worker} · evaluator {calls.evaluator}
        {calls.learnings > 0 && <> · learnings {calls.learnings}</>}
        {calls.interview > 0 && (
          <>
            <br />
            interview {calls.interview}
          </>
        )}
      </Stat>
      <Stat testId="stat-tools" label="Tool calls" value={formatCount(tools.total)}>
        {tools.top.length === 0 ? 'none yet' : tools.top.map(([name, n]) => `${name} ${n}`).join(' · ')}
        {tools.otherKinds > 0 && ` · +${tools.otherKinds} more`}
      </Stat>
      <Stat testId="stat-verdicts" label="Verdicts" value={`${verdicts.accepts} ✓ · ${verdicts.rejects} ✗`}>
        {verdicts.categories.length === 0 ? 'no rejects' : verdicts.categories.map(([c, n]) => `${words(c)} ${n}`).join(' · ')}
      </Stat>
      <Stat testId="stat-guard" label="Guard blocks" value={String(band.guardBlocks)}>
        {band.emptyReplies > 0 ? `${band.emptyReplies} empty model replies` : 'commands the guard refused'}
      </Stat>
      <Stat testId="stat-pace" label="Per iteration" value={band.secondsPerIteration === null ? '—' : formatSeconds(band.secondsPerIteration)}>
        task time ÷ worker calls
      </Stat>
    </section>
  );
});
