import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../testing/test-app.ts';
import { goProfileLines, istanbulExecutedLines, PYTHON_TRACER, tracedCommand, tracerFor, v8ExecutedLines } from './line-coverage.ts';

const SOURCE = ['export function f(x) {', '  if (x < 0) {', "    throw new Error('neg');", '  }', '  return x;', '}', ''].join('\n');
const at = (text: string) => SOURCE.indexOf(text);

describe('v8ExecutedLines', () => {
  it('reads a line as run when any of its characters sits in a range that ran, the innermost range winning', () => {
    const functions = [
      { ranges: [{ startOffset: 0, endOffset: SOURCE.length, count: 1 }] },
      {
        ranges: [
          { startOffset: at('function'), endOffset: SOURCE.lastIndexOf('}') + 1, count: 1 },
          // The block of the `if` never ran.
          { startOffset: at('{\n    throw') + 1, endOffset: at('  }') + 3, count: 0 },
        ],
      },
    ];
    expect([...v8ExecutedLines(SOURCE, functions)!].sort()).toEqual([1, 2, 5, 6]);
  });

  it('reads nothing of a function that never ran but its declaration, which the module ran', () => {
    const functions = [
      { ranges: [{ startOffset: 0, endOffset: SOURCE.length, count: 1 }] },
      { ranges: [{ startOffset: at('function'), endOffset: SOURCE.lastIndexOf('}') + 1, count: 0 }] },
    ];
    expect([...v8ExecutedLines(SOURCE, functions)!]).toEqual([1]);
  });

  it('trusts no offsets of a script that is not the file character for character (a transformed one)', () => {
    expect(v8ExecutedLines(SOURCE, [{ ranges: [{ startOffset: 0, endOffset: SOURCE.length + 40, count: 1 }] }])).toBeNull();
    expect(v8ExecutedLines(SOURCE, [{ ranges: [{ startOffset: 12, endOffset: SOURCE.length, count: 1 }] }])).toBeNull();
    expect(v8ExecutedLines(SOURCE, [])).toBeNull();
  });
});

