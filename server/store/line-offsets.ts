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

  static fromBuffer(bytes: Buffer): LineOffsets {
    const offsets = new LineOffsets(Math.max(bytes.length / 8, 1024));
    // Copy rather than view: the buffer may not be 8-byte aligned, and it is not ours to keep.
    const view = new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
    offsets.data.set(view);
    offsets.length = view.length;
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
      const grown = new Float64Array(this.data.length * 2);
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
