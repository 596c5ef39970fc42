import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CommentIdSchema, SESSION_COMMENTS_MAX, type CommentOp, type ReviewComment } from '../../shared/review.ts';
import { tempDir } from '../testing/test-app.ts';
import { Tree } from '../fs/tree.ts';
import { foldComments, ReviewComments } from './review-comments.ts';

let dir: string;
let comments: ReviewComments;
const file = () => path.join(dir, 'review-comments.jsonl');
beforeEach(() => {
  dir = tempDir();
  comments = new ReviewComments(Tree.at(dir), dir);
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const T0 = new Date('2026-11-27T10:00:00.000Z');
const input = (line: number, text = `about line ${line}`) => ({ task_id: 'T-001', file: 'src/a.js', line, side: 'new' as const, text });
const comment = (id: string, text = 'x'): ReviewComment => ({
  id,
  ts: T0.toISOString(),
  task_id: null,
  file: 'a.js',
  line: 1,
  side: 'old',
  text,
  sent: null,
});

describe('review comments', () => {
  it('is an empty list before any comment', () => {
    expect(comments.list()).toEqual([]);
    expect(fs.existsSync(file())).toBe(false);
  });

  it('adds, edits and deletes, and reads the same list back from disk', () => {
    const a = comments.add(input(3, '  trim me  '), T0);
    const b = comments.add({ ...input(7), task_id: null, side: 'old' });
    expect(CommentIdSchema.safeParse(a.id).success).toBe(true);
    expect(a).toEqual({ id: a.id, ts: T0.toISOString(), task_id: 'T-001', file: 'src/a.js', line: 3, side: 'new', text: 'trim me', sent: null });
    expect(comments.edit(a.id, ' better ').text).toBe('better');
    comments.remove(b.id);
    expect(new ReviewComments(Tree.at(dir), dir).list()).toEqual([{ ...a, text: 'better' }]);
    // Append-only: four operations, one per line.
    expect(
      fs
        .readFileSync(file(), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).op),
    ).toEqual(['add', 'add', 'edit', 'delete']);
  });

  it('refuses to edit or delete an unknown comment', () => {
    expect(() => comments.edit('c-nothere', 'x')).toThrow(expect.objectContaining({ code: 'comment_not_found', status: 404 }));
    expect(() => comments.remove('c-nothere')).toThrow(expect.objectContaining({ code: 'comment_not_found' }));
  });

  it('fixes a comment once it is sent: no edit, no delete, no second send, and the mark is kept', () => {
    const a = comments.add(input(1));
    const b = comments.add(input(2));
    const later = new Date('2026-11-27T11:00:00.000Z');
    const sent = comments.markSent([a.id, a.id], 'T-001', 2, later);
    expect(sent).toEqual([{ ...a, sent: { task_id: 'T-001', revision: 2, ts: later.toISOString() } }]);
    expect(() => comments.edit(a.id, 'y')).toThrow(expect.objectContaining({ code: 'comment_sent', status: 409 }));
    expect(() => comments.remove(a.id)).toThrow(expect.objectContaining({ code: 'comment_sent' }));
    // All or none: one sent id refuses the lot, and b stays unsent.
    expect(() => comments.markSent([b.id, a.id], 'T-001', 3)).toThrow(expect.objectContaining({ code: 'comment_sent' }));
    expect(() => comments.markSent(['c-unknown1'], 'T-001', 3)).toThrow(expect.objectContaining({ code: 'comment_not_found' }));
    expect(comments.list()).toEqual([sent[0], b]);
    expect(comments.edit(b.id, 'still mine').text).toBe('still mine');
  });

  it('loses only a torn last line, and the next operation lands whole after it', () => {
    const a = comments.add(input(1));
    comments.markSent([a.id], 'T-001', 2);
    fs.appendFileSync(file(), '{"op":"delete","id":"');
    expect(comments.list().map((c) => [c.id, c.sent?.revision])).toEqual([[a.id, 2]]);
    const b = comments.add(input(2));
    expect(comments.list().map((c) => c.id)).toEqual([a.id, b.id]);
  });

  it('names the file and line of a corrupt line that is not the last, and adds nothing after it', () => {
    comments.add(input(1));
    fs.appendFileSync(file(), 'not json\n');
    expect(() => comments.add(input(2))).toThrow(/review-comments\.jsonl is corrupt: line 2/);
    expect(() => comments.list()).toThrow(/review-comments\.jsonl is corrupt: line 2/);
  });
});

describe('foldComments', () => {
  it('applies operations in order and ignores edits and deletes of sent or unknown comments', () => {
    const ts = T0.toISOString();
    const ops: CommentOp[] = [
      { op: 'add', comment: comment('c-aaaaaa', 'one') },
      { op: 'add', comment: comment('c-bbbbbb', 'two') },
      { op: 'edit', id: 'c-aaaaaa', text: 'one, edited', ts },
      { op: 'send', ids: ['c-aaaaaa', 'c-zzzzzz'], task_id: 'T-002', revision: 2, ts },
      { op: 'edit', id: 'c-aaaaaa', text: 'changed after sending', ts },
      { op: 'delete', id: 'c-aaaaaa', ts },
      { op: 'delete', id: 'c-zzzzzz', ts },
      { op: 'add', comment: comment('c-aaaaaa', 'a duplicate id') },
      { op: 'delete', id: 'c-bbbbbb', ts },
    ];
    expect(foldComments(ops)).toEqual([{ ...comment('c-aaaaaa', 'one, edited'), sent: { task_id: 'T-002', revision: 2, ts } }]);
  });
});

describe('the bounds of the comment file', () => {
  const lines = () => fs.readFileSync(file(), 'utf8').trim().split('\n').length;

  it(`refuses comment ${SESSION_COMMENTS_MAX + 1} with too_many_comments and what to do, sent ones counting, and takes one again after a delete`, () => {
    const first = comments.add(input(1));
    comments.markSent([first.id], 'T-001', 2);
    for (let line = 2; line <= SESSION_COMMENTS_MAX; line++) comments.add(input(line));
    expect(comments.list()).toHaveLength(SESSION_COMMENTS_MAX);
    expect(() => comments.add(input(1))).toThrow(
      expect.objectContaining({
        code: 'too_many_comments',
        status: 409,
        message: expect.stringMatching(/already has 1,000 comments \(999 open\), the most it keeps; delete open comments/),
      }),
    );
    expect(comments.list()).toHaveLength(SESSION_COMMENTS_MAX);
    comments.remove(comments.list()[1]!.id);
    expect(comments.add(input(5)).line).toBe(5);
  });

  it('rewrites the file as the list it folds to once old operations pile up, so edits cannot grow it without end', () => {
    const a = comments.add(input(1));
    const b = comments.add(input(2));
    comments.markSent([b.id], 'T-001', 2);
    let longest = 0;
    for (let i = 0; i < 1_000; i++) {
      comments.edit(a.id, `take ${i}`);
      longest = Math.max(longest, lines());
    }
    const c = comments.add(input(3));
    comments.remove(c.id);
    // Two comments: at most 2 × 2 + 100 operations before the rewrite, whatever was done to them.
    expect(longest).toBeLessThanOrEqual(104);
    expect(new ReviewComments(Tree.at(dir), dir).list()).toEqual([
      { ...a, text: 'take 999' },
      { ...b, sent: { task_id: 'T-001', revision: 2, ts: expect.any(String) } },
    ]);
    // The sent mark survives the rewrite: the comment is still fixed.
    expect(() => comments.edit(b.id, 'y')).toThrow(expect.objectContaining({ code: 'comment_sent' }));
  });
});
