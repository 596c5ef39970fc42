import { describe, expect, it } from 'vitest';
import { languageOf } from './code-language.ts';

describe('languageOf', () => {
  it('highlights python and javascript by extension', () => {
    expect(languageOf('tests/test_t001_x.py')).toBe('python');
    expect(languageOf('tests/t001_x.test.js')).toBe('javascript');
    expect(languageOf('tests/t001_x.test.mjs')).toBe('javascript');
    expect(languageOf('tests/t001_x.test.ts')).toBe('typescript');
    expect(languageOf('tests/t001_x.sh')).toBeNull();
  });
});
