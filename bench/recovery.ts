/**
 * bench/recovery (issue 32): how long a user waits after `tilth serve` is killed mid-run and
 * started again. A five-task run on the JavaScript example is going (the scripted model answers
 * slowly, so the kill lands mid-run), its dashboard open in Chromium and a WebSocket client
 * subscribed; the server's whole process group gets SIGKILL and the same command starts it again
 * on the same port, home and token. Measured from the restart's spawn:
 *   - health: its first authenticated `/api/health` 200;
 *   - ws: the first new event (the boot recovery's) at a WebSocket client that retries every 10 ms;
 *   - page: the open dashboard showing that event, through its own stream client's reconnect.
 * `page − health` is what the page's reconnect adds (target ≤ 100 ms: issue 32 item 2).
 * Alternates the sources (tsx, what a clone runs) and the build (dist/, `npm run build` first).
 * Run: npx tsx bench/recovery.ts [--runs 3] [--layouts source,built] [--port 5370]
 * The last line is the figures as JSON.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from '@playwright/test';
import { makeExampleRepo } from '../server/demo/example-repo.ts';
import type { ChatRequest } from '../server/scripted-model/wire.ts';
import { startScriptedModel, type ScriptedModel } from '../server/scripted-model/model-server.ts';
import { SessionStore } from '../server/store/session-store.ts';
import { caseTurn, makePreparedSession, nodeTest, noLearning, verdictTurn, writeTurn } from '../server/testing/run-fixtures.ts';
import { startTilth, type TilthProcess } from '../server/testing/tilth-process.ts';
import { StreamTestClient } from '../server/testing/ws-test-client.ts';
import { EVAL, FIVE_FNS, WORKER } from './run-harness.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    layouts: { type: 'string', default: 'source,built' },
    port: { type: 'string', default: '5370' },
  },
});
const RUNS = Number(values.runs);
const LAYOUTS = values.layouts.split(',') as ('source' | 'built')[];
const PORT = Number(values.port);
const TOKEN = 'bench-recovery-token-0123456789';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Slow replies: the run is mid-task when the kill comes. */
const REPLY_MS = 400;

/**
 * The scripted model, answering by where each conversation is (as the queue's tests do), so every
 * run and every resumed task gets its replies: write the task's function, then present the case.
 */
async function startModel(): Promise<ScriptedModel> {
  const model = await startScriptedModel();
  model.respondWith(WORKER, (request: ChatRequest) => {
    if (!request.tools || request.tools.length === 0) return noLearning;
    const task = /\*\*ID:\*\* (T-\d+)/.exec(JSON.stringify(request.messages))?.[1] ?? 'T-001';
    const [fn, body] = FIVE_FNS[Number(task.slice(2)) - 1]!;
    const toolResults = request.messages.filter((m) => (m as { role?: string }).role === 'tool').length;
    const turn = toolResults === 0 ? writeTurn(`src/${fn}.js`, `export function ${fn}(n) {\n  return ${body};\n}\n`) : caseTurn(`Added ${fn}.`);
    return { ...turn, delay_ms: REPLY_MS };
  });
  model.respondWith(EVAL, () => ({ ...verdictTurn('accept'), delay_ms: REPLY_MS }));
  return model;
}

const since = (t0: number) => Math.round(performance.now() - t0);

