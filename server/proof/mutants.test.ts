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

const GO_LINES: [string, string[]][] = [
  ['\tok := a == b', ['flips == to !=']],
  ['\tok := a != b', ['flips != to ==']],
  ['\tok := a <= b && c >= d', ['turns <= into <', 'turns >= into >', 'turns && into ||']],
  ['\tok := a < b || c > d', ['turns < into <=', 'turns > into >=', 'turns || into &&']],
  ['\tv := <-ch', []],
  ['\tx := a << 2 >> b', ['turns 2 into 3']],
  ['\tn := a + b - c', ['turns + into -', 'turns - into +']],
  ['\ti++', []],
  ['\tx += 2', ['turns 2 into 3', 'drops the statement x += 2']],
  ['\tdone = true', ['turns true into false', 'drops the statement done = true']],
  ['\treturn false', ['turns false into true']],
  ['\treturn a + b', ['turns + into -']],
  ['\tout[index].Done = true // mark it', ['turns true into false', 'drops the statement out[index].Done = true']],
  ['\tsave(todo)', ['drops the statement save(todo)']],
  ['\tpanic("unreachable")', ['drops the statement panic("unreachable")']],
  ['\treturn nil, fmt.Errorf("no todo at %d", index+1)', []],
  ['\treturn nil, errors.New("a todo needs a title")', []],
  ['\ttitle := "untitled"', ['changes the string "untitled" to "mutant"']],
  ["\tsep := ','", []],
  ['\tre := `a+b`', []],
  ['\tx := 3 // 4 < 5', ['turns 3 into 4']],
  ['// if a < b {', []],
  ['package todo', []],
  ['import "fmt"', []],
  ['\t"strings"', []],
  ['\tstr "strings"', []],
];

