/**
 * bench/endless-provider: `tilth serve` against a provider whose answers never end (issue 27): the
 * scripted model's endless model list for the worker role, and its `endless` fault on the
 * interview's first model call. Three asks, one after another, each timed until Tilth answers:
 *   - the settings page's context window (GET /api/config/context-windows?role=worker);
 *   - Test connection (POST /api/config/test);
 *   - creating a session, until its interview fails on the endless completion.
 * For each: the time to refuse, what the provider wrote before Tilth closed the connection, and
 * the slowest /api/health answer meanwhile; then the server's resident memory at start and its
 * peak (VmHWM). The scripted model stops an endless body at 1 GiB anyway, and the bench kills the
 * server if it passes --cap-mib (default 4096), so a build without bounds is measured without
 * taking the machine. The last line is the figures as JSON.
 * Run: npx tsx bench/endless-provider.ts [--cap-mib 4096]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { makeExampleRepo } from '../server/demo/example-repo.ts';
import { startScriptedModel, type ScriptedModel } from '../server/scripted-model/model-server.ts';
import { startTilth, type TilthProcess } from '../server/testing/tilth-process.ts';

const { values } = parseArgs({ options: { 'cap-mib': { type: 'string', default: '4096' } } });
const CAP_MIB = Number(values['cap-mib']);
const PREP = 'prep-model';
const MIB = 1024 * 1024;

const flooding = await startScriptedModel({ listModels: 'endless' });
const chatty = await startScriptedModel();
chatty.enqueue(PREP, { fault: 'endless' });
const repo = await makeExampleRepo('js-todo');
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'tilth-bench-endless-'));
const server = await startTilth({
  home,
  env: {
    TILTH_BASE_URL: flooding.baseURL,
    TILTH_API_KEY: 'sk-bench-0123456789',
    TILTH_WORKER_MODEL: 'worker-model',
    TILTH_PREP_BASE_URL: chatty.baseURL,
    TILTH_PREP_MODEL: PREP,
  },
});

function memory(pid: number): { rssMiB: number; peakMiB: number } | null {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
    return { rssMiB: kb('VmRSS') / 1024, peakMiB: kb('VmHWM') / 1024 };
  } catch {
    return null; // gone
  }
}

let capped = false;
let lastPeakMiB = 0;
const guard = setInterval(() => {
  const m = memory(server.pgid);
  if (m) lastPeakMiB = m.peakMiB;
  if (m && m.rssMiB > CAP_MIB && !capped) {
    capped = true;
    void server.kill();
  }
}, 100);

type Ask = { name: string; ms: number | null; providerMiB: number; slowestHealthMs: number; answer: string };

/** `work` until it answers (or 120 s, or the server is killed at the cap), /api/health asked every 100 ms meanwhile. */
async function ask(name: string, fake: ScriptedModel, work: (tilth: TilthProcess) => Promise<string>): Promise<Ask> {
  const before = fake.endless.written;
  let slowest = 0;
  let stop = false;
  const watcher = (async () => {
    while (!stop && !capped) {
      const asked = Date.now();
      await server.api('GET', '/api/health').catch(() => undefined);
      slowest = Math.max(slowest, Date.now() - asked);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const started = Date.now();
  let ms: number | null = null;
  let answer: string;
  try {
    answer = await Promise.race([
      work(server),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no answer within 120 s')), 120_000)),
      server.exited.then(() => Promise.reject(new Error(`the server was killed at ${CAP_MIB} MiB resident`))),
    ]);
    ms = Date.now() - started;
  } catch (err) {
    answer = (err as Error).message;
  }
  stop = true;
  await watcher;
  // Give the provider's side a moment to see the connection close.
  for (let waited = 0; fake.endless.open > 0 && waited < 5_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
  return { name, ms, providerMiB: (fake.endless.written - before) / MIB, slowestHealthMs: slowest, answer };
}

await server.api('GET', '/api/health');
const atStart = memory(server.pgid);
const asks: Ask[] = [];
asks.push(
  await ask('context window (discovery)', flooding, async (tilth) => {
    const { body } = await tilth.api('GET', '/api/config/context-windows?role=worker');
    return String((body as { roles: { worker?: { discovered: { note: string | null } } } }).roles.worker?.discovered.note);
  }),
);
if (!capped) {
  asks.push(
    await ask('Test connection', flooding, async (tilth) => {
      const { body } = await tilth.api('POST', '/api/config/test', { role: 'worker' });
      return String((body as { detail: string }).detail);
    }),
  );
}
if (!capped) {
  asks.push(
    await ask('interview model call', chatty, async (tilth) => {
      const created = await tilth.api('POST', '/api/sessions', { workspace: repo.dir, brief: 'Add due dates to todos' });
      const id = (created.body as { session?: { id: string } }).session?.id;
      if (!id) return JSON.stringify(created.body);
      for (;;) {
        const { body } = await tilth.api('GET', `/api/sessions/${id}`);
        const detail = body as { session: { status: string }; last_error: string | null };
        if (detail.session.status === 'failed') return String(detail.last_error);
        await new Promise((r) => setTimeout(r, 50));
      }
    }),
  );
}
clearInterval(guard);
const end = memory(server.pgid);
const peakMiB = end?.peakMiB ?? lastPeakMiB;
await server.stop();
await flooding.close();
await chatty.close();
await repo.cleanup();
fs.rmSync(home, { recursive: true, force: true });

console.log(
  `\nbench/endless-provider: load ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} on ${os.cpus().length} cores\n`,
);
for (const a of asks) {
  const time = a.ms === null ? 'no answer' : `${(a.ms / 1000).toFixed(2)} s`;
  console.log(`${a.name.padEnd(28)} ${time.padEnd(10)} provider wrote ${a.providerMiB.toFixed(1)} MiB, slowest /api/health ${a.slowestHealthMs} ms`);
  console.log(`${''.padEnd(28)} ${a.answer.slice(0, 160)}`);
}
console.log(
  `server resident: ${atStart?.rssMiB.toFixed(0)} MiB at start, peak ${peakMiB.toFixed(0)} MiB${capped ? ` (killed at the ${CAP_MIB} MiB cap)` : ''}`,
);
console.log(JSON.stringify({ bench: 'endless-provider', load: os.loadavg(), capMiB: CAP_MIB, capped, startMiB: atStart?.rssMiB ?? null, peakMiB, asks }));
