import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LedgerEntry } from '../../shared/files.ts';
import { CorruptFileError } from '../errors/app-error.ts';
import { Tree } from '../fs/tree.ts';
import { tempDir } from '../testing/test-app.ts';
import { addSteeringNote, appendLedger, appendProgress, progressTail, readLedger, readSteeringNotes, takePendingNotes } from './run-files.ts';

let dir: string;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
const at = () => ({ tree: Tree.at(dir), dir });

const entry = (iter: number, verdict: 'accept' | 'reject'): LedgerEntry => ({
  ts: '2026-05-25T10:00:00.000Z',
  iter,
  diff_summary: 'src/todo.js | 4 ++--',
  case: { summary: 'did it', ac_coverage: [{ criterion: 'c', addressed_by: 'src/todo.js' }] },
  verdict:
    verdict === 'accept'
      ? { verdict, concern: '', evidence: [] }
      : { verdict, rejection_category: 'weak_test', concern: 'no', evidence: ['x'], next_step: 'fix it' },
});

describe('ledger', () => {
  it('appends per task and reads oldest first, or the last N', () => {
    for (let i = 1; i <= 7; i++) appendLedger(at(), 'T-001', entry(i, i === 7 ? 'accept' : 'reject'));
    appendLedger(at(), 'T-002', entry(1, 'accept'));
    expect(readLedger(dir, 'T-001').map((e) => e.iter)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(readLedger(dir, 'T-001', 5).map((e) => e.iter)).toEqual([3, 4, 5, 6, 7]);
    expect(readLedger(dir, 'T-001', 0)).toEqual([]);
    expect(readLedger(dir, 'T-003')).toEqual([]);
    expect(() => readLedger(dir, '../x')).toThrow();
  });

  it('closes every file it opens to append', () => {
    const open = () => fs.readdirSync('/proc/self/fd').length;
    appendLedger(at(), 'T-001', entry(1, 'reject'));
    const before = open();
    for (let i = 2; i <= 40; i++) appendLedger(at(), 'T-001', entry(i, 'reject'));
    expect(open()).toBe(before);
  });

  it('skips a torn last line, cuts it before the next append, and names a corrupt one', () => {
    appendLedger(at(), 'T-001', entry(1, 'reject'));
    const file = path.join(dir, 'ledger', 'T-001.jsonl');
    fs.appendFileSync(file, '{"ts":"2026');
    expect(readLedger(dir, 'T-001')).toHaveLength(1);
    appendLedger(at(), 'T-001', entry(2, 'accept'));
    expect(readLedger(dir, 'T-001').map((e) => e.iter)).toEqual([1, 2]);
    fs.writeFileSync(file, `garbage\n${fs.readFileSync(file, 'utf8')}`);
    expect(() => readLedger(dir, 'T-001')).toThrow(CorruptFileError);
    expect(() => readLedger(dir, 'T-001')).toThrow(/T-001\.jsonl is corrupt: line 1/);
  });
});

describe('progress', () => {
  it('keeps one line per outcome and gives the worker a bounded tail', () => {
    expect(progressTail(dir)).toBe('');
    for (let i = 1; i <= 40; i++) appendProgress(at(), `T-${String(i).padStart(3, '0')}`, i % 2 ? 'done' : 'failed:iter_cap', `Task   ${i}\n`);
    const tail = progressTail(dir);
    expect(tail.split('\n')).toHaveLength(30);
    expect(tail.split('\n').at(-1)).toBe('T-040\tfailed:iter_cap\tTask 40');
    expect(progressTail(dir, 30, 50).length).toBe(50);
  });
});

describe('guidance notes', () => {
  it('hands each note to the worker exactly once', () => {
    const a = addSteeringNote(at(), ' Prefer small commits ');
    expect(a.text).toBe('Prefer small commits');
    expect(takePendingNotes(at()).map((n) => n.note_id)).toEqual([a.note_id]);
    expect(takePendingNotes(at())).toEqual([]);
    const b = addSteeringNote(at(), 'Use ISO dates');
    expect(takePendingNotes(at()).map((n) => n.text)).toEqual(['Use ISO dates']);
    expect(readSteeringNotes(dir).map((n) => [n.note_id, n.consumed_at !== null])).toEqual([
      [a.note_id, true],
      [b.note_id, true],
    ]);
  });
});
