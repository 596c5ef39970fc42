/**
 * bench/startup: `tilth serve` launch to the first authenticated `/api/health` 200. Target ≤ 1.5 s.
 * Runs the real bin (tsx loader included) several times and prints each run and the median.
 * Run: npx tsx bench/startup.ts [--runs 5]
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
const RUNS = Number(values.runs);

async function once(): Promise<number> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'tilth-bench-'));
  const token = 'bench-startup-token';
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const started = performance.now();
  const child = spawn(process.execPath, ['bin/tilth.js', 'serve', '--port', String(port)], {
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, TILTH_HOME: home, TILTH_TOKEN: token },
  });
  try {
    for (;;) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/api/health`, { headers: { authorization: `Bearer ${token}` } });
        if (res.status === 200) return performance.now() - started;
      } catch {
        // not listening yet
      }
      if (performance.now() - started > 30_000) throw new Error('server did not answer within 30 s');
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    process.kill(-child.pid!, 'SIGTERM');
    await new Promise((r) => child.once('exit', r));
    fs.rmSync(home, { recursive: true, force: true });
  }
}

console.log(`bench/startup: ${RUNS} launches of tilth serve → first /api/health 200 (target ≤ 1500 ms)`);
const times: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const ms = await once();
  times.push(ms);
  console.log(`  run ${i + 1}: ${ms.toFixed(0)} ms`);
}
times.sort((a, b) => a - b);
console.log(`median ${times[Math.floor(times.length / 2)]!.toFixed(0)} ms, best ${times[0]!.toFixed(0)} ms, worst ${times.at(-1)!.toFixed(0)} ms`);
