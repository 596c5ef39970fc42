/**
 * bench/session-open: open a 1k / 10k / 100k-event session page in Chromium and time it until
 * the newest event is painted, then time a live update (20 events appended by another process →
 * painted). Prints the Python edition's live viewer (reference/perf-anchor.md, same machine kind)
 * beside ours. Run: npx tsx bench/session-open.ts [--sizes 1000,10000,100000]
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { chromium } from '@playwright/test';
import type { EventInput } from '../shared/events.ts';
import { SessionStore } from '../server/store/session-store.ts';
import { startTilth } from '../server/testing/tilth-process.ts';

const { values } = parseArgs({ options: { sizes: { type: 'string', default: '1000,10000,100000' } } });
const SIZES = values.sizes.split(',').map(Number);
/** Python live viewer, to all events painted / live 20-event update painted (perf-anchor.md). */
const ANCHOR: Record<number, [number, number]> = { 1000: [0.9, 0.48], 10_000: [3.51, 0.59], 100_000: [43.4, 2.87] };

const toolResult = (i: number): EventInput => ({ type: 'tool_result', data: { task_id: 'T-001', trace_id: 'a'.repeat(32), span_id: 'b'.repeat(16), iter: 1, tool: 'bash', result_preview: `ran step ${i}: ${'output '.repeat(40)}`, result_chars: 300 } });

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--no-first-run'],
});
console.log('bench/session-open: Chromium, session page opened cold, median of 3\n');
console.log('events   log MB  open→newest painted  live 20 → painted  JS heap MB  DOM nodes   Python viewer (open / live)');
try {
  for (const size of SIZES) {
    const tilth = await startTilth();
    const writer = new SessionStore(tilth.sessionsDir);
    const id = writer.create({ source: '/bench', brief: 'bench', title: `bench ${size}`, baseBranch: 'main', baseSha: 'x', status: 'running' }).session_id;
    for (let i = 0; i < size; i++) writer.emit(id, toolResult(i));
    const logMb = fs.statSync(writer.file(id, 'events.jsonl')).size / 1e6;
    const opens: number[] = [];
    const lives: number[] = [];
    let heap = 0;
    let nodes = 0;
    for (let run = 0; run < 3; run++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(tilth.url);
      await page.getByTestId('sessions-list').waitFor();
      let last = writer.log(id).lastSeq;
      const started = performance.now();
      await page.goto(`${tilth.origin}/sessions/${id}`);
      await page.locator(`[data-testid="event-row"][data-seq="${last}"]`).waitFor();
      await page.evaluate(() => new Promise(requestAnimationFrame));
      opens.push(performance.now() - started);

      const liveStart = performance.now();
      for (let i = 0; i < 20; i++) writer.emit(id, toolResult(i));
      last = writer.log(id).lastSeq;
      await page.locator(`[data-testid="event-row"][data-seq="${last}"]`).waitFor();
      await page.evaluate(() => new Promise(requestAnimationFrame));
      lives.push(performance.now() - liveStart);

      const cdp = await context.newCDPSession(page);
      await cdp.send('HeapProfiler.collectGarbage');
      heap = ((await cdp.send('Runtime.getHeapUsage')) as { usedSize: number }).usedSize / 1e6;
      nodes = await page.evaluate(() => document.getElementsByTagName('*').length);
      await context.close();
    }
    writer.close();
    await tilth.stop();
    fs.rmSync(tilth.home, { recursive: true, force: true });
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const [pyOpen, pyLive] = ANCHOR[size] ?? [NaN, NaN];
    const open = median(opens) / 1000;
    const live = median(lives) / 1000;
    console.log(
      `${String(size).padStart(6)}  ${logMb.toFixed(1).padStart(7)}  ${`${open.toFixed(2)} s`.padStart(19)}  ${`${live.toFixed(2)} s`.padStart(17)}  ${heap.toFixed(1).padStart(10)}  ${String(nodes).padStart(9)}   ${pyOpen} s / ${pyLive} s  (${(pyOpen / open).toFixed(0)}× / ${(pyLive / live).toFixed(0)}× faster)`,
    );
  }
} finally {
  await browser.close();
}
