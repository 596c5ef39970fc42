/**
 * bench/proof-reports: what reading the runner's own report (issue 28) and repeating each case
 * cost the red and green proofs, per runner, against a baseline checkout's proofs (today's
 * `main`, which read the runner's text and ran each case once), in one sitting. For each runner a
 * small project with one task of two named cases: red on the seed (the function is missing), then
 * green once it is written. Times are medians of `--rounds` runs; ratios are against the
 * baseline (a runner the baseline does not drive, AVA, node-tap, uvu, go, cargo and bun before issue 29, gets its own times only).
 * The last line is JSON. Figures only; nothing here passes or fails.
 * Run: npx tsx bench/proof-reports.ts --baseline /path/to/main [--rounds 3] [--only pytest]
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { PrdEntry } from '../shared/files.ts';
import type { ChecksPreset, CustomChecks } from '../shared/seed.ts';
import type { ContractCheckInput } from '../server/proof/contract-check.ts';
import { proveCases } from '../server/proof/red-proof.ts';
import { tempDir } from '../server/testing/temp-dir.ts';
import { TEST_SANDBOX } from '../server/testing/sandbox.ts';

const { values } = parseArgs({ options: { baseline: { type: 'string' }, rounds: { type: 'string', default: '3' }, only: { type: 'string' } } });
if (!values.baseline) throw new Error('--baseline <checkout> is required (its server/proof/red-proof.ts is the comparison)');
const ROUNDS = Number(values.rounds);
type Prove = (input: ContractCheckInput, tasks: PrdEntry[]) => Promise<Record<string, unknown[]>>;
const baseline = (await import(path.resolve(values.baseline, 'server/proof/red-proof.ts'))) as { proveCases: Prove };

interface Project {
  preset: ChecksPreset;
  /** The row's name where it is not the preset's (the custom preset's runner). */
  label?: string;
  custom?: CustomChecks;
  files: Record<string, string>;
  testFile: string;
  test: string;
  cases: [string, string];
  impl: [string, string];
  install?: Record<string, string>;
}

const JS_CASES: [string, string] = ['divides', 'divides evenly'];
const esm = (imports: string, check: string) =>
  `${imports}\nimport * as calc from '../src/calc.js';\ndescribe('calc', () => {\n  it('divides', () => { ${check.replace('X', 'calc.divide(4, 2)').replace('Y', '2')} });\n  it('divides evenly', () => { ${check.replace('X', 'calc.divide(9, 3)').replace('Y', '3')} });\n});\n`;
const cjs = (imports: string, check: string) => esm(imports, check).replace("import * as calc from '../src/calc.js';", "const calc = require('../src/calc');");
const PY = 'import calc\n\n\ndef test_divides():\n    assert calc.divide(4, 2) == 2\n\n\ndef test_divides_evenly():\n    assert calc.divide(9, 3) == 3\n';
const UT =
  'import unittest\nimport calc\n\n\nclass TestCalc(unittest.TestCase):\n    def test_divides(self):\n        self.assertEqual(calc.divide(4, 2), 2)\n\n    def test_divides_evenly(self):\n        self.assertEqual(calc.divide(9, 3), 3)\n';

