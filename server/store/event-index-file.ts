/**
 * `events.idx`, the offset index kept beside an event log so reopening a long log reads 8 bytes
 * per event instead of the whole log. A 64-byte header (magic, bytes of the log covered, lines,
 * log version, SHA-256 of the last line covered), then one little-endian float64 offset per
 * line. Only an optimisation: a sidecar that does not match its log is ignored, and a failed
 * write leaves the next open to scan the log.
 */
import fs from 'node:fs';
import type { Tree } from '../fs/tree.ts';
import { LineOffsets } from './line-offsets.ts';

export interface Index {
  /** offsets.at(i) is the byte offset of the line holding seq i+1. */
  offsets: LineOffsets;
  /** Bytes of the file covered by complete lines. */
  indexedBytes: number;
  logVersion: number;
  /** Lines the sidecar on disk covers (0: none written by us). */
  savedLines: number;
}

const MAGIC = 'TILTHIX1';
const HEADER = 64;

/** The sidecar's bytes for `index`, given the hash of the last line it covers. */
export function encodeIndex(index: Index, lastLineHash: Buffer): Buffer {
  const header = Buffer.alloc(HEADER);
  header.write(MAGIC, 0, 'latin1');
  header.writeDoubleLE(index.indexedBytes, 8);
  header.writeDoubleLE(index.offsets.length, 16);
  header.writeUInt32LE(index.logVersion, 24);
  lastLineHash.copy(header, 32);
  return Buffer.concat([header, index.offsets.toBuffer()]);
}

/**
 * The index in `bytes` if it fits a log of `size` bytes: its last line's hash (`hashOf` the log's
 * bytes [start, end)) must match; otherwise null.
 */
export function decodeIndex(bytes: Buffer, size: number, hashOf: (start: number, end: number) => Buffer): Index | null {
  if (bytes.length < HEADER || bytes.toString('latin1', 0, 8) !== MAGIC) return null;
  const indexedBytes = bytes.readDoubleLE(8);
  const lines = bytes.readDoubleLE(16);
  const logVersion = bytes.readUInt32LE(24);
  if (lines < 1 || indexedBytes > size || bytes.length !== HEADER + lines * 8) return null;
  const offsets = LineOffsets.fromBuffer(bytes.subarray(HEADER));
  const lastStart = offsets.at(lines - 1);
  if (offsets.at(0) !== 0 || lastStart >= indexedBytes) return null;
  try {
    if (!hashOf(lastStart, indexedBytes).equals(bytes.subarray(32, 64))) return null;
  } catch {
    return null;
  }
  return { offsets, indexedBytes, logVersion, savedLines: lines };
}

export function readIndexFile(file: string): Buffer | null {
  try {
    return fs.readFileSync(file);
  } catch {
    return null;
  }
}

export async function readIndexFileAsync(file: string): Promise<Buffer | null> {
  return fs.promises.readFile(file).catch(() => null);
}

/** Writes the sidecar through a temporary file and a rename; false when that failed. */
export function writeIndexFile(tree: Tree, file: string, bytes: Buffer): boolean {
  try {
    tree.writeFileAtomic(file, bytes, { durable: false });
    return true;
  } catch {
    return false;
  }
}

export async function writeIndexFileAsync(tree: Tree, file: string, bytes: Buffer): Promise<boolean> {
  try {
    await tree.writeFileAtomicAsync(file, bytes);
    return true;
  } catch {
    return false;
  }
}
