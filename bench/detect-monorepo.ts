/**
 * bench/detect-monorepo: how long the workspace check's detection (server/env/detect.ts) takes on
 * a large repository (issue 29: under 200 ms on a 5,000-file monorepo). Two shapes, each of
 * `--files` files: a pnpm workspace of TypeScript packages tested with vitest (a root config,
 * `packages/<name>/src` and `test` folders), and a Go module of many packages with `_test.go`
 * files (whose package folders detection walks, bounded). The first run is cold (the OS's
 * directory cache aside), the rest warm; median and worst of `--runs`. Each workspace package is
 * detected too (its runner, its test folders): `packages` says how many. The last line is JSON.
 * Figures only; nothing here passes or fails.
 * Run: npx tsx bench/detect-monorepo.ts [--files 5000] [--runs 20]
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { detectProjectEnv } from '../server/env/detect.ts';
import { tempDir } from '../server/testing/temp-dir.ts';

const { values } = parseArgs({ options: { files: { type: 'string', default: '5000' }, runs: { type: 'string', default: '20' } } });
const FILES = Number(values.files);
const RUNS = Number(values.runs);

function write(root: string, rel: string, content: string): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), content);
}

/** A pnpm workspace: packages of 50 files each (40 sources, 10 tests). */
function pnpmWorkspace(root: string): void {
  write(
    root,
    'package.json',
    JSON.stringify({ name: 'mono', private: true, scripts: { test: 'vitest run' }, devDependencies: { vitest: '^4', typescript: '^5' } }),
  );
  write(root, 'pnpm-workspace.yaml', "packages:\n  - 'packages/*'\n");
  write(root, 'pnpm-lock.yaml', "lockfileVersion: '9.0'\n");
  write(root, 'tsconfig.json', '{}');
  write(root, 'vitest.config.ts', "export default { test: { include: ['packages/*/test/**/*.test.ts'] } };\n");
  for (let n = 0; n * 50 < FILES - 5; n++) {
    const pkg = `packages/p${n}`;
    write(root, `${pkg}/package.json`, JSON.stringify({ name: `@mono/p${n}`, scripts: { test: 'vitest run' } }));
    for (let i = 0; i < 40; i++) write(root, `${pkg}/src/m${i}.ts`, `export const v${i} = ${i};\n`);
    for (let i = 0; i < 9; i++) write(root, `${pkg}/test/m${i}.test.ts`, `import { v${i} } from '../src/m${i}.ts';\n`);
  }
}

/** A Go module: packages of 10 files each (7 sources, 3 tests), nested two deep. */
function goModule(root: string): void {
  write(root, 'go.mod', 'module example.com/mono\n\ngo 1.19\n');
  for (let n = 0; n * 10 < FILES - 1; n++) {
    const pkg = `svc${n % 25}/p${n}`;
    for (let i = 0; i < 7; i++) write(root, `${pkg}/f${i}.go`, `package p${n}\n`);
    for (let i = 0; i < 3; i++) write(root, `${pkg}/f${i}_test.go`, `package p${n}\n`);
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const figures: Record<string, unknown> = {};
for (const [name, build] of [
  ['pnpm-vitest', pnpmWorkspace],
  ['go-module', goModule],
] as const) {
  const root = tempDir(`tilth-bench-detect-${name}-`);
  try {
    build(root);
    const times: number[] = [];
    let runner: string | null = null;
    let packages = 0;
    for (let i = 0; i < RUNS; i++) {
      const started = performance.now();
      const env = await detectProjectEnv(root);
      times.push(performance.now() - started);
      runner = env.test_runner;
      packages = env.workspace?.packages.length ?? 0;
    }
    const row = {
      files: FILES,
      runner,
      packages,
      first_ms: Number(times[0]!.toFixed(1)),
      median_ms: Number(median(times.slice(1)).toFixed(1)),
      worst_ms: Number(Math.max(...times.slice(1)).toFixed(1)),
    };
    figures[name] = row;
    console.log(name, JSON.stringify(row));
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
console.log(JSON.stringify({ bench: 'detect-monorepo', runs: RUNS, shapes: figures }));
