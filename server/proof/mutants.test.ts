import { describe, expect, it } from 'vitest';
import { languageOf, mutantsFor } from './mutants.ts';

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

/** One line each, with what the swaps make of it: every operator, and the neighbours each must not be taken for. */
const JS_LINES: [string, string[]][] = [
  ['x = a <= b;', ['turns <= into <', 'drops the statement x = a <= b;']],
  ['x = a >= b;', ['turns >= into >', 'drops the statement x = a >= b;']],
  ['x = a < b;', ['turns < into <=', 'drops the statement x = a < b;']],
  ['x = a > b;', ['turns > into >=', 'drops the statement x = a > b;']],
  ['x = a === b;', ['flips === to !==', 'drops the statement x = a === b;']],
  ['x = a !== b;', ['flips !== to ===', 'drops the statement x = a !== b;']],
  ['x = a << b >> c >>> d;', ['drops the statement x = a << b >> c >>> d;']],
  ['x = a => b;', ['drops the statement x = a => b;']],
  ['x = a <== b;', ['drops the statement x = a <== b;']],
  ['x = a-- + ++b;', ['turns + into -', 'drops the statement x = a-- + ++b;']],
  ['x = a += b -= c;', ['drops the statement x = a += b -= c;']],
  ['x = a - b + c;', ['turns + into -', 'turns - into +', 'drops the statement x = a - b + c;']],
  ['x = -a;', ['turns - into +', 'drops the statement x = -a;']],
  ['x = i++ - 1;', ['turns - into +', 'turns 1 into 2', 'drops the statement x = i++ - 1;']],
  ['x = a && b || c;', ['turns && into ||', 'turns || into &&', 'drops the statement x = a && b || c;']],
  ['x = true || false;', ['turns || into &&', 'turns true into false', 'turns false into true', 'drops the statement x = true || false;']],
  ['x = trueish && falsy;', ['turns && into ||', 'drops the statement x = trueish && falsy;']],
  [
    'x = $1 + 2 + v2 + 3.5 + 0.5;',
    ['turns + into -', 'turns + into -', 'turns + into -', 'turns + into -', 'turns 2 into 3', 'drops the statement x = $1 + 2 + v2 + 3.5 + 0.5;'],
  ],
  ['x = a->b;', ['drops the statement x = a->b;']],
  ['f(x); // x < 1', ['drops the statement f(x);']],
  ['z = a / b / c;', ['drops the statement z = a / b / c;']],
  ['return typeof /a<b/;', ['turns < into <=', 'returns undefined instead of typeof /a<b/']],
  ['q = `t<${a}>`;', ['drops the statement q = `t<${a}>`;']],
  ['const k = 1;', ['turns 1 into 2']],
  ['g.h[0] = 4;', ['turns 0 into 1', 'turns 4 into 5', 'drops the statement g.h[0] = 4;']],
  ['return;', []],
  ['  return a < b', ['turns < into <=', 'returns undefined instead of a < b']],
  ['/* x < 1 */ y = 2;', []],
  ['* note 3', []],
  ['w = a /* c < d */ < e;', ['turns < into <=', 'drops the statement w = a /* c < d */ < e;']],
];
const PY_LINES: [string, string[]][] = [
  ['x = a == b', ['flips == to !=', 'drops the statement x = a == b']],
  ['x = a != b', ['flips != to ==', 'drops the statement x = a != b']],
  ['x = a <= b', ['turns <= into <', 'drops the statement x = a <= b']],
  ['x = a >= b', ['turns >= into >', 'drops the statement x = a >= b']],
  ['x = a < b', ['turns < into <=', 'drops the statement x = a < b']],
  ['x = a > b', ['turns > into >=', 'drops the statement x = a > b']],
  ['x = a << b >> c', ['drops the statement x = a << b >> c']],
  ['x = a and b or c', ['turns and into or', 'turns or into and', 'drops the statement x = a and b or c']],
  ['x = not a', ['drops a not', 'drops the statement x = not a']],
  ['x = True or False', ['turns or into and', 'turns True into False', 'turns False into True', 'drops the statement x = True or False']],
  ['x = android and ordinal', ['turns and into or', 'drops the statement x = android and ordinal']],
  ['x = 3  # 4 < 5', ['turns 3 into 4', 'drops the statement x = 3']],
  ['return a', ['returns None instead of a']],
  ['y[0] = 2', ['turns 0 into 1', 'turns 2 into 3', 'drops the statement y[0] = 2']],
  ['x == y', ['flips == to !=']],
  ['from a import b', []],
];

describe('each swap, next to what it must not be taken for', () => {
  it.each(JS_LINES)('JavaScript %j', (line, expected) => {
    expect(mutantsFor('src/a.js', line, [1]).map((m) => m.description)).toEqual(expected);
  });
  it.each(PY_LINES)('Python %j', (line, expected) => {
    expect(mutantsFor('src/a.py', line, [1]).map((m) => m.description)).toEqual(expected);
  });
  it('knows the languages by their endings, and makes nothing of another', () => {
    for (const file of ['a.js', 'a.cjs', 'a.mjs', 'a.ts', 'a.cts', 'a.mts', 'a.jsx', 'a.tsx']) expect(languageOf(file), file).toBe('js');
    expect(languageOf('a.py')).toBe('py');
    for (const file of ['a.rb', 'a.json', 'a.jsonx', 'a.ts.bak', 'py']) expect(languageOf(file), file).toBeNull();
    expect(mutantsFor('a.rb', 'x = a < b', [1])).toEqual([]);
  });
  it('stops at the limit, and reads each line once in order, skipping lines that are not there', () => {
    expect(mutantsFor('a.js', 'x = a < b && c > d;\ny = 1 + 2;', [2, 1, 2, 9], 3).map((m) => `${m.line}: ${m.description}`)).toEqual([
      '1: turns < into <=',
      '1: turns > into >=',
      '1: turns && into ||',
    ]);
  });
});
