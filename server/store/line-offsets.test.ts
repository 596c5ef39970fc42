import { describe, expect, it } from 'vitest';
import { LineOffsets } from './line-offsets.ts';

/** `values` as a sidecar stores them (little-endian float64), placed `at` bytes into a larger buffer. */
function stored(values: number[], at: number): Buffer {
  const whole = Buffer.alloc(at + values.length * 8 + 8, 0xff);
  values.forEach((v, i) => {
    whole.writeDoubleLE(v, at + i * 8);
  });
  return whole.subarray(at, at + values.length * 8);
}

describe('LineOffsets', () => {
  it('reads the offsets of an aligned buffer where they are, and of an unaligned one from a copy', () => {
    for (const at of [64, 3]) {
      const bytes = stored([0, 120, 5_000_000_000], at);
      const offsets = LineOffsets.fromBuffer(bytes);
      expect([offsets.length, offsets.at(0), offsets.at(1), offsets.at(2)], `at ${at}`).toEqual([3, 0, 120, 5_000_000_000]);
      expect(offsets.toBuffer().equals(bytes), `at ${at}`).toBe(true);
    }
    // Aligned, the list is the buffer: no 8 bytes a line copied on a restart's first read.
    const aligned = stored([0, 7], 64);
    const offsets = LineOffsets.fromBuffer(aligned);
    aligned.writeDoubleLE(9, 8);
    expect(offsets.at(1)).toBe(9);
  });

  it('grows past what it was read with, an empty index included, keeping every offset', () => {
    const read = LineOffsets.fromBuffer(stored([0, 10], 64));
    for (let i = 2; i < 3000; i++) read.push(i * 10);
    expect([read.length, read.at(1), read.at(2), read.at(2999)]).toEqual([3000, 10, 20, 29_990]);
    const empty = LineOffsets.fromBuffer(Buffer.alloc(0));
    empty.push(0);
    empty.push(42);
    expect([empty.length, empty.at(1)]).toEqual([2, 42]);
    expect(read.byteLength).toBeGreaterThanOrEqual(3000 * 8);
  });
});
