/**
 * The whole journey on each repository shape of issue 12, through the API with the scripted
 * model and no configuration beyond the provider: each example installed the way its README says
 * (`npm ci` from the lockfile, a virtualenv with an editable install), then interview → seed with
 * the detected preset → a clean contract check → Run → `all_done`. The user's checkout comes out
 * byte for byte as it went in (installed dependencies included); after the merge, the project's
 * own test command picks up the acceptance test.
 */
import { execFileSync } from 'node:child_process';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionDetailSchema, WorkspaceCheckSchema, type SessionDetail } from '../../shared/api.ts';
import type { TilthEvent } from '../../shared/events.ts';
import { SeedViewSchema } from '../../shared/seed.ts';
import { detectSandbox } from '../proc/sandbox.ts';
import { makeExampleRepo, type ExampleRepo } from '../demo/example-repo.ts';
import { installExample, installWith, PACKAGE_MANAGERS, type OtherPackageManager } from '../testing/example-installs.ts';
import { startScriptedModel, type ScriptedModel } from '../scripted-model/model-server.ts';
import { JOURNEYS, journeyResponder, type JourneyPlan, type JourneyTrace } from '../testing/journeys.ts';
import { auth, makeTestApp, type TestApp } from '../testing/test-app.ts';
import { treeHash } from '../testing/tree-hash.ts';

/** npm ci or pip, then a run whose checks start vitest, mocha or Python a few times. */
const SLOW = 300_000;
const MODEL = 'journey-model';
const post = { ...auth, origin: 'http://localhost' };

let t: TestApp | null = null;
let fake: ScriptedModel | null = null;
let repo: ExampleRepo | null = null;
afterEach(async () => {
  await t?.close();
  await fake?.close();
  await repo?.cleanup();
  t = fake = repo = null;
});

const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();

async function detail(app: TestApp, id: string): Promise<SessionDetail> {
  return SessionDetailSchema.parse((await app.app.inject({ url: `/api/sessions/${id}`, headers: auth })).json());
}

