import type { SeedMeta } from '../../../shared/files.ts';
import { MiniMarkdown } from '../components/mini-markdown.tsx';

/** What the interview concluded: its summary, blockers first (they stop a run), open questions, scope. */
export function SeedSummary({ meta }: { meta: SeedMeta }) {
  return (
    <div className="seed-summary">
      <section className="panel" data-testid="seed-tldr">
        <h2>The plan in short</h2>
        {meta.tldr.trim() === '' ? <p className="muted">No summary was written.</p> : <MiniMarkdown text={meta.tldr} />}
      </section>
      {meta.blockers.length > 0 && (
        <section className="callout callout-error blockers" data-testid="blockers">
          <h2>Blockers</h2>
          <p className="small">The interviewer thinks these must be resolved before a run can succeed.</p>
          <ul>
            {meta.blockers.map((b, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the written seed never changes while shown; two lines can read the same
              <li key={i}>{b}</li>
            ))}
          </ul>
        </section>
      )}
      <div className="seed-notes">
        <section className="panel" data-testid="open-questions">
          <h2>Open questions</h2>
          {meta.open_questions.length === 0 ? (
            <p className="muted">None.</p>
          ) : (
            <ul>
              {meta.open_questions.map((q, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: the written seed never changes while shown; two lines can read the same
                <li key={i}>{q}</li>
              ))}
            </ul>
          )}
        </section>
        <section className="panel" data-testid="scope-notes">
          <h2>Scope notes</h2>
          {meta.scope_notes.trim() === '' ? <p className="muted">None.</p> : <MiniMarkdown text={meta.scope_notes} />}
        </section>
        {meta.setup_command !== undefined && (
          <section className="panel" data-testid="setup-command">
            <h2>Setup command</h2>
            <p className="small">Runs in the worktree before the worker:</p>
            <code className="mono">{meta.setup_command}</code>
          </section>
        )}
      </div>
    </div>
  );
}
