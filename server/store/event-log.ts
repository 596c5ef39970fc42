/**
 * The per-session event log, `events.jsonl`: one `{seq, ts, type, data}` object per line.
 *
 * One EventLog instance is the single writer of its file, so `seq` is dense and monotonic. An
 * append is a synchronous write of one whole line; the caller publishes only after it returns
 * (disk first, then wire). The process can die between any two appends and the log stays valid.
 *
 * Reading keeps a byte-offset index of line starts, built once and extended as the file grows,
 * so `readAfter` on a 100k-event log reads one page worth of bytes, not the whole file.
 *
 * Tolerance: a torn last line (crash mid-append) is skipped on read and cut off before the next
 * append. Any other bad line is corruption and raises CorruptFileError naming file and line.
 */
import fs from 'node:fs';
import { LOG_VERSION, TilthEventSchema, upgradeEvent, type EventInput, type TilthEvent } from '../../shared/events.ts';
import { CorruptFileError, describeZodError } from '../errors.ts';
import { writeAll } from './atomic.ts';

const NEWLINE = 0x0a;

interface Index {
  /** offsets[i] is the byte offset of the line holding seq i+1. */
  offsets: number[];
  /** Bytes of the file covered by complete lines. */
  indexedBytes: number;
  logVersion: number;
}

export class EventLog {
  private index: Index | null = null;
  private fd: number | null = null;

  constructor(
    readonly file: string,
    readonly sessionId: string,
  ) {}

  /** Seq of the last complete event on disk (0 for a new log). */
  get lastSeq(): number {
    return this.refreshIndex().offsets.length;
  }

  /**
   * Appends one event and returns it with its seq and ts. A new log first gets `log_opened`
   * carrying the log version, so every log says how to read itself.
   */
  append(input: EventInput, now: Date = new Date()): TilthEvent {
    const index = this.prepareForAppend();
    if (index.offsets.length === 0 && input.type !== 'log_opened') {
      this.writeEvent(index, { type: 'log_opened', data: { log_version: LOG_VERSION, session_id: this.sessionId } }, now);
    }
    return this.writeEvent(index, input, now);
  }

  /** Events with seq > after, at most `limit` of them, oldest first. */
  readAfter(after: number, limit: number): TilthEvent[] {
    const index = this.refreshIndex();
    const first = Math.max(after, 0);
    return this.readIndexRange(index, first, Math.min(first + limit, index.offsets.length));
  }

  /** The `limit` events just before seq `before` (exclusive), oldest first: paging backwards. */
  readBefore(before: number, limit: number): TilthEvent[] {
    const index = this.refreshIndex();
    const last = Math.min(Math.max(before - 1, 0), index.offsets.length);
    return this.readIndexRange(index, Math.max(last - limit, 0), last);
  }

  /** The newest `limit` events, oldest first: where a long session's page opens. */
  readTail(limit: number): TilthEvent[] {
    const index = this.refreshIndex();
    return this.readIndexRange(index, Math.max(index.offsets.length - limit, 0), index.offsets.length);
  }

  /** Lines [first, last) of the index, i.e. seqs first+1 … last. */
  private readIndexRange(index: Index, first: number, last: number): TilthEvent[] {
    const { offsets } = index;
    if (first >= last) return [];
    const start = offsets[first]!;
    const end = last < offsets.length ? offsets[last]! : index.indexedBytes;
    const buf = this.readRange(start, end);
    const events: TilthEvent[] = [];
    let lineStart = 0;
    // Stryker disable next-line EqualityOperator: buf[buf.length] is undefined, never a newline
    for (let i = 0; i < buf.length; i++) {
      if (buf[i] !== NEWLINE) continue;
      const seqIndex = first + events.length;
      events.push(this.parseLine(buf.subarray(lineStart, i).toString('utf8'), seqIndex + 1, index.logVersion));
      lineStart = i + 1;
    }
    return events;
  }

  close(): void {
    if (this.fd !== null) {
      fs.closeSync(this.fd);
      this.fd = null;
    }
  }

