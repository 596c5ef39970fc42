/**
 * bench/provision: what it costs to give a session's worktree the project's Node environment,
 * for a checkout with a few hundred installed packages (this repository's own dependencies,
 * installed from its lockfile into a temp checkout). Measured in the same run, on the same
 * filesystem:
 * - link: what Tilth does (server/env/provision.ts) — a real node_modules of per-entry symlinks;
 * - hardlink copy (`cp -al`) and full copy (`cp -a --reflink=auto`), the alternatives;
 * - a fresh install in the worktree (`npm ci --prefer-offline`, the npm cache warm).
 * Prints time (median of the runs; one install) and the extra disk each takes (blocks of the new
 * inodes only, so hardlinks count as the folders they add), then ratios; the last line is JSON.
 * Target for linking: at most 2 s and 10 MB. Figures only; nothing here passes or fails.
 * Run: npx tsx bench/provision.ts [--runs 5]
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { linkNodeModules } from '../server/env/provision.ts';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
const RUNS = Number(values.runs);
const ROOT = path.join(import.meta.dirname, '..');

interface Figure {
  ms: number;
  bytes: number;
  inodes: number;
}

/** Every inode under `dir` (symlinks not followed): its allocated bytes. */
function inodes(dir: string, into = new Map<number, number>()): Map<number, number> {
  const stat = fs.lstatSync(dir);
  into.set(stat.ino, stat.blocks * 512);
  if (!stat.isDirectory()) return into;
  for (const name of fs.readdirSync(dir)) inodes(path.join(dir, name), into);
  return into;
}

/** What `dir` adds to the disk beyond the inodes `existing` already holds. */
function extra(dir: string, existing: Map<number, number>): { bytes: number; inodes: number } {
  let bytes = 0;
  let count = 0;
  for (const [ino, size] of inodes(dir)) {
    if (existing.has(ino)) continue;
    bytes += size;
    count++;
  }
  return { bytes, inodes: count };
}

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function countPackages(nodeModules: string): number {
  let n = 0;
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name === '.bin' || entry.name.startsWith('.')) continue;
      const pkg = path.join(dir, entry.name);
      if (entry.name.startsWith('@')) {
        walk(pkg);
        continue;
      }
      if (fs.existsSync(path.join(pkg, 'package.json'))) n++;
      if (fs.existsSync(path.join(pkg, 'node_modules'))) walk(path.join(pkg, 'node_modules'));
    }
  };
  walk(nodeModules);
  return n;
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;
const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'tilth-bench-provision-'));
try {
  // The checkout: this repository's dependencies, installed from its lockfile (no scripts of its own).
  const checkout = path.join(home, 'checkout');
  fs.mkdirSync(checkout);
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
  delete manifest.scripts;
  delete manifest.bin;
  fs.writeFileSync(path.join(checkout, 'package.json'), JSON.stringify(manifest, null, 2));
  fs.copyFileSync(path.join(ROOT, 'package-lock.json'), path.join(checkout, 'package-lock.json'));
  const npmCi = ['ci', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'];
  console.log('bench/provision: installing the checkout (npm ci, warms the cache)…');
  execFileSync('npm', npmCi, { cwd: checkout, stdio: 'ignore', timeout: 900_000 });
  const nodeModules = path.join(checkout, 'node_modules');
  const installed = inodes(nodeModules);
  const checkoutBytes = [...installed.values()].reduce((a, b) => a + b, 0);
  const packages = countPackages(nodeModules);
  console.log(`  checkout: ${packages} packages, ${fs.readdirSync(nodeModules).length} top-level entries, ${installed.size} inodes, ${mb(checkoutBytes)}`);

  let worktrees = 0;
  const fresh = () => {
    const wt = path.join(home, `wt-${++worktrees}`);
    fs.mkdirSync(wt);
    return wt;
  };
  const measure = (label: string, runs: number, make: (wt: string) => void): Figure => {
    const times: number[] = [];
    let last = '';
    for (let i = 0; i < runs; i++) {
      const wt = fresh();
      const started = performance.now();
      make(wt);
      times.push(performance.now() - started);
      if (last) fs.rmSync(last, { recursive: true, force: true });
      last = wt;
    }
    const added = extra(path.join(last, 'node_modules'), installed);
    fs.rmSync(last, { recursive: true, force: true });
    const figure = { ms: median(times), bytes: added.bytes, inodes: added.inodes };
    console.log(`  ${label.padEnd(34)} ${secs(figure.ms).padStart(8)}  ${mb(figure.bytes).padStart(10)}  ${String(figure.inodes).padStart(7)} inodes`);
    return figure;
  };

  console.log(`  ${'per worktree'.padEnd(34)} ${'time'.padStart(8)}  ${'extra disk'.padStart(10)}  ${'new'.padStart(7)}`);
  const link = measure(`link (Tilth), median of ${RUNS}`, RUNS, (wt) => linkNodeModules(nodeModules, wt));
  const hardlink = measure(`cp -al, median of ${RUNS}`, RUNS, (wt) => execFileSync('cp', ['-al', nodeModules, path.join(wt, 'node_modules')]));
  const copy = measure('cp -a --reflink=auto, once', 1, (wt) => execFileSync('cp', ['-a', '--reflink=auto', nodeModules, path.join(wt, 'node_modules')]));
  const install = measure('npm ci --prefer-offline, once', 1, (wt) => {
    fs.copyFileSync(path.join(checkout, 'package.json'), path.join(wt, 'package.json'));
    fs.copyFileSync(path.join(checkout, 'package-lock.json'), path.join(wt, 'package-lock.json'));
    execFileSync('npm', npmCi, { cwd: wt, stdio: 'ignore', timeout: 900_000 });
  });

  const ratio = (a: number, b: number) => (b === 0 ? '∞' : `${(a / b).toFixed(0)}×`);
  console.log(`  install ÷ link: ${ratio(install.ms, link.ms)} the time, ${ratio(install.bytes, link.bytes)} the disk`);
  console.log(`  cp -al ÷ link:  ${ratio(hardlink.ms, link.ms)} the time, ${ratio(hardlink.bytes, link.bytes)} the disk`);
  console.log(`  link target (≤ 2 s, ≤ 10 MB): ${link.ms <= 2_000 && link.bytes <= 10 * 1024 * 1024 ? 'met' : 'MISSED'}`);
  console.log(JSON.stringify({ bench: 'provision', packages, checkout_bytes: checkoutBytes, link, hardlink, copy, install }));
} finally {
  fs.rmSync(home, { recursive: true, force: true });
}
