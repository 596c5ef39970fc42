/**
 * bench/probe-coverage: what tracing each criterion's cases with line coverage (issue 28: survivors
 * belong to criteria) adds to the mutation probe of one task, per runner — node (V8), pytest
 * (settrace), mocha (V8), jest (babel istanbul) and vitest (@vitest/coverage-v8). For each runner the
 * same small task (three criteria, one case each) is probed without tracing and with it, in
 * alternating order, `--rounds` times; times are medians, and the ratio is the traced probe over the
 * untraced one, measured in the same sitting. The last line is JSON. Figures only.
 * Run: npx tsx bench/probe-coverage.ts [--rounds 3] [--only jest]
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { makeExampleRepo } from '../server/demo/example-repo.ts';
import { SessionStore } from '../server/store/session-store.ts';
import { COVERED, probeCovered } from '../server/testing/probe-setups.ts';
import { tempDir } from '../server/testing/temp-dir.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, only: { type: 'string' } } });
const ROUNDS = Number(values.rounds);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

interface Row {
  preset: string;
  method: string;
  untraced_ms: number;
  traced_ms: number;
  tracing_ms: number;
  per_criterion_ms: number;
  ratio: number;
}
const rows: Row[] = [];

console.log(`bench/probe-coverage: the mutation probe of one task, untraced and traced (${ROUNDS} rounds, medians)`);
for (const setup of COVERED.filter((s) => !values.only || s.preset === values.only)) {
  const project = await makeExampleRepo(setup.example);
  const root = tempDir('tilth-bench-probe-');
  const store = new SessionStore(root);
  try {
    await setup.install?.(project.dir);
    const untraced: number[] = [];
    const traced: number[] = [];
    const tracing: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const withTracing of round % 2 === 0 ? [false, true] : [true, false]) {
        const { report } = await probeCovered(store, project.dir, setup, withTracing);
        if (report.note !== null) throw new Error(`${setup.preset}: the probe did not run: ${report.note}`);
        if (withTracing) {
          if (!report.coverage) throw new Error(`${setup.preset}: no coverage in the traced probe`);
          traced.push(report.duration_ms);
          tracing.push(report.coverage.duration_ms ?? 0);
        } else untraced.push(report.duration_ms);
      }
    }
    const criteria = (setup.cases ?? ['', '', '']).length;
    const row: Row = {
      preset: setup.preset,
      method: setup.method,
      untraced_ms: median(untraced),
      traced_ms: median(traced),
      tracing_ms: median(tracing),
      per_criterion_ms: Math.round(median(tracing) / criteria),
      ratio: Number((median(traced) / median(untraced)).toFixed(2)),
    };
    rows.push(row);
    console.log(
      `  ${row.preset.padEnd(7)} (${row.method.padEnd(8)}) untraced ${secs(row.untraced_ms).padStart(8)}  traced ${secs(row.traced_ms).padStart(8)}  ` +
        `tracing ${secs(row.tracing_ms).padStart(8)} (${secs(row.per_criterion_ms)} per criterion)  ×${row.ratio}`,
    );
  } finally {
    store.close();
    fs.rmSync(root, { recursive: true, force: true });
    await project.cleanup();
  }
}
console.log(JSON.stringify({ rounds: ROUNDS, rows }));