  private writeEvent(index: Index, input: EventInput, now: Date): TilthEvent {
    const candidate = { seq: index.offsets.length + 1, ts: now.toISOString(), type: input.type, data: input.data };
    const parsed = TilthEventSchema.safeParse(candidate);
    if (!parsed.success) {
      // A bad event is a programming error in the emitter; refuse it rather than write garbage.
      throw new Error(`refusing to write an invalid ${input.type} event: ${describeZodError(parsed.error)}`);
    }
    // Stryker disable next-line StringLiteral: utf8 is Buffer.from's default encoding
    const line = Buffer.from(`${JSON.stringify(parsed.data)}\n`, 'utf8');
    writeAll(this.openForAppend(), line);
    index.offsets.push(index.indexedBytes);
    index.indexedBytes += line.length;
    return parsed.data;
  }

  private openForAppend(): number {
    if (this.fd === null) this.fd = fs.openSync(this.file, 'a');
    return this.fd;
  }

  /** Cuts a torn trailing fragment so the next line starts on a fresh line. */
  private prepareForAppend(): Index {
    const index = this.refreshIndex();
    const size = fileSize(this.file);
    if (size > index.indexedBytes) fs.truncateSync(this.file, index.indexedBytes);
    return index;
  }

  private refreshIndex(): Index {
    const size = fileSize(this.file);
    // Replaced or truncated elsewhere: start over. (Starting over more often only costs a re-read.)
    // Stryker disable next-line ConditionalExpression,EqualityOperator: only the cost differs
    if (this.index && size < this.index.indexedBytes) this.index = null;
    const index = (this.index ??= { offsets: [], indexedBytes: 0, logVersion: LOG_VERSION });
    if (size <= index.indexedBytes) return index;

    const buf = this.readRange(index.indexedBytes, size);
    let lineStart = 0;
    // Stryker disable next-line EqualityOperator: buf[buf.length] is undefined, never a newline
    for (let i = 0; i < buf.length; i++) {
      if (buf[i] !== NEWLINE) continue;
      const offset = index.indexedBytes + lineStart;
      const seq = index.offsets.length + 1;
      if (seq === 1) index.logVersion = this.readLogVersion(buf.subarray(lineStart, i).toString('utf8'));
      else if (i - lineStart === 0) throw new CorruptFileError(this.file, `line ${seq} is empty`);
      index.offsets.push(offset);
      lineStart = i + 1;
    }
    index.indexedBytes += lineStart; // a trailing fragment without a newline is a torn line: not indexed
    return index;
  }

  private readLogVersion(line: string): number {
    try {
      const first = JSON.parse(line) as { type?: unknown; data?: { log_version?: unknown } } | null;
      const version = first?.data?.log_version;
      if (first?.type === 'log_opened' && typeof version === 'number') {
        if (version > LOG_VERSION) {
          throw new CorruptFileError(this.file, `log version ${version} is newer than this Tilth understands (${LOG_VERSION}); upgrade Tilth`);
        }
        return version;
      }
    } catch (err) {
      if (err instanceof CorruptFileError) throw err;
      throw new CorruptFileError(this.file, 'line 1 is not valid JSON');
    }
    throw new CorruptFileError(this.file, 'line 1 must be a log_opened event carrying log_version');
  }

  private parseLine(line: string, expectedSeq: number, logVersion: number): TilthEvent {
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      throw new CorruptFileError(this.file, `line ${expectedSeq} is not valid JSON`);
    }
    const parsed = TilthEventSchema.safeParse(upgradeEvent(raw, logVersion));
    if (!parsed.success) {
      throw new CorruptFileError(this.file, `line ${expectedSeq} is not a valid event (${describeZodError(parsed.error)})`);
    }
    if (parsed.data.seq !== expectedSeq) {
      throw new CorruptFileError(this.file, `line ${expectedSeq} has seq ${parsed.data.seq}; seq must be dense`);
    }
    return parsed.data;
  }

  private readRange(start: number, end: number): Buffer {
    const length = end - start;
    const buf = Buffer.allocUnsafe(length);
    const fd = fs.openSync(this.file, 'r');
    try {
      let read = 0;
      // A regular file gives every byte asked for in one read; the loop guards a short read, and
      // a file that shrank meanwhile (n === 0), neither of which a test can cause.
      // Stryker disable next-line EqualityOperator: see above
      while (read < length) {
        // Stryker disable next-line ArithmeticOperator: see above (read is 0 on the one pass)
        const n = fs.readSync(fd, buf, read, length - read, start + read);
        // Stryker disable next-line ConditionalExpression: see above
        if (n === 0) break;
        read += n;
      }
      return buf.subarray(0, read);
    } finally {
      fs.closeSync(fd);
    }
  }
}

function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
}
