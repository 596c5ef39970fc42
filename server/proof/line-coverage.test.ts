import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../testing/test-app.ts';
import { coverageMethod, PYTHON_TRACER, tracedCommand, v8ExecutedLines } from './line-coverage.ts';

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
    expect(tracedCommand(pytest, 'settrace', '/w/.c/lines.json', ['src/a.py'])).toEqual({
      ...pytest,
      args: ['-c', PYTHON_TRACER, '/w/.c/lines.json', '["src/a.py"]', '-m', 'pytest', '-q', 'tests/t.py::test_x'],
    });
    const node = { kind: 'argv' as const, command: 'node', args: ['--test', 'tests/t.test.js'], env: {} };
    expect(tracedCommand(node, 'v8', '/w/.c', ['src/a.js'])).toEqual({ ...node, env: { NODE_V8_COVERAGE: '/w/.c' } });
    expect(tracedCommand({ kind: 'shell', script: 'make test' }, 'v8', '/w/.c', [])).toBeNull();
  });

  it('says why vitest, jest and custom checks are not traced', () => {
    expect(coverageMethod('pytest')).toEqual({ method: 'settrace' });
    expect(coverageMethod('mocha')).toEqual({ method: 'v8' });
    expect(coverageMethod('vitest')).toEqual({ method: null, why: "vitest runs the code transformed, so V8's offsets are not the file's lines" });
    expect(coverageMethod('custom').method).toBeNull();
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
