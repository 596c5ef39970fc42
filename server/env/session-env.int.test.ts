/**
 * The session's side of provisioning through the API, with the scripted model and real git: the
 * environment is applied at prep before the interview's first question, again at a run's start
 * when a setup command was set in seed review, to a worktree resume re-creates, and to the merge
 * preview's scratch worktree. A failed setup stops prep (or the run) with its output and advice.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionDetailSchema, type SessionDetail } from '../../shared/api.ts';
import type { TilthEvent } from '../../shared/events.ts';
import { detectSandbox } from '../proc/sandbox.ts';
import { previewMerge } from '../review/merge.ts';
import { makeExampleRepo, type ExampleRepo } from '../demo/example-repo.ts';
import { CJS_MOCHA_ENV, installExample } from '../testing/example-installs.ts';
import { startScriptedModel, type ScriptedModel, type ScriptedReplyInput } from '../scripted-model/model-server.ts';
import { caseTurn, makePreparedSession, nodeTest, noLearning, verdictTurn, writeTurn } from '../testing/run-fixtures.ts';
import { auth, makeTestApp, type TestApp, type TestAppOptions } from '../testing/test-app.ts';
import { planEnvironment, SETUP_FILE } from './provision.ts';

const PREP = 'prep-model';
const WORKER = 'worker-model';
const EVAL = 'eval-model';
const post = { ...auth, origin: 'http://localhost' };
const sandboxed = detectSandbox('auto').available;

let fake: ScriptedModel;
let t: TestApp | undefined;
let repo: ExampleRepo | undefined;

async function open(options: TestAppOptions = {}, env: NodeJS.ProcessEnv = {}): Promise<TestApp> {
  t = await makeTestApp({
    env: { TILTH_BASE_URL: fake.baseURL, TILTH_API_KEY: 'test-key', TILTH_WORKER_MODEL: WORKER, TILTH_EVALUATOR_MODEL: EVAL, TILTH_PREP_MODEL: PREP, ...env },
    ...options,
  });
  return t;
}

beforeEach(async () => {
  fake = await startScriptedModel();
});
afterEach(async () => {
  await t?.close();
  t = undefined;
  await fake.close();
  await repo?.cleanup();
  repo = undefined;
});

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

async function detail(app: TestApp, id: string): Promise<SessionDetail> {
  return SessionDetailSchema.parse((await app.app.inject({ url: `/api/sessions/${id}`, headers: auth })).json());
}

async function until(app: TestApp, id: string, test: (d: SessionDetail) => boolean, what: string, timeoutMs = 60_000): Promise<SessionDetail> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const d = await detail(app, id);
    if (test(d) && !d.interview?.running && d.run.state === 'idle' && d.session.status !== 'running') return d;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(d.session)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const events = (app: TestApp, id: string): TilthEvent[] => app.store.session(id).log().readAfter(0, 100_000);
const ofType = <T extends TilthEvent['type']>(app: TestApp, id: string, type: T) =>
  events(app, id).filter((e): e is Extract<TilthEvent, { type: T }> => e.type === type);

function commitSetup(dir: string, script: string): void {
  fs.mkdirSync(path.join(dir, '.tilth'), { recursive: true });
  fs.writeFileSync(path.join(dir, SETUP_FILE), script);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'a setup command for Tilth');
}

async function create(app: TestApp, dir: string): Promise<string> {
  const res = await app.app.inject({ method: 'POST', url: '/api/sessions', headers: post, payload: { workspace: dir, brief: 'Add due dates to todos' } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().session.id as string;
}

const ask = (question: string): ScriptedReplyInput => ({ tool_calls: [{ name: 'ask_user', arguments: { question } }] });

describe('at prep', () => {
  it("runs the committed .tilth/setup in the worktree before the interviewer's first question, its output as events", async () => {
    repo = await makeExampleRepo('js-todo');
    commitSetup(repo.dir, 'echo "preparing $(basename "$(pwd)")"\nmkdir -p coverage && echo ready > coverage/setup-ran\n');
    const app = await open();
    fake.enqueue(PREP, ask('Which date format?'));
    const id = await create(app, repo.dir);
    const d = await until(app, id, (s) => s.interview?.pending !== null && s.interview?.pending !== undefined, 'the first question');
    expect(d.session.status).toBe('interviewing');
    const types = events(app, id).map((e) => e.type);
    expect(types.indexOf('setup_finished')).toBeLessThan(types.indexOf('model_call'));
    expect(ofType(app, id, 'setup_started')[0]?.data).toEqual({ step: 'setup', command: SETUP_FILE, origin: 'committed', reason: 'prep', network: false });
    expect(
      ofType(app, id, 'setup_output')
        .map((e) => e.data.text)
        .join(''),
    ).toBe('preparing workspace\n');
    expect(ofType(app, id, 'setup_finished')[0]?.data).toMatchObject({ passed: true, exit_code: 0 });
    const wt = app.store.session(id).checkpoint.read().worktree;
    expect(fs.readFileSync(path.join(wt, 'coverage', 'setup-ran'), 'utf8')).toBe('ready\n');
    expect(fs.existsSync(path.join(repo.dir, 'coverage'))).toBe(false);
    expect(app.store.session(id).checkpoint.read().environment?.ready_at).not.toBeNull();
  });

  it('fails prep when the setup fails, with its output and what to do, before any model call; a retry runs it again', async () => {
    repo = await makeExampleRepo('js-todo');
    commitSetup(repo.dir, 'echo "cannot reach the registry" >&2\nexit 7\n');
    const app = await open();
    const id = await create(app, repo.dir);
    const d = await until(app, id, (s) => s.session.status === 'failed', 'prep to fail');
    expect(d.session.last_stop).toBe('setup_failed');
    expect(d.last_error).toContain('The setup command `.tilth/setup` (committed in the repository) exited with 7');
    expect(d.last_error).toContain('cannot reach the registry');
    expect(d.last_error).toContain('allow the network for this session');
    expect(fake.requests).toHaveLength(0);

    fake.enqueue(PREP, ask('Which date format?'));
    fs.writeFileSync(path.join(app.store.session(id).checkpoint.read().worktree, SETUP_FILE), 'echo fixed\n');
    const retry = await app.app.inject({ method: 'POST', url: `/api/sessions/${id}/interview/retry`, headers: post });
    expect(retry.statusCode, retry.body).toBe(200);
    await until(app, id, (s) => s.interview?.pending !== null && s.interview?.pending !== undefined, 'the first question');
    expect(ofType(app, id, 'setup_finished').map((e) => e.data.passed)).toEqual([false, true]);
  });

  it.runIf(sandboxed)(
    "links the checkout's installed node_modules into the worktree when detection says it has them",
    async () => {
      repo = await makeExampleRepo('cjs-mocha');
      await installExample(repo.dir, 'cjs-mocha');
      const detected = CJS_MOCHA_ENV;
      const app = await open({ projectEnv: async () => detected });
      fake.enqueue(PREP, ask('Which date format?'));
      const id = await create(app, repo.dir);
      await until(app, id, (s) => s.interview?.pending !== null && s.interview?.pending !== undefined, 'the first question');
      const wt = app.store.session(id).checkpoint.read().worktree;
      expect(ofType(app, id, 'env_prepared')[0]?.data).toMatchObject({ reason: 'prep', node_modules_from: path.join(repo.dir, 'node_modules') });
      expect(fs.readlinkSync(path.join(wt, 'node_modules', 'ms'))).toBe(path.join(repo.dir, 'node_modules', 'ms'));
      expect(git(wt, 'status', '--porcelain')).toBe('');
      // Discarding removes the links, never what they point at.
      const installed = fs.readdirSync(path.join(repo.dir, 'node_modules', 'ms'));
      const discard = await app.app.inject({ method: 'DELETE', url: `/api/sessions/${id}?confirm=${id}`, headers: post });
      expect(discard.statusCode, discard.body).toBe(200);
      expect(fs.existsSync(wt)).toBe(false);
      expect(fs.readdirSync(path.join(repo.dir, 'node_modules', 'ms'))).toEqual(installed);
      expect(git(repo.dir, 'status', '--porcelain')).toBe('');
    },
    300_000,
  );
});

/** A test of the cjs-mocha example for a new `src/due.js` that formats durations with the `ms` dependency. */
const DUE_TEST = [
  "'use strict';",
  "const assert = require('node:assert/strict');",
  "const { dueLabel } = require('../src/due.js');",
  '',
  "describe('dueLabel', () => {",
  "  it('says how long until a todo is due', () => {",
  "    assert.equal(dueLabel({ due: 2 * 60 * 60 * 1000 }, 0), 'due in 2h');",
  '  });',
  '});',
  '',
].join('\n');
const DUE_IMPL =
  "'use strict';\nconst ms = require('ms');\n\nfunction dueLabel(todo, now) {\n  return `due in ${ms(todo.due - now)}`;\n}\n\nmodule.exports = { dueLabel };\n";

