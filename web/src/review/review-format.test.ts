import { describe, expect, it } from 'vitest';
import { shortSha, words } from './review-format.ts';

describe('review formatting', () => {
  it('shortens shas and snake_case', () => {
    expect(shortSha('0123456789abcdef')).toBe('01234567');
    expect(words('tests_pass_but_wrong')).toBe('tests pass but wrong');
  });
});
