/**
 * A growable list of byte offsets in one Float64Array: 8 bytes per line whatever the log's size
 * (a float64 holds any offset past 4 GB exactly), and one copy to persist or restore.
 */
export class LineOffsets {
  private data: Float64Array;
  length = 0;

  constructor(capacity = 1024) {
    this.data = new Float64Array(capacity);
  }

  /**
   * The offsets in `bytes`, which the list takes as its own: a buffer read for it (the sidecar's),
   * never written by anyone else. Aligned on 8 bytes (a file read whole, past its 64-byte header)
   * it is used where it is, without a copy: copying a million-line index is 8 MB of fresh memory,
   * 40–50 ms of one thread on a small machine, during which the server answers nothing.
   */
  static fromBuffer(bytes: Buffer): LineOffsets {
    const offsets = new LineOffsets(0);
    const lines = bytes.length / 8;
    offsets.data =
      bytes.byteOffset % 8 === 0
        ? new Float64Array(bytes.buffer, bytes.byteOffset, lines)
        : new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
    offsets.length = lines;
    return offsets;
  }

  get byteLength(): number {
    return this.data.byteLength;
  }

  at(i: number): number {
    return this.data[i] as number;
  }

  push(offset: number): void {
    if (this.length === this.data.length) {
      const grown = new Float64Array(Math.max(1024, this.data.length * 2));
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = offset;
  }

  /** The offsets in use, little-endian, as the sidecar stores them. */
  toBuffer(): Buffer {
    return Buffer.from(this.data.buffer, this.data.byteOffset, this.length * 8);
  }
}
