/**
 * bench/open-session: open a finished 1k / 10k / 100k-event run session's dashboard cold in
 * Chromium and measure
 *   - time from navigation until the dashboard shows its figures (the stat band from the
 *     summary) and the newest event's card, painted;
 *   - the JS heap after load (after a forced GC), DOM nodes and the renderer's RSS;
 *   - long tasks (> 50 ms, PerformanceObserver 'longtask') while the event stream is scrolled up
 *     with the mouse wheel for about 3 s, which pages older history in by REST.
 * Targets at 100k: ≤ 1 s to useful content, ≤ 150 MB heap, no long task while scrolling.
 * The sessions are realistic (bench/session-gen.ts). The Python edition's viewer figures from
 * reference/perf-anchor.md are printed for orientation only: they come from another run, so no
 * ratio is printed (measured in one run, that viewer was about twice as fast as those figures).
 * Run: npx tsx bench/open-session.ts [--sizes 1000,10000,100000] [--runs 3]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type Page } from '@playwright/test';
import { SessionStore } from '../server/store/session-store.ts';
import { startTilth } from '../server/testing/tilth-process.ts';
import { writeRunSession } from './session-gen.ts';

const { values } = parseArgs({ options: { sizes: { type: 'string', default: '1000,10000,100000' }, runs: { type: 'string', default: '3' } } });
const SIZES = values.sizes.split(',').map(Number);
const RUNS = Number(values.runs);
/** Python edition, perf-anchor.md: (b) live viewer to all events painted, (a) static page to load + paint, (b) renderer RSS MB. */
const ANCHOR: Record<number, { live: number; static: number; rss: number }> = {
  1000: { live: 0.9, static: 0.63, rss: 190 },
  10000: { live: 3.51, static: 3.07, rss: 482 },
  100000: { live: 43.4, static: 72.1, rss: 3070 },
};

/** Renderer processes below the browser's pid: the largest one's RSS (MB). */
function rendererRssMb(browserPid: number): number {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(/^PPid:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone
    }
  }
  let best = 0;
  const walk = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      try {
        if (fs.readFileSync(`/proc/${child}/cmdline`, 'utf8').includes('--type=renderer')) {
          const rss = Number(/^VmRSS:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${child}/status`, 'utf8'))?.[1] ?? 0) / 1024;
          best = Math.max(best, rss);
        }
      } catch {
        // gone
      }
      walk(child);
    }
  };
  walk(browserPid);
  return best;
}

/**
 * In the page from its first script: when the figures and the newest card are there (then one
 * more frame, painted), and every long task. A string, not a function: tsx would wrap a
 * function's inner functions in a naming helper the page does not have.
 */
const instrument = (newest: number) => `
  window.__long = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__long.push({ start: e.startTime, duration: e.duration });
  }).observe({ type: 'longtask', buffered: true });
  const check = () => {
    const ready = document.querySelector('[data-testid="dashboard"][data-ready="true"] [data-testid="stat-band"]') && document.querySelector('[data-testid="event-card"][data-seq="${newest}"]');
    if (ready) requestAnimationFrame(() => setTimeout(() => (window.__useful = performance.now()), 0));
    else requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
`;

async function scrollUp(page: Page): Promise<{ longTasks: number; maxMs: number; loadedBefore: number; loadedAfter: number }> {
  const list = page.getByTestId('event-scroll');
  const loadedBefore = Number(await page.getByTestId('event-stream-count').getAttribute('data-loaded'));
  await list.scrollIntoViewIfNeeded();
  const box = (await list.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  const start = await page.evaluate(() => performance.now());
  // About 3 s of brisk wheel scrolling: a few thousand px a second, fast enough to page history in.
  for (let i = 0; i < 100; i++) {
    await page.mouse.wheel(0, -1200);
    await page.waitForTimeout(30);
  }
  await page.waitForTimeout(500);
  const tasks = await page.evaluate(
    (from) => (window as unknown as { __long: { start: number; duration: number }[] }).__long.filter((t) => t.start >= from),
    start,
  );
  const loadedAfter = Number(await page.getByTestId('event-stream-count').getAttribute('data-loaded'));
  return { longTasks: tasks.length, maxMs: Math.max(0, ...tasks.map((t) => Math.round(t.duration))), loadedBefore, loadedAfter };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'tilth-bench-open-'));
const writer = new SessionStore(path.join(home, 'sessions'));
const sessions = SIZES.map((size, i) => {
  const started = performance.now();
  const s = writeRunSession(writer, size, { tasks: 6 + Math.min(i, 2), seed: i + 1, title: `bench ${size}` });
  const mb = fs.statSync(path.join(writer.dir(s.id), 'events.jsonl')).size / 1e6;
  console.log(
    `generated ${size.toLocaleString('en-US')} events (${mb.toFixed(1)} MB, ${s.tasks} tasks) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  return { ...s, size, mb };
});
writer.close();

