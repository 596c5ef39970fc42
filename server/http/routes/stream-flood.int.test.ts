/**
 * A client that floods `/api/stream` with subscribes and never reads must not grow the server
 * without bound or stall other requests. Its own file so the memory figures are this test's alone
 * (vitest runs each file in its own process).
 */
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { makeTestApp, TEST_TOKEN, type TestApp } from '../../testing/test-app.ts';
import { StreamTestClient } from '../../testing/ws-test-client.ts';

const MiB = 1024 * 1024;
let t: TestApp;
let port: number;

beforeEach(async () => {
  t = await makeTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.server.address() as AddressInfo).port;
  t.setPort(port);
});
afterEach(async () => {
  await t.close();
});

/** One real HTTP request to /api/health; its wall-clock time in ms. */
async function healthLatencyMs(): Promise<number> {
  const started = performance.now();
  const res = await fetch(`http://127.0.0.1:${port}/api/health`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
  expect(res.status).toBe(200);
  await res.arrayBuffer();
  return performance.now() - started;
}

it('cuts off a client that floods subscribes without reading, while memory stays bounded and /api/health keeps answering', async () => {
  const id = t.store.create({ source: '/repo', brief: 'b', baseBranch: 'main', baseSha: 'abc', status: 'prepared' }).session_id;
  const answer = 'a'.repeat(100);
  for (let i = 0; i < 5000; i++) t.store.session(id).emit({ type: 'question_answered', data: { question_id: `q${i}`, answer } });
  // Warm up (the first fetch in a process loads its HTTP client) and take a quiet baseline.
  const quiet: number[] = [];
  for (let i = 0; i < 5; i++) quiet.push(await healthLatencyMs());
  global.gc?.();
  const before = process.memoryUsage();
  let peakRss = before.rss;
  let peakHeap = before.heapUsed;
  const sampler = setInterval(() => {
    const now = process.memoryUsage();
    peakRss = Math.max(peakRss, now.rss);
    peakHeap = Math.max(peakHeap, now.heapUsed);
  }, 10);

  const c = await StreamTestClient.open(port);
  await c.next((f) => f.type === 'hello');
  c.pauseReading();
  for (let i = 0; i < 4000; i++) c.send({ type: 'subscribe', sessionId: id, afterSeq: 0 });

  // Health is asked one request after another for as long as the flood is being handled.
  const latencies: number[] = [];
  const until = performance.now() + 3000;
  while (performance.now() < until) {
    latencies.push(await healthLatencyMs());
    await new Promise((r) => setTimeout(r, 20));
  }
  const serverSockets = t.app.websocketServer.clients.size;
  clearInterval(sampler);
  c.resumeReading();
  c.ws.terminate();

  const rssGrowth = (peakRss - before.rss) / MiB;
  const heapGrowth = (peakHeap - before.heapUsed) / MiB;
  const worst = Math.max(...latencies);
  process.stderr.write(
    `flood: rss +${rssGrowth.toFixed(1)} MiB, heap +${heapGrowth.toFixed(1)} MiB, health quiet ${quiet.map((l) => l.toFixed(0)).join(' ')}; during ${latencies.length} requests, worst ${worst.toFixed(0)} ms: ${latencies.map((l) => l.toFixed(0)).join(' ')}\n`,
  );
  expect(serverSockets).toBe(0); // the server dropped the flooding connection
  expect(rssGrowth).toBeLessThan(100);
  expect(heapGrowth).toBeLessThan(100);
  expect(latencies.length).toBeGreaterThan(20);
  expect(worst).toBeLessThan(500);
});