const PROJECTS: Project[] = [
  {
    preset: 'pytest',
    files: { 'calc.py': 'def add(a, b):\n    return a + b\n' },
    testFile: 'tests/test_t001_calc.py',
    test: PY,
    cases: ['test_divides', 'test_divides_evenly'],
    impl: ['calc.py', 'def add(a, b):\n    return a + b\n\n\ndef divide(a, b):\n    return a // b\n'],
  },
  {
    preset: 'unittest',
    files: { 'calc.py': 'def add(a, b):\n    return a + b\n', 'tests/__init__.py': '' },
    testFile: 'tests/test_t001_calc.py',
    test: UT,
    cases: ['TestCalc.test_divides', 'TestCalc.test_divides_evenly'],
    impl: ['calc.py', 'def add(a, b):\n    return a + b\n\n\ndef divide(a, b):\n    return a // b\n'],
  },
  {
    preset: 'node',
    files: { 'package.json': '{"type":"module"}', 'src/calc.js': 'export const add = (a, b) => a + b;\n' },
    testFile: 'tests/t001_calc.test.js',
    test: esm("import { describe, it } from 'node:test';\nimport assert from 'node:assert/strict';", 'assert.equal(X, Y);'),
    cases: JS_CASES,
    impl: ['src/calc.js', 'export const add = (a, b) => a + b;\nexport const divide = (a, b) => a / b;\n'],
  },
  {
    preset: 'vitest',
    files: { 'package.json': '{"type":"module","devDependencies":{"vitest":"4.1.12"}}', 'src/calc.js': 'export const add = (a, b) => a + b;\n' },
    testFile: 'tests/t001_calc.test.js',
    test: esm("import { describe, it, expect } from 'vitest';", 'expect(X).toBe(Y);'),
    cases: JS_CASES,
    impl: ['src/calc.js', 'export const add = (a, b) => a + b;\nexport const divide = (a, b) => a / b;\n'],
    install: {},
  },
  {
    preset: 'jest',
    files: { 'package.json': '{"devDependencies":{"jest":"29.7.0"}}', 'src/calc.js': 'exports.add = (a, b) => a + b;\n' },
    testFile: 'tests/t001_calc.test.js',
    test: cjs('', 'expect(X).toBe(Y);'),
    cases: JS_CASES,
    impl: ['src/calc.js', 'exports.add = (a, b) => a + b;\nexports.divide = (a, b) => a / b;\n'],
    install: {},
  },
  {
    preset: 'mocha',
    files: { 'package.json': '{"devDependencies":{"mocha":"11.7.5"}}', 'src/calc.js': 'exports.add = (a, b) => a + b;\n' },
    testFile: 'tests/t001_calc.test.js',
    test: cjs("const assert = require('node:assert/strict');", 'assert.equal(X, Y);'),
    cases: JS_CASES,
    impl: ['src/calc.js', 'exports.add = (a, b) => a + b;\nexports.divide = (a, b) => a / b;\n'],
    install: {},
  },
  {
    // Issue 29: AVA, one test per case (it has no describe), each run in its own child process.
    preset: 'ava',
    files: { 'package.json': '{"type":"module","devDependencies":{"ava":"6.4.1"}}', 'src/calc.js': 'export const add = (a, b) => a + b;\n' },
    testFile: 'tests/t001_calc.test.js',
    test: "import test from 'ava';\nimport * as calc from '../src/calc.js';\ntest('divides', (t) => { t.is(calc.divide(4, 2), 2); });\ntest('divides evenly', (t) => { t.is(calc.divide(9, 3), 3); });\n",
    cases: JS_CASES,
    impl: ['src/calc.js', 'export const add = (a, b) => a + b;\nexport const divide = (a, b) => a / b;\n'],
    install: {},
  },
  {
    // Issue 29: node-tap, two subtests of one group, each run alone by its --grep chain.
    preset: 'tap',
    files: { 'package.json': '{"devDependencies":{"tap":"21.8.0"}}', 'src/calc.js': 'exports.add = (a, b) => a + b;\n' },
    testFile: 'tests/t001_calc.test.js',
    test: "const t = require('tap');\nconst calc = require('../src/calc.js');\nt.test('calc', async (t) => {\n  t.test('divides', async (t) => { t.equal(calc.divide(4, 2), 2); });\n  t.test('divides evenly', async (t) => { t.equal(calc.divide(9, 3), 3); });\n});\n",
    cases: ['calc › divides', 'calc › divides evenly'],
    impl: ['src/calc.js', 'exports.add = (a, b) => a + b;\nexports.divide = (a, b) => a / b;\n'],
    install: {},
  },
  {
    // Issue 29: uvu through Tilth's own runner, one suite, each case run alone by its full name.
    preset: 'uvu',
    files: { 'package.json': '{"type":"module","devDependencies":{"uvu":"0.5.6"}}', 'src/calc.js': 'export const add = (a, b) => a + b;\n' },
    testFile: 'tests/t001_calc.test.js',
    test: "import { suite } from 'uvu';\nimport * as assert from 'uvu/assert';\nimport * as calc from '../src/calc.js';\nconst Calc = suite('calc');\nCalc('divides', () => { assert.is(calc.divide(4, 2), 2); });\nCalc('divides evenly', () => { assert.is(calc.divide(9, 3), 3); });\nCalc.run();\n",
    cases: ['calc › divides', 'calc › divides evenly'],
    impl: ['src/calc.js', 'export const add = (a, b) => a + b;\nexport const divide = (a, b) => a / b;\n'],
    install: {},
  },
  {
    // Issue 29: no baseline drives go, so its row has the proofs' own times only.
    preset: 'go',
    files: { 'go.mod': 'module example.com/calc\n\ngo 1.19\n', 'calc/calc.go': 'package calc\n\nfunc Add(a, b int) int { return a + b }\n' },
    testFile: 'calc/t001_calc_test.go',
    test: 'package calc\n\nimport "testing"\n\nfunc TestDivide(t *testing.T) {\n\tt.Run("divides", func(t *testing.T) {\n\t\tif Divide(4, 2) != 2 {\n\t\t\tt.Error("4/2")\n\t\t}\n\t})\n\tt.Run("divides evenly", func(t *testing.T) {\n\t\tif Divide(9, 3) != 3 {\n\t\t\tt.Error("9/3")\n\t\t}\n\t})\n}\n',
    cases: ['TestDivide/divides', 'TestDivide/divides_evenly'],
    impl: ['calc/calc.go', 'package calc\n\nfunc Add(a, b int) int { return a + b }\n\nfunc Divide(a, b int) int { return a / b }\n'],
  },
  {
    // Issue 29: cargo, likewise; each run builds the crate in a fresh target folder.
    preset: 'cargo',
    files: {
      'Cargo.toml': '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n',
      'Cargo.lock': 'version = 3\n\n[[package]]\nname = "calc"\nversion = "0.1.0"\n',
      'src/lib.rs': 'pub fn add(a: i64, b: i64) -> i64 {\n    a + b\n}\n',
    },
    testFile: 'tests/t001_calc.rs',
    test: 'use calc::divide;\n\n#[test]\nfn divides() {\n    assert_eq!(divide(4, 2), 2);\n}\n\nmod evenly {\n    #[test]\n    fn divides() {\n        assert_eq!(calc::divide(9, 3), 3);\n    }\n}\n',
    cases: ['divides', 'evenly::divides'],
    impl: ['src/lib.rs', 'pub fn add(a: i64, b: i64) -> i64 {\n    a + b\n}\n\npub fn divide(a: i64, b: i64) -> i64 {\n    a / b\n}\n'],
  },
  {
    // Issue 29, step 6: bun through the custom preset with {junit}, each case's proof a run of its
    // whole file read from the JUnit report (no one-case command), the cases inside a describe.
    preset: 'custom',
    label: 'bun (custom, junit)',
    custom: { test: 'node_modules/.bin/bun test {files} --reporter=junit --reporter-outfile={junit}' },
    files: { 'package.json': '{"type":"module","devDependencies":{"bun":"1.4.5"}}', 'src/calc.js': 'export const add = (a, b) => a + b;\n' },
    testFile: 'tests/t001_calc.test.js',
    test: esm("import { describe, it, expect } from 'bun:test';", 'expect(X).toBe(Y);'),
    cases: ['calc › divides', 'calc › divides evenly'],
    impl: ['src/calc.js', 'export const add = (a, b) => a + b;\nexport const divide = (a, b) => a / b;\n'],
    install: {},
  },
];

