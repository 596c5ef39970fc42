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
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { LOG_VERSION, TilthEventSchema, upgradeEvent, type EventInput, type TilthEvent } from '../../shared/events.ts';
import { CorruptFileError, describeZodError } from '../errors/app-error.ts';
import { Tree, writeAll } from '../fs/tree.ts';
import { decodeIndex, encodeIndex, type Index, readIndexFile, readIndexFileAsync, writeIndexFile, writeIndexFileAsync } from './event-index-file.ts';
import { LineOffsets } from './line-offsets.ts';

const NEWLINE = 0x0a;
/** Bytes per read while indexing: memory stays bounded whatever the log's size. */
export const INDEX_CHUNK_BYTES = 1 << 20;
/** The sidecar is rewritten once this many lines were indexed since it was last written. */
const SIDECAR_EVERY = 10_000;

/** Where an index came from, for tests and benches: a scan of the log, or the sidecar plus a scan of what followed. */
export type IndexSource = 'scan' | 'sidecar';

export class EventLog {
  private index: Index | null = null;
  private fd: number | null = null;
  private building: Promise<void> | null = null;
  private source: IndexSource = 'scan';

  constructor(
    readonly file: string,
    readonly sessionId: string,
    /** The offset index kept beside the log (`events.idx`), checked against the log before use. */
    readonly indexFile: string = path.join(path.dirname(file), `${path.basename(file, '.jsonl')}.idx`),
    /** Where its writes go through; the log's own folder when not given. */
    private tree: Tree | null = null,
  ) {}

  private get writes(): Tree {
    this.tree ??= Tree.at(path.dirname(this.file));
    return this.tree;
  }

  /** Seq of the last complete event on disk (0 for a new log). */
  get lastSeq(): number {
    return this.refreshIndex().offsets.length;
  }

  /** Bytes the in-memory index holds (what an LRU of open logs weighs). */
  get memoryBytes(): number {
    return this.index?.offsets.byteLength ?? 0;
  }

  /** True while `ready()` is building the index in the background. */
  get indexing(): boolean {
    return this.building !== null;
  }

  get indexSource(): IndexSource {
    return this.source;
  }

