/**
 * bench/startup (issue 32): launch to the first authenticated `/api/health` 200, for
 *   - built: the bundle `npm run build:server` makes (what an installed `tilth` runs);
 *   - source: `bin/tilth.js` in this checkout (what `npx tilth serve` in a clone runs: a bundle of
 *     the sources, made again when one changed; made before the runs, so none pays for it);
 *   - bare: a `node:http` server answering the same request, the same-run baseline.
 * Alternated round by round, so machine load falls on all three alike. Target: built and source
 * each ≤ 3× bare. Prints min / median / max per kind and, last, the figures as JSON.
 * Run: npm run build:server && npx tsx bench/startup.ts [--runs 7]
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freshBundle } from '../scripts/server-bundle.mjs';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '7' } } });
const RUNS = Number(values.runs);
const TOKEN = 'bench-startup-token-0123456789';
const root = path.resolve(import.meta.dirname, '..');
const KINDS = {
  built: [path.join(root, 'dist', 'server', 'cli.js'), 'serve'],
  source: [path.join(root, 'bin', 'tilth.js'), 'serve'],
  bare: ['-e', "require('node:http').createServer((req, res) => res.end('{\"ok\":true}')).listen(Number(process.env.PORT), '127.0.0.1')"],
} as const;
type Kind = keyof typeof KINDS;

async function once(kind: Kind): Promise<number> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'tilth-bench-'));
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const args = kind === 'bare' ? [...KINDS.bare] : [...KINDS[kind], '--port', String(port)];
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: root,
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, TILTH_HOME: home, TILTH_TOKEN: TOKEN, PORT: String(port) },
  });
  try {
    for (;;) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/api/health`, { headers: { authorization: `Bearer ${TOKEN}` } });
        if (res.status === 200) return performance.now() - started;
      } catch {
        // not listening yet
      }
      if (performance.now() - started > 30_000) throw new Error(`${kind}: no answer within 30 s`);
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    process.kill(-child.pid!, 'SIGKILL');
    await new Promise((r) => child.once('exit', r));
    fs.rmSync(home, { recursive: true, force: true });
  }
}

if (!fs.existsSync(KINDS.built[0])) throw new Error('no build: run `npm run build:server` first');
await freshBundle(root);
console.log(`bench/startup: ${RUNS} rounds of built, source and bare → first authenticated /api/health 200 (load ${os.loadavg()[0]!.toFixed(2)})`);
const times: Record<Kind, number[]> = { built: [], source: [], bare: [] };
for (let i = 0; i < RUNS; i++) {
  for (const kind of Object.keys(KINDS) as Kind[]) times[kind].push(Math.round(await once(kind)));
  console.log(`  round ${i + 1}: built ${times.built.at(-1)} ms · source ${times.source.at(-1)} ms · bare ${times.bare.at(-1)} ms`);
}
const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0]!, median: s[Math.floor(s.length / 2)]!, max: s.at(-1)! };
};
const figures = Object.fromEntries((Object.keys(times) as Kind[]).map((k) => [k, stats(times[k])]));
const ratio = (k: Kind) => +(figures[k]!.median / figures.bare!.median).toFixed(2);
for (const k of ['built', 'source'] as const) {
  console.log(`${k}: ${figures[k]!.min} / ${figures[k]!.median} / ${figures[k]!.max} ms (min / median / max), ${ratio(k)}× bare (target ≤ 3×)`);
}
console.log(`bare: ${figures.bare!.min} / ${figures.bare!.median} / ${figures.bare!.max} ms`);
console.log(JSON.stringify({ bench: 'startup', load: os.loadavg()[0], runs: RUNS, figures, ratios: { built: ratio('built'), source: ratio('source') } }));
