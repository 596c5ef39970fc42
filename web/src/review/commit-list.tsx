import type { z } from 'zod';
import type { CommitSchema } from '../../../shared/review.ts';
import { shortSha } from './review-format.ts';
import { formatTime } from '../../../shared/format.ts';

type Commit = z.infer<typeof CommitSchema>;

/** Commits oldest first: short sha, subject, time. */
export function CommitList({ commits, emptyText }: { commits: readonly Commit[]; emptyText: string }) {
  if (commits.length === 0) return <p className="muted">{emptyText}</p>;
  return (
    <ol className="commit-list" data-testid="commit-list">
      {commits.map((c) => (
        <li key={c.sha} className="commit" data-testid="commit" data-sha={c.sha}>
          <code className="commit-sha" title={c.sha}>
            {shortSha(c.sha)}
          </code>
          <span className="commit-subject">{c.subject}</span>
          <time className="muted small" dateTime={c.date} title={c.date}>
            {formatTime(c.date)}
          </time>
        </li>
      ))}
    </ol>
  );
}