describe('each swap, next to what it must not be taken for', () => {
  it.each(GO_LINES)('Go %j', (line, expected) => {
    expect(mutantsFor('todo/todo.go', line, [1]).map((m) => m.description)).toEqual(expected);
  });
  it.each(JS_LINES)('JavaScript %j', (line, expected) => {
    expect(mutantsFor('src/a.js', line, [1]).map((m) => m.description)).toEqual(expected);
  });
  it.each(PY_LINES)('Python %j', (line, expected) => {
    expect(mutantsFor('src/a.py', line, [1]).map((m) => m.description)).toEqual(expected);
  });
  it('knows the languages by their endings, and makes nothing of another', () => {
    for (const file of ['a.js', 'a.cjs', 'a.mjs', 'a.ts', 'a.cts', 'a.mts', 'a.jsx', 'a.tsx']) expect(languageOf(file), file).toBe('js');
    expect(languageOf('a.py')).toBe('py');
    expect(languageOf('todo/todo.go')).toBe('go');
    expect(languageOf('todo/todo_test.go')).toBeNull();
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

/** One line each, with the mutant a description names and the line that mutant puts in its place. */
const JS_SOURCES: [string, string, string][] = [
  ['x = a === b;', 'flips === to !==', 'x = a !== b;'],
  ['x = a !== b;', 'flips !== to ===', 'x = a === b;'],
  ['x = a <= b;', 'turns <= into <', 'x = a < b;'],
  ['x = a >= b;', 'turns >= into >', 'x = a > b;'],
  ['x = a < b;', 'turns < into <=', 'x = a <= b;'],
  ['x = a > b;', 'turns > into >=', 'x = a >= b;'],
  ['x = a && b;', 'turns && into ||', 'x = a || b;'],
  ['x = a || b;', 'turns || into &&', 'x = a && b;'],
  ['x = a + b;', 'turns + into -', 'x = a - b;'],
  ['x = a - b;', 'turns - into +', 'x = a + b;'],
  ['x = true;', 'turns true into false', 'x = false;'],
  ['x = false;', 'turns false into true', 'x = true;'],
  ['const k = 1;', 'turns 1 into 2', 'const k = 2;'],
  ["const s = 'a';", "changes the string 'a' to 'mutant'", "const s = 'mutant';"],
  ['  return a + b;', 'returns undefined instead of a + b', '  return undefined;'],
  ['  save(todo);', 'drops the statement save(todo);', '  /* dropped */;'],
];
const PY_SOURCES: [string, string, string][] = [
  ['x = a == b', 'flips == to !=', 'x = a != b'],
  ['x = a != b', 'flips != to ==', 'x = a == b'],
  ['x = a <= b', 'turns <= into <', 'x = a < b'],
  ['x = a >= b', 'turns >= into >', 'x = a > b'],
  ['x = a < b', 'turns < into <=', 'x = a <= b'],
  ['x = a > b', 'turns > into >=', 'x = a >= b'],
  ['x = a and b', 'turns and into or', 'x = a or b'],
  ['x = a or b', 'turns or into and', 'x = a and b'],
  ['x = not a', 'drops a not', 'x = a'],
  ['x = True', 'turns True into False', 'x = False'],
  ['x = False', 'turns False into True', 'x = True'],
  ["s = 'a'", "changes the string 'a' to 'mutant'", "s = 'mutant'"],
  ['    return a + b', 'returns None instead of a + b', '    return None'],
  ['    save(todo)', 'drops the statement save(todo)', '    pass  # dropped'],
];

describe('the source of each mutant', () => {
  it.each(JS_SOURCES)('JavaScript %j, where the mutant that %s puts %j in its place', (line, description, mutated) => {
    const source = `first();\n${line}\nlast();`;
    expect(mutantsFor('src/a.js', source, [2]).find((m) => m.description === description)).toEqual({
      line: 2,
      description,
      source: `first();\n${mutated}\nlast();`,
    });
  });
  it.each(PY_SOURCES)('Python %j, where the mutant that %s puts %j in its place', (line, description, mutated) => {
    const source = `first()\n${line}\nlast()`;
    expect(mutantsFor('src/a.py', source, [2]).find((m) => m.description === description)).toEqual({
      line: 2,
      description,
      source: `first()\n${mutated}\nlast()`,
    });
  });
});

/** One line each, with what it makes: where strings, comments and regexes begin and end on it. */
const JS_ZONES: [string, string[]][] = [
  ['x = "a < b";', ['changes the string "a < b" to "mutant"', 'drops the statement x = "a < b";']],
  ['x = "say \\"a < b\\"";', ['changes the string "say \\"a < b\\"" to "mutant"', 'drops the statement x = "say \\"a < b\\"";']],
  ['const help = `usage: a < b', []],
  ['x = a < b; //TODO c > d', ['turns < into <=']],
  ['x = 1; //a */ b < c', ['turns 1 into 2']],
  ['w = a /* c */ < e;', ['turns < into <=', 'drops the statement w = a /* c */ < e;']],
  ['w = a /*/ c < d */ < e;', ['turns < into <=', 'drops the statement w = a /*/ c < d */ < e;']],
  ['w = /* c */ [a < b];', ['turns < into <=', 'drops the statement w = /* c */ [a < b];']],
  ['x = 1; /* a < b', ['turns 1 into 2']],
  ['x = /a//* c */ [b < d];', ['turns < into <=', 'drops the statement x = /a//* c */ [b < d];']],
  ['width = offset / 2 + "px";', ['turns + into -', 'turns 2 into 3', 'changes the string "px" to "mutant"', 'drops the statement width = offset / 2 + "px";']],
  ['x = s.replace(/a+/g, "b");', ['changes the string "b" to "mutant"', 'drops the statement x = s.replace(/a+/g, "b");']],
  ['x = /\\/[<>]/.test(s);', ['drops the statement x = /\\/[<>]/.test(s);']],
  ['  /^[<>]$/.test(s) && ready;', ['turns && into ||']],
  ['  / count < 1;', ['turns < into <=', 'turns 1 into 2']],
  ['x = 10;', ['turns 10 into 11', 'drops the statement x = 10;']],
  ['  * a < b', []],
  ['x = 1; //', ['turns 1 into 2']],
];
const PY_ZONES: [string, string[]][] = [
  ['x = `a < b`', ['turns < into <=', 'drops the statement x = `a < b`']],
  ['x = a // b < c', ['turns < into <=', 'drops the statement x = a // b < c']],
  ['def f(a, /, b=x[c < d]):', ['turns < into <=']],
  ['#a < b', []],
  ['x = 1 #', ['turns 1 into 2', 'drops the statement x = 1 #']],
];

describe('strings, comments and regexes on a line', () => {
  it.each(JS_ZONES)('JavaScript %j', (line, expected) => {
    expect(mutantsFor('src/a.js', line, [1]).map((m) => m.description)).toEqual(expected);
  });
  it.each(PY_ZONES)('Python %j', (line, expected) => {
    expect(mutantsFor('src/a.py', line, [1]).map((m) => m.description)).toEqual(expected);
  });
});

/** One line each, with what it makes: which arguments an error call (or a throw) holds as its message. */
const JS_ERRORS: [string, string[]][] = [
  ["  throw 'unknown level: ' + level;", ["drops the statement throw 'unknown level: ' + level;"]],
  ["  throw  'unknown level: ' + level;", ["drops the statement throw  'unknown level: ' + level;"]],
  ["  throw invalid('level', level);", ["drops the statement throw invalid('level', level);"]],
  ["  throw  invalid('level', level);", ["drops the statement throw  invalid('level', level);"]],
  ["  throw new Problem('bad level');", ["drops the statement throw new Problem('bad level');"]],
  ["  throw new  Problem('bad level');", ["drops the statement throw new  Problem('bad level');"]],
  ["  const e = new RangeError ('out of range');", []],
  ["  throw new Error(describe(level) + ' is unknown');", ["drops the statement throw new Error(describe(level) + ' is unknown');"]],
  [
    "  if (isError(e) && e.code === 'ENOENT') return null;",
    [
      'flips === to !==',
      'turns && into ||',
      "changes the string 'ENOENT' to 'mutant'",
      "drops the statement if (isError(e) && e.code === 'ENOENT') return null;",
    ],
  ],
  [
    "  if (isError(unwrap(e)) && e.code === 'ENOENT') return null;",
    [
      'flips === to !==',
      'turns && into ||',
      "changes the string 'ENOENT' to 'mutant'",
      "drops the statement if (isError(unwrap(e)) && e.code === 'ENOENT') return null;",
    ],
  ],
];
const PY_ERRORS: [string, string[]][] = [
  [
    "label = 'throw ' + 'away'",
    ["changes the string 'throw ' to 'mutant'", "changes the string 'away' to 'mutant'", "drops the statement label = 'throw ' + 'away'"],
  ],
  ["    raise  Invalid('bad level')", ["drops the statement raise  Invalid('bad level')"]],
  ["    error = ValueError('bad level')", ["drops the statement error = ValueError('bad level')"]],
  ["    error = ValueError ('bad level')", ["drops the statement error = ValueError ('bad level')"]],
];

describe('the message of an error', () => {
  it.each(JS_ERRORS)('JavaScript %j', (line, expected) => {
    expect(mutantsFor('src/a.js', line, [1]).map((m) => m.description)).toEqual(expected);
  });
  it.each(PY_ERRORS)('Python %j', (line, expected) => {
    expect(mutantsFor('src/a.py', line, [1]).map((m) => m.description)).toEqual(expected);
  });
  it('reads a message onto the next line only when the line before leaves the call open at its end', () => {
    expect(mutantsFor('src/a.js', "throw new Error(\n  'on the next line'\n);", [2])).toEqual([]);
    expect(mutantsFor('src/a.js', "throw new Error( \n  'on the next line'\n);", [2])).toEqual([]);
    expect(descriptions('src/a.js', "throw new Error('the level ' +\n  level + ' is unknown');", [2])).toEqual([
      '2: turns + into -',
      "2: changes the string ' is unknown' to 'mutant'",
    ]);
  });
});

/** One line each, with what it makes: imports, directives, returns and statements, and their look-alikes. */
const JS_STATEMENTS: [string, string[]][] = [
  ["const mod = await import('./mod.js');", ["changes the string './mod.js' to 'mutant'"]],
  ["  import { a } from './a.js';", []],
  ["} from './a.js';", []],
  ["}from './a.js';", []],
  ["export { a } from './a.js';", []],
  ["export{ a } from './a.js';", []],
  ["  'use strict';", []],
  ["'use strict';  // for old engines", []],
  ["const mode = 'use strict';", ["changes the string 'use strict' to 'mutant'"]],
  ["'use strict'; x = 1;", ['turns 1 into 2', "changes the string 'use strict' to 'mutant'"]],
  ['  return ;', []],
  ['  return undefined;', []],
  ["x = 'mutant';", ["drops the statement x = 'mutant';"]],
  ['if (!ok) return false;', ['turns false into true', 'drops the statement if (!ok) return false;']],
  ['  return a ;', ['returns undefined instead of a']],
  ["  return parts.join(';');", ["changes the string ';' to 'mutant'", "returns undefined instead of parts.join(';')"]],
  ['for (let i = 0; i < n; i++) {', ['turns < into <=', 'turns 0 into 1']],
  ['total += n;', ['drops the statement total += n;']],
  ['save(todo);  // and flush', ['drops the statement save(todo);']],
  ['schema.const = level;', ['drops the statement schema.const = level;']],
];
const PY_STATEMENTS: [string, string[]][] = [
  ['from os import path; depth = 1', []],
  ['from  os  import path; depth = 1', []],
  ['"use strict"', ['changes the string "use strict" to "mutant"']],
  ['    if not ok: return False', ['drops a not', 'turns False into True']],
  ['    return level;', ['returns None instead of level']],
  ['    return None', []],
  ['save(todo)', ['drops the statement save(todo)']],
];

describe('imports, directives, returns and statements', () => {
  it.each(JS_STATEMENTS)('JavaScript %j', (line, expected) => {
    expect(mutantsFor('src/a.js', line, [1]).map((m) => m.description)).toEqual(expected);
  });
  it.each(PY_STATEMENTS)('Python %j', (line, expected) => {
    expect(mutantsFor('src/a.py', line, [1]).map((m) => m.description)).toEqual(expected);
  });
});
