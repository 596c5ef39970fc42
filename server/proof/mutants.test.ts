import { describe, expect, it } from 'vitest';
import { mutantsFor } from './mutants.ts';

const descriptions = (file: string, source: string, lines: number[]) => mutantsFor(file, source, lines).map((m) => `${m.line}: ${m.description}`);

describe('mutantsFor', () => {
  it('flips comparisons and logic, shifts numbers, empties strings, swaps the return value and drops a throw in JavaScript', () => {
    const source = [
      '// a comment < 3',
      'export function check(level, n) {',
      "  if (!['low', 'high'].includes(level) && n >= 2) throw new Error(`unknown: ${level}`);",
      '  return n * 2;',
      '}',
    ].join('\n');
    expect(descriptions('src/todo.js', source, [1, 3, 4])).toEqual([
      '3: turns >= into >',
      '3: turns && into ||',
      '3: turns 2 into 3',
      "3: changes the string 'low' to 'mutant'",
      "3: changes the string 'high' to 'mutant'",
      "3: drops the statement if (!['low', 'high'].includes(level) && n >= 2) throw new Error(`unknown: ${level}`);",
      '4: turns 2 into 3',
      '4: returns undefined instead of n * 2',
    ]);
  });

  it('changes one place at a time and leaves the other lines alone', () => {
    const source = 'const a = 1;\nexport const ok = (x) => x === a || x === 2;\n';
    const mutants = mutantsFor('src/ok.ts', source, [2]);
    expect(mutants.map((m) => m.description)).toEqual(['flips === to !==', 'flips === to !==', 'turns || into &&', 'turns 2 into 3']);
    expect(mutants[1]!.source).toBe('const a = 1;\nexport const ok = (x) => x === a || x !== 2;\n');
    expect(mutants.every((m) => m.source.startsWith('const a = 1;\n'))).toBe(true);
  });

  it('mutates Python: comparisons, and/or, not, booleans, return and raise', () => {
    const source = [
      'def set_priority(todos, index, level):',
      '    if level not in LEVELS or index < 0:',
      '        raise ValueError(f"unknown level: {level}")',
      '    return [*todos[:index], replace(todos[index], priority=level)]',
    ].join('\n');
    expect(descriptions('src/todo/__init__.py', source, [2, 3, 4])).toEqual([
      '2: turns < into <=',
      '2: turns or into and',
      '2: drops a not',
      '2: turns 0 into 1',
      '3: drops the statement raise ValueError(f"unknown level: {level}")',
      '4: returns None instead of [*todos[:index], replace(todos[index], priority=level)]',
    ]);
  });

  it('makes no mutant inside the message of an error being thrown or raised, and still drops the throw', () => {
    const js = [
      'export function parse(s) {',
      "  if (s === '') throw new Error('empty: ' + s + ' is not ' + (1 < 2));",
      "  if (s === 'x') throw new TypeError(`bad`, { cause: 'the x' });",
      "  throw 'nothing left';",
      '}',
      "const e = new RangeError('out of range');",
      'throw new Error(',
      "  'on its own line'",
      ');',
    ].join('\n');
    expect(descriptions('src/parse.js', js, [2, 3, 4, 6, 8])).toEqual([
      '2: flips === to !==',
      "2: drops the statement if (s === '') throw new Error('empty: ' + s + ' is not ' + (1 < 2));",
      '3: flips === to !==',
      "3: changes the string 'x' to 'mutant'",
      // The option object's string is no message, but it is an argument of the error all the same.
      "3: drops the statement if (s === 'x') throw new TypeError(`bad`, { cause: 'the x' });",
      "4: drops the statement throw 'nothing left';",
    ]);
    const py = [
      'def parse(s):',
      "    if s == '':",
      "        raise ValueError(f'empty: {s} is not 1 < 2')",
      "    raise ParseFailure('no ' + 'luck', 3)",
      "    return 'ok'",
    ].join('\n');
    expect(descriptions('src/parse.py', py, [2, 3, 4, 5])).toEqual([
      '2: flips == to !=',
      "3: drops the statement raise ValueError(f'empty: {s} is not 1 < 2')",
      "4: drops the statement raise ParseFailure('no ' + 'luck', 3)",
      "5: changes the string 'ok' to 'mutant'",
      "5: returns None instead of 'ok'",
    ]);
  });

  it('makes no mutant inside a regex character class, but still inside the rest of the regex and beside it', () => {
    const source = ['export const valid = (s, n) => /^[0-9a-z<>-]{2}$/.test(s) && n > 1 && s.split(/[,;]/).length / 2 > 0;'].join('\n');
    expect(descriptions('src/valid.js', source, [1])).toEqual([
      '1: turns > into >=',
      '1: turns > into >=',
      '1: turns && into ||',
      '1: turns && into ||',
      '1: turns 2 into 3',
      '1: turns 1 into 2',
      '1: turns 2 into 3',
      '1: turns 0 into 1',
    ]);
  });

  it('skips comments, imports, blank lines and other languages, and never swaps inside a string', () => {
    expect(mutantsFor('src/a.js', "import { x } from './x.js';\n\n// x === y\nconst s = 'a === b';\n", [1, 2, 3])).toEqual([]);
    expect(mutantsFor('src/a.cjs', '\'use strict\';\n"use client"\n', [1, 2])).toEqual([]);
    expect(mutantsFor('src/main.rs', 'fn main() { if a == b {} }', [1])).toEqual([]);
    expect(descriptions('src/a.js', "const s = 'a === b';\n", [1])).toEqual(["1: changes the string 'a === b' to 'mutant'"]);
  });
});
