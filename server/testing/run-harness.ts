/**
 * The harness of the API tests that run a session for real: a scripted model, a fresh copy of
 * js-todo and a test app pointed at both, made before each test and closed after it, with the
 * few calls every such test makes (the session's detail, a run started and waited out).
 */
import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, expect } from 'vitest';
import { SessionDetailSchema, type SessionDetail } from '../../shared/api.ts';
import { makeExampleRepo, type ExampleRepo } from '../demo/example-repo.ts';
import { startScriptedModel, type ScriptedModel } from '../scripted-model/model-server.ts';
import { nodeTest, writeTurn, type SeedTask } from './run-fixtures.ts';
import { auth, makeTestApp, type TestApp } from './test-app.ts';

export const WORKER = 'worker-model';
export const EVAL = 'eval-model';
export const PREP = 'prep-model';
/** Headers of a state-changing request from the app's own origin. */
export const post = { ...auth, origin: 'http://localhost' };

/** Two node tasks of js-todo: double, then triple. */
export const TWO_TASKS: SeedTask[] = [
  { id: 'T-001', title: 'Double', tests: { 'tests/t001_double.test.js': nodeTest('double', 'double', '2', '4') } },
  { id: 'T-002', title: 'Triple', tests: { 'tests/t002_triple.test.js': nodeTest('triple', 'triple', '2', '6') } },
];

export const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();

/** A worker turn writing `src/<name>.js` with one function returning `body`. */
export const implTurn = (name: string, body: string) => writeTurn(`src/${name}.js`, `export function ${name}(n) {\n  return ${body};\n}\n`);

export interface RunHarness {
  readonly fake: ScriptedModel;
  readonly t: TestApp;
  readonly repo: ExampleRepo;
  detail(id: string): Promise<SessionDetail>;
  /** Starts the run (202 expected) and waits until it has settled, however it ended. */
  runToEnd(id: string, timeoutMs?: number): Promise<SessionDetail>;
}

/** Registers the before/after hooks; the fields are the current test's. `env` adds configuration. */
export function useRunHarness(env: Record<string, string> = {}): RunHarness {
  let fake: ScriptedModel | null = null;
  let t: TestApp | null = null;
  let repo: ExampleRepo | null = null;
  beforeEach(async () => {
    fake = await startScriptedModel();
    repo = await makeExampleRepo('js-todo');
    t = await makeTestApp({
      env: { TILTH_BASE_URL: fake.baseURL, TILTH_API_KEY: 'test-key', TILTH_WORKER_MODEL: WORKER, TILTH_EVALUATOR_MODEL: EVAL, ...env },
    });
  });
  afterEach(async () => {
    await t?.close();
    await fake?.close();
    await repo?.cleanup();
    t = fake = repo = null;
  });
  const must = <T>(value: T | null, what: string): T => {
    if (value === null) throw new Error(`useRunHarness: the ${what} exists only inside a test`);
    return value;
  };
  const harness: RunHarness = {
    get fake() {
      return must(fake, 'scripted model');
    },
    get t() {
      return must(t, 'test app');
    },
    get repo() {
      return must(repo, 'example repo');
    },
    async detail(id) {
      return SessionDetailSchema.parse((await harness.t.app.inject({ url: `/api/sessions/${id}`, headers: auth })).json());
    },
    async runToEnd(id, timeoutMs = 40_000) {
      const res = await harness.t.app.inject({ method: 'POST', url: `/api/sessions/${id}/run`, headers: post });
      expect(res.statusCode, res.body).toBe(202);
      for (const deadline = Date.now() + timeoutMs; ; ) {
        const d = await harness.detail(id);
        if (d.run.state === 'idle' && d.session.status !== 'running') return d;
        if (Date.now() > deadline) throw new Error(`run did not settle: ${JSON.stringify(d.session)}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
  };
  return harness;
}
