/**
 * bench/demo-run: a 5-task run on the JavaScript example, end to end — worker turns that write the
 * code, the real checks (`node --test` under the sandbox when bubblewrap works), the evaluator, a
 * commit per task. The scripted model runs in a child process, so this process's own CPU time is
 * the harness: the share of wall time it takes excludes test processes, git and the model.
 * Targets: ≤ 15 s in total, harness share ≤ 10%.
 * Run: npx tsx bench/demo-run.ts
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TilthEvent } from '../shared/events.ts';
import { caseTurn, noLearning, verdictTurn, workerTurn, writeTurn } from '../server/testing/run-fixtures.ts';
import { EVAL, FIVE_FNS, FIVE_TASKS, prepareBenchRun, WORKER } from './run-harness.ts';

const FNS = FIVE_FNS;
const tasks = FIVE_TASKS;
const worker = FNS.flatMap(([fn, body]) => [
  workerTurn(['read_file', { path: 'src/todo.js' }], ['glob', { pattern: 'tests/*.js' }]),
  writeTurn(`src/${fn}.js`, `export function ${fn}(n) {\n  return ${body};\n}\n`),
  workerTurn(['bash', { command: `node --test tests/` }]),
  caseTurn(`Added ${fn}.`),
  noLearning,
]);
// A one-task warm-up run first, so module loading and JIT warm-up (a server pays them once, at
// start) do not count as the measured run's harness time.
const warmUp = [writeTurn('src/double.js', 'export function double(n) {\n  return n * 2;\n}\n'), caseTurn(), noLearning];
const script = { models: { [WORKER]: [...warmUp, ...worker], [EVAL]: [verdictTurn('accept'), ...FNS.map(() => verdictTurn('accept'))] } };
const scriptFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tilth-bench-script-')), 'script.json');
fs.writeFileSync(scriptFile, JSON.stringify(script));

const fake = spawn(process.execPath, ['--import', 'tsx', 'server/scripted-model/cli.ts', '--port', '0', '--script', scriptFile], {
  detached: true,
  stdio: ['ignore', 'pipe', 'ignore'],
});
const baseURL = await new Promise<string>((resolve, reject) => {
  let out = '';
  fake.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    const line = out.split('\n').find((l) => l.startsWith('http'));
    if (line) resolve(line.trim());
  });
  fake.once('exit', (code) => reject(new Error(`the fake model exited with ${code}`)));
});

const warm = await prepareBenchRun(baseURL, tasks.slice(0, 1));
await warm.run();
await warm.cleanup();

const bench = await prepareBenchRun(baseURL, tasks);
try {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await bench.run();
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const harnessMs = (cpu.user + cpu.system) / 1000;
  const events = bench.store.session(bench.id).log().readAfter(0, 100_000);
  const sum = (pick: (e: TilthEvent) => number) => events.reduce((a, e) => a + pick(e), 0);
  const checksMs = sum((e) => (e.type === 'validator_run' ? e.data.results.reduce((a, r) => a + (r.duration_ms ?? 0), 0) : 0));
  const modelMs = sum((e) => (e.type === 'model_call' ? (e.data.duration_ms ?? 0) : 0));
  const bashMs = sum((e) => (e.type === 'tool_result' && e.data.tool === 'bash' ? (e.data.duration_ms ?? 0) : 0));
  console.log(`bench/demo-run: ${tasks.length} tasks, ${bench.callStarts.length} model calls, ${events.length} events`);
  console.log(`  wall time          ${(wall / 1000).toFixed(2)} s   (target ≤ 15 s)`);
  console.log(`  harness CPU        ${(harnessMs / 1000).toFixed(2)} s = ${((100 * harnessMs) / wall).toFixed(1)}% of wall   (target ≤ 10%)`);
  console.log(
    `  checks (tests)     ${(checksMs / 1000).toFixed(2)} s;  worker bash ${(bashMs / 1000).toFixed(2)} s;  model calls ${(modelMs / 1000).toFixed(2)} s`,
  );
  console.log(`  the rest (git, process start-up, waiting) ${((wall - checksMs - bashMs - modelMs - harnessMs) / 1000).toFixed(2)} s`);
} finally {
  await bench.cleanup();
  process.kill(-fake.pid!, 'SIGTERM');
  fs.rmSync(path.dirname(scriptFile), { recursive: true, force: true });
}
