/**
 * bench/queue: what the durable queue (issue 18) adds to a run, against local mode in the same
 * run: a real redis-server, `tilth serve` with TILTH_QUEUE and one `tilth worker`, vs `tilth
 * serve` alone; the same scripted model (answered by where each conversation is) and the
 * JavaScript example.
 *   - Run → first model call: from POST /run until the worker model's first request arrives;
 *   - a 5-task run to all_done (the demo-run's tasks): wall time.
 * Median and range over --runs, the modes alternating; the last line is the figures as JSON.
 * Run: npx tsx bench/queue.ts [--runs 3]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { makeExampleRepo } from '../server/demo/example-repo.ts';
import type { ChatRequest } from '../server/scripted-model/wire.ts';
import { startScriptedModel } from '../server/scripted-model/model-server.ts';
import { SessionStore } from '../server/store/session-store.ts';
import { startRedis } from '../server/testing/redis.ts';
import { caseTurn, makePreparedSession, noLearning, verdictTurn, writeTurn } from '../server/testing/run-fixtures.ts';
import { FIVE_FNS, FIVE_TASKS } from './run-harness.ts';
import { startTilth, startTilthWorker, type TilthProcess, type TilthWorkerProcess } from '../server/testing/tilth-process.ts';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' } } });
const RUNS = Number(values.runs);
const WORKER = 'worker-model';
const EVAL = 'eval-model';
const FNS = FIVE_FNS;
const tasks = FIVE_TASKS;

const fake = await startScriptedModel();
fake.respondWith(WORKER, (request: ChatRequest) => {
  if (!request.tools || request.tools.length === 0) return noLearning;
  const task = Number(/\*\*ID:\*\* T-00(\d)/.exec(JSON.stringify(request.messages))?.[1] ?? '1');
  const [fn, body] = FNS[task - 1]!;
  const wrote = request.messages.some((m) => (m as { role?: string }).role === 'tool');
  return wrote ? caseTurn(`Added ${fn}.`) : writeTurn(`src/${fn}.js`, `export function ${fn}(n) {\n  return ${body};\n}\n`);
});
fake.respondWith(EVAL, () => verdictTurn('accept'));
const redis = await startRedis();
const repo = await makeExampleRepo('js-todo');
const base = { TILTH_BASE_URL: fake.baseURL, TILTH_API_KEY: 'k', TILTH_WORKER_MODEL: WORKER, TILTH_EVALUATOR_MODEL: EVAL, TILTH_MUTATION_SECONDS: '0' };

interface Mode {
  name: 'local' | 'queue';
  home: string;
  server: TilthProcess;
  worker: TilthWorkerProcess | null;
}

async function startMode(name: Mode['name']): Promise<Mode> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), `tilth-bench-queue-${name}-`));
  const env = { ...base, TILTH_HOME: home, ...(name === 'queue' ? { TILTH_QUEUE: redis.url } : {}) };
  const server = await startTilth({ home, env });
  const worker = name === 'queue' ? await startTilthWorker(path.join(home, 'sessions'), env) : null;
  return { name, home, server, worker };
}

async function oneRun(mode: Mode): Promise<{ firstCallMs: number; runMs: number }> {
  const store = new SessionStore(path.join(mode.home, 'sessions'));
  const id = await makePreparedSession(store, repo.dir, 'node', tasks);
  store.close();
  const before = fake.requests.length;
  const started = performance.now();
  const { status } = await mode.server.api('POST', `/api/sessions/${id}/run`, {});
  if (status !== 202) throw new Error(`run: ${status}`);
  let firstCallMs: number | null = null;
  const checkpoint = path.join(mode.home, 'sessions', id, 'checkpoint.json');
  for (;;) {
    if (firstCallMs === null && fake.requests.slice(before).some((r) => r.model === WORKER)) firstCallMs = performance.now() - started;
    if (firstCallMs !== null && (JSON.parse(fs.readFileSync(checkpoint, 'utf8')) as { status: string }).status === 'all_done') break;
    if (performance.now() - started > 120_000) throw new Error(`${mode.name}: no all_done in 120 s`);
    await new Promise((resolve) => setTimeout(resolve, firstCallMs === null ? 1 : 20));
  }
  return { firstCallMs, runMs: performance.now() - started };
}

const modes = [await startMode('local'), await startMode('queue')];
const figures: Record<string, { firstCallMs: number[]; runMs: number[] }> = { local: { firstCallMs: [], runMs: [] }, queue: { firstCallMs: [], runMs: [] } };
try {
  // One warm-up run each (module loading, JIT): a server pays it once.
  for (const mode of modes) await oneRun(mode);
  for (let i = 0; i < RUNS; i++) {
    for (const mode of modes) {
      const r = await oneRun(mode);
      figures[mode.name]!.firstCallMs.push(r.firstCallMs);
      figures[mode.name]!.runMs.push(r.runMs);
    }
  }
} finally {
  for (const mode of modes) {
    if (mode.worker) {
      process.kill(-mode.worker.child.pid!, 'SIGTERM');
      await mode.worker.exited;
    }
    await mode.server.stop();
    fs.rmSync(mode.home, { recursive: true, force: true });
  }
  await redis.stop();
  await fake.close();
  await repo.cleanup();
}

const stat = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)]!, min: sorted[0]!, max: sorted.at(-1)! };
};
const out = Object.fromEntries(Object.entries(figures).map(([mode, f]) => [mode, { firstCallMs: stat(f.firstCallMs), runMs: stat(f.runMs) }]));
const fmt = (s: { median: number; min: number; max: number }) => `${s.median.toFixed(0)} ms (${s.min.toFixed(0)}–${s.max.toFixed(0)})`;
console.log(
  `\nbench/queue: ${RUNS} runs per mode, alternating; load ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} on ${os.cpus().length} cores\n`,
);
console.log(`${'figure'.padEnd(34)} ${'local'.padEnd(22)} ${'queue'.padEnd(22)} queue / local`);
for (const key of ['firstCallMs', 'runMs'] as const) {
  const [l, q] = [out.local![key], out.queue![key]];
  const label = key === 'firstCallMs' ? 'Run → first model call' : '5-task run to all_done';
  console.log(`${label.padEnd(34)} ${fmt(l).padEnd(22)} ${fmt(q).padEnd(22)} ${(q.median / l.median).toFixed(2)}×`);
}
console.log(JSON.stringify({ bench: 'queue', runs: RUNS, load: os.loadavg(), figures: out }));
