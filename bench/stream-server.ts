/**
 * The server half of bench/stream and bench/stream-dashboard: a real app on a loopback port whose
 * store is appended to at a requested rate. Runs as its own process so the benchmark's clients do
 * not share its event loop. With `--web` it also serves the built SPA and appends a realistic run
 * (bench/session-gen.ts) instead of bare tool results, for a browser to watch.
 * Protocol on stdin/stdout, one JSON object per line:
 *   → {"port", "token", "sessionId"} once listening
 *   ← {"rate": N, "seconds": S}      append N events/s for S seconds
 *   → {"done": true, "firstSeq": F, "lastSeq": K, "appended": M}
 */
import type { AddressInfo } from 'node:net';
import readline from 'node:readline';
import { parseArgs } from 'node:util';
import type { EventInput } from '../shared/events.ts';
import { WEB_ROOT } from '../server/config/package-root.ts';
import { ensureWebBuild } from '../server/cli/serve.ts';
import { makeTestApp, silentLogger, TEST_TOKEN } from '../server/testing/test-app.ts';
import { runEvents } from './session-gen.ts';

const { values } = parseArgs({ options: { web: { type: 'boolean', default: false } } });
if (values.web) await ensureWebBuild(silentLogger);
const t = await makeTestApp(values.web ? { webRoot: WEB_ROOT } : {});
await t.app.listen({ host: '127.0.0.1', port: 0 });
const port = (t.app.server.address() as AddressInfo).port;
t.setPort(port);
const created = t.store.create({ source: '/bench', brief: 'bench', title: 'stream bench', baseBranch: 'main', baseSha: 'x', status: 'running' });
const sessionId = created.session_id;
const realistic = values.web
  ? runEvents({
      total: 10_000_000,
      tasks: 500,
      seed: 5,
      firstSeq: t.store.session(sessionId).log().lastSeq === 0 ? 2 : t.store.session(sessionId).log().lastSeq + 1,
      worktree: created.worktree,
      branch: created.branch,
    })
  : null;
const next = (n: number): EventInput =>
  realistic?.next().value?.input ?? { type: 'tool_result', data: { tool: 'bash', result_preview: `line ${n} `.repeat(8), result_chars: 120 } };
process.stdout.write(`${JSON.stringify({ port, token: TEST_TOKEN, sessionId })}\n`);

const TICK_MS = 5;
for await (const line of readline.createInterface({ input: process.stdin })) {
  const { rate, seconds } = JSON.parse(line) as { rate: number; seconds: number };
  const total = Math.round(rate * seconds);
  const firstSeq = t.store.session(sessionId).log().lastSeq + 1;
  const started = performance.now();
  let appended = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      // Catch up to where the schedule says we should be, so timer jitter does not lower the rate.
      const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate));
      while (appended < due) {
        t.store.session(sessionId).emit(next(appended));
        appended++;
      }
      if (appended >= total) {
        clearInterval(timer);
        resolve();
      }
    }, TICK_MS);
  });
  process.stdout.write(`${JSON.stringify({ done: true, firstSeq, lastSeq: t.store.session(sessionId).log().lastSeq, appended })}\n`);
}
await t.close();