  /**
   * Brings the index up to the file's end without blocking the event loop: the sidecar is read
   * if it still matches the log, then the rest is scanned a chunk at a time with a turn of the
   * event loop between chunks. Readers await this before the synchronous reads below, which then
   * only index what was appended since. Concurrent callers share one build.
   */
  ready(): Promise<void> {
    this.building ??= this.buildAsync().finally(() => {
      this.building = null;
    });
    return this.building;
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

  /** False until an index exists and no build is under way: reads would wait for (or do) a scan. */
  get indexed(): boolean {
    return this.index !== null && this.building === null;
  }

  /**
   * The newest `limit` events read back from the end of the file, without an index: what a
   * long session's page opens on while its cold log is still being indexed (a million-event log
   * takes a few hundred ms; this reads a few hundred KB). Seqs come from the lines themselves,
   * checked to be dense. A torn last line is left out, as everywhere.
   */
  async readTailCold(limit: number): Promise<TilthEvent[]> {
    if (limit <= 0) return [];
    const handle = await fs.promises.open(this.file, 'r').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return null;
      throw err;
    });
    if (!handle) return [];
    try {
      const size = (await handle.stat()).size;
      let start = size;
      let buf = Buffer.alloc(0);
      let newlines = 0;
      // Back a chunk at a time until what was read holds limit complete lines after its first newline.
      while (start > 0) {
        const from = Math.max(0, start - TAIL_CHUNK_BYTES);
        const chunk = Buffer.allocUnsafe(start - from);
        const { bytesRead } = await handle.read(chunk, 0, chunk.length, from);
        buf = Buffer.concat([chunk.subarray(0, bytesRead), buf]);
        newlines += countNewlines(chunk.subarray(0, bytesRead));
        start = from;
        if (newlines > limit) break;
      }
      const end = buf.lastIndexOf(NEWLINE) + 1; // a torn last line is not an event yet
      const lines = buf.subarray(0, end).toString('utf8').split('\n');
      lines.pop();
      if (start > 0) lines.shift(); // it began mid-line
      const tail = lines.slice(-limit);
      if (tail.length === 0) return [];
      const firstLine = start === 0 ? (lines[0] ?? '') : await readFirstLine(handle);
      const version = this.readLogVersion(firstLine);
      const lastSeq = (JSON.parse(tail.at(-1)!) as { seq?: unknown }).seq;
      if (typeof lastSeq !== 'number') throw new CorruptFileError(this.file, 'its last line has no seq');
      return tail.map((line, i) => this.parseLine(line, lastSeq - (tail.length - 1 - i), version));
    } finally {
      await handle.close();
    }
  }

  /** Lines [first, last) of the index, i.e. seqs first+1 … last. */
  private readIndexRange(index: Index, first: number, last: number): TilthEvent[] {
    const { offsets } = index;
    if (first >= last) return [];
    const start = offsets.at(first);
    const end = last < offsets.length ? offsets.at(last) : index.indexedBytes;
    const buf = this.readRange(start, end);
    const events: TilthEvent[] = [];
    let lineStart = 0;
    for (let i = buf.indexOf(NEWLINE); i !== -1; i = buf.indexOf(NEWLINE, lineStart)) {
      const seqIndex = first + events.length;
      events.push(this.parseLine(buf.subarray(lineStart, i).toString('utf8'), seqIndex + 1, index.logVersion));
      lineStart = i + 1;
    }
    return events;
  }

  /** Closes the append descriptor and leaves the sidecar current, so the next open is cheap. */
  close(): void {
    if (this.fd !== null) {
      fs.closeSync(this.fd);
      this.fd = null;
    }
    if (this.index && this.index.offsets.length > this.index.savedLines) this.saveSidecar(this.index);
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
    if (this.fd === null) this.fd = this.writes.openAppend(this.file);
    return this.fd;
  }

  /** Cuts a torn trailing fragment so the next line starts on a fresh line. */
  private prepareForAppend(): Index {
    const index = this.refreshIndex();
    const size = fileSize(this.file);
    if (size > index.indexedBytes) this.writes.truncate(this.file, index.indexedBytes);
    return index;
  }

  /** The index as of the file's end, read synchronously (only the new part, once `ready()` has run). */
  private refreshIndex(): Index {
    const size = fileSize(this.file);
    const index = this.startIndex(size, () => this.loadSidecarSync(size));
    if (size <= index.indexedBytes) return index;
    const fd = fs.openSync(this.file, 'r');
    try {
      let chunk = INDEX_CHUNK_BYTES;
      while (index.indexedBytes < size) {
        const buf = Buffer.allocUnsafe(Math.min(chunk, size - index.indexedBytes));
        const n = readFully(fd, buf, index.indexedBytes);
        const consumed = this.scan(index, buf.subarray(0, n));
        if (consumed > 0) chunk = INDEX_CHUNK_BYTES;
        else if (index.indexedBytes + n >= size)
          break; // a torn last line: not indexed
        else chunk *= 2; // one line longer than a chunk
      }
    } finally {
      fs.closeSync(fd);
    }
    return index;
  }

  private async buildAsync(): Promise<void> {
    const size = await fileSizeAsync(this.file);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: only the cost differs
    if (this.index && size < this.index.indexedBytes) this.index = null;
    if (!this.index) {
      const loaded = size > 0 ? await this.loadSidecar(size) : null;
      // A synchronous reader may have built an index while the sidecar was read; it wins.
      if (!this.index) this.installIndex(loaded);
    }
    const index = this.index as Index;
    if (size <= index.indexedBytes) return;
    const handle = await fs.promises.open(this.file, 'r');
    try {
      let chunk = INDEX_CHUNK_BYTES;
      while (this.index === index && index.indexedBytes < size) {
        const at = index.indexedBytes;
        const buf = Buffer.allocUnsafe(Math.min(chunk, size - at));
        const { bytesRead } = await handle.read(buf, 0, buf.length, at);
        // Appends or a synchronous read moved the index on while we waited: read from there.
        if (this.index !== index || index.indexedBytes !== at) continue;
        const consumed = this.scan(index, buf.subarray(0, bytesRead));
        if (consumed > 0) chunk = INDEX_CHUNK_BYTES;
        else if (at + bytesRead >= size || bytesRead === 0) break;
        else chunk *= 2;
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      await handle.close();
    }
    if (this.index === index && index.offsets.length - index.savedLines >= SIDECAR_EVERY) await this.saveSidecarAsync(index);
  }

  /** The index to extend: the current one, or a fresh one (from `load`) if none or the file shrank. */
  private startIndex(size: number, load: () => Index | null): Index {
    // Replaced or truncated elsewhere: start over. (Starting over more often only costs a re-read.)
    // Stryker disable next-line ConditionalExpression,EqualityOperator: only the cost differs
    if (this.index && size < this.index.indexedBytes) this.index = null;
    return this.index ?? this.installIndex(size > 0 ? load() : null);
  }

  private installIndex(loaded: Index | null): Index {
    this.source = loaded ? 'sidecar' : 'scan';
    this.index = loaded ?? { offsets: new LineOffsets(), indexedBytes: 0, logVersion: LOG_VERSION, savedLines: 0 };
    return this.index;
  }

  /**
   * Indexes the complete lines of `buf`, which starts at `index.indexedBytes`, and returns how
   * many bytes they cover; a trailing fragment without a newline is left for the next read.
   */
  private scan(index: Index, buf: Buffer): number {
    let lineStart = 0;
    for (let i = buf.indexOf(NEWLINE); i !== -1; i = buf.indexOf(NEWLINE, lineStart)) {
      const seq = index.offsets.length + 1;
      if (seq === 1) index.logVersion = this.readLogVersion(buf.subarray(lineStart, i).toString('utf8'));
      else if (i === lineStart) throw new CorruptFileError(this.file, `line ${seq} is empty`);
      index.offsets.push(index.indexedBytes + lineStart);
      lineStart = i + 1;
    }
    index.indexedBytes += lineStart;
    return lineStart;
  }

  // --- The sidecar (events.idx, see event-index-file.ts), checked against the log's size and
  // the hash of the last line it covers; anything off and it is ignored (and rewritten).

  private saveSidecar(index: Index): void {
    const lines = index.offsets.length;
    if (writeIndexFile(this.writes, this.indexFile, this.sidecarBytes(index))) index.savedLines = lines;
  }

  private async saveSidecarAsync(index: Index): Promise<void> {
    const lines = index.offsets.length;
    if (await writeIndexFileAsync(this.writes, this.indexFile, this.sidecarBytes(index))) index.savedLines = lines;
  }

  private sidecarBytes(index: Index): Buffer {
    return encodeIndex(index, this.lastLineHash(index.offsets.at(index.offsets.length - 1), index.indexedBytes));
  }

  private loadSidecarSync(size: number): Index | null {
    const bytes = readIndexFile(this.indexFile);
    return bytes && decodeIndex(bytes, size, (start, end) => this.lastLineHash(start, end));
  }

  private async loadSidecar(size: number): Promise<Index | null> {
    const bytes = await readIndexFileAsync(this.indexFile);
    return bytes && decodeIndex(bytes, size, (start, end) => this.lastLineHash(start, end));
  }

  /** SHA-256 of the log's bytes [start, end): the last indexed line, newline included. */
  private lastLineHash(start: number, end: number): Buffer {
    return createHash('sha256').update(this.readRange(start, end)).digest();
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
    const buf = Buffer.allocUnsafe(end - start);
    const fd = fs.openSync(this.file, 'r');
    try {
      return buf.subarray(0, readFully(fd, buf, start));
    } finally {
      fs.closeSync(fd);
    }
  }
}