async function firstHealth(t0: number): Promise<number> {
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${PORT}/api/health`, { headers: { authorization: `Bearer ${TOKEN}` } });
      if (res.status === 200) return since(t0);
    } catch {
      // not listening yet
    }
    if (performance.now() - t0 > 60_000) throw new Error('no health within 60 s');
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A script's client: tries every 10 ms, subscribes from where it was, waits for the next event. */
async function firstEventOverWs(t0: number, id: string, afterSeq: number): Promise<number> {
  for (;;) {
    const client = await StreamTestClient.open(PORT, { authorization: `Bearer ${TOKEN}` }).catch(() => null);
    if (client) {
      client.send({ type: 'subscribe', sessionId: id, afterSeq });
      await client.next((f) => f.type === 'event' && f.sessionId === id, 60_000);
      client.close();
      return since(t0);
    }
    if (performance.now() - t0 > 60_000) throw new Error('no stream within 60 s');
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function once(layout: 'source' | 'built', baseURL: string): Promise<{ health: number; ws: number; page: number }> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'tilth-bench-recovery-'));
  const repo = await makeExampleRepo('js-todo');
  const store = new SessionStore(path.join(home, 'sessions'));
  const tasks = FIVE_FNS.map(([fn, , input, expected], i) => ({
    id: `T-00${i + 1}`,
    title: fn,
    tests: { [`tests/t00${i + 1}_${fn}.test.js`]: nodeTest(fn, fn, input, expected) },
  }));
  const id = await makePreparedSession(store, repo.dir, 'node', tasks);
  store.close();
  const env = {
    TILTH_TOKEN: TOKEN,
    TILTH_BASE_URL: baseURL,
    TILTH_API_KEY: 'k',
    TILTH_WORKER_MODEL: WORKER,
    TILTH_EVALUATOR_MODEL: EVAL,
    TILTH_MUTATION_SECONDS: '0',
  };
  const start = () => startTilth({ port: PORT, home, env, built: layout === 'built' });
  let tilth: TilthProcess = await start();
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage();
    await page.goto(`${tilth.origin}/sessions/${id}#token=${TOKEN}`);
    const run = await tilth.api('POST', `/api/sessions/${id}/run`, {});
    if (run.status !== 202) throw new Error(`run answered ${run.status}: ${JSON.stringify(run.body)}`);
    const count = page.getByTestId('event-stream-count');
    // Mid-run: the first task is done and the second under way.
    const log = path.join(tilth.sessionsDir, id, 'events.jsonl');
    while (!fs.readFileSync(log, 'utf8').includes('"task_done"')) await new Promise((r) => setTimeout(r, 20));
    await page.waitForFunction(() => Number(document.querySelector('[data-testid="event-stream-count"]')?.getAttribute('data-last-seq') ?? 0) > 0);
    await tilth.kill();
    const lastSeq = Number(await count.getAttribute('data-last-seq'));

    const t0 = performance.now();
    const restarted = start();
    const pageSeen = page
      .waitForFunction((seq) => Number(document.querySelector('[data-testid="event-stream-count"]')?.getAttribute('data-last-seq') ?? 0) > seq, lastSeq, {
        timeout: 60_000,
        polling: 5,
      })
      .then(() => since(t0));
    const [health, ws, seen] = await Promise.all([firstHealth(t0), firstEventOverWs(t0, id, lastSeq), pageSeen]);
    tilth = await restarted;
    return { health, ws, page: seen };
  } finally {
    await browser.close();
    await tilth.stop();
    await repo.cleanup();
    fs.rmSync(home, { recursive: true, force: true });
  }
}

if (LAYOUTS.includes('built') && !fs.existsSync('dist/server/cli.js')) throw new Error('no build: run `npm run build` first');
const model = await startModel();
console.log(`bench/recovery: ${RUNS} × kill -9 mid-run → restart, layouts ${LAYOUTS.join(', ')} alternating (load ${os.loadavg()[0]!.toFixed(2)})`);
const results: Record<string, { health: number; ws: number; page: number }[]> = Object.fromEntries(LAYOUTS.map((l) => [l, []]));
try {
  for (let i = 0; i < RUNS; i++) {
    for (const layout of LAYOUTS) {
      const r = await once(layout, model.baseURL);
      results[layout]!.push(r);
      console.log(
        `  ${layout} run ${i + 1}: health ${r.health} ms · first event over ws ${r.ws} ms · on the page ${r.page} ms (page − health ${r.page - r.health} ms)`,
      );
    }
  }
} finally {
  await model.close();
}
const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0]!, median: s[Math.floor(s.length / 2)]!, max: s.at(-1)! };
};
const figures = Object.fromEntries(
  Object.entries(results).map(([layout, rs]) => [
    layout,
    {
      health_ms: stats(rs.map((r) => r.health)),
      ws_first_event_ms: stats(rs.map((r) => r.ws)),
      page_first_event_ms: stats(rs.map((r) => r.page)),
      page_after_health_ms: stats(rs.map((r) => r.page - r.health)),
    },
  ]),
);
for (const [layout, f] of Object.entries(figures)) {
  console.log(
    `${layout}: health ${f.health_ms.median} ms, page ${f.page_first_event_ms.median} ms, page after health ${f.page_after_health_ms.median} ms (medians; min/max in the JSON)`,
  );
}
console.log(JSON.stringify({ bench: 'recovery', load: os.loadavg()[0], runs: RUNS, figures }));
