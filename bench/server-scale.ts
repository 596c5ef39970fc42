/**
 * bench/server-scale: how the server holds up with long sessions on disk.
 *   - RSS of the server's process group idle (sessions on disk, none read), after listing them,
 *     after opening each (summary + the newest page of events, as the dashboard does), and with
 *     one huge session opened;
 *   - the first read of the huge session's cold log (no events.idx): its latency, and the
 *     latency of /api/health requests made one after another meanwhile (their max and median);
 *   - the same first read once events.idx exists (a restart).
 * A fresh server per run; median and range over --runs. Sessions come from bench/session-gen
 * and can be kept between invocations with --keep DIR (generating 1M events takes minutes).
 * By default it runs the built server (what an installed `tilth` runs; `npm run build:server`);
 * `--server source` runs this checkout's TypeScript through tsx, as `npx tilth serve` in a clone does.
 * Run: npx tsx bench/server-scale.ts [--count 20] [--events 100000] [--huge 1000000] [--runs 3] [--keep DIR] [--server built|source]
 * The last line is the figures as JSON.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { SessionStore } from '../server/store/session-store.ts';
import { startTilth, type TilthProcess } from '../server/testing/tilth-process.ts';
import { writeRunSession } from './session-gen.ts';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '20' },
    events: { type: 'string', default: '100000' },
    huge: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '3' },
    keep: { type: 'string' },
    server: { type: 'string', default: 'built' },
  },
});
const COUNT = Number(values.count);
const EVENTS = Number(values.events);
const HUGE = Number(values.huge);
const RUNS = Number(values.runs);
if (values.server !== 'built' && values.server !== 'source') throw new Error('--server is built (dist/, as installed) or source (this checkout through tsx)');
const BUILT = values.server === 'built';

const home = values.keep ? path.resolve(values.keep) : fs.mkdtempSync(path.join(os.tmpdir(), 'tilth-bench-scale-'));
const sessionsDir = path.join(home, 'sessions');
const manifest = path.join(home, 'manifest.json');

interface Manifest {
  count: number;
  events: number;
  huge: number;
  sessions: string[];
  hugeId: string;
}

function generate(): Manifest {
  if (fs.existsSync(manifest)) {
    const kept = JSON.parse(fs.readFileSync(manifest, 'utf8')) as Manifest;
    if (kept.count === COUNT && kept.events === EVENTS && kept.huge === HUGE) return kept;
  }
  fs.rmSync(sessionsDir, { recursive: true, force: true });
  const store = new SessionStore(sessionsDir);
  const started = performance.now();
  const sessions = Array.from({ length: COUNT }, (_, i) => writeRunSession(store, EVENTS, { tasks: 6, seed: i + 1 }).id);
  const hugeId = writeRunSession(store, HUGE, { tasks: 8, seed: 99, title: `bench ${HUGE}` }).id;
  store.close();
  console.log(
    `generated ${COUNT} × ${EVENTS.toLocaleString('en-US')} + 1 × ${HUGE.toLocaleString('en-US')} events in ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );
  const made = { count: COUNT, events: EVENTS, huge: HUGE, sessions, hugeId };
  fs.writeFileSync(manifest, JSON.stringify(made));
  return made;
}

/** Resident set of every process in the group, MB. */
function groupRssMb(pgid: number): number {
  let kb = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) !== pgid) continue; // field 5 of stat: pgrp
      kb += Number(/^VmRSS:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // gone
    }
  }
  return kb / 1024;
}

async function timed(tilth: TilthProcess, url: string): Promise<number> {
  const started = performance.now();
  const { status } = await tilth.api('GET', url);
  if (status !== 200) throw new Error(`${url}: ${status}`);
  return performance.now() - started;
}

