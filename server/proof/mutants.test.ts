import { describe, expect, it } from 'vitest';
import { languageOf, mutantsFor, mutatedUnder } from './mutants.ts';

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
    expect(mutantsFor('src/main.c', 'int main() { if (a == b) {} }', [1])).toEqual([]);
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

/** Rust's lines, in a `src/` file: only operators spaced as rustfmt writes binary ones, and what each rule leaves alone. */
const RS_LINES: [string, string[]][] = [
  ['    let ok = a == b;', ['flips == to !=']],
  ['    let ok = a != b;', ['flips != to ==']],
  ['    let ok = a <= b && c >= d;', ['turns <= into <', 'turns >= into >', 'turns && into ||']],
  ['    let ok = a < b || c > d;', ['turns < into <=', 'turns > into >=', 'turns || into &&']],
  [
    '    let ok = "a" == s || v[0] != x? || f(y) < z;',
    ['flips == to !=', 'flips != to ==', 'turns < into <=', 'turns || into &&', 'turns || into &&', 'turns 0 into 1', 'changes the string "a" to "mutant"'],
  ],
  ['    let v: Vec<u8> = Vec::<u8>::with_capacity(n);', []],
  ['    let x = a << 2 >> b;', ['turns 2 into 3']],
  ['    let t = a<b;', []],
  ['    let pick = |x: u8| -> bool { x == 1 };', ['flips == to !=', 'turns 1 into 2']],
  ['    match x { Some(v) => v, None => 0 }', ['turns 0 into 1']],
  ['    let run = move || go();', []],
  ['    let lazy = || a || b;', ['turns || into &&']],
  ['    let n = a + b - c;', ['turns + into -', 'turns - into +']],
  ['    let n = -1;', ['turns 1 into 2']],
  ["fn f<T: Clone + Send + 'static>(t: T) -> Box<dyn Error + Send + ?Sized> {", []],
  ['    let t = start + Duration::from_secs(60) + MAX_WAIT;', ['turns + into -', 'turns + into -', 'turns 60 into 61']],
  ['    let done = true;', ['turns true into false']],
  ['    return false;', ['turns false into true']],
  [
    '    let x = 1u32 + 1_000 + 0x1f + 1.5 + pair.0 + 255u8 + 127i8;',
    [
      'turns + into -',
      'turns + into -',
      'turns + into -',
      'turns + into -',
      'turns + into -',
      'turns + into -',
      'turns 1u32 into 2u32',
      'turns 1_000 into 1001',
    ],
  ],
  ['    for i in 0..10 {', ['turns 0 into 1', 'turns 10 into 11']],
  ['    let level = "low";', ['changes the string "low" to "mutant"']],
  ["    let sep = ',';", []],
  ['    let re = r"a+b";', []],
  ['    let raw = r#"say "hi""#;', []],
  ['    let b = b"bytes";', ['changes the string "bytes" to "mutant"']],
  ['    let empty = "";', []],
  ['    let s = format!("{} items", n);', []],
  ['    let pair = (\'"\', "x");', ['changes the string "x" to "mutant"']],
  ['    let s = "a == b"; // c < d', ['changes the string "a == b" to "mutant"']],
  ['    let cfg = include_str!("config.toml");', []],
];
/** Which Rust arguments are an error's message or the build's, and so never mutated. */
const RS_ERRORS: [string, string[]][] = [
  ['    return Err(format!("no todo at {}", index + 1));', []],
  ['    return Err(TodoError::NoSuchTodo(3));', []],
  ['    return Err("empty title".to_string());', []],
  ['    let t = v.get(0).expect("a todo at 0");', ['turns 0 into 1']],
  ['    let f = File::open(path).context("opening the list")?;', []],
  ['    let e = io::Error::new(ErrorKind::Other, "bad");', []],
  ['    panic!("bad level: {}", level);', ['drops the statement panic!("bad level: {}", level);']],
  ['    unreachable!("checked < above: {}", 1 + 2);', ['drops the statement unreachable!("checked < above: {}", 1 + 2);']],
  ['    bail!("empty title");', ['drops the statement bail!("empty title");']],
  ['    let home = env!("HOME");', []],
  ['    let value = map.get("key").unwrap_or("none");', ['changes the string "key" to "mutant"', 'changes the string "none" to "mutant"']],
];
/** Which Rust lines are dropped whole, and which are left: declarations, returns, items, parts of a statement. */
const RS_STATEMENTS: [string, string[]][] = [
  ['    self.count += 1;', ['turns 1 into 2', 'drops the statement self.count += 1;']],
  ['    *total = 0;', ['turns 0 into 1', 'drops the statement *total = 0;']],
  ['    self.items[i].done = true;', ['turns true into false', 'drops the statement self.items[i].done = true;']],
  ['    self.items.push(todo);', ['drops the statement self.items.push(todo);']],
  ['    Vec::push(&mut items, todo);', ['drops the statement Vec::push(&mut items, todo);']],
  ['    save(&list)?;', ['drops the statement save(&list)?;']],
  ['    client.send(request).await?;', ['drops the statement client.send(request).await?;']],
  ['    println!("saved");', ['changes the string "saved" to "mutant"', 'drops the statement println!("saved");']],
  ['    println!("a; b");', ['changes the string "a; b" to "mutant"', 'drops the statement println!("a; b");']],
  ['    x = y; // and x < 2', ['drops the statement x = y;']],
  ['    items.retain(|t| !t.done);', ['drops the statement items.retain(|t| !t.done);']],
  ['    let todo = Todo::new(title);', []],
  ['    let mut n = 0;', ['turns 0 into 1']],
  ['    return self.items.len();', []],
  ['    break;', []],
  ['    const LIMIT: usize = 10;', ['turns 10 into 11']],
  ['    pub fn len(&self) -> usize;', []],
  ['    type Item = Todo;', []],
  ['    self.items.len()', []],
  ['    x == y;', ['flips == to !=']],
  ['    Some(v) => total += v,', []],
  ['    foo(a); bar(b);', []],
  ['    .collect();', []],
  ['    );', []],
];
/** Rust lines left alone whole: they name code, or are read by the compiler or a person. */
const RS_SKIPPED: string[] = [
  'use std::collections::HashMap;',
  'pub(crate) use crate::todo::Todo;',
  'pub mod store;',
  'mod store;',
  'extern crate serde;',
  '#[derive(Debug, PartialEq)]',
  '#[cfg(feature = "x")] fn f() -> u8 { 1 + 2 }',
  '#![allow(dead_code)]',
  '// if a < b {',
  '/// Returns true when a < b.',
  '//! A list of 3 todos.',
  '/* a < b */',
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
  it.each(RS_LINES)('Rust %j', (line, expected) => {
    expect(mutantsFor('src/lib.rs', line, [1]).map((m) => m.description)).toEqual(expected);
  });
  it.each(RS_ERRORS)('Rust, an error or the build %j', (line, expected) => {
    expect(mutantsFor('src/lib.rs', line, [1]).map((m) => m.description)).toEqual(expected);
  });
  it.each(RS_STATEMENTS)('Rust, a statement or not %j', (line, expected) => {
    expect(mutantsFor('src/lib.rs', line, [1]).map((m) => m.description)).toEqual(expected);
  });
  it.each(RS_SKIPPED)('Rust, left alone: %j', (line) => {
    expect(mutantsFor('src/lib.rs', line, [1])).toEqual([]);
  });
  it('knows the languages by their endings, and makes nothing of another', () => {
    for (const file of ['a.js', 'a.cjs', 'a.mjs', 'a.ts', 'a.cts', 'a.mts', 'a.jsx', 'a.tsx']) expect(languageOf(file), file).toBe('js');
    expect(languageOf('a.py')).toBe('py');
    expect(languageOf('todo/todo.go')).toBe('go');
    expect(languageOf('todo/todo_test.go')).toBeNull();
    for (const file of ['src/lib.rs', 'src/main.rs', 'src/bin/cli.rs', 'crates/core/src/lib.rs', 'src/build.rs']) expect(languageOf(file), file).toBe('rs');
    // Integration tests and build scripts are not the work.
    for (const file of ['tests/t001_add.rs', 'crates/core/tests/common/mod.rs', 'build.rs', 'crates/core/build.rs']) expect(languageOf(file), file).toBeNull();
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

const RS_SOURCES: [string, string, string][] = [
  ['    ok = a == b;', 'flips == to !=', '    ok = a != b;'],
  ['    ok = a != b;', 'flips != to ==', '    ok = a == b;'],
  ['    ok = a <= b;', 'turns <= into <', '    ok = a < b;'],
  ['    ok = a >= b;', 'turns >= into >', '    ok = a > b;'],
  ['    ok = a < b;', 'turns < into <=', '    ok = a <= b;'],
  ['    ok = a > b;', 'turns > into >=', '    ok = a >= b;'],
  ['    ok = a && b;', 'turns && into ||', '    ok = a || b;'],
  ['    ok = a || b;', 'turns || into &&', '    ok = a && b;'],
  ['    n = a + b;', 'turns + into -', '    n = a - b;'],
  ['    n = a - b;', 'turns - into +', '    n = a + b;'],
  ['    ok = true;', 'turns true into false', '    ok = false;'],
  ['    ok = false;', 'turns false into true', '    ok = true;'],
  ['    let n = 1_999u64;', 'turns 1_999u64 into 2000u64', '    let n = 2000u64;'],
  ['    let s = "a";', 'changes the string "a" to "mutant"', '    let s = "mutant";'],
  ['    let s = b"a";', 'changes the string "a" to "mutant"', '    let s = b"mutant";'],
  ['    save(&todo)?; // and flush', 'drops the statement save(&todo)?;', '    // dropped // and flush'],
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
  it.each(RS_SOURCES)('Rust %j, where the mutant that %s puts %j in its place', (line, description, mutated) => {
    const source = `fn f() {\n${line}\n}`;
    expect(mutantsFor('src/lib.rs', source, [2]).find((m) => m.description === description)).toEqual({
      line: 2,
      description,
      source: `fn f() {\n${mutated}\n}`,
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

/** A crate's library as a task might write it: a todo list with an impl, a Display, and its unit tests. */
const TODO_RS = [
  '//! A small todo list.',
  'use std::fmt;',
  '',
  '/// A todo: a title and whether it is done.',
  '#[derive(Debug, Clone, PartialEq)]',
  'pub struct Todo {',
  '    pub title: String,',
  '    pub done: bool,',
  '}',
  '',
  '#[derive(Debug, PartialEq)]',
  'pub enum TodoError {',
  '    EmptyTitle,',
  '    NoSuchTodo(usize),',
  '}',
  '',
  '#[derive(Default)]',
  'pub struct TodoList {',
  '    items: Vec<Todo>,',
  '    added: u32,',
  '}',
  '',
  'impl TodoList {',
  '    pub fn add(&mut self, title: &str) -> Result<usize, TodoError> {',
  '        if title.trim().is_empty() {',
  '            return Err(TodoError::EmptyTitle);',
  '        }',
  '        self.items.push(Todo { title: title.to_string(), done: false });',
  '        self.added += 1;',
  '        Ok(self.items.len() - 1)',
  '    }',
  '',
  '    pub fn complete(&mut self, index: usize) -> Result<(), TodoError> {',
  '        let todo = self.items.get_mut(index).ok_or(TodoError::NoSuchTodo(index))?;',
  '        todo.done = true;',
  '        Ok(())',
  '    }',
  '',
  '    pub fn remaining(&self) -> usize {',
  '        self.items.iter().filter(|t| !t.done).count()',
  '    }',
  '',
  '    pub fn is_full(&self) -> bool {',
  '        self.items.len() >= 10 && self.added > 0',
  '    }',
  '}',
  '',
  'impl fmt::Display for TodoList {',
  "    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {",
  '        for todo in &self.items {',
  '            let mark = if todo.done { "x" } else { " " };',
  '            writeln!(f, "[{}] {}", mark, todo.title)?;',
  '        }',
  '        Ok(())',
  '    }',
  '}',
  '',
  '#[cfg(test)]',
  'mod tests {',
  '    use super::*;',
  '',
  '    #[test]',
  '    fn adds() {',
  '        let mut list = TodoList::default();',
  '        assert_eq!(list.add("a"), Ok(0));',
  '    }',
  '}',
].join('\n');

describe('a Rust file', () => {
  it("mutates a todo list's logic and leaves its declarations, messages, format strings and unit tests alone", () => {
    const lines = TODO_RS.split('\n').map((_, i) => i + 1);
    const mutants = mutantsFor('src/lib.rs', TODO_RS, lines);
    expect(mutants.map((m) => `${m.line}: ${m.description} → ${m.source.split('\n')[m.line - 1]!.trim()}`)).toEqual([
      '28: turns false into true → self.items.push(Todo { title: title.to_string(), done: true });',
      '28: drops the statement self.items.push(Todo { title: title.to_string(), done: false }); → // dropped',
      '29: turns 1 into 2 → self.added += 2;',
      '29: drops the statement self.added += 1; → // dropped',
      '30: turns - into + → Ok(self.items.len() + 1)',
      '30: turns 1 into 2 → Ok(self.items.len() - 2)',
      '35: turns true into false → todo.done = false;',
      '35: drops the statement todo.done = true; → // dropped',
      '44: turns >= into > → self.items.len() > 10 && self.added > 0',
      '44: turns > into >= → self.items.len() >= 10 && self.added >= 0',
      '44: turns && into || → self.items.len() >= 10 || self.added > 0',
      '44: turns 10 into 11 → self.items.len() >= 11 && self.added > 0',
      '44: turns 0 into 1 → self.items.len() >= 10 && self.added > 1',
      '51: changes the string "x" to "mutant" → let mark = if todo.done { "mutant" } else { " " };',
      '51: changes the string " " to "mutant" → let mark = if todo.done { "x" } else { "mutant" };',
      '52: drops the statement writeln!(f, "[{}] {}", mark, todo.title)?; → // dropped',
    ]);
    expect(mutants.every((m) => m.source.split('\n').length === lines.length)).toBe(true);
  });

  it('skips every item under #[cfg(test)], whatever its kind, and a whole file under #![cfg(test)]', () => {
    const source = [
      'pub fn f() -> u8 { 1 }',
      '#[cfg(test)]',
      '#[allow(dead_code)]',
      'fn helper(a: u8, b: u8) -> bool { a < b }',
      '#[cfg(test)] use std::fmt;',
      '#[cfg(test)]',
      'mod tests {',
      '    use super::*;',
      '    const S: &str = "}";',
      '    #[test]',
      '    fn adds() {',
      '        assert!(f() == 1);',
      '    }',
      '}',
      'pub fn g() -> u8 { 2 }',
    ].join('\n');
    expect(descriptions('src/lib.rs', source, [1, 4, 9, 12, 15])).toEqual(['1: turns 1 into 2', '15: turns 2 into 3']);
    expect(mutantsFor('src/tests.rs', '#![cfg(test)]\nfn g() -> bool { a < b }', [2])).toEqual([]);
  });

  it('skips a line that goes on with a comment or a literal from the line before, code after its end included, and reads the lines after', () => {
    const source = [
      '/* a block comment',
      '   x < 1; foo(); /* nested */',
      '   still the comment */ let a = 1;',
      'let s = "a string',
      '    x < 1; foo();',
      '    ends here";',
      'let r = r#"',
      '  a < b "quoted"',
      '"#;',
      '/** doc',
      ' * x < 1',
      ' */',
      '*self.n += 1;',
    ].join('\n');
    expect(descriptions('src/lib.rs', source, [2, 3, 5, 6, 8, 9, 11, 13])).toEqual(['13: turns 1 into 2', '13: drops the statement *self.n += 1;']);
  });

  it('drops only a statement the line holds whole, never the end of one begun on a line before', () => {
    const source = [
      'fn f() {',
      '    let total =',
      '        compute(x);',
      '    foo(',
      '        bar(baz));',
      '    // a comment between',
      '    save(total);',
      '    #[allow(unused)]',
      '    flush(x);',
      '}',
    ].join('\n');
    expect(descriptions('src/lib.rs', source, [3, 5, 7, 9])).toEqual(['7: drops the statement save(total);']);
  });

  it("reads an error's message on the lines of its statement after the one it opens on", () => {
    const source = [
      'fn f(index: usize) -> Result<(), String> {',
      '    return Err(format!(',
      '        "no todo at {} of {}",',
      '        index + 1,',
      '        "the list",',
      '    ));',
      '}',
      'fn g(index: usize) -> usize {',
      '    (',
      '        index + 1',
      '    )',
      '}',
    ].join('\n');
    expect(descriptions('src/lib.rs', source, [3, 4, 5, 10])).toEqual(['10: turns + into -', '10: turns 1 into 2']);
  });
});

describe('which sources a preset mutates', () => {
  it("mutates only what the preset's tests run: a Rust addon is not a JavaScript project's work, nor a script beside a Go module", () => {
    const files = ['src/todo.ts', 'todo/cli.py', 'todo/todo.go', 'src/lib.rs', 'README.md'];
    const mutated = (preset: Parameters<typeof mutatedUnder>[0]) => files.filter((f) => mutatedUnder(preset, f));
    for (const js of ['vitest', 'jest', 'mocha', 'node'] as const) expect(mutated(js), js).toEqual(['src/todo.ts']);
    expect(mutated('pytest')).toEqual(['todo/cli.py']);
    expect(mutated('unittest')).toEqual(['todo/cli.py']);
    expect(mutated('go')).toEqual(['todo/todo.go']);
    expect(mutated('cargo')).toEqual(['src/lib.rs']);
    expect(mutated('custom')).toEqual(['src/todo.ts', 'todo/cli.py', 'todo/todo.go', 'src/lib.rs']);
    expect(mutatedUnder('cargo', 'tests/t001_x.rs')).toBe(false);
  });
});
