/**
 * bench/live-update: main-thread cost of live updates with a long session's dashboard open in
 * Chromium. For each size N (1k is the same-run baseline) a finished N-event run session is
 * resumed: its checkpoint says running and this process appends a realistic continuation to its
 * log, as a headless `tilth run` would (the server's watcher publishes what it appends, the
 * stream carries it to the page). Measured:
 *   - per update of 20 events appended at once: the longest main-thread task from the append until
 *     the dashboard has folded it and a second more (the charts redraw up to 500 ms late on main);
 *   - at a steady 1,000 events/s for --seconds: the longest main-thread task meanwhile.
 * Tasks are read from a Chromium trace (CDP Tracing, category `toplevel`: every task the renderer's
 * main thread runs, `ThreadControllerImpl::RunTask`, whatever its length), not from the longtask
 * observer, which reports nothing under 50 ms. Tracing adds a little to each task.
 * Each run starts a fresh server over the sessions as generated (the appended events are cut off
 * again), so every run sees N events. Sessions are kept with --keep DIR (1M takes about a minute).
 * The page's summary comes thinned (at most ~600 rows per timeline series, whatever N), so N
 * hardly changes what the charts hold here. A client that followed a long run live holds every
 * row instead; for that case the bench also times the chart models alone, in this process, on an
 * unthinned timeline of N events: built from the whole timeline (what every chart update did
 * before they appended) against appending one update's 20 events.
 * Target: ≤ 16 ms longest task per 20-event update at 100k and 1M.
 * Run: npx tsx bench/live-update.ts [--sizes 1000,100000,1000000] [--runs 3] [--updates 10] [--seconds 5] [--keep DIR] [--port 5360]
 * The last line is the figures as JSON.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type Browser, type Page } from '@playwright/test';
import type { TilthEvent } from '../shared/events.ts';
import { addToSummary, emptySummary } from '../shared/summary.ts';
import { SessionStore } from '../server/store/session-store.ts';
import { startTilth } from '../server/testing/tilth-process.ts';
import { extendPressure, extendTimeline, pressureModel, taskLanes, timelineModel } from '../web/src/dashboard/charts/chart-data.ts';
import { runEvents, writeRunSession } from './session-gen.ts';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000,100000,1000000' },
    runs: { type: 'string', default: '3' },
    updates: { type: 'string', default: '10' },
    seconds: { type: 'string', default: '5' },
    keep: { type: 'string' },
    port: { type: 'string', default: '5360' },
  },
});
const SIZES = values.sizes.split(',').map(Number);
const RUNS = Number(values.runs);
const UPDATES = Number(values.updates);
const SECONDS = Number(values.seconds);
const PORT = Number(values.port);
const BURST = 20;
const STEADY_RATE = 1000;
/** After an update is folded: time for the charts' delayed redraw (and anything else it set off). */
const AFTER_MS = 1000;
/** Files a run changes, restored from a copy before the next one. */
const RESTORED = ['checkpoint.json', 'summary.json', 'events.idx'];

const home = values.keep ? path.resolve(values.keep) : fs.mkdtempSync(path.join(os.tmpdir(), 'tilth-bench-live-'));
const sessionsDir = path.join(home, 'sessions');
const originals = path.join(home, 'originals');
const manifestFile = path.join(home, 'manifest.json');

interface Kept {
  size: number;
  id: string;
  logBytes: number;
}