/** Bytes per backwards read of readTailCold. */
const TAIL_CHUNK_BYTES = 256 * 1024;

function countNewlines(buf: Buffer): number {
  let n = 0;
  for (let i = buf.indexOf(NEWLINE); i !== -1; i = buf.indexOf(NEWLINE, i + 1)) n++;
  return n;
}

/** The file's first line (the log header), read in small steps so a huge file costs little. */
async function readFirstLine(handle: fs.promises.FileHandle): Promise<string> {
  let buf = Buffer.alloc(0);
  for (let at = 0; ; at += 4096) {
    const chunk = Buffer.allocUnsafe(4096);
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, at);
    buf = Buffer.concat([buf, chunk.subarray(0, bytesRead)]);
    const nl = buf.indexOf(NEWLINE);
    if (nl !== -1) return buf.subarray(0, nl).toString('utf8');
    if (bytesRead === 0) return buf.toString('utf8');
  }
}

/** Reads buf.length bytes at `position`, fewer only at the end of the file. */
function readFully(fd: number, buf: Buffer, position: number): number {
  let read = 0;
  // A regular file gives every byte asked for in one read; the loop guards a short read, and
  // a file that shrank meanwhile (n === 0), neither of which a test can cause.
  // Stryker disable next-line EqualityOperator: see above
  while (read < buf.length) {
    // Stryker disable next-line ArithmeticOperator: see above (read is 0 on the one pass)
    const n = fs.readSync(fd, buf, read, buf.length - read, position + read);
    // Stryker disable next-line ConditionalExpression: see above
    if (n === 0) break;
    read += n;
  }
  return read;
}

async function fileSizeAsync(file: string): Promise<number> {
  try {
    return (await fs.promises.stat(file)).size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
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
