import { describe, expect, it } from 'vitest';
import { formatDuration, shortSha, words } from './review-format.ts';

describe('review formatting', () => {
  it('shows durations in the largest sensible unit', () => {
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(12_400)).toBe('12 s');
    expect(formatDuration(200_000)).toBe('3 min 20 s');
    expect(formatDuration(3_900_000)).toBe('1 h 05 min');
    expect(formatDuration(-1)).toBe('—');
  });
  it('shortens shas and snake_case', () => {
    expect(shortSha('0123456789abcdef')).toBe('01234567');
    expect(words('tests_pass_but_wrong')).toBe('tests pass but wrong');
  });
});
