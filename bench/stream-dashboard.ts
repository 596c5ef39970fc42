/**
 * bench/stream-dashboard: append → rendered latency with the dashboard open in Chromium. The
 * server (its own process, bench/stream-server.ts --web) appends a realistic run at a steady rate;
 * the page records, whenever a newer event's card appears in the list, the moment the next frame
 * was painted (rAF → setTimeout 0). An event's latency is that moment minus its `ts` (stamped when
 * it was appended), on one machine clock. Target: p99 ≤ 100 ms at 1,000 events/s.
 * Run: npx tsx bench/stream-dashboard.ts [--rates 250,1000,2000] [--seconds 5]
 */
import { spawn } from 'node:child_process';
import readline from 'node:readline';
import { parseArgs } from 'node:util';
import { chromium } from '@playwright/test';
import { EventsPageSchema } from '../shared/api.ts';

const { values } = parseArgs({ options: { rates: { type: 'string', default: '250,1000,2000' }, seconds: { type: 'string', default: '5' } } });
const RATES = values.rates.split(',').map(Number);
const SECONDS = Number(values.seconds);

const child = spawn(process.execPath, ['--import', 'tsx', 'bench/stream-server.ts', '--web'], { stdio: ['pipe', 'pipe', 'inherit'] });
const lines = readline.createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
const nextLine = async () => JSON.parse(String((await lines.next()).value)) as Record<string, unknown>;
const { port, token, sessionId } = (await nextLine()) as { port: number; token: string; sessionId: string };
const origin = `http://127.0.0.1:${port}`;

/** Each event's append time, from the server's log (paged). */
async function appendTimes(from: number, to: number): Promise<Map<number, number>> {
  const times = new Map<number, number>();
  for (let after = from - 1; after < to; ) {
    const res = await fetch(`${origin}/api/sessions/${sessionId}/events?after=${after}&limit=5000`, { headers: { authorization: `Bearer ${token}` } });
    const page = EventsPageSchema.parse(await res.json());
    for (const e of page.events) if (e.seq <= to) times.set(e.seq, Date.parse(e.ts));
    if (page.events.length === 0) break;
    after = page.events.at(-1)!.seq;
  }
  return times;
}

// The newest card in the list (not just the list's state): after every change to the list's
// cards, the highest seq on screen, stamped when the next frame has painted. A string, so tsx does
// not wrap its functions in a helper the page lacks.
const WATCH = `(() => {
  window.__painted = [];
  const list = document.querySelector('[data-testid="event-scroll"]');
  let shown = 0;
  new MutationObserver(() => {
    let top = shown;
    for (const card of list.querySelectorAll('[data-testid="event-card"]')) top = Math.max(top, Number(card.getAttribute('data-seq')));
    if (top === shown) return;
    shown = top;
    requestAnimationFrame(() => setTimeout(() => window.__painted.push([top, Date.now()]), 0));
  }).observe(list, { childList: true, subtree: true });
})()`;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--no-first-run'],
});
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`${origin}/#token=${token}`);
  await page.getByTestId('sessions-list').waitFor();
  await page.goto(`${origin}/sessions/${sessionId}`);
  await page.getByTestId('event-stream-count').waitFor();
  await page.evaluate(WATCH);

  console.log(`bench/stream-dashboard: Chromium ${browser.version()}, dashboard following a realistic run, ${SECONDS} s per rate\n`);
  console.log('rate/s  achieved/s  p50 ms  p99 ms  max ms  frames painted  events rendered');
  for (const rate of RATES) {
    await page.evaluate('window.__painted.length = 0');
    const started = performance.now();
    child.stdin!.write(`${JSON.stringify({ rate, seconds: SECONDS })}\n`);
    const { firstSeq, lastSeq, appended } = (await nextLine()) as { firstSeq: number; lastSeq: number; appended: number };
    const elapsed = (performance.now() - started) / 1000;
    // Polled from here: the page's CSP (no 'unsafe-eval') refuses waitForFunction's string predicate.
    const deadline = Date.now() + 30_000;
    while (!(await page.evaluate(`window.__painted.some(([seq]) => seq >= ${lastSeq})`))) {
      if (Date.now() > deadline) {
        const state = await page.evaluate(
          `(() => { const el = document.querySelector('[data-testid="event-scroll"]'); const c = document.querySelector('[data-testid="event-stream-count"]'); return { top: el.scrollTop, height: el.scrollHeight, client: el.clientHeight, following: el.dataset.following, lastSeq: c.dataset.lastSeq, cards: [...el.querySelectorAll('[data-testid="event-card"]')].map((x) => x.dataset.seq).join(',') }; })()`,
        );
        throw new Error(`the dashboard never showed seq ${lastSeq}: ${JSON.stringify(state)}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    const painted = (await page.evaluate('window.__painted')) as [number, number][];
    const times = await appendTimes(firstSeq, lastSeq);
    const latencies: number[] = [];
    for (let seq = firstSeq; seq <= lastSeq; seq++) {
      const at = times.get(seq);
      const shown = painted.find(([s]) => s >= seq);
      if (at !== undefined && shown !== undefined) latencies.push(shown[1] - at);
    }
    latencies.sort((a, b) => a - b);
    console.log(
      `${String(rate).padStart(6)}  ${(appended / elapsed).toFixed(0).padStart(10)}  ${String(pct(latencies, 50)).padStart(6)}  ${String(pct(latencies, 99)).padStart(6)}  ${String(latencies.at(-1)).padStart(6)}  ${String(painted.length).padStart(14)}  ${String(latencies.length).padStart(15)}`,
    );
  }
  console.log('\nTarget: p99 ≤ 100 ms at 1,000 events/s. The Python viewer polls once a second; its 20-event update took 0.48–2.87 s (perf-anchor.md).');
} finally {
  await browser.close();
  child.stdin!.end();
  await new Promise((r) => child.once('exit', r));
}