/** The huge session's first page while /api/health is asked one request after another. */
async function firstRead(tilth: TilthProcess, id: string): Promise<{ readMs: number; healthMaxMs: number; healthMedianMs: number; healthCount: number }> {
  let done = false;
  const health: number[] = [];
  const poll = (async () => {
    while (!done) health.push(await timed(tilth, '/api/health'));
  })();
  const readMs = await timed(tilth, `/api/sessions/${id}/events?tail=1&limit=200`).then(async (ms) => ms + (await timed(tilth, `/api/sessions/${id}/summary`)));
  done = true;
  await poll;
  return { readMs, healthMaxMs: Math.max(...health), healthMedianMs: median(health), healthCount: health.length };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const settle = () => new Promise((resolve) => setTimeout(resolve, 1500));

const plan = generate();
const logOf = (id: string) => path.join(sessionsDir, id, 'events.jsonl');
const hugeMb = fs.statSync(logOf(plan.hugeId)).size / 1e6;
const runs: Record<string, number>[] = [];
for (let run = 0; run < RUNS; run++) {
  for (const id of [...plan.sessions, plan.hugeId]) fs.rmSync(path.join(sessionsDir, id, 'events.idx'), { force: true });
  const tilth = await startTilth({ home, built: BUILT });
  try {
    await settle();
    const idle = groupRssMb(tilth.pgid);
    await timed(tilth, '/api/sessions');
    await settle();
    const listed = groupRssMb(tilth.pgid);
    for (const id of plan.sessions) {
      await timed(tilth, `/api/sessions/${id}/summary`);
      await timed(tilth, `/api/sessions/${id}/events?tail=1&limit=200`);
    }
    await settle();
    const opened = groupRssMb(tilth.pgid);
    const cold = await firstRead(tilth, plan.hugeId);
    await settle();
    const hugeOpen = groupRssMb(tilth.pgid);
    const summaryBytes = JSON.stringify((await tilth.api('GET', `/api/sessions/${plan.hugeId}/summary`)).body).length;
    await tilth.stop();
    const again = await startTilth({ home, built: BUILT });
    const warm = await firstRead(again, plan.hugeId);
    await again.stop();
    runs.push({
      idleMb: idle,
      listedMb: listed,
      openedMb: opened,
      hugeOpenMb: hugeOpen,
      coldReadMs: cold.readMs,
      healthMaxMs: cold.healthMaxMs,
      healthMedianMs: cold.healthMedianMs,
      healthRequests: cold.healthCount,
      sidecarReadMs: warm.readMs,
      sidecarHealthMaxMs: warm.healthMaxMs,
      summaryKb: summaryBytes / 1024,
    });
  } finally {
    await tilth.stop();
  }
}

const stat = (key: string) => {
  const xs = runs.map((r) => r[key]!);
  return { min: Math.min(...xs), median: median(xs), max: Math.max(...xs) };
};
const keys = Object.keys(runs[0]!);
const figures = Object.fromEntries(keys.map((k) => [k, stat(k)]));
const load = os.loadavg().map((l) => l.toFixed(2));
console.log(
  `\nbench/server-scale: ${COUNT} × ${EVENTS.toLocaleString('en-US')} events + 1 × ${HUGE.toLocaleString('en-US')} (${hugeMb.toFixed(0)} MB log); ${RUNS} runs; ${values.server} server; load ${load.join(' ')} on ${os.cpus().length} cores\n`,
);
const fmt = (v: { min: number; median: number; max: number }) => `${v.median.toFixed(1)} (${v.min.toFixed(1)}–${v.max.toFixed(1)})`;
const rows: [string, string][] = [
  ['server RSS idle, MB', 'idleMb'],
  [`RSS after listing ${COUNT} sessions, MB`, 'listedMb'],
  [`RSS after opening each of the ${COUNT}, MB`, 'openedMb'],
  [`RSS with the ${HUGE.toLocaleString('en-US')}-event session open, MB`, 'hugeOpenMb'],
  ['first read of the cold huge log (newest page + summary), ms', 'coldReadMs'],
  ['  /api/health meanwhile: max ms', 'healthMaxMs'],
  ['  /api/health meanwhile: median ms', 'healthMedianMs'],
  ['  /api/health requests answered meanwhile', 'healthRequests'],
  ['first read after a restart (events.idx kept), ms', 'sidecarReadMs'],
  ['  /api/health meanwhile: max ms', 'sidecarHealthMaxMs'],
  ['summary response of the huge session, KB', 'summaryKb'],
].map(([label, key]) => [label, key]) as [string, string][];
for (const [label, key] of rows) console.log(`${label.padEnd(64)} ${fmt(figures[key]!)}`);
if (!values.keep) fs.rmSync(home, { recursive: true, force: true });
console.log(JSON.stringify({ bench: 'server-scale', server: values.server, count: COUNT, events: EVENTS, huge: HUGE, load: os.loadavg(), figures }));
