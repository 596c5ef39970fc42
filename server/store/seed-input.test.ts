import { describe, expect, it } from 'vitest';
import { unsafePathReason } from './seed-input.ts';

describe('unsafePathReason', () => {
  it('accepts a plain test file path', () => {
    expect(unsafePathReason('tests/test_t001_add.py')).toBeNull();
  });

  it('refuses a file name no filesystem would take, instead of failing on write', () => {
    expect(unsafePathReason(`tests/${'a'.repeat(256)}.py`)).toMatch(/255 bytes/);
    expect(unsafePathReason(`tests/${'é'.repeat(130)}.py`)).toMatch(/255 bytes/); // 260 bytes in UTF-8
  });

  it('refuses NUL, absolute paths, backslashes and ..', () => {
    expect(unsafePathReason('tests/a\0.py')).toMatch(/NUL/);
    expect(unsafePathReason('/etc/passwd')).toMatch(/absolute/);
    expect(unsafePathReason('tests\\a.py')).toMatch(/backslash/);
    expect(unsafePathReason('tests/../a.py')).toMatch(/'\.\.'/);
  });
});
