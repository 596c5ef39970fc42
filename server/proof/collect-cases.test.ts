import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collectCommand, notCollectedMessage, parseCollected, selectsCase, type CollectedCase } from './collect-cases.ts';

const OUTPUTS = path.join(import.meta.dirname, '..', 'testing', 'runner-output');

/** A captured listing's output, without the `[exit=…]` line recorded after it. */
function captured(name: string): string {
  const text = fs.readFileSync(path.join(OUTPUTS, `${name}.txt`), 'utf8');
  return text.slice(0, text.lastIndexOf('\n[exit='));
}

describe('collectCommand', () => {
  it('lists through the project’s own runner, and not where the runner has no listing mode', () => {
    expect(collectCommand('pytest', 'tests/test_t001_x.py')).toEqual({
      kind: 'argv',
      command: 'python3',
      args: ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'tests/test_t001_x.py', '--collect-only'],
      env: { PYTHONDONTWRITEBYTECODE: '1' },
    });
    expect(collectCommand('vitest', 'tests/t001_x.test.ts')).toMatchObject({
      command: 'node_modules/.bin/vitest',
      args: ['list', 'tests/t001_x.test.ts', '--json'],
    });
    expect(collectCommand('mocha', 'test/t001_x.test.js')).toMatchObject({
      command: 'node_modules/.bin/mocha',
      args: ['test/t001_x.test.js', '--dry-run', '--reporter', 'json'],
    });
    for (const preset of ['node', 'jest', 'unittest', 'custom'] as const) expect(collectCommand(preset, 'tests/t001_x.test.js')).toBeNull();
  });
});

describe('parseCollected on real listings', () => {
  it('reads pytest’s node ids: class methods and each parameter', () => {
    expect(parseCollected('pytest', 'tests/test_t001_due.py', captured('co-pytest'))?.map((c) => c.name)).toEqual([
      'test_sets_the_due_date',
      'TestAdding::test_adds',
      'TestAdding::test_many[1]',
      'TestAdding::test_many[2]',
      'test_x[1]',
      'test_x[a b]',
      'test_skipped',
    ]);
  });

  it('reads vitest’s full titles, with the case’s own title last', () => {
    expect(parseCollected('vitest', 'tests/t001_due.test.js', captured('co-vitest'))).toEqual([
      { name: 'sets the due date', fullTitle: 'setDue sets the due date' },
      { name: 'keeps the title', fullTitle: 'setDue keeps the title' },
      { name: 'each 1', fullTitle: 'setDue inner each 1' },
      { name: 'each 2', fullTitle: 'setDue inner each 2' },
      { name: 'root', fullTitle: 'root' },
    ]);
  });

  it('reads mocha’s dry run: skipped cases included, the other files its .mocharc spec adds left out, the file’s own output skipped', () => {
    expect(parseCollected('mocha', 'test/t001_more.test.js', captured('co-mocha'))).toEqual([
      { name: 'root case', fullTitle: 'root case' },
      { name: 'case with "quotes" and [brackets]', fullTitle: 'outer case with "quotes" and [brackets]' },
      { name: 'nested case', fullTitle: 'outer inner nested case' },
      { name: 'skipped case', fullTitle: 'outer inner skipped case' },
    ]);
  });

  it('finds no listing in a file that does not load', () => {
    expect(parseCollected('mocha', 'test/t002_broken.test.js', captured('co-mocha-broken'))).toBeNull();
    expect(parseCollected('vitest', 'tests/t002_broken.test.js', captured('co-vitest-broken'))).toBeNull();
    expect(parseCollected('pytest', 'tests/test_t002_framework.py', captured('co-pytest-import'))).toEqual([]);
  });
});

describe('selectsCase', () => {
  const pytest = parseCollected('pytest', 'tests/test_t001_due.py', captured('co-pytest'))!;
  const mocha = parseCollected('mocha', 'test/t001_more.test.js', captured('co-mocha'))!;

  it('takes a pytest node id, a parametrized function with or without its parameter, a class, and nothing shorter', () => {
    expect(selectsCase('pytest', pytest, 'TestAdding::test_adds')).toBe(true);
    expect(selectsCase('pytest', pytest, 'TestAdding')).toBe(true);
    expect(selectsCase('pytest', pytest, 'TestAdd')).toBe(false);
    expect(selectsCase('pytest', pytest, 'test_x[a b]')).toBe(true);
    expect(selectsCase('pytest', pytest, 'test_x')).toBe(true);
    expect(selectsCase('pytest', pytest, 'TestAdding::test_many')).toBe(true);
    expect(selectsCase('pytest', pytest, 'test_adds')).toBe(false);
    expect(selectsCase('pytest', pytest, 'test_x[3]')).toBe(false);
  });

  it('takes a JavaScript case by its own title or its whole full title (with spaces or ›), never by the end of one', () => {
    expect(selectsCase('mocha', mocha, 'nested case')).toBe(true);
    expect(selectsCase('mocha', mocha, 'outer inner nested case')).toBe(true);
    expect(selectsCase('mocha', mocha, 'outer › inner › nested case')).toBe(true);
    expect(selectsCase('mocha', mocha, 'inner › nested case')).toBe(false);
    expect(selectsCase('mocha', mocha, 'inner nested case')).toBe(false);
    expect(selectsCase('mocha', mocha, 'ested case')).toBe(false);
    expect(selectsCase('mocha', mocha, 'nested')).toBe(false);
    expect(selectsCase('mocha', mocha, 'appends a trimmed, open todo with no due time')).toBe(false);
  });
});

describe('notCollectedMessage', () => {
  it('names the case and up to eight names the runner collects', () => {
    const cases: CollectedCase[] = Array.from({ length: 10 }, (_, i) => ({ name: `test_${i}`, fullTitle: `test_${i}` }));
    expect(notCollectedMessage('pytest', cases, 'tests/test_t001_x.py', 'test_z')).toBe(
      'no test case named "test_z" in tests/test_t001_x.py: pytest collects "test_0", "test_1", "test_2", "test_3", "test_4", "test_5", "test_6", "test_7" and 2 more; check its name in the matrix against the file',
    );
  });
});