function generate(): Kept[] {
  const kept: Kept[] = fs.existsSync(manifestFile) ? (JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as Kept[]) : [];
  const missing = SIZES.filter((size) => !kept.some((k) => k.size === size));
  if (missing.length === 0) return kept;
  const store = new SessionStore(sessionsDir);
  for (const size of missing) {
    const started = performance.now();
    const { id } = writeRunSession(store, size, { tasks: 8, seed: 7, title: `bench ${size}` });
    const logBytes = fs.statSync(path.join(sessionsDir, id, 'events.jsonl')).size;
    kept.push({ size, id, logBytes });
    console.log(
      `generated ${size.toLocaleString('en-US')} events (${(logBytes / 1e6).toFixed(1)} MB) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  }
  // Closing writes each log's events.idx: copied with the rest once it is there.
  store.close();
  for (const { id } of kept.filter((k) => missing.includes(k.size))) {
    fs.mkdirSync(path.join(originals, id), { recursive: true });
    for (const file of RESTORED) fs.copyFileSync(path.join(sessionsDir, id, file), path.join(originals, id, file));
  }
  fs.writeFileSync(manifestFile, JSON.stringify(kept));
  return kept;
}

/** Back to the session as generated: the log cut to its length then, and the files a run rewrote. */
function restore(k: Kept): void {
  const dir = path.join(sessionsDir, k.id);
  fs.truncateSync(path.join(dir, 'events.jsonl'), k.logBytes);
  for (const file of RESTORED) fs.copyFileSync(path.join(originals, k.id, file), path.join(dir, file));
}

interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  dur?: number;
  args?: { name?: string };
}

/** Durations (ms) of the tasks the busiest renderer main thread ran while the trace was recorded. */
function mainThreadTasks(trace: Buffer): number[] {
  const events = (JSON.parse(trace.toString('utf8')) as { traceEvents: TraceEvent[] }).traceEvents;
  const mains = new Set(events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
  const byThread = new Map<string, number[]>();
  for (const e of events) {
    if (e.ph !== 'X' || e.name !== 'ThreadControllerImpl::RunTask' || e.dur === undefined) continue;
    const key = `${e.pid}:${e.tid}`;
    if (!mains.has(key)) continue;
    byThread.set(key, [...(byThread.get(key) ?? []), e.dur / 1000]);
  }
  let busiest: number[] = [];
  let most = -1;
  for (const tasks of byThread.values()) {
    const total = tasks.reduce((a, b) => a + b, 0);
    if (total > most) {
      most = total;
      busiest = tasks;
    }
  }
  return busiest;
}

async function traced(browser: Browser, page: Page, work: () => Promise<void>): Promise<number[]> {
  await browser.startTracing(page, { categories: ['toplevel'] });
  try {
    await work();
  } catch (err) {
    await browser.stopTracing().catch(() => undefined);
    throw err;
  }
  return mainThreadTasks(await browser.stopTracing());
}

/** Waits until the dashboard has folded every event up to `seq` (polled: the page's CSP refuses string predicates). */
async function folded(page: Page, seq: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  const dashboard = page.getByTestId('dashboard');
  while (Number(await dashboard.getAttribute('data-summary-seq')) < seq) {
    if (Date.now() > deadline) throw new Error(`the dashboard never folded seq ${seq}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface RunFigures {
  /** The longest task over all the run's updates. */
  worstUpdateMs: number;
  /** The median over updates of each update's longest task. */
  typicalUpdateMs: number;
  steadyMaxMs: number;
  steadyAchieved: number;
}

async function measure(browser: Browser, k: Kept): Promise<RunFigures> {
  restore(k);
  const tilth = await startTilth({ home, port: PORT });
  const writer = new SessionStore(sessionsDir);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await context.newPage();
    page.on('crash', () => process.stderr.write(`the page crashed (${k.size.toLocaleString('en-US')} events)\n`));
    await page.goto(tilth.url);
    await page.getByTestId('sessions-list').waitFor();
    const log = writer.session(k.id).log();
    const more = runEvents({ total: 10_000_000, tasks: 500, seed: 11, firstSeq: log.lastSeq + 1, worktree: '/bench/worktree', branch: 'session/bench' });
    const append = (n: number) => {
      for (let i = 0; i < n; i++) writer.session(k.id).emit(more.next().value!.input);
      return log.lastSeq;
    };
    writer.session(k.id).checkpoint.update(() => ({ status: 'running' }));
    await page.goto(`${tilth.origin}/sessions/${k.id}`);
    await page.locator('[data-testid="dashboard"][data-ready="true"]').waitFor({ timeout: 60_000 });
    await page.getByTestId('timeline').locator('canvas').first().waitFor({ timeout: 60_000 });
    // The resumed run's first events (status, session start), then quiet before measuring.
    await folded(page, append(BURST));
    await sleep(1500);

    const perUpdate: number[] = [];
    for (let u = 0; u < UPDATES; u++) {
      const tasks = await traced(browser, page, async () => {
        await folded(page, append(BURST));
        await sleep(AFTER_MS);
      });
      perUpdate.push(Math.max(0, ...tasks));
    }

    let appended = 0;
    const steady = await traced(browser, page, async () => {
      const started = performance.now();
      const total = STEADY_RATE * SECONDS;
      let last = log.lastSeq;
      await new Promise<void>((resolve) => {
        const timer = setInterval(() => {
          const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * STEADY_RATE));
          if (due > appended) last = append(due - appended);
          appended = due;
          if (appended >= total) {
            clearInterval(timer);
            resolve();
          }
        }, 5);
      });
      appended = Math.round(appended / ((performance.now() - started) / 1000));
      await folded(page, last);
      await sleep(AFTER_MS);
    });
    return { worstUpdateMs: Math.max(...perUpdate), typicalUpdateMs: median(perUpdate), steadyMaxMs: Math.max(0, ...steady), steadyAchieved: appended };
  } finally {
    await context.close();
    writer.close();
    await tilth.stop();
  }
}

interface ModelFigures {
  /** Rows in the timeline's iterations and other_calls series. */
  rows: number;
  rebuildMs: number;
  appendMs: number;
}

