/**
 * bench/no-follow: what following no link costs (issue 27). Every server write now goes through
 * `server/fs/tree.ts` (the parent's real path checked, O_NOFOLLOW, fstat against lstat); before,
 * the same writes were plain `node:fs` calls. Measured alternately in one run, on one filesystem:
 * - a write in place (the mutation probe's per-mutant write): `fs.writeFileSync` vs `Tree.writeFile`;
 * - an atomic replace (checkpoint, prd): temp + fsync + rename by hand vs `Tree.writeFileAtomic`;
 * - linking a node_modules of N entries (provisioning): the loop as it was (`fs.symlinkSync`,
 *   `fs.writeFileSync` of the ignore file) vs `linkNodeModules` today.
 * Prints medians and ratios (tree / plain); the last line is JSON. Figures only.
 * Run: npx tsx bench/no-follow.ts [--runs 7] [--writes 2000] [--entries 800]
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { linkNodeModules } from '../server/env/provision.ts';
import { fsyncDir, Tree } from '../server/fs/tree.ts';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '7' }, writes: { type: 'string', default: '2000' }, entries: { type: 'string', default: '800' } },
});
const RUNS = Number(values.runs);
const WRITES = Number(values.writes);
const ENTRIES = Number(values.entries);

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tilth-bench-nofollow-')));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function time(fn: () => void): number {
  const t = performance.now();
  fn();
  return performance.now() - t;
}

// A worktree with the layout the probe writes into, and a checkout's node_modules of ENTRIES packages.
const worktree = path.join(base, 'wt');
fs.mkdirSync(path.join(worktree, 'src', 'lib'), { recursive: true });
const from = path.join(base, 'checkout', 'node_modules');
for (let i = 0; i < ENTRIES; i++) fs.mkdirSync(path.join(from, `pkg-${i}`), { recursive: true });
const content = `export function f(a, b) {\n  return a === b;\n}\n${'// padding\n'.repeat(200)}`;

function plainInPlace(): void {
  const file = path.join(worktree, 'src', 'lib', 'plain.js');
  for (let i = 0; i < WRITES; i++) fs.writeFileSync(file, content);
}
function treeInPlace(): void {
  const tree = Tree.at(worktree);
  for (let i = 0; i < WRITES; i++) tree.writeFile('src/lib/tree.js', content);
}
function plainAtomic(): void {
  const file = path.join(worktree, 'plain.json');
  for (let i = 0; i < WRITES / 10; i++) {
    const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    const fd = fs.openSync(tmp, 'wx');
    fs.writeSync(fd, content);
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fs.renameSync(tmp, file);
    fsyncDir(worktree); // as store/atomic.ts did
  }
}
function treeAtomic(): void {
  const tree = Tree.at(worktree);
  for (let i = 0; i < WRITES / 10; i++) tree.writeFileAtomic('tree.json', content);
}
/** The linking loop as it was before issue 27: plain calls that follow whatever is there. */
function plainLink(): void {
  const own = path.join(base, 'plain-wt', 'node_modules');
  fs.rmSync(path.dirname(own), { recursive: true, force: true });
  fs.mkdirSync(own, { recursive: true });
  fs.writeFileSync(path.join(own, '.gitignore'), '*\n');
  for (const name of fs.readdirSync(from)) {
    const link = path.join(own, name);
    if (fs.lstatSync(link, { throwIfNoEntry: false })) continue;
    fs.symlinkSync(path.join(from, name), link);
  }
}
function treeLink(): void {
  const wt = path.join(base, 'tree-wt');
  fs.rmSync(wt, { recursive: true, force: true });
  fs.mkdirSync(wt);
  linkNodeModules(from, wt);
}

const cases = [
  { name: `write in place ×${WRITES}`, plain: plainInPlace, tree: treeInPlace },
  { name: `atomic replace ×${WRITES / 10}`, plain: plainAtomic, tree: treeAtomic },
  { name: `link node_modules (${ENTRIES} entries)`, plain: plainLink, tree: treeLink },
];

const results: Record<string, { plain_ms: number; tree_ms: number; ratio: number }> = {};
try {
  for (const c of cases) {
    c.plain();
    c.tree(); // warm
    const plain: number[] = [];
    const tree: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      // Alternate, so the machine's noise falls on both alike.
      plain.push(time(c.plain));
      tree.push(time(c.tree));
    }
    const p = median(plain);
    const t = median(tree);
    results[c.name] = { plain_ms: Number(p.toFixed(2)), tree_ms: Number(t.toFixed(2)), ratio: Number((t / p).toFixed(2)) };
    console.log(`${c.name.padEnd(34)} plain ${p.toFixed(1).padStart(8)} ms   tree ${t.toFixed(1).padStart(8)} ms   tree/plain ${(t / p).toFixed(2)}`);
  }
} finally {
  fs.rmSync(base, { recursive: true, force: true });
}
console.log(JSON.stringify({ bench: 'no-follow', runs: RUNS, load: os.loadavg()[0]!.toFixed(2), results }));
