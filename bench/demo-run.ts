/**
 * bench/demo-run: a 5-task run on the JavaScript example, end to end — worker turns that write the
 * code, the real checks (`node --test` under the sandbox when bubblewrap works), the evaluator, a
 * commit per task. The scripted model runs in a child process, so this process's own CPU time is
 * the harness: the share of wall time it takes excludes test processes, git and the model.
 *
 * The run is measured with every evidence step on (the criterion ↔ test matrix, so the green
 * proof; the mutation probe; the product's defaults) and with them off, alternating, `--rounds`
 * times each, in one sitting (issue 32: proofs on ≤ 1.15× proofs off). Targets: ≤ 15 s in total,
 * harness share ≤ 10%. The last line is JSON.
 * Run: npx tsx bench/demo-run.ts [--rounds 3]
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { TilthEvent } from '../shared/events.ts';
import { caseTurn, noLearning, verdictTurn, workerTurn, writeTurn } from '../server/testing/run-fixtures.ts';
import { EVAL, FIVE_FNS, FIVE_TASKS, prepareBenchRun, WORKER } from './run-harness.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' } } });
const ROUNDS = Math.max(1, Number(values.rounds));

const FNS = FIVE_FNS;
const tasks = FIVE_TASKS;
const worker = FNS.flatMap(([fn, body]) => [
  workerTurn(['read_file', { path: 'src/todo.js' }], ['glob', { pattern: 'tests/*.js' }]),
  writeTurn(`src/${fn}.js`, `export function ${fn}(n) {\n  return ${body};\n}\n`),
  workerTurn(['bash', { command: `node --test tests/` }]),
  caseTurn(`Added ${fn}.`),
  noLearning,
]);
const verdicts = FNS.map(() => verdictTurn('accept'));
// A one-task warm-up run first, so module loading and JIT warm-up (a server pays them once, at
// start) do not count as the measured runs' harness time.
const warmUp = [writeTurn('src/double.js', 'export function double(n) {\n  return n * 2;\n}\n'), caseTurn(), noLearning];
const runs = 2 * ROUNDS;
const script = {
  models: {
    [WORKER]: [...warmUp, ...Array.from({ length: runs }, () => worker).flat()],
    [EVAL]: [verdictTurn('accept'), ...Array.from({ length: runs }, () => verdicts).flat()],
  },
};
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

interface Measured {
  wall: number;
  harnessMs: number;
  checksMs: number;
  bashMs: number;
  modelMs: number;
  /** The mutation probes' own durations, summed (they run beside the next task). */
  probeMs: number;
  events: number;
}

async function measure(proofs: boolean): Promise<Measured> {
  const bench = await prepareBenchRun(baseURL, tasks, { proofs });
  try {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await bench.run();
    const wall = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const events = bench.store.session(bench.id).log().readAfter(0, 100_000);
    const sum = (pick: (e: TilthEvent) => number) => events.reduce((a, e) => a + pick(e), 0);
    return {
      wall,
      harnessMs: (cpu.user + cpu.system) / 1000,
      checksMs: sum((e) => (e.type === 'validator_run' ? e.data.results.reduce((a, r) => a + (r.duration_ms ?? 0), 0) : 0)),
      modelMs: sum((e) => (e.type === 'model_call' ? (e.data.duration_ms ?? 0) : 0)),
      bashMs: sum((e) => (e.type === 'tool_result' && e.data.tool === 'bash' ? (e.data.duration_ms ?? 0) : 0)),
      probeMs: sum((e) => (e.type === 'mutation_probe' ? e.data.duration_ms : 0)),
      events: events.length,
    };
  } finally {
    await bench.cleanup();
  }
}

const sec = (ms: number) => (ms / 1000).toFixed(2);
const spread = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0]!, median: s[Math.floor(s.length / 2)]!, max: s.at(-1)! };
};
const shown = (xs: number[]) => {
  const { min, median, max } = spread(xs);
  return `${sec(min)} / ${sec(median)} / ${sec(max)} s`;
};

try {
  const warm = await prepareBenchRun(baseURL, tasks.slice(0, 1));
  await warm.run();
  await warm.cleanup();

  const on: Measured[] = [];
  const off: Measured[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Alternating, the side that goes first swapped each round: the machine's drift falls on both.
    for (const proofs of round % 2 === 0 ? [true, false] : [false, true]) (proofs ? on : off).push(await measure(proofs));
  }
  const load = os.loadavg()[0]!.toFixed(1);
  console.log(`bench/demo-run: ${tasks.length} tasks, ${ROUNDS} rounds each side, alternating; load ${load}; min / median / max`);
  for (const [name, side] of [
    ['proofs on ', on],
    ['proofs off', off],
  ] as const) {
    const harness = side.map((m) => (100 * m.harnessMs) / m.wall);
    console.log(`  ${name}  wall ${shown(side.map((m) => m.wall))}   (target ≤ 15 s)`);
    console.log(`              harness CPU ${spread(harness).median.toFixed(1)}% of wall (median; target ≤ 10%)`);
    console.log(
      `              checks ${shown(side.map((m) => m.checksMs))}; worker bash ${shown(side.map((m) => m.bashMs))}; mutation probes ${shown(side.map((m) => m.probeMs))}`,
    );
  }
  const ratio = spread(on.map((m) => m.wall)).median / spread(off.map((m) => m.wall)).median;
  console.log(`  proofs on / off (medians): ${ratio.toFixed(2)}×   (target ≤ 1.15×)`);
  console.log(
    JSON.stringify({
      bench: 'demo-run',
      rounds: ROUNDS,
      load: Number(load),
      on: { wall: spread(on.map((m) => m.wall)), probe: spread(on.map((m) => m.probeMs)), checks: spread(on.map((m) => m.checksMs)) },
      off: { wall: spread(off.map((m) => m.wall)), checks: spread(off.map((m) => m.checksMs)) },
      ratio: Number(ratio.toFixed(3)),
    }),
  );
} finally {
  process.kill(-fake.pid!, 'SIGTERM');
  fs.rmSync(path.dirname(scriptFile), { recursive: true, force: true });
}
