import { describe, expect, it } from 'vitest';
import { globMatches, normaliseGlob } from './glob.ts';

const VITEST_DEFAULT = '**/*.{test,spec}.?(c|m)[jt]s?(x)';
const JEST_DEFAULTS = ['**/__tests__/**/*.?([mc])[jt]s?(x)', '**/?(*.)+(spec|test).?([mc])[jt]s?(x)'];
const MOCHA_DEFAULT = './test/*.{js,cjs,mjs}';

describe('globMatches', () => {
  it.each([
    [VITEST_DEFAULT, 'tests/t001_add.test.ts', true],
    [VITEST_DEFAULT, 't001_add.spec.mjs', true],
    [VITEST_DEFAULT, 'src/deep/x.test.tsx', true],
    [VITEST_DEFAULT, 'tests/t001_add.ts', false],
    [VITEST_DEFAULT, 'tests/t001_add.test.py', false],
    [JEST_DEFAULTS[0]!, '__tests__/t001_add.js', true],
    [JEST_DEFAULTS[0]!, 'tests/t001_add.js', false],
    [JEST_DEFAULTS[1]!, 'tests/t001_add.test.js', true],
    [JEST_DEFAULTS[1]!, 'tests/t001_add.test.cts', true],
    [MOCHA_DEFAULT, 'test/t001_add.test.js', true],
    [MOCHA_DEFAULT, 'test/deep/t001_add.test.js', false],
    [MOCHA_DEFAULT, 'tests/t001_add.test.js', false],
    [MOCHA_DEFAULT, 'test/t001_add.test.ts', false],
    ['test/**/*.spec.ts', 'test/t001_add.spec.ts', true],
    ['test/**/*.spec.ts', 'test/t001_add.test.ts', false],
    ['tests/**/test_*.py', 'tests/test_t001_add.py', true],
    ['src/**/!(*.d).ts', 'src/a.ts', true],
  ])('%s against %s is %s', (glob, file, expected) => {
    expect(globMatches(glob, file)).toBe(expected);
  });

  it('reads globs relative to the root whether they start with ./ or <rootDir>/', () => {
    expect(normaliseGlob('./test/*.js')).toBe('test/*.js');
    expect(normaliseGlob('<rootDir>/tests/**/*.test.ts')).toBe('tests/**/*.test.ts');
  });
});
