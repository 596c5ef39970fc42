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
      '3: changes the string "unknown level: {level}" to "mutant"',
      '3: drops the statement raise ValueError(f"unknown level: {level}")',
      '4: returns None instead of [*todos[:index], replace(todos[index], priority=level)]',
    ]);
  });

  it('skips comments, imports, blank lines and other languages, and never swaps inside a string', () => {
    expect(mutantsFor('src/a.js', "import { x } from './x.js';\n\n// x === y\nconst s = 'a === b';\n", [1, 2, 3])).toEqual([]);
    expect(mutantsFor('src/main.rs', 'fn main() { if a == b {} }', [1])).toEqual([]);
    expect(descriptions('src/a.js', "const s = 'a === b';\n", [1])).toEqual(["1: changes the string 'a === b' to 'mutant'"]);
  });
});