/**
 * A prepared js-todo session whose environment is ready, and the seed edit that sets a setup
 * command (the tasks and tests as they are).
 */
async function sessionForSetup(app: TestApp) {
  repo = await makeExampleRepo('js-todo');
  const id = await makePreparedSession(app.store, repo.dir, 'node', [
    { id: 'T-001', title: 'Double', tests: { 'tests/t001_double.test.js': nodeTest('double', 'double', '2', '4') } },
  ]);
  const wt = app.store.session(id).checkpoint.read().worktree;
  app.store.session(id).checkpoint.update(() => ({
    environment: { plan: planEnvironment({ source: repo!.dir, worktree: wt, env: null }), ready_at: new Date().toISOString() },
  }));
  const seed = (await app.app.inject({ url: `/api/sessions/${id}/seed`, headers: auth })).json();
  const edit = (setup_command: string) => ({
    prd_entries: seed.prd.map((t: Record<string, unknown>) => ({
      id: t.id,
      title: t.title,
      description: t.description,
      acceptance_criteria: t.acceptance_criteria,
      criteria_tests: t.criteria_tests,
    })),
    test_files: seed.test_files,
    setup_command,
  });
  return { id, wt, edit };
}

describe.runIf(sandboxed)('at a run', () => {
  it('cjs-mocha: the checks find mocha and `ms` before the run, again in a worktree resume re-creates, and in the merge preview', async () => {
    repo = await makeExampleRepo('cjs-mocha');
    await installExample(repo.dir, 'cjs-mocha');
    const app = await open({}, { TILTH_MAX_ITERATIONS_PER_TASK: '1' });
    const id = await makePreparedSession(app.store, repo.dir, 'custom', [
      { id: 'T-001', title: 'Due label', tests: { 'tests/t001_due_label.test.js': DUE_TEST } },
    ]);
    const wt = app.store.session(id).checkpoint.read().worktree;
    const plan = planEnvironment({
      source: repo.dir,
      worktree: wt,
      env: { ...CJS_MOCHA_ENV, test_runner_evidence: null, test_globs: [] },
    });
    app.store.session(id).checkpoint.update(() => ({ custom_checks: { test: 'mocha {files}' }, environment: { plan, ready_at: null } }));

    // First run: the worker writes the code but its one iteration ends without a case.
    fake.load({ models: { [WORKER]: [writeTurn('src/due.js', DUE_IMPL)], [EVAL]: [] } });
    expect((await app.app.inject({ method: 'POST', url: `/api/sessions/${id}/run`, headers: post })).statusCode).toBe(202);
    let d = await until(app, id, (s) => s.session.status === 'stopped', 'the iteration cap');
    expect(d.session.last_stop).toBe('iter_cap');
    // Prep had not finished: the contract check before the run gives the worktree its environment.
    expect(ofType(app, id, 'env_prepared').map((e) => e.data.reason)).toEqual(['prep']);

    fs.rmSync(wt, { recursive: true, force: true });
    fake.load({ models: { [WORKER]: [caseTurn('dueLabel added', 'Due label works', 'src/due.js'), noLearning], [EVAL]: [verdictTurn('accept')] } });
    expect((await app.app.inject({ method: 'POST', url: `/api/sessions/${id}/run`, headers: post })).statusCode).toBe(202);
    d = await until(app, id, (s) => s.session.status === 'all_done', 'the resumed run');
    expect(ofType(app, id, 'env_prepared').map((e) => e.data.reason)).toEqual(['prep', 'recreated']);
    const checks = ofType(app, id, 'validator_run').at(-1)!;
    expect(checks.data.passed, checks.data.results[0]?.output).toBe(true);
    expect(checks.data.results[0]?.output).toMatch(/1 passing/);
    expect(git(wt, 'show', '--name-only', '--format=', 'HEAD')).toBe('src/due.js');

    const preview = await previewMerge(app.store.session(id), 'merge');
    expect(preview.passed, JSON.stringify(preview.tests)).toBe(true);
    expect(git(repo.dir, 'status', '--porcelain')).toBe('');
  }, 300_000);

  it('runs a setup command set in seed review before the worker, once', async () => {
    const app = await open();
    const { id, wt, edit: editWith } = await sessionForSetup(app);
    const edit = editWith('mkdir -p coverage && date +%s%N >> coverage/setup-runs');
    const put = await app.app.inject({ method: 'PUT', url: `/api/sessions/${id}/seed`, headers: post, payload: edit });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json().meta.setup_command).toBe(edit.setup_command);
    expect(ofType(app, id, 'seed_edited').at(-1)?.data.changed).toEqual(['setup command']);
    // It ran for the contract check, so the check saw the environment the worker gets.
    expect(ofType(app, id, 'setup_finished')).toHaveLength(1);
    expect(put.json().contract.filter((w: { kind: string }) => w.kind === 'environment')).toEqual([]);

    fake.load({
      models: {
        [WORKER]: [writeTurn('src/double.js', 'export function double(n) {\n  return n * 2;\n}\n'), caseTurn(), noLearning],
        [EVAL]: [verdictTurn('accept')],
      },
    });
    expect((await app.app.inject({ method: 'POST', url: `/api/sessions/${id}/run`, headers: post })).statusCode).toBe(202);
    await until(app, id, (s) => s.session.status === 'all_done', 'the run');
    expect(ofType(app, id, 'setup_started').map((e) => e.data)).toEqual([
      { step: 'setup', command: edit.setup_command, origin: 'seed_review', reason: 'setup_changed', network: false },
    ]);
    const types = events(app, id).map((e) => e.type);
    expect(types.indexOf('setup_finished')).toBeLessThan(types.indexOf('model_call'));
    expect(
      fs
        .readFileSync(path.join(wt, 'coverage', 'setup-runs'), 'utf8')
        .trim()
        .split('\n'),
    ).toHaveLength(1);
    expect(app.store.session(id).checkpoint.read().environment?.plan.setup).toEqual({ command: edit.setup_command, origin: 'seed_review' });
    expect(git(wt, 'show', '--name-only', '--format=', 'HEAD')).toBe('src/double.js');
  });

  it('a failing setup command set in seed review is an environment problem: Run is refused until it is fixed', async () => {
    const app = await open();
    const { id, wt, edit } = await sessionForSetup(app);

    const broken = await app.app.inject({
      method: 'PUT',
      url: `/api/sessions/${id}/seed`,
      headers: post,
      payload: edit('echo "no database at localhost:5432" >&2; exit 3'),
    });
    expect(broken.statusCode, broken.body).toBe(200);
    const [problem, ...rest] = broken.json().contract.filter((w: { kind: string }) => w.kind === 'environment');
    expect(rest).toEqual([]);
    expect(problem.message).toMatch(/exit 3|exited with 3|code 3/);
    expect(problem.message).toContain('no database at localhost:5432');
    const refused = await app.app.inject({ method: 'POST', url: `/api/sessions/${id}/run`, headers: post });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.code).toBe('environment_problem');

    const fixed = await app.app.inject({
      method: 'PUT',
      url: `/api/sessions/${id}/seed`,
      headers: post,
      payload: edit('mkdir -p coverage && touch coverage/ready'),
    });
    expect(fixed.statusCode, fixed.body).toBe(200);
    expect(fixed.json().contract.filter((w: { kind: string }) => w.kind === 'environment')).toEqual([]);
    expect(fs.existsSync(path.join(wt, 'coverage', 'ready'))).toBe(true);
    // Refusing the run checked again (the user may have fixed it outside Tilth): the setup ran again.
    expect(ofType(app, id, 'setup_finished').map((e) => e.data.passed)).toEqual([false, false, true]);
  });
});
