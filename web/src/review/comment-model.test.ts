import { describe, expect, it } from 'vitest';
import type { ReviewComment } from '../../../shared/review.ts';
import { changeKey, changeKeysByLine, commentPlace, commentsByChange, commentsOfDiff, commentTarget, type ChangeLike } from './comment-model.ts';

const changes: ChangeLike[] = [
  { type: 'normal', oldLineNumber: 1, newLineNumber: 1 },
  { type: 'delete', lineNumber: 2 },
  { type: 'insert', lineNumber: 2 },
  { type: 'insert', lineNumber: 3 },
  { type: 'normal', oldLineNumber: 3, newLineNumber: 4 },
];
const comment = (over: Partial<ReviewComment>): ReviewComment => ({
  id: 'c-aaaaaa',
  ts: '2026-11-27T10:00:00.000Z',
  task_id: null,
  file: 'a.js',
  line: 1,
  side: 'new',
  text: 't',
  sent: null,
  ...over,
});

describe('comment placement', () => {
  it('keys changes as react-diff-view does and writes comments on the side that has the line', () => {
    expect(changes.map(changeKey)).toEqual(['N1', 'D2', 'I2', 'I3', 'N3']);
    expect(changes.map(commentTarget)).toEqual([
      { side: 'new', line: 1 },
      { side: 'old', line: 2 },
      { side: 'new', line: 2 },
      { side: 'new', line: 3 },
      { side: 'new', line: 4 },
    ]);
  });

  it('puts each comment under the change showing its line, an old-side unchanged line included', () => {
    const keys = changeKeysByLine([{ changes }]);
    const found = commentsByChange(
      [
        comment({ id: 'c-000001', line: 4 }),
        comment({ id: 'c-000002', line: 2, side: 'old' }),
        comment({ id: 'c-000003', line: 3, side: 'old' }),
        comment({ id: 'c-000004', line: 4, file: 'b.js' }),
        comment({ id: 'c-000005', line: 99 }),
        comment({ id: 'c-000006', line: 4 }),
      ],
      'a.js',
      keys,
    );
    expect([...found].map(([key, list]) => [key, list.map((c) => c.id)])).toEqual([
      // Old line 3 is the unchanged line shown as new line 4.
      ['N3', ['c-000001', 'c-000003', 'c-000006']],
      ['D2', ['c-000002']],
    ]);
    expect(keys.get('old:3')).toBe('N3');
  });

  it('shows a task its own comments and the session diff those written on it', () => {
    const all = [comment({ id: 'c-000001', task_id: 'T-001' }), comment({ id: 'c-000002' })];
    expect(commentsOfDiff(all, 'T-001').map((c) => c.id)).toEqual(['c-000001']);
    expect(commentsOfDiff(all, null).map((c) => c.id)).toEqual(['c-000002']);
  });

  it('names a place by file and line, marking the old side', () => {
    expect(commentPlace({ file: 'a.js', line: 3, side: 'new' })).toBe('a.js:3');
    expect(commentPlace({ file: 'a.js', line: 3, side: 'old' })).toBe('a.js:3 (old)');
  });
});