/** Median cost of both chart models per 20-event update: built from the whole timeline, and appended to. */
function modelCost(size: number): ModelFigures {
  const summary = emptySummary('models');
  const later: TilthEvent[] = [];
  let clock = Date.UTC(2026, 10, 20, 9);
  let seq = 0;
  for (const { input, advanceMs } of runEvents({ total: size + UPDATES * BURST + 100, tasks: 8, seed: 7, firstSeq: 1, worktree: '/w', branch: 'b' })) {
    clock += advanceMs;
    const event = { ...input, seq: ++seq, ts: new Date(clock).toISOString() } as TilthEvent;
    if (seq <= size) addToSummary(summary, event);
    else later.push(event);
  }
  const lanes = taskLanes([], summary);
  const timeline = timelineModel(summary, lanes, clock);
  const pressure = pressureModel(summary, lanes);
  const rebuild: number[] = [];
  const append: number[] = [];
  for (let u = 0; u < UPDATES; u++) {
    for (const event of later.slice(u * BURST, (u + 1) * BURST)) addToSummary(summary, event);
    let started = performance.now();
    timelineModel(summary, lanes, clock);
    pressureModel(summary, lanes);
    rebuild.push(performance.now() - started);
    started = performance.now();
    extendTimeline(timeline, summary.timeline, clock);
    extendPressure(pressure, summary.timeline, lanes);
    append.push(performance.now() - started);
  }
  return { rows: summary.timeline.iterations.length + summary.timeline.other_calls.length, rebuildMs: median(rebuild), appendMs: median(append) };
}

const models = Object.fromEntries(SIZES.map((size) => [size, modelCost(size)]));
const kept = generate();
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--no-first-run'],
});
const results: Record<number, RunFigures[]> = {};
const loads: number[][] = [];
try {
  for (let run = 0; run < RUNS; run++) {
    for (const size of SIZES) {
      const k = kept.find((x) => x.size === size)!;
      loads.push(os.loadavg());
      const figures = await measure(browser, k);
      (results[size] ??= []).push(figures);
      process.stderr.write(`run ${run + 1}, ${size.toLocaleString('en-US')} events: ${JSON.stringify(figures)}\n`);
    }
  }
} finally {
  await browser.close();
  for (const size of SIZES) restore(kept.find((x) => x.size === size)!);
  if (!values.keep) fs.rmSync(home, { recursive: true, force: true });
}

const stat = (xs: number[]) => ({ min: Math.min(...xs), median: median(xs), max: Math.max(...xs) });
const fmt = (v: { min: number; median: number; max: number }) => `${v.median.toFixed(1)} (${v.min.toFixed(1)}–${v.max.toFixed(1)})`;
const figures = Object.fromEntries(
  SIZES.map((size) => {
    const runs = results[size]!;
    return [
      size,
      {
        worstUpdateMs: stat(runs.map((r) => r.worstUpdateMs)),
        typicalUpdateMs: stat(runs.map((r) => r.typicalUpdateMs)),
        steadyMaxMs: stat(runs.map((r) => r.steadyMaxMs)),
        steadyAchieved: stat(runs.map((r) => r.steadyAchieved)),
      },
    ];
  }),
);
const load = [Math.min(...loads.map((l) => l[0]!)), Math.max(...loads.map((l) => l[0]!))];
console.log(
  `\nbench/live-update: Chromium ${browser.version()}, ${UPDATES} updates of ${BURST} events, then ${SECONDS} s at ${STEADY_RATE}/s; median (min–max) of ${RUNS} runs; 1-minute load ${load.map((l) => l.toFixed(2)).join('–')} on ${os.cpus().length} cores\n`,
);
console.log('events     longest task, worst update ms   longest task, median update ms   longest task at 1,000/s ms   achieved/s');
for (const size of SIZES) {
  const f = figures[size]!;
  console.log(
    `${String(size).padStart(9)}  ${fmt(f.worstUpdateMs).padStart(30)}  ${fmt(f.typicalUpdateMs).padStart(31)}  ${fmt(f.steadyMaxMs).padStart(27)}  ${f.steadyAchieved.median.toFixed(0).padStart(10)}`,
  );
}
console.log('\nChart models alone (this process), on an unthinned timeline of N events, median per 20-event update:');
console.log('   events  timeline rows  built from the whole timeline ms  appended ms');
for (const size of SIZES) {
  const m = models[size]!;
  console.log(`${String(size).padStart(9)}  ${String(m.rows).padStart(13)}  ${m.rebuildMs.toFixed(2).padStart(32)}  ${m.appendMs.toFixed(3).padStart(11)}`);
}
console.log('\nTarget: ≤ 16 ms longest task per 20-event update at 100k and 1M. Tasks from a CDP trace (toplevel RunTask), every length.');
console.log(
  JSON.stringify({
    bench: 'live-update',
    sizes: SIZES,
    runs: RUNS,
    updates: UPDATES,
    burst: BURST,
    rate: STEADY_RATE,
    seconds: SECONDS,
    load: os.loadavg(),
    figures,
    models,
  }),
);
