/**
 * The server half of bench/stream: a real app on a loopback port whose store is appended to at a
 * requested rate. Runs as its own process so the benchmark's clients do not share its event loop.
 * Protocol on stdin/stdout, one JSON object per line:
 *   → {"port", "token", "sessionId"} once listening
 *   ← {"rate": N, "seconds": S}      append N events/s for S seconds
 *   → {"done": true, "lastSeq": K, "appended": M}
 */
import type { AddressInfo } from 'node:net';
import readline from 'node:readline';
import { makeTestApp, TEST_TOKEN } from '../server/testing/test-app.ts';

const t = await makeTestApp();
await t.app.listen({ host: '127.0.0.1', port: 0 });
const port = (t.app.server.address() as AddressInfo).port;
t.setPort(port);
const sessionId = t.store.create({ source: '/bench', brief: 'bench', baseBranch: 'main', baseSha: 'x', status: 'running' }).session_id;
process.stdout.write(`${JSON.stringify({ port, token: TEST_TOKEN, sessionId })}\n`);

const TICK_MS = 5;
for await (const line of readline.createInterface({ input: process.stdin })) {
  const { rate, seconds } = JSON.parse(line) as { rate: number; seconds: number };
  const total = Math.round(rate * seconds);
  const started = performance.now();
  let appended = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      // Catch up to where the schedule says we should be, so timer jitter does not lower the rate.
      const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate));
      while (appended < due) {
        t.store.emit(sessionId, { type: 'tool_result', data: { tool: 'bash', result_preview: `line ${appended} `.repeat(8), result_chars: 120 } });
        appended++;
      }
      if (appended >= total) {
        clearInterval(timer);
        resolve();
      }
    }, TICK_MS);
  });
  process.stdout.write(`${JSON.stringify({ done: true, lastSeq: t.store.log(sessionId).lastSeq, appended })}\n`);
}
await t.close();
