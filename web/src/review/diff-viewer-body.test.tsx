import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { Diff, ReviewComment } from '../../../shared/review.ts';
import { LARGE_FILE_LINES } from './diff-model.ts';
import { DiffViewerBody } from './diff-viewer-body.tsx';
import type { DiffComments } from './line-comments.tsx';

const big = Array.from({ length: LARGE_FILE_LINES + 1 }, (_, i) => `+const line${i} = ${i};`).join('\n');
const DIFF: Diff = {
  truncated: false,
  files: [
    { path: 'src/a.js', old_path: null, status: 'modified', additions: 1, deletions: 1, binary: false },
    { path: 'logo.png', old_path: null, status: 'added', additions: 0, deletions: 0, binary: true },
    { path: 'big.js', old_path: null, status: 'added', additions: LARGE_FILE_LINES + 1, deletions: 0, binary: false },
  ],
  text: [
    'diff --git a/src/a.js b/src/a.js',
    'index 1111111..2222222 100644',
    '--- a/src/a.js',
    '+++ b/src/a.js',
    '@@ -1 +1 @@',
    '-export const a = 1;',
    '+export const a = 2;',
    'diff --git a/logo.png b/logo.png',
    'new file mode 100644',
    'index 0000000..8352675',
    'Binary files /dev/null and b/logo.png differ',
    'diff --git a/big.js b/big.js',
    'new file mode 100644',
    'index 0000000..4444444',
    '--- /dev/null',
    '+++ b/big.js',
    `@@ -0,0 +1,${LARGE_FILE_LINES + 1} @@`,
    big,
    '',
  ].join('\n'),
};

function section(html: string, path: string): string {
  const start = html.indexOf(`data-path="${path}" data-body`);
  expect(start).toBeGreaterThan(-1);
  const end = html.indexOf('<section', start);
  return html.slice(start, end === -1 ? undefined : end);
}

describe('DiffViewerBody', () => {
  const html = renderToStaticMarkup(<DiffViewerBody diff={DIFF} emptyText="nothing" testId="diff" />);

  it('lists every file with its counts', () => {
    expect(html.match(/data-testid="diff-file-list-item"/g)).toHaveLength(3);
    expect(html).toContain(`+${LARGE_FILE_LINES + 2}`);
  });

  it('shows a small text change with syntax tokens and the changed word marked', () => {
    const a = section(html, 'src/a.js');
    expect(a).toContain('data-open="true"');
    expect(a).toContain('token keyword');
    expect(a).toContain('diff-code-edit');
  });

  it('names a binary file without dumping it', () => {
    expect(section(html, 'logo.png')).toContain('Binary file — not shown.');
  });

  it('folds a large file behind a button and renders none of its lines', () => {
    const b = section(html, 'big.js');
    expect(b).toContain('data-open="false"');
    expect(b).toContain('data-testid="diff-expand"');
    expect(b).not.toContain('line400');
  });

  it('says so when there is nothing to show', () => {
    expect(renderToStaticMarkup(<DiffViewerBody diff={{ files: [], text: '', truncated: false }} emptyText="No changes." />)).toContain('No changes.');
  });
});

describe('DiffViewerBody with line comments', () => {
  const comment = (over: Partial<ReviewComment>): ReviewComment => ({
    id: 'c-aaaaaa',
    ts: '2026-11-27T10:00:00.000Z',
    task_id: 'T-001',
    file: 'src/a.js',
    line: 1,
    side: 'new',
    text: 'Why two?',
    sent: null,
    ...over,
  });
  const comments = (items: ReviewComment[], canWrite = true): DiffComments => ({
    taskId: 'T-001',
    items,
    canWrite,
    add: async () => comment({}),
    edit: async () => {},
    remove: async () => {},
  });

  it('shows a comment under its line with Edit and Delete, and a + on each line to write one', () => {
    const html = renderToStaticMarkup(<DiffViewerBody diff={DIFF} emptyText="nothing" comments={comments([comment({})])} />);
    const a = section(html, 'src/a.js');
    expect(a.match(/data-testid="comment-add"/g)).toHaveLength(2);
    expect(a).toContain('aria-label="Comment on src/a.js line 1 (old)"');
    expect(a).toContain('Why two?');
    expect(a.indexOf('export const a = 2')).toBeLessThan(a.indexOf('Why two?'));
    expect(a).toContain('data-testid="comment-edit"');
  });

  it('marks a sent comment with its revision and offers no Edit or Delete', () => {
    const sent = comment({ sent: { task_id: 'T-001', revision: 2, ts: '2026-11-27T11:00:00.000Z' } });
    const a = section(renderToStaticMarkup(<DiffViewerBody diff={DIFF} emptyText="nothing" comments={comments([sent])} />), 'src/a.js');
    expect(a).toContain('sent with rev 2');
    expect(a).not.toContain('data-testid="comment-edit"');
  });

  it('offers no + while comments cannot be written, and opens a large file that has a comment', () => {
    const html = renderToStaticMarkup(
      <DiffViewerBody diff={DIFF} emptyText="nothing" comments={comments([comment({ file: 'big.js', line: 3, text: 'In the big one' })], false)} />,
    );
    expect(html).not.toContain('data-testid="comment-add"');
    const b = section(html, 'big.js');
    expect(b).toContain('data-open="true"');
    expect(b).toContain('In the big one');
    expect(b).not.toContain('data-testid="comment-delete"');
  });
});