describe('tracedCommand', () => {
  it("runs a Python case's own -m command under the tracer, and tells Node's runners where V8 writes", () => {
    const pytest = { kind: 'argv' as const, command: 'python3', args: ['-m', 'pytest', '-q', 'tests/t.py::test_x'], env: { A: '1' } };
    expect(tracedCommand(pytest, { method: 'settrace' }, '/w/.c/lines.json', ['src/a.py'])).toEqual({
      ...pytest,
      args: ['-c', PYTHON_TRACER, '/w/.c/lines.json', '["src/a.py"]', '-m', 'pytest', '-q', 'tests/t.py::test_x'],
    });
    const node = { kind: 'argv' as const, command: 'node', args: ['--test', 'tests/t.test.js'], env: {} };
    expect(tracedCommand(node, { method: 'v8' }, '/w/.c', ['src/a.js'])).toEqual({ ...node, env: { NODE_V8_COVERAGE: '/w/.c' } });
    expect(tracedCommand({ kind: 'shell', script: 'make test' }, { method: 'v8' }, '/w/.c', [])).toBeNull();
    // A Python command that is not a module run cannot be wrapped by the tracer.
    expect(tracedCommand({ ...pytest, args: ['tests/t.py'] }, { method: 'settrace' }, '/w/.c/lines.json', [])).toBeNull();
  });

  it("asks jest and vitest for their own coverage of just the changed files, as istanbul's JSON", () => {
    const jest = { kind: 'argv' as const, command: '/w/node_modules/.bin/jest', args: ['--ci', '--runTestsByPath', 't.test.js', '-t', 'x$'], env: {} };
    expect(tracedCommand(jest, { method: 'istanbul', runner: 'jest' }, '/w/.c', ['src/a.js', 'src/b.js'])).toEqual({
      ...jest,
      args: [
        ...jest.args,
        '--coverage',
        '--coverageProvider=babel',
        '--coverageReporters=json',
        '--coverageDirectory=/w/.c',
        '--collectCoverageFrom=src/a.js',
        '--collectCoverageFrom=src/b.js',
      ],
    });
    const vitest = { kind: 'argv' as const, command: '/w/node_modules/.bin/vitest', args: ['run', 't.test.ts', '-t', 'x$'], env: {} };
    expect(tracedCommand(vitest, { method: 'istanbul', runner: 'vitest', provider: 'istanbul' }, '/w/.c', ['src/a.ts'])).toEqual({
      ...vitest,
      args: [
        ...vitest.args,
        '--coverage.enabled=true',
        '--coverage.provider=istanbul',
        '--coverage.reporter=json',
        '--coverage.reportsDirectory=/w/.c',
        '--coverage.include=src/a.ts',
      ],
    });
  });

  it("picks each preset's way of tracing, and says why vitest without a coverage package and custom checks are not traced", () => {
    const none = () => false;
    expect(tracerFor('pytest', none)).toEqual({ method: 'settrace' });
    expect(tracerFor('unittest', none)).toEqual({ method: 'settrace' });
    expect(tracerFor('node', none)).toEqual({ method: 'v8' });
    expect(tracerFor('mocha', none)).toEqual({ method: 'v8' });
    expect(tracerFor('jest', none)).toEqual({ method: 'istanbul', runner: 'jest' });
    expect(tracerFor('vitest', none)).toEqual({
      method: null,
      why: 'vitest traces lines only with @vitest/coverage-v8 (or @vitest/coverage-istanbul), and the project has neither installed',
    });
    expect(tracerFor('vitest', (pkg) => pkg === '@vitest/coverage-istanbul')).toEqual({ method: 'istanbul', runner: 'vitest', provider: 'istanbul' });
    expect(tracerFor('vitest', () => true)).toEqual({ method: 'istanbul', runner: 'vitest', provider: 'v8' });
    expect(tracerFor('custom', () => true)).toEqual({ method: null, why: 'the custom checks run whole files, not one case at a time' });
    expect(tracerFor('go', none)).toEqual({ method: 'goprofile' });
  });

  it('asks go for a cover profile of every package of the module, the packages tested kept last', () => {
    const command = { kind: 'argv' as const, command: 'go', args: ['test', '-count=1', '-run', '^TestX$/^sub$', './todo', '.'], env: {} };
    expect(tracedCommand(command, { method: 'goprofile' }, '/w/.cov/cover.out', ['todo/a.go'])).toEqual({
      ...command,
      args: ['test', '-count=1', '-run', '^TestX$/^sub$', '-coverpkg=./...', '-coverprofile=/w/.cov/cover.out', './todo', '.'],
    });
  });
});

describe('goProfileLines', () => {
  const PROFILE = [
    'mode: set',
    'example.com/todo/todo/adult.go:4.28,5.13 1 1',
    'example.com/todo/todo/adult.go:8.2,8.18 1 0',
    'example.com/todo/todo/adult.go:5.13,7.3 1 0',
    'example.com/todo/todo/adult.go:12.2,14.3 2 3',
    'example.com/todo/other.go:1.1,2.2 1 1',
    'example.com/todoist/x.go:1.1,9.9 1 1',
    'not a block',
    '',
  ].join('\n');

  it('reads the lines of the blocks that ran, by file, from import paths back to the module folders', () => {
    const lines = goProfileLines(PROFILE, 'example.com/todo', ['todo/adult.go', 'other.go', 'todo/unseen.go']);
    expect(Object.fromEntries([...lines!].map(([f, s]) => [f, [...s].sort((a, b) => a - b)]))).toEqual({
      'todo/adult.go': [4, 5, 12, 13, 14],
      'other.go': [1, 2],
      'todo/unseen.go': [],
    });
  });

  it("is null for what is not go's profile, and counts count and atomic modes", () => {
    expect(goProfileLines('', 'example.com/todo', ['a.go'])).toBeNull();
    expect(goProfileLines('{"mode":"set"}', 'example.com/todo', ['a.go'])).toBeNull();
    expect(goProfileLines('mode: sets\n', 'example.com/todo', ['a.go'])).toBeNull();
    for (const mode of ['count', 'atomic']) {
      expect(goProfileLines(`mode: ${mode}\nexample.com/todo/a.go:3.1,3.9 1 7\n`, 'example.com/todo', ['a.go'])?.get('a.go')).toEqual(new Set([3]));
    }
  });
});

