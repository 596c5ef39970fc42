/**
 * The real `cargo test` on a small std-only crate whose tests pass, fail, are ignored, sit in a
 * module, do not compile and abort, run as Tilth runs it — `sh -c 'exec "$@" > "$0" 2>&1'`, so
 * cargo's stderr and the test binaries' stdout go in order into one report file — and read by
 * parseCargoTest.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../testing/temp-dir.ts';
import { parseCargoTest } from './cargo-report.ts';

const FILES: Record<string, string> = {
  'Cargo.toml': '[package]\nname = "calc-crate"\nversion = "0.1.0"\nedition = "2021"\n',
  'src/lib.rs': 'pub fn double(n: i32) -> i32 {\n    n * 3\n}\n',
  'tests/t001_double.rs': [
    'use calc_crate::double;',
    '',
    '#[test]',
    'fn zero() {',
    '    assert_eq!(double(0), 0);',
    '}',
    '',
    '#[test]',
    'fn two() {',
    '    assert_eq!(double(2), 4, "double(2)");',
    '}',
    '',
    '#[test]',
    '#[ignore]',
    'fn later() {}',
    '',
    '#[test]',
    '#[ignore = "not yet"]',
    'fn much_later() {}',
    '',
    'mod inner {',
    '    #[test]',
    '    fn deep() {',
    '        assert_eq!(calc_crate::double(-0), 0);',
    '    }',
    '}',
    '',
  ].join('\n'),
  'tests/t002_broken.rs': '#[test]\nfn halves() {\n    assert_eq!(calc_crate::halve(4), 2);\n}\n',
  'tests/t003_abort.rs': '#[test]\nfn aborts() {\n    std::process::abort();\n}\n',
};

let dir: string;
beforeAll(() => {
  dir = tempDir('tilth-cargo-');
  for (const [rel, content] of Object.entries(FILES)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), content);
  }
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function cargoTest(...args: string[]) {
  const report = path.join(dir, 'report.txt');
  // Offline, with a build folder that goes with the temp dir.
  const run = await execa('sh', ['-c', 'exec "$@" > "$0" 2>&1', report, 'cargo', 'test', '--offline', '--no-fail-fast', ...args], {
    cwd: dir,
    env: { CARGO_TARGET_DIR: path.join(dir, 'target') },
    reject: false,
    stdin: 'ignore',
    timeout: 240_000,
  });
  return { exitCode: run.exitCode, report: parseCargoTest(fs.readFileSync(report, 'utf8')) };
}

describe('cargo test, for real', { timeout: 300_000 }, () => {
  it('reads every case of a target: passed, failed with its message, ignored, and one in a module by its full name', async () => {
    const { exitCode, report } = await cargoTest('--test', 't001_double');
    expect(exitCode).toBe(101);
    const outcome = Object.fromEntries(report.cases.map((c) => [`${c.file} ${c.name}`, c.outcome]));
    expect(outcome).toEqual({
      'tests/t001_double.rs zero': 'passed',
      'tests/t001_double.rs two': 'failed',
      'tests/t001_double.rs later': 'skipped',
      'tests/t001_double.rs much_later': 'skipped',
      'tests/t001_double.rs inner::deep': 'passed',
    });
    expect(report.cases.find((c) => c.name === 'two')!.message).toMatch(
      /panicked at tests\/t001_double\.rs:10:5:\nassertion `left == right` failed: double\(2\)/,
    );
    expect(report.loadErrors).toEqual([]);
  });

  it('runs one case by --exact, and a name that matches nothing runs no case and is no error', async () => {
    const one = await cargoTest('--test', 't001_double', '--', '--exact', 'inner::deep');
    expect(one.exitCode).toBe(0);
    expect(one.report).toEqual({
      cases: [{ file: 'tests/t001_double.rs', name: 'inner::deep', fullTitle: 'inner::deep', outcome: 'passed', message: '' }],
      loadErrors: [],
    });
    const none = await cargoTest('--test', 't001_double', '--', '--exact', 'nope');
    expect(none.exitCode).toBe(0);
    expect(none.report).toEqual({ cases: [], loadErrors: [] });
  });

  it('makes a target that does not compile a load error with the compiler’s message, and runs nothing beside it', async () => {
    const { exitCode, report } = await cargoTest('--test', 't001_double', '--test', 't002_broken');
    expect(exitCode).toBe(101);
    expect(report.cases).toEqual([]);
    expect(report.loadErrors).toEqual([
      { file: 'tests/t002_broken.rs', message: expect.stringMatching(/^error\[E0425\]: cannot find function `halve` in crate `calc_crate`\n/) },
    ]);
  });

  it('makes a test binary that aborted a load error of its file', async () => {
    const { exitCode, report } = await cargoTest('--test', 't003_abort');
    expect(exitCode).toBe(101);
    expect(report.cases).toEqual([]);
    expect(report.loadErrors).toEqual([{ file: 'tests/t003_abort.rs', message: expect.stringMatching(/ended before it reported its result[\s\S]*SIGABRT/) }]);
  });
});
