import type { MutationReport } from '../../../shared/files.ts';

type Survivor = Omit<MutationReport['survivors'][number], 'criteria'> & { task_id?: string; run_by?: string[] | undefined };

/**
 * Mutants of a task's changed lines that its tests did not notice, one line each: where, and the
 * change no test caught. The dashboard's probe card, the task review and the session review (which
 * names the task) all list them this way.
 */
export function SurvivorList({ survivors, className }: { survivors: readonly Survivor[]; className?: string }) {
  if (survivors.length === 0) return null;
  return (
    <ul className={className} data-testid="mutation-survivors">
      {survivors.map((s, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a report never changes; two survivors can read the same
        <li key={i} data-testid="mutation-survivor">
          {s.task_id !== undefined && <span className="mono">{s.task_id} </span>}
          <span className="mono">{`${s.file}:${s.line}`}</span>
          {s.run_by !== undefined && s.run_by.length > 0 ? (
            <>
              : the tests of {s.run_by.map((c) => `“${c}”`).join(' and ')} run this line, and none notices if it {s.description}
            </>
          ) : (
            <>: no test notices if it {s.description}</>
          )}
        </li>
      ))}
    </ul>
  );
}

/** The probe's outcome in one sentence. */
export function mutationSentence(report: Pick<MutationReport, 'status' | 'killed' | 'survived' | 'note'>): string {
  const note = report.note ? ` ${report.note}.` : '';
  if (report.status === 'off') return `The mutation probe is off (TILTH_MUTATION_SECONDS=0).${note}`;
  if (report.status === 'running') return `The mutation probe is running.${note}`;
  return `${report.killed} mutants of the changed lines were caught by the task's tests; ${report.survived} went unnoticed.${note}`;
}