describe('istanbulExecutedLines', () => {
  const at = (line: number, end = line) => ({ start: { line, column: 0 }, end: { line: end, column: 1 } });
  it('reads a line by its narrowest statements: an if that ran leaves its untaken block unrun, two statements on a line ran when either did', () => {
    const file = {
      // 0: an `if` over lines 3-5 that ran; 1: its block's statement on 4, never run; 2 and 3: a
      // guard and its untaken return on line 7; 4: a statement over 9-10 that ran.
      statementMap: { 0: at(3, 5), 1: at(4), 2: at(7), 3: at(7), 4: at(9, 10), 5: at(12) },
      s: { 0: 1, 1: 0, 2: 2, 3: 0, 4: 1, 5: 0 },
      fnMap: { 0: { decl: at(2) }, 1: { decl: at(11) } },
      f: { 0: 1, 1: 0 },
    };
    expect([...istanbulExecutedLines(file)].sort((a, b) => a - b)).toEqual([2, 3, 5, 7, 9, 10]);
  });

  it('reads the same lines whichever order the statements come in, and vitest-v8 ends with no line', () => {
    const file = {
      statementMap: { 0: at(4), 1: { start: { line: 3 }, end: {} }, 2: at(3, 5), 3: at(7), 4: at(7) },
      s: { 0: 0, 1: 1, 2: 1, 3: 0, 4: 3 },
      fnMap: {},
      f: {},
    };
    expect([...istanbulExecutedLines(file)].sort((a, b) => a - b)).toEqual([3, 5, 7]);
  });
});

describe('the Python tracer', () => {
  it('runs a unittest case as `python -m unittest` would, keeps its exit code, and writes the lines it ran of the files asked', () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, 'pkg'));
    fs.writeFileSync(path.join(dir, 'pkg', '__init__.py'), '');
    fs.writeFileSync(path.join(dir, 'pkg', 'calc.py'), ['def half(n):', '    if n < 0:', "        raise ValueError('neg')", '    return n / 2', ''].join('\n'));
    fs.writeFileSync(
      path.join(dir, 'test_calc.py'),
      [
        'import unittest',
        'from pkg.calc import half',
        '',
        'class T(unittest.TestCase):',
        '    def test_half(self):',
        '        self.assertEqual(half(4), 2)',
        '',
      ].join('\n'),
    );
    const out = path.join(dir, 'lines.json');
    execFileSync('python3', ['-c', PYTHON_TRACER, out, JSON.stringify(['pkg/calc.py']), '-m', 'unittest', 'test_calc.T.test_half'], {
      cwd: dir,
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
      stdio: 'pipe',
    });
    expect(JSON.parse(fs.readFileSync(out, 'utf8'))).toEqual({ 'pkg/calc.py': [1, 2, 4] });

    // A failing case still writes its lines, and the run still fails.
    fs.writeFileSync(path.join(dir, 'test_calc.py'), fs.readFileSync(path.join(dir, 'test_calc.py'), 'utf8').replace('2)', '3)'));
    expect(() =>
      execFileSync('python3', ['-c', PYTHON_TRACER, out, JSON.stringify(['pkg/calc.py']), '-m', 'unittest', 'test_calc.T.test_half'], {
        cwd: dir,
        stdio: 'pipe',
      }),
    ).toThrow();
    expect(JSON.parse(fs.readFileSync(out, 'utf8'))).toEqual({ 'pkg/calc.py': [1, 2, 4] });
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