function write(dir: string, files: Record<string, string>) {
  for (const [f, c] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), c);
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function timed(prove: Prove, input: ContractCheckInput, prd: PrdEntry[]): Promise<{ ms: number; results: string[] } | null> {
  const started = performance.now();
  let out: Record<string, unknown[]>;
  try {
    out = await prove(input, prd);
  } catch (err) {
    if (process.env.BENCH_DEBUG) console.error(err);
    return null; // the baseline does not drive this runner
  }
  const ms = performance.now() - started;
  const results = ((out['T-001'] ?? []) as { result: string }[]).map((p) => p.result);
  return results.length > 0 ? { ms, results } : null;
}

const figures: Record<string, unknown> = {};
for (const project of PROJECTS.filter((p) => !values.only || p.preset === values.only || p.label === values.only)) {
  const dir = tempDir('tilth-bench-reports-');
  try {
    write(dir, { ...project.files, [project.testFile]: project.test });
    if (project.install) execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: dir, stdio: 'ignore' });
    const prd: PrdEntry[] = [
      {
        id: 'T-001',
        title: 'Divide',
        description: 'Add divide to calc.',
        acceptance_criteria: ['divides', 'divides evenly'],
        criteria_tests: [[project.cases[0]], [project.cases[1]]],
        status: 'pending',
      },
    ];
    const input: ContractCheckInput = {
      prd,
      testFiles: { [project.testFile]: project.test },
      preset: project.preset,
      ...(project.custom ? { customChecks: project.custom } : {}),
      scope: { sandbox: TEST_SANDBOX, worktree: dir, git: null, network: false },
    };
    const row: Record<string, unknown> = {};
    for (const phase of ['red', 'green'] as const) {
      if (phase === 'green') write(dir, { [project.impl[0]]: project.impl[1] });
      const times = { baseline: [] as number[], report1: [] as number[], report2: [] as number[] };
      const seen: Record<string, string[]> = {};
      for (let round = 0; round < ROUNDS; round++) {
        const a = await timed(baseline.proveCases, input, prd);
        const b = await timed(proveCases, { ...input, repeats: 1 }, prd);
        const c = await timed(proveCases, { ...input, repeats: 2 }, prd);
        if (!b || !c) throw new Error(`${project.preset}: this checkout proved nothing`);
        if (a) times.baseline.push(a.ms);
        times.report1.push(b.ms);
        times.report2.push(c.ms);
        Object.assign(seen, { baseline: a?.results ?? 'not driven', report1: b.results, report2: c.results });
      }
      const base = times.baseline.length > 0 ? median(times.baseline) : null;
      const ratio = (ms: number) => (base === null ? null : Number((ms / base).toFixed(2)));
      row[phase] = {
        baseline_ms: base === null ? null : Math.round(base),
        report_ms: Math.round(median(times.report1)),
        report_and_repeats_ms: Math.round(median(times.report2)),
        report_ratio: ratio(median(times.report1)),
        report_and_repeats_ratio: ratio(median(times.report2)),
        results: seen,
      };
    }
    figures[project.label ?? project.preset] = row;
    console.log(project.label ?? project.preset, JSON.stringify(row));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
console.log(JSON.stringify({ bench: 'proof-reports', rounds: ROUNDS, runners: figures }));
