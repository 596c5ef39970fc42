/**
 * What the run benchmarks share: a session store in a temp folder, a prepared session on a copy of
 * the JavaScript example, and the run job started directly (no HTTP in front of it) with its model
 * calls timed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runSession } from '../server/engine/run.ts';
import type { RunDeps } from '../server/engine/run-context.ts';
import { JobRunner } from '../server/jobs/job-runner.ts';
import { ModelClient } from '../server/llm/client.ts';
import { SessionStore } from '../server/store/session-store.ts';
import { makeExampleRepo, type ExampleRepo } from '../server/demo/example-repo.ts';
import { makePreparedSession, nodeTest, type SeedTask } from '../server/testing/run-fixtures.ts';

export const WORKER = 'bench-worker';
export const EVAL = 'bench-eval';

export interface BenchRun {
  store: SessionStore;
  id: string;
  repo: ExampleRepo;
  /** performance.now() at the start of every model call, in order. */
  callStarts: number[];
  run(): Promise<void>;
  cleanup(): Promise<void>;
}

export interface BenchOptions {
  caps?: Partial<RunDeps['caps']>;
  /**
   * The evidence steps: with `false`, no mutation probe and no criterion ↔ test matrix (so no
   * green proof and no named-case requirement), the run as a seed from before the matrix ran it.
   * Default true, with the product's defaults (mutation budget, proof repeats).
   */
  proofs?: boolean;
}

export async function prepareBenchRun(baseURL: string, tasks: SeedTask[], options: BenchOptions = {}): Promise<BenchRun> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tilth-bench-run-'));
  const store = new SessionStore(root);
  const repo = await makeExampleRepo('js-todo');
  const id = await makePreparedSession(store, repo.dir, 'node', tasks);
  const proofs = options.proofs ?? true;
  if (!proofs)
    store.session(id).prd.write(
      store
        .session(id)
        .prd.tasks()
        .map(({ criteria_tests: _, ...task }) => task),
    );
  const silent = { info: () => {}, warn: () => {}, error: () => {} };
  const jobs = new JobRunner(store, silent);
  const llm = new ModelClient({
    endpoints: {
      worker: { baseUrl: baseURL, apiKey: 'bench', model: WORKER },
      evaluator: { baseUrl: baseURL, apiKey: 'bench', model: EVAL },
    },
  });
  const callStarts: number[] = [];
  const chat = llm.chat.bind(llm);
  llm.chat = (role, request) => {
    callStarts.push(performance.now());
    return chat(role, request);
  };
  const deps: RunDeps = {
    llm,
    caps: { max_iterations_per_task: 10_000, max_wall_clock_minutes: 0, max_tokens: 0, max_dollars: 0, max_evaluator_calls_per_task: 0, ...options.caps },
    contextFiles: ['AGENTS.md', 'CLAUDE.md'],
    ...(proofs ? {} : { mutationBudgetMs: 0 }),
  };
  return {
    store,
    id,
    repo,
    callStarts,
    run: async () => {
      jobs.start('run', id, (ctx) => runSession(ctx, deps));
      while (jobs.forSession(id)) await new Promise((r) => setTimeout(r, 5));
      const status = store.session(id).checkpoint.read().status;
      if (status !== 'all_done') throw new Error(`the bench run ended ${status}: ${store.session(id).checkpoint.read().last_error ?? ''}`);
    },
    cleanup: async () => {
      store.close();
      fs.rmSync(root, { recursive: true, force: true });
      await repo.cleanup();
    },
  };
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Five small functions on the JavaScript example: [name, body, test input, expected]; the demo-run's tasks. */
export const FIVE_FNS: [string, string, string, string][] = [
  ['double', 'n * 2', '2', '4'],
  ['triple', 'n * 3', '2', '6'],
  ['square', 'n * n', '3', '9'],
  ['negate', '-n', '5', '-5'],
  ['half', 'n / 2', '8', '4'],
];

/** One task per function of FIVE_FNS, each with its node acceptance test. */
export const FIVE_TASKS: SeedTask[] = FIVE_FNS.map(([fn, , input, expected], i) => ({
  id: `T-00${i + 1}`,
  title: `Add ${fn}`,
  tests: { [`tests/t00${i + 1}_${fn}.test.js`]: nodeTest(fn, fn, input, expected) },
}));
