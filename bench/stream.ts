/**
 * bench/stream: append → client-receipt latency and sustained throughput of /api/stream, with 5
 * real WebSocket subscribers in this process and the server in a child process.
 * Target: p99 ≤ 50 ms at 2,000 events/s, nothing lost or duplicated.
 *
 * Latency is receipt time minus the event's `ts` (stamped when it is appended), on one machine
 * clock. Run: npx tsx bench/stream.ts [--subscribers 5] [--seconds 5]
 */
import { spawn } from 'node:child_process';
import readline from 'node:readline';
import { parseArgs } from 'node:util';
import { WebSocket } from 'ws';

const { values } = parseArgs({ options: { subscribers: { type: 'string', default: '5' }, seconds: { type: 'string', default: '5' } } });
const SUBSCRIBERS = Number(values.subscribers);
const SECONDS = Number(values.seconds);
const RATES = [2_000, 5_000, 10_000];

const child = spawn(process.execPath, ['--import', 'tsx', 'bench/stream-server.ts'], { stdio: ['pipe', 'pipe', 'inherit'], detached: true });
const lines = readline.createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
const nextLine = async () => JSON.parse(String((await lines.next()).value)) as Record<string, unknown>;
const { port, token, sessionId } = (await nextLine()) as { port: number; token: string; sessionId: string };

interface Sub {
  lastSeq: number;
  received: number;
  duplicates: number;
  gaps: number;
  latencies: number[];
  ws: WebSocket;
}

const subs: Sub[] = await Promise.all(
  Array.from(
    { length: SUBSCRIBERS },
    () =>
      new Promise<Sub>((resolve) => {
        const ws = new WebSocket(`ws://127.0.0.1:${port}/api/stream`, { headers: { authorization: `Bearer ${token}` } });
        const sub: Sub = { lastSeq: 0, received: 0, duplicates: 0, gaps: 0, latencies: [], ws };
        ws.on('message', (data) => {
          const frame = JSON.parse(String(data)) as { type: string; event?: { seq: number; ts: string } };
          if (frame.type === 'caught-up') resolve(sub);
          if (frame.type !== 'event' || !frame.event) return;
          const { seq, ts } = frame.event;
          if (seq <= sub.lastSeq) sub.duplicates++;
          else {
            if (seq !== sub.lastSeq + 1) sub.gaps++;
            sub.lastSeq = seq;
            sub.received++;
            sub.latencies.push(Date.now() - Date.parse(ts));
          }
        });
        ws.on('open', () => ws.send(JSON.stringify({ type: 'subscribe', sessionId, afterSeq: 0 })));
      }),
  ),
);

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

console.log(`bench/stream: ${SUBSCRIBERS} subscribers, ${SECONDS}s per rate\n`);
console.log('target rate  achieved/s  p50 ms  p99 ms  max ms  lost  dup  gaps');
for (const rate of RATES) {
  for (const s of subs) {
    s.latencies = [];
    s.received = 0;
  }
  const started = performance.now();
  child.stdin!.write(`${JSON.stringify({ rate, seconds: SECONDS })}\n`);
  const { lastSeq, appended } = (await nextLine()) as { lastSeq: number; appended: number };
  const deadline = Date.now() + 10_000;
  while (subs.some((s) => s.lastSeq < lastSeq) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  const elapsed = (performance.now() - started) / 1000;
  const all = subs.flatMap((s) => s.latencies).sort((a, b) => a - b);
  const lost = subs.reduce((n, s) => n + (appended - s.received), 0);
  const dup = subs.reduce((n, s) => n + s.duplicates, 0);
  const gaps = subs.reduce((n, s) => n + s.gaps, 0);
  console.log(
    `${String(rate).padStart(11)}  ${(appended / elapsed).toFixed(0).padStart(10)}  ${String(pct(all, 50)).padStart(6)}  ${String(pct(all, 99)).padStart(6)}  ${String(all.at(-1)).padStart(6)}  ${String(lost).padStart(4)}  ${String(dup).padStart(3)}  ${String(gaps).padStart(4)}`,
  );
}
for (const s of subs) s.ws.close();
child.stdin!.end();
await new Promise((r) => child.once('exit', r));
