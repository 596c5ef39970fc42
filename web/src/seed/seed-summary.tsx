import type { PrdEntry, SeedMeta } from '../../../shared/files.ts';
import { MiniMarkdown } from '../components/mini-markdown.tsx';

/**
 * What the plan changed since the interview wrote its summary: the tasks the summary does not name
 * (added in seed review), and the ones it names that were removed. Read by task id, so only for a
 * summary that names tasks by id (the interview's usually does: "- **T-001:** …").
 */
export function sinceSummary(meta: Pick<SeedMeta, 'tldr' | 'removed_task_ids'>, tasks: readonly Pick<PrdEntry, 'id' | 'title'>[]) {
  const named = (id: string) => new RegExp(`\\b${id}\\b`).test(meta.tldr);
  const removed = (meta.removed_task_ids ?? []).filter(named);
  // A summary that names no task by its id cannot tell which ones it left out.
  const byId = removed.length > 0 || tasks.some((t) => named(t.id));
  return { added: byId ? tasks.filter((t) => !named(t.id)) : [], removed };
}

/** What the interview concluded: its summary, blockers first (they stop a run), open questions, scope. */
export function SeedSummary({ meta, tasks }: { meta: SeedMeta; tasks: readonly PrdEntry[] }) {
  const since = sinceSummary(meta, tasks);
  return (
    <div className="seed-summary">
      <section className="panel" data-testid="seed-tldr">
        <h2>The plan in short</h2>
        {meta.tldr.trim() === '' ? <p className="muted">No summary was written.</p> : <MiniMarkdown text={meta.tldr} />}
        {(since.added.length > 0 || since.removed.length > 0) && meta.tldr.trim() !== '' && (
          <div className="small seed-since" data-testid="seed-since">
            <p className="muted">Changed in seed review since the interview wrote this:</p>
            <ul>
              {since.added.map((t) => (
                <li key={t.id}>
                  added <strong className="mono">{t.id}</strong> {t.title}
                </li>
              ))}
              {since.removed.map((id) => (
                <li key={id}>
                  removed <span className="mono">{id}</span>
                </li>
              ))}
            </ul>
          </div>
        )}
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