async function until(app: TestApp, id: string, what: string, test: (d: SessionDetail) => boolean): Promise<SessionDetail> {
  for (const deadline = Date.now() + 180_000; ; ) {
    const d = await detail(app, id);
    if (test(d)) return d;
    if (d.session.status === 'failed' || (d.session.status === 'stopped' && d.run.state === 'idle'))
      throw new Error(`session ended while waiting for ${what}: ${d.session.status} ${d.session.last_stop} ${d.last_error}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(d.session)} ${d.last_error}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function journey(plan: JourneyPlan, manager?: OtherPackageManager): Promise<void> {
  repo = await makeExampleRepo(plan.example);
  if (manager) await installWith(repo.dir, manager);
  else await installExample(repo.dir, plan.example);
  const before = treeHash(repo.dir);

  fake = await startScriptedModel();
  const trace: JourneyTrace = { interviewPrompt: null, ownTestsOutput: null };
  fake.respondWith(MODEL, journeyResponder(plan, trace));
  t = await makeTestApp({ env: { TILTH_BASE_URL: fake.baseURL, TILTH_API_KEY: 'test-key', TILTH_WORKER_MODEL: MODEL } });
  const app = t;

  const check = WorkspaceCheckSchema.parse((await app.app.inject({ url: `/api/workspaces/check?path=${encodeURIComponent(repo.dir)}`, headers: auth })).json());
  expect(check).toMatchObject({ ok: true, preset: plan.preset });
  if (manager) expect(check.env?.package_manager).toBe(manager);

  const created = await app.app.inject({ method: 'POST', url: '/api/sessions', headers: post, payload: { workspace: repo.dir, brief: plan.brief } });
  expect(created.statusCode, created.body).toBe(201);
  const id = created.json().session.id as string;

  const asked = await until(app, id, 'the question', (d) => d.interview?.pending != null && !d.interview.running);
  expect(asked.interview!.pending!.text).toBe(plan.question.question);
  // The interviewer was told the runner, the naming rule its config picks up, and the idiom.
  expect(trace.interviewPrompt).toContain(plan.rule);
  const answered = await app.app.inject({
    method: 'POST',
    url: `/api/sessions/${id}/answer`,
    headers: post,
    payload: { questionId: asked.interview!.pending!.question_id, answer: plan.answer },
  });
  expect(answered.statusCode, answered.body).toBe(200);

  await until(app, id, 'the seed', (d) => d.session.status === 'prepared');
  const readSeed = async () => SeedViewSchema.parse((await app.app.inject({ url: `/api/sessions/${id}/seed`, headers: auth })).json());
  if (plan.customChecks) {
    // The user saves the custom commands in seed review, as the runner's note asks.
    const written = await readSeed();
    const saved = await app.app.inject({
      method: 'PUT',
      url: `/api/sessions/${id}/seed`,
      headers: post,
      payload: {
        prd_entries: written.prd.map((task) => ({
          id: task.id,
          title: task.title,
          description: task.description,
          acceptance_criteria: task.acceptance_criteria,
          criteria_tests: task.criteria_tests,
        })),
        test_files: written.test_files,
        checks_preset: 'custom',
        custom_checks: plan.customChecks,
      },
    });
    expect(saved.statusCode, saved.body).toBe(200);
  }
  const seed = await readSeed();
  expect(seed.meta.checks_preset).toBe(plan.preset);
  expect(Object.keys(seed.test_files)).toEqual([plan.testFile]);
  // Clean: the test loads in the worktree's environment and fails only because the feature is missing.
  expect(seed.contract).toEqual([]);
  // Each named case ran alone on the seed commit and failed for the missing work (the red proof),
  // stored by the runner's own full name.
  expect(seed.criteria['T-001']!.map((c) => [c.tests, c.red])).toEqual((plan.storedTests ?? plan.task.criteria_tests).map((tests) => [tests, 'failed']));
  if (plan.redShows) expect(seed.criteria['T-001']!.map((c) => c.red_detail).join('\n')).toMatch(plan.redShows);

  const run = await app.app.inject({ method: 'POST', url: `/api/sessions/${id}/run`, headers: post });
  expect(run.statusCode, run.body).toBe(202);
  const done = await until(app, id, 'all_done', (d) => d.session.status === 'all_done' && d.run.state === 'idle');
  expect(done.tasks.map((task) => [task.id, task.status])).toEqual([['T-001', 'done']]);

  const events: TilthEvent[] = app.store.session(id).log().readAfter(0, 100_000);
  const checks = events.flatMap((e) => (e.type === 'validator_run' ? [e.data] : []));
  expect(checks.map((c) => c.passed)).toEqual([true]);
  expect(checks[0]!.results.find((r) => r.name === 'acceptance')?.output).toMatch(plan.checkShows);
  if (plan.checkHides) expect(checks[0]!.results.find((r) => r.name === 'acceptance')?.output).not.toMatch(plan.checkHides);
  // The worker ran the project's own command in the worktree, in the sandbox, and it passed.
  expect(trace.ownTestsOutput).toMatch(/\[exit 0\]$/);

  // Nothing in the user's checkout moved, node_modules and .venv included; only the branch is new.
  expect(treeHash(repo.dir)).toBe(before);
  expect(git(repo.dir, 'status', '--porcelain')).toBe('');
  expect(git(repo.dir, 'log', '--format=%s', `session/${id}`)).toMatch(/^T-001: /);

  const merged = await app.app.inject({ method: 'POST', url: `/api/sessions/${id}/merge`, headers: post, payload: { strategy: 'merge' } });
  expect(merged.statusCode, merged.body).toBe(200);
  const [command, ...args] = plan.afterMerge.command;
  const own = await execa(command, args, { cwd: repo.dir, all: true, reject: false, stdin: 'ignore', env: { NO_COLOR: '1' }, timeout: 120_000 });
  expect(own.exitCode, own.all).toBe(0);
  expect(own.all).toMatch(plan.afterMerge.shows);
}

const sandboxed = detectSandbox('auto').available;

describe.runIf(sandboxed)('the journey on real repository shapes, with no configuration', () => {
  it(
    "ts-vitest: a TypeScript test run by the project's vitest with its config",
    async () => {
      await journey(JOURNEYS['ts-vitest']);
    },
    SLOW,
  );
  it(
    'cjs-mocha: a CommonJS mocha test, with the runtime dependency loaded from the linked node_modules',
    async () => {
      await journey(JOURNEYS['cjs-mocha']);
    },
    SLOW,
  );
  it(
    'ava-todo: an AVA test, its cases read from its TAP report by title, proved red before any work',
    async () => {
      await journey(JOURNEYS['ava-todo']);
    },
    SLOW,
  );
  it(
    'tap-todo: a node-tap test, its subtests named by group and title, read from its TAP report and proved red before any work',
    async () => {
      await journey(JOURNEYS['tap-todo']);
    },
    SLOW,
  );
  it(
    "uvu-todo: a uvu suite run by Tilth's own uvu runner, its cases named suite › title, proved red before any work",
    async () => {
      await journey(JOURNEYS['uvu-todo']);
    },
    SLOW,
  );
  it(
    'bun-todo: bun test through the custom preset with {junit}, its cases read from the JUnit report, proved red before any work',
    async () => {
      await journey(JOURNEYS['bun-todo']);
    },
    SLOW,
  );
  it(
    'deno-todo: deno test through the custom preset with {junit}, a case that throws before the work read as red',
    async () => {
      await journey(JOURNEYS['deno-todo']);
    },
    SLOW,
  );
  it(
    "py-src: a unittest test against the worktree's src/, not the editable install of the checkout",
    async () => {
      await journey(JOURNEYS['py-src']);
    },
    SLOW,
  );
  it(
    'go-todo: a Go test beside the package it tests, each subtest proved by its own name',
    async () => {
      await journey(JOURNEYS['go-todo']);
    },
    SLOW,
  );
  it(
    'rust-todo: an integration test under tests/, a case inside a mod proved by its full name',
    async () => {
      await journey(JOURNEYS['rust-todo']);
    },
    SLOW,
  );
  it(
    "pnpm-mono: a pnpm workspace, the test in one package run from its folder with its runner and the session's copy of the package it uses; the other package's tests untouched",
    async () => {
      await journey(JOURNEYS['pnpm-mono']);
    },
    SLOW,
  );
  it.each(Object.keys(PACKAGE_MANAGERS) as OtherPackageManager[])(
    'ts-vitest kept with %s: its lockfile, its node_modules layout',
    async (manager) => {
      await journey(JOURNEYS['ts-vitest'], manager);
    },
    SLOW,
  );
});
