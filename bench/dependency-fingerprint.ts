/**
 * bench/dependency-fingerprint: what guarding packages an install or a setup made in the worktree
 * costs (server/env/dependency-guard.ts). Each attempt's checks fingerprint those folders twice
 * (before the runs and after), walking every entry with one `lstat`. Measured on a real folder:
 * Tilth's own `node_modules` by default. Median and worst of `--runs`, beside the time to list
 * the same tree with `readdir` alone (the walk's floor), as a ratio measured in the same sitting.
 * Figures only; nothing here passes or fails.
 * Run: npx tsx bench/dependency-fingerprint.ts [--dir node_modules] [--runs 10]
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fingerprintFolder } from '../server/env/dependency-guard.ts';

const { values } = parseArgs({ options: { dir: { type: 'string', default: 'node_modules' }, runs: { type: 'string', default: '10' } } });
const ROOT = process.cwd();
const DIR = values.dir;
const RUNS = Number(values.runs);

function listOnly(abs: string): number {
  let count = 0;
  for (const e of fs.readdirSync(abs, { withFileTypes: true })) {
    count++;
    if (e.isDirectory()) count += listOnly(path.join(abs, e.name));
  }
  return count;
}

function timed(fn: () => unknown): number {
  const started = performance.now();
  fn();
  return performance.now() - started;
}

const entries = listOnly(path.join(ROOT, DIR));
const walk: number[] = [];
const floor: number[] = [];
for (let i = 0; i < RUNS; i++) {
  floor.push(timed(() => listOnly(path.join(ROOT, DIR))));
  walk.push(timed(() => fingerprintFolder(ROOT, DIR)));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const result = {
  dir: DIR,
  entries,
  fingerprint_median_ms: Math.round(median(walk)),
  fingerprint_worst_ms: Math.round(Math.max(...walk)),
  readdir_median_ms: Math.round(median(floor)),
  ratio_to_readdir: Number((median(walk) / median(floor)).toFixed(2)),
};
console.log(
  `${entries} entries in ${DIR}: fingerprint ${result.fingerprint_median_ms} ms median (worst ${result.fingerprint_worst_ms} ms), ${result.ratio_to_readdir}× a readdir-only walk`,
);
console.log(JSON.stringify(result));