const tilth = await startTilth({ home });
const server = await chromium.launchServer({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-dev-shm-usage',
    '--disable-background-networking',
    '--disable-component-update',
    '--no-first-run',
    '--disable-sync',
  ],
});
const browser = await chromium.connect(server.wsEndpoint());
const browserPid = server.process().pid!;

console.log(`\nbench/open-session: Chromium ${browser.version()}, 1280×800, dashboard opened cold (fresh context), median of ${RUNS}\n`);
console.log(
  'events   log MB  to useful content (min–max)   JS heap MB  DOM nodes  renderer RSS MB  scrolling: long tasks (max ms), events loaded   Python viewer: all painted / RSS',
);
try {
  for (const s of sessions) {
    const useful: number[] = [];
    const heaps: number[] = [];
    const nodes: number[] = [];
    const rss: number[] = [];
    const scrolls: Awaited<ReturnType<typeof scrollUp>>[] = [];
    for (let run = 0; run < RUNS; run++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      await page.goto(tilth.url);
      await page.getByTestId('sessions-list').waitFor();
      await page.addInitScript({ content: instrument(s.size) });
      await page.goto(`${tilth.origin}/sessions/${s.id}`);
      await page.waitForFunction(() => (window as unknown as { __useful?: number }).__useful !== undefined, undefined, { timeout: 60_000 });
      useful.push(await page.evaluate(() => (window as unknown as { __useful: number }).__useful));
      await page.waitForTimeout(300);
      const cdp = await context.newCDPSession(page);
      await cdp.send('HeapProfiler.collectGarbage');
      heaps.push(((await cdp.send('Runtime.getHeapUsage')) as { usedSize: number }).usedSize / 1e6);
      nodes.push(await page.evaluate(() => document.getElementsByTagName('*').length));
      rss.push(rendererRssMb(browserPid));
      scrolls.push(await scrollUp(page));
      await context.close();
    }
    const a = ANCHOR[s.size];
    const t = median(useful) / 1000;
    const worst = scrolls.reduce((m, x) => Math.max(m, x.maxMs), 0);
    const long = scrolls.map((x) => x.longTasks).join('/');
    const loaded = scrolls.map((x) => `${x.loadedBefore}→${x.loadedAfter}`)[0];
    console.log(
      [
        String(s.size).padStart(6),
        s.mb.toFixed(1).padStart(7),
        `${t.toFixed(2)} s (${(Math.min(...useful) / 1000).toFixed(2)}–${(Math.max(...useful) / 1000).toFixed(2)})`.padStart(27),
        median(heaps).toFixed(1).padStart(11),
        String(median(nodes)).padStart(10),
        median(rss).toFixed(0).padStart(16),
        `${long} (${worst}), ${loaded}`.padStart(45),
        a ? `   ${a.live} s / ${a.rss} MB (perf-anchor.md, another run: no ratio)` : '',
      ].join(' '),
    );
  }
  console.log('\nTargets at 100k: ≤ 1 s to useful content, ≤ 150 MB JS heap, 0 long tasks while scrolling.');
  console.log('Python viewer = reference/perf-anchor.md (b) "all events painted" and renderer RSS; its static page (a) took 0.63 / 3.07 / 72.1 s.');
} finally {
  await browser.close();
  await server.close();
  await tilth.stop();
  fs.rmSync(home, { recursive: true, force: true });
}
