import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LOG_VERSION } from '../../shared/events.ts';
import { CorruptFileError } from '../errors/app-error.ts';
import { writeBigLog } from '../testing/big-log.ts';
import { tempDir } from '../testing/temp-dir.ts';
import { EventLog, INDEX_CHUNK_BYTES } from './event-log.ts';

const ID = '20260101-120000-abcdef';
let dir: string;
let file: string;

beforeEach(() => {
  dir = tempDir();
  file = path.join(dir, 'events.jsonl');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function note(i: number) {
  return { type: 'question_answered' as const, data: { question_id: `q${i}`, answer: `answer ${i}` } };
}

describe('EventLog', () => {
  it('starts every log with log_opened carrying the version, then numbers events densely', () => {
    const log = new EventLog(file, ID);
    const a = log.append(note(1));
    const b = log.append(note(2));
    expect(a.seq).toBe(2);
    expect(b.seq).toBe(3);
    const all = log.readAfter(0, 100);
    expect(all.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(all[0]).toMatchObject({ type: 'log_opened', data: { log_version: LOG_VERSION, session_id: ID } });
    expect(log.lastSeq).toBe(3);
  });

  it('continues the sequence after reopening the file', () => {
    const first = new EventLog(file, ID);
    first.append(note(1));
    first.close();
    const second = new EventLog(file, ID);
    expect(second.append(note(2)).seq).toBe(3);
  });

  it('reads pages after a seq without overlap or gaps', () => {
    const log = new EventLog(file, ID);
    for (let i = 0; i < 250; i++) log.append(note(i));
    const seen: number[] = [];
    let after = 0;
    for (;;) {
      const page = log.readAfter(after, 40);
      if (page.length === 0) break;
      seen.push(...page.map((e) => e.seq));
      after = page.at(-1)!.seq;
    }
    expect(seen).toEqual(Array.from({ length: 251 }, (_, i) => i + 1));
    expect(log.readAfter(251, 10)).toEqual([]);
    expect(log.readAfter(1000, 10)).toEqual([]);
  });

  it('pages backwards and opens at the tail', () => {
    const log = new EventLog(file, ID);
    for (let i = 0; i < 20; i++) log.append(note(i)); // seqs 1..21
    expect(log.readTail(5).map((e) => e.seq)).toEqual([17, 18, 19, 20, 21]);
    expect(log.readBefore(17, 5).map((e) => e.seq)).toEqual([12, 13, 14, 15, 16]);
    expect(log.readBefore(3, 5).map((e) => e.seq)).toEqual([1, 2]);
    expect(log.readBefore(1, 5)).toEqual([]);
    expect(log.readBefore(1_000, 2).map((e) => e.seq)).toEqual([20, 21]);
    expect(log.readTail(100)).toHaveLength(21);
  });

  it('skips a torn last line on read and cuts it off before the next append', () => {
    const log = new EventLog(file, ID);
    log.append(note(1));
    log.close();
    fs.appendFileSync(file, '{"seq":3,"ts":"2026-01-01T00:00:00.000Z","type":"question_ans');
    const reopened = new EventLog(file, ID);
    expect(reopened.lastSeq).toBe(2);
    expect(reopened.readAfter(0, 10)).toHaveLength(2);
    const next = reopened.append(note(2));
    expect(next.seq).toBe(3);
    const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines.every((l) => JSON.parse(l))).toBe(true);
  });

  it('treats a bad line in the middle as corruption and names the file and line', () => {
    const log = new EventLog(file, ID);
    log.append(note(1));
    log.append(note(2));
    log.close();
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    lines[1] = '{not json';
    fs.writeFileSync(file, lines.join('\n'));
    const reopened = new EventLog(file, ID);
    expect(() => reopened.readAfter(0, 10)).toThrow(CorruptFileError);
    expect(() => reopened.readAfter(0, 10)).toThrow(/events\.jsonl is corrupt: line 2 is not valid JSON/);
  });

  it.each([
    ['jumps forward', 7],
    ['repeats the one before', 2],
    ['goes back', 1],
  ])('rejects a line whose seq %s', (_how, seq) => {
    const log = new EventLog(file, ID);
    log.append(note(1));
    log.append(note(2));
    log.close();
    const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
    lines[2] = lines[2]!.replace('"seq":3', `"seq":${seq}`);
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    const reopened = new EventLog(file, ID);
    expect(() => reopened.readAfter(0, 10)).toThrow(`line 3 has seq ${seq}; seq must be dense`);
    expect(() => reopened.readAfter(2, 10)).toThrow(CorruptFileError);
    expect(reopened.readAfter(0, 2).map((e) => e.seq)).toEqual([1, 2]);
  });

  it('treats an empty line in the middle as corruption', () => {
    const log = new EventLog(file, ID);
    log.append(note(1));
    log.append(note(2));
    log.close();
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    fs.writeFileSync(file, [lines[0], lines[1], '', lines[2], ''].join('\n'));
    expect(() => new EventLog(file, ID).lastSeq).toThrow('events.jsonl is corrupt: line 3 is empty');
  });

  it('names a line that is JSON but not an event', () => {
    const log = new EventLog(file, ID);
    log.append(note(1));
    log.close();
    fs.appendFileSync(file, `${JSON.stringify({ seq: 3, ts: 'now', type: 'question_answered', data: {} })}\n`);
    expect(() => new EventLog(file, ID).readAfter(0, 10)).toThrow(/is corrupt: line 3 is not a valid event \(/);
  });

  it.each([
    ['{not json', 'line 1 is not valid JSON'],
    [
      JSON.stringify({ seq: 1, ts: '2026-01-01T00:00:00.000Z', type: 'question_answered', data: { log_version: 1 } }),
      'line 1 must be a log_opened event carrying log_version',
    ],
    [
      JSON.stringify({ seq: 1, ts: '2026-01-01T00:00:00.000Z', type: 'log_opened', data: { log_version: '1' } }),
      'line 1 must be a log_opened event carrying log_version',
    ],
    [JSON.stringify({ seq: 1, ts: '2026-01-01T00:00:00.000Z', type: 'log_opened' }), 'line 1 must be a log_opened event carrying log_version'],
    ['null', 'line 1 must be a log_opened event carrying log_version'],
  ])('refuses a log whose first line is %s', (line, message) => {
    fs.writeFileSync(file, `${line}\n`);
    expect(() => new EventLog(file, ID).lastSeq).toThrow(`events.jsonl is corrupt: ${message}`);
  });

  it('reads a log of the current version, and writes no second log_opened when the caller opens it', () => {
    const log = new EventLog(file, ID);
    const opened = log.append({ type: 'log_opened', data: { log_version: LOG_VERSION, session_id: ID } });
    expect(opened.seq).toBe(1);
    log.append(note(1));
    expect(new EventLog(file, ID).readAfter(0, 10).map((e) => e.type)).toEqual(['log_opened', 'question_answered']);
  });

  it('starts over when the file was replaced by a shorter one', () => {
    const log = new EventLog(file, ID);
    for (let i = 0; i < 5; i++) log.append(note(i));
    const other = path.join(dir, 'other.jsonl');
    const replacement = new EventLog(other, ID);
    replacement.append(note(99));
    replacement.close();
    fs.renameSync(other, file);
    expect(log.lastSeq).toBe(2);
    expect(log.readAfter(0, 10).map((e) => e.type === 'question_answered' && e.data.answer)).toEqual([false, 'answer 99']);
  });

  it('pages from a negative seq as from the start, and stops at the end', () => {
    const log = new EventLog(file, ID);
    for (let i = 0; i < 3; i++) log.append(note(i)); // seqs 1..4
    expect(log.readAfter(-5, 2).map((e) => e.seq)).toEqual([1, 2]);
    expect(log.readAfter(3, 5).map((e) => e.seq)).toEqual([4]);
    expect(log.readAfter(2, 0)).toEqual([]);
    expect(log.readBefore(4, 0)).toEqual([]);
    expect(log.readBefore(-1, 3)).toEqual([]);
    expect(log.readTail(0)).toEqual([]);
    expect(new EventLog(path.join(dir, 'none.jsonl'), ID).readTail(5)).toEqual([]);
  });

  it('keeps one file descriptor across appends and closes it, once', () => {
    const open = () => fs.readdirSync('/proc/self/fd').length;
    const log = new EventLog(file, ID);
    log.close(); // nothing open yet
    const before = open();
    for (let i = 0; i < 20; i++) log.append(note(i));
    expect(open()).toBe(before + 1);
    expect(log.readAfter(0, 100)).toHaveLength(21); // reads open and close their own
    expect(new EventLog(file, ID).lastSeq).toBe(21);
    expect(open()).toBe(before + 1);
    log.close();
    log.close();
    expect(open()).toBe(before);
  });

  it('reports a file it cannot stat, other than a missing one', () => {
    fs.writeFileSync(path.join(dir, 'not-a-folder'), '');
    expect(() => new EventLog(path.join(dir, 'not-a-folder', 'events.jsonl'), ID).lastSeq).toThrow(/ENOTDIR/);
  });

  it('refuses a log written by a newer Tilth', () => {
    fs.writeFileSync(
      file,
      `${JSON.stringify({ seq: 1, ts: new Date().toISOString(), type: 'log_opened', data: { log_version: LOG_VERSION + 1, session_id: ID } })}\n`,
    );
    expect(() => new EventLog(file, ID).lastSeq).toThrow(/newer than this Tilth understands/);
  });

  it('refuses to write an event that does not match its schema', () => {
    const log = new EventLog(file, ID);
    // @ts-expect-error deliberately wrong payload
    expect(() => log.append({ type: 'question_asked', data: { question_id: '' } })).toThrow(/invalid question_asked event/);
  });

  it('sees events appended by another writer since the last read', () => {
    const mine = new EventLog(file, ID);
    mine.append(note(1));
    const other = new EventLog(file, ID);
    other.append(note(2));
    expect(mine.lastSeq).toBe(3);
    expect(mine.readAfter(2, 10).map((e) => e.seq)).toEqual([3]);
  });
});

const writeLog = (target: string, count: number, answer?: (seq: number) => string) => writeBigLog(target, ID, count, answer);

describe('EventLog index at scale', () => {
  it('builds its index in chunks that give the event loop turns, and reads the same events as a synchronous open', async () => {
    writeLog(file, 60_000, (i) => `answer ${i} ${'x'.repeat(60)}`); // ~6 MB: several chunks
    expect(fs.statSync(file).size).toBeGreaterThan(4 * INDEX_CHUNK_BYTES);
    const log = new EventLog(file, ID);
    let turns = 0;
    let ticking = true;
    const tick = () => {
      if (!ticking) return;
      turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
    await log.ready();
    ticking = false;
    expect(turns).toBeGreaterThanOrEqual(4); // other work ran between chunks
    expect(log.lastSeq).toBe(60_000);
    const sync = new EventLog(file, ID, path.join(dir, 'other.idx'));
    expect(log.readAfter(31_000, 3)).toEqual(sync.readAfter(31_000, 3));
    expect(log.readTail(2).map((e) => e.seq)).toEqual([59_999, 60_000]);
  });

  it('reads the newest events back from the end without an index: the same events, a torn line left out, a gap refused', async () => {
    writeLog(file, 20_000, (i) => `answer ${i} ${'x'.repeat(60)}`); // ~2 MB: several backward chunks for a long tail
    const cold = new EventLog(file, ID);
    const indexed = new EventLog(file, ID, path.join(dir, 'other.idx'));
    expect(await cold.readTailCold(3)).toEqual(indexed.readTail(3));
    expect(await cold.readTailCold(5_000)).toEqual(indexed.readTail(5_000));
    expect(cold.indexed).toBe(false); // nothing was indexed to get there
    expect(await cold.readTailCold(50_000)).toHaveLength(20_000); // the whole log, from its start

    fs.appendFileSync(file, '{"seq":20001,"ts":"2026-01-01T00:00:00.000Z","type":"question_ans');
    expect((await cold.readTailCold(2)).map((e) => e.seq)).toEqual([19_999, 20_000]);

    const lines = fs.readFileSync(file, 'utf8').split('\n').slice(0, 20_000);
    lines.splice(19_998, 1); // seq 19,999 gone: the tail is no longer dense
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    await expect(new EventLog(file, ID).readTailCold(3)).rejects.toThrow(CorruptFileError);
    expect(await new EventLog(path.join(dir, 'none.jsonl'), ID).readTailCold(3)).toEqual([]);
  });

  it('keeps the index beside the log and opens from it; appends after it are scanned on top', async () => {
    writeLog(file, 25_000);
    const first = new EventLog(file, ID);
    await first.ready();
    expect(first.indexSource).toBe('scan');
    expect(fs.existsSync(path.join(dir, 'events.idx'))).toBe(true);

    const second = new EventLog(file, ID);
    await second.ready();
    expect(second.indexSource).toBe('sidecar');
    expect(second.lastSeq).toBe(25_000);
    second.append(note(1));
    second.append(note(2));
    second.close(); // leaves the sidecar current

    fs.appendFileSync(
      file,
      `${JSON.stringify({ seq: 25_003, ts: '2026-01-01T00:00:00.000Z', type: 'question_answered', data: { question_id: 'q', answer: 'late' } })}\n`,
    );
    const third = new EventLog(file, ID);
    expect(third.lastSeq).toBe(25_003); // synchronous open: sidecar plus the one new line
    expect(third.indexSource).toBe('sidecar');
    expect(third.readTail(3).map((e) => e.type === 'question_answered' && e.data.answer)).toEqual(['answer 1', 'answer 2', 'late']);
  });

  it.each([
    ['replaced by a log of the same size with other content', () => writeLog(file, 25_000, (i) => `reply! ${i}`)],
    ['truncated', () => fs.truncateSync(file, fs.statSync(file).size - 100)],
    ['damaged', () => fs.writeFileSync(path.join(dir, 'events.idx'), 'not an index')],
  ])('ignores a sidecar that no longer matches its log (%s)', async (_how, change) => {
    writeLog(file, 25_000);
    await new EventLog(file, ID).ready();
    const sizeBefore = fs.statSync(file).size;
    change();
    expect(fs.statSync(file).size).toBeLessThanOrEqual(sizeBefore);
    const log = new EventLog(file, ID);
    await log.ready();
    expect(log.indexSource).toBe('scan');
    const scanned = new EventLog(file, ID, path.join(dir, 'fresh.idx'));
    expect(log.lastSeq).toBe(scanned.lastSeq);
    expect(log.readTail(2)).toEqual(scanned.readTail(2));
  });

  it('indexes a line longer than one read chunk, synchronously and in the background', async () => {
    const long = 'y'.repeat(Math.round(2.5 * INDEX_CHUNK_BYTES));
    writeLog(file, 4, (i) => (i === 3 ? long : `answer ${i}`));
    const background = new EventLog(file, ID);
    await background.ready();
    expect(background.lastSeq).toBe(4);
    const sync = new EventLog(file, ID, path.join(dir, 'sync.idx'));
    expect(sync.lastSeq).toBe(4);
    const third = sync.readAfter(2, 1)[0];
    expect(third?.type === 'question_answered' && third.data.answer.length).toBe(long.length);
  });

  it('shares one build between concurrent readers and stays consistent with appends made meanwhile', async () => {
    writeLog(file, 30_000);
    const log = new EventLog(file, ID);
    const a = log.ready();
    const b = log.ready();
    expect(a).toBe(b);
    log.append(note(1)); // a synchronous append while the build runs
    await a;
    expect(log.lastSeq).toBe(30_001);
    expect(log.readAfter(29_999, 5).map((e) => e.seq)).toEqual([30_000, 30_001]);
    expect(new EventLog(file, ID, path.join(dir, 'check.idx')).lastSeq).toBe(30_001);
  });
});
