import { parseDiff } from 'react-diff-view';
import { describe, expect, it } from 'vitest';
import type { Diff, DiffFile } from '../../../shared/review.ts';
import { diffFileViews, diffTotals, LARGE_FILE_LINES, languageFor } from './diff-model.ts';

const file = (path: string, over: Partial<DiffFile> = {}): DiffFile => ({
  path,
  old_path: null,
  status: 'modified',
  additions: 1,
  deletions: 1,
  binary: false,
  ...over,
});

const lines = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}line ${i}`).join('\n');

const TEXT = [
  'diff --git a/src/a.js b/src/a.js',
  'index 1111111..2222222 100644',
  '--- a/src/a.js',
  '+++ b/src/a.js',
  '@@ -1 +1 @@',
  '-export const a = 1;',
  '+export const a = 2;',
  'diff --git a/old.txt b/new.txt',
  'similarity index 100%',
  'rename from old.txt',
  'rename to new.txt',
  'diff --git a/logo.png b/logo.png',
  'new file mode 100644',
  'index 0000000..8352675',
  'Binary files /dev/null and b/logo.png differ',
  'diff --git a/gone.js b/gone.js',
  'deleted file mode 100644',
  'index 3333333..0000000',
  '--- a/gone.js',
  '+++ /dev/null',
  '@@ -1 +0,0 @@',
  '-bye',
  `diff --git a/big.js b/big.js`,
  'new file mode 100644',
  'index 0000000..4444444',
  '--- /dev/null',
  '+++ b/big.js',
  `@@ -0,0 +1,${LARGE_FILE_LINES + 1} @@`,
  lines(LARGE_FILE_LINES + 1, '+'),
  '',
].join('\n');

describe('diffFileViews', () => {
  const diff: Diff = {
    text: TEXT,
    truncated: false,
    files: [
      file('src/a.js'),
      file('new.txt', { status: 'renamed', old_path: 'old.txt', additions: 0, deletions: 0 }),
      file('logo.png', { status: 'added', binary: true, additions: 0, deletions: 0 }),
      file('gone.js', { status: 'deleted', additions: 0, deletions: 1 }),
      file('big.js', { status: 'added', additions: LARGE_FILE_LINES + 1, deletions: 0 }),
      file('after-the-cut.js'),
    ],
  };
  const views = diffFileViews(diff, parseDiff(TEXT));
  const byPath = Object.fromEntries(views.map((v) => [v.file.path, v]));

  it('keeps the server file list whole and in order', () => {
    expect(views.map((v) => v.file.path)).toEqual(['src/a.js', 'new.txt', 'logo.png', 'gone.js', 'big.js', 'after-the-cut.js']);
  });

  it('shows hunks for text changes, deleted files included', () => {
    expect(byPath['src/a.js']).toMatchObject({ body: 'hunks', large: false, changedLines: 2 });
    expect(byPath['gone.js']).toMatchObject({ body: 'hunks' });
  });

  it('names binary files and pure renames without text', () => {
    expect(byPath['logo.png']?.body).toBe('binary');
    expect(byPath['new.txt']?.body).toBe('no-text');
  });

  it(`collapses a file past ${LARGE_FILE_LINES} changed lines, and only that one`, () => {
    expect(byPath['big.js']).toMatchObject({ body: 'hunks', large: true, changedLines: LARGE_FILE_LINES + 1 });
    const atLimit = diffFileViews({ ...diff, files: [file('big.js', { additions: LARGE_FILE_LINES, deletions: 0 })] }, parseDiff(TEXT));
    expect(atLimit[0]?.large).toBe(false);
  });

  it('marks a listed file the cut text does not reach as not included', () => {
    expect(byPath['after-the-cut.js']).toMatchObject({ body: 'not-included', parsed: null, large: false });
  });

  it('sums the additions and deletions', () => {
    expect(diffTotals(diff.files)).toEqual({ files: 6, additions: LARGE_FILE_LINES + 3, deletions: 3 });
  });
});

describe('languageFor', () => {
  it('picks a grammar by extension, and none for unknown or extensionless files', () => {
    expect(languageFor('src/app.mjs')).toBe('javascript');
    expect(languageFor('web/App.TSX')).toBe('tsx');
    expect(languageFor('tests/test_t001.py')).toBe('python');
    expect(languageFor('Makefile')).toBeNull();
    expect(languageFor('.gitignore')).toBeNull();
    expect(languageFor('notes.xyz')).toBeNull();
  });
});
