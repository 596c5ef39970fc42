import { describe, expect, it } from 'vitest';
import { languageOf } from './code-language.ts';

describe('languageOf', () => {
  it('highlights python, javascript, typescript, go and rust by extension', () => {
    expect(languageOf('tests/test_t001_x.py')).toBe('python');
    expect(languageOf('tests/t001_x.test.js')).toBe('javascript');
    expect(languageOf('tests/t001_x.test.mjs')).toBe('javascript');
    expect(languageOf('tests/t001_x.test.ts')).toBe('typescript');
    expect(languageOf('calc/t001_x_test.go')).toBe('go');
    expect(languageOf('tests/t001_x.rs')).toBe('rust');
    expect(languageOf('tests/t001_x.sh')).toBeNull();
  });
});
