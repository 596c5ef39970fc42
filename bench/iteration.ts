/**
 * bench/iteration: harness overhead per worker iteration. The scripted model answers at once with
 * one `read_file` call per turn; an iteration is the time from one model call's start to the
 * next's: the HTTP round trip, the tool, the events and the checkpoint write. Compared, in the same
 * run, with a bare loopback round trip (plain fetch) carrying the very same request body to the
 * same server — the conversation grows each turn, and sending it is the model API's cost, not the
 * harness's — and with a tiny-body round trip for scale.
 * Targets: median ≤ 5 ms, ratio ≤ 3.
 * `--tool bash` makes each turn a `bash` call (`true`) instead: the sandbox's cost per command
 * (bwrap, the process cap's cgroup and watchdog, the git pointer check after the call).
 * Run: npx tsx bench/iteration.ts [--iterations 200] [--tool read_file|bash]
 */
import { parseArgs } from 'node:util';
import { startScriptedModel } from '../server/scripted-model/model-server.ts';
import { caseTurn, nodeTest, noLearning, verdictTurn, workerTurn, writeTurn } from '../server/testing/run-fixtures.ts';
import { EVAL, percentile, prepareBenchRun, WORKER } from './run-harness.ts';

const { values } = parseArgs({ options: { iterations: { type: 'string', default: '200' }, tool: { type: 'string', default: 'read_file' } } });
const N = Number(values.iterations);
const TOOL = values.tool === 'bash' ? 'bash' : 'read_file';

const fake = await startScriptedModel();
const bench = await prepareBenchRun(fake.baseURL, [
  { id: 'T-001', title: 'Double', tests: { 'tests/t001_double.test.js': nodeTest('double', 'double', '2', '4') } },
]);
try {
  const reads = Array.from({ length: N }, () =>
    TOOL === 'bash' ? workerTurn(['bash', { command: 'true' }]) : workerTurn(['read_file', { path: 'package.json' }]),
  );
  fake.load({
    models: {
      [WORKER]: [...reads, writeTurn('src/double.js', 'export function double(n) {\n  return n * 2;\n}\n'), caseTurn(), noLearning],
      [EVAL]: [verdictTurn('accept')],
      bare: Array.from({ length: 2 * N }, () => ({ content: 'ok' })),
    },
  });

  const roundTrip = async (body: unknown): Promise<number> => {
    const t0 = performance.now();
    const res = await fetch(`${fake.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer bench' },
      body: JSON.stringify(body),
    });
    await res.json();
    return performance.now() - t0;
  };
  const tiny: number[] = [];
  for (let i = 0; i < N; i++) tiny.push(await roundTrip({ model: 'bare', messages: [{ role: 'user', content: 'hi' }] }));

  await bench.run();
  // Iterations 2..N: each read turn's start to the next call's start (the first warms up).
  const iters: number[] = [];
  for (let i = 1; i < N; i++) iters.push(bench.callStarts[i + 1]! - bench.callStarts[i]!);
  // The same bodies again, bare: request i+1 is what iteration i sent.
  const same: number[] = [];
  const requests = fake.requests.filter((r) => r.model === WORKER);
  for (let i = 1; i < N; i++) same.push(await roundTrip({ ...(requests[i + 1]!.body as object), model: 'bare' }));
  for (const list of [iters, same, tiny]) list.sort((a, b) => a - b);
  const median = percentile(iters, 50);
  const sameMedian = percentile(same, 50);
  const tinyMedian = percentile(tiny.slice(Math.floor(N / 10)), 50);
  const bodyKb = JSON.stringify(requests[Math.floor(N / 2)]!.body).length / 1024;
  console.log(`bench/iteration: ${iters.length} ${TOOL} iterations (median request body ${bodyKb.toFixed(0)} KiB)`);
  console.log(`  iteration            median ${median.toFixed(2)} ms   p99 ${percentile(iters, 99).toFixed(2)} ms   (target: median ≤ 5 ms)`);
  console.log(`  bare, same body      median ${sameMedian.toFixed(2)} ms   p99 ${percentile(same, 99).toFixed(2)} ms`);
  console.log(`  bare, tiny body      median ${tinyMedian.toFixed(2)} ms   p99 ${percentile(tiny, 99).toFixed(2)} ms`);
  console.log(
    `  ratio                ${(median / sameMedian).toFixed(2)}× a bare round trip of the same body (target ≤ 3); ${(median / tinyMedian).toFixed(2)}× a tiny one`,
  );
} finally {
  await bench.cleanup();
  await fake.close();
}
