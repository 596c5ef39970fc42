/**
 * The run end to end through the API: the scripted model, real git, real test processes, a real
 * filesystem. Each test builds a prepared session straight from a seed.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionDetailSchema, type SessionDetail } from '../../shared/api.ts';
import type { Checkpoint } from '../../shared/files.ts';
import { SummarySchema } from '../../shared/summary.ts';
import type { TilthEvent } from '../../shared/events.ts';
import { makeExampleRepo, type ExampleRepo } from '../demo/example-repo.ts';
import { startScriptedModel, type ScriptedModel } from '../scripted-model/model-server.ts';
import { caseTurn, makePreparedSession, noLearning, nodeTest, verdictTurn, workerTurn, writeTurn, type SeedTask } from '../testing/run-fixtures.ts';
import { auth, makeTestApp, type TestApp, type TestAppOptions } from '../testing/test-app.ts';
import { detectSandbox } from '../proc/sandbox.ts';

const WORKER = 'worker-model';
const EVAL = 'eval-model';
const post = { ...auth, origin: 'http://localhost' };

let fake: ScriptedModel;
let t: TestApp;
let repo: ExampleRepo;

async function open(env: NodeJS.ProcessEnv = {}, options: TestAppOptions = {}): Promise<void> {
  t = await makeTestApp({
    env: { TILTH_BASE_URL: fake.baseURL, TILTH_API_KEY: 'test-key', TILTH_WORKER_MODEL: WORKER, TILTH_EVALUATOR_MODEL: EVAL, ...env },
    ...options,
  });
}

beforeEach(async () => {
  fake = await startScriptedModel();
  repo = await makeExampleRepo('js-todo');
});
afterEach(async () => {
  await t?.close();
  await fake.close();
  await repo.cleanup();
});

const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();

const THREE: SeedTask[] = [
  { id: 'T-001', title: 'Double', tests: { 'tests/t001_double.test.js': nodeTest('double', 'double', '2', '4') } },
  { id: 'T-002', title: 'Triple', tests: { 'tests/t002_triple.test.js': nodeTest('triple', 'triple', '2', '6') } },
  { id: 'T-003', title: 'Square', tests: { 'tests/t003_square.test.js': nodeTest('square', 'square', '3', '9') } },
];
const impl = (name: string, body: string) => writeTurn(`src/${name}.js`, `export function ${name}(n) {\n  return ${body};\n}\n`);

async function detail(id: string): Promise<SessionDetail> {
  return SessionDetailSchema.parse((await t.app.inject({ url: `/api/sessions/${id}`, headers: auth })).json());
}

async function start(id: string, expected = 202) {
  const res = await t.app.inject({ method: 'POST', url: `/api/sessions/${id}/run`, headers: post });
  expect(res.statusCode, res.body).toBe(expected);
  return res.json();
}

async function settled(id: string, timeoutMs = 30_000): Promise<SessionDetail> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const d = await detail(id);
    if (d.run.state === 'idle' && d.session.status !== 'running') return d;
    if (Date.now() > deadline) throw new Error(`run did not settle: ${JSON.stringify(d.session)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function events(id: string): TilthEvent[] {
  return t.store.session(id).log().readAfter(0, 100_000);
}
const ofType = <T extends TilthEvent['type']>(id: string, type: T) => events(id).filter((e): e is Extract<TilthEvent, { type: T }> => e.type === type);
const checkpoint = (id: string): Checkpoint => t.store.session(id).checkpoint.read();

// Every task here runs real test runners several times (the checks, then each named case alone,
// twice, for the green proof), so a run takes longer than vitest's default 20 s on a loaded
// machine; the budget is generous, the assertions say what must happen.
const RUN_BUDGET = { timeout: 90_000 };

describe('the run', RUN_BUDGET, () => {
  it('proves each criterion red before the work and green at the commit, and the task review shows both with the claim', async () => {
    await open();
    const id = await makePreparedSession(t.store, repo.dir, 'node', [THREE[0]!]);
    fake.load({
      models: {
        [WORKER]: [impl('double', 'n * 2'), caseTurn('Doubles.', 'Double works', 'src/double.js:double()'), noLearning],
        [EVAL]: [verdictTurn('accept')],
      },
    });
    await start(id);
    expect((await settled(id)).session.status).toBe('all_done');
    fake.assertDone();

    // Red: proven before the first run started, on the seed commit.
    expect(t.store.session(id).seedProof.read()?.tasks['T-001']).toEqual([
      { test: 'double works', result: 'failed', detail: expect.any(String), runs: ['failed', 'failed'] },
    ]);
    // Green: recorded with the accepting ledger entry.
    const accepted = t.store.session(id).ledger.read('T-001').at(-1)!;
    expect(accepted.green).toEqual([{ test: 'double works', result: 'passed', detail: 'it passes already', runs: ['passed', 'passed'] }]);
    const review = (await t.app.inject({ url: `/api/sessions/${id}/tasks/T-001`, headers: auth })).json();
    expect(review.criteria).toEqual([
      { criterion: 'Double works', tests: ['double works'], red: 'failed', green: 'passed', claimed_by: 'src/double.js:double()', evaluator: null },
    ]);
    // The evaluator read which test checks the criterion.
    const judged = JSON.stringify(fake.requests.filter((r) => r.model === EVAL)[0]!.messages);
    expect(judged).toContain('checked by: `double works`');
  });

  it('runs each named case TILTH_PROOF_REPEATS times in the red proof before the first run and in the green gate', async () => {
    await open({ TILTH_PROOF_REPEATS: '3' });
    const id = await makePreparedSession(t.store, repo.dir, 'node', [THREE[0]!]);
    fake.load({ models: { [WORKER]: [impl('double', 'n * 2'), caseTurn(), noLearning], [EVAL]: [verdictTurn('accept')] } });
    await start(id);
    expect((await settled(id)).session.status).toBe('all_done');
    expect(t.store.session(id).seedProof.read()?.tasks['T-001']?.[0]?.runs).toEqual(['failed', 'failed', 'failed']);
    expect(t.store.session(id).ledger.read('T-001').at(-1)!.green?.[0]?.runs).toEqual(['passed', 'passed', 'passed']);
  });

  it('probes an accepted task with mutants beside the run, and says all done only once the probe has reported', async () => {
    await open({ TILTH_MUTATION_SECONDS: '30' });
    const id = await makePreparedSession(t.store, repo.dir, 'node', [THREE[0]!]);
    fake.load({ models: { [WORKER]: [impl('double', 'n * 2'), caseTurn(), noLearning], [EVAL]: [verdictTurn('accept')] } });
    await start(id);
    expect((await settled(id)).session.status).toBe('all_done');
    const [probe] = ofType(id, 'mutation_probe');
    // `return n * 2;`: 2 → 3 and returning undefined are both caught by double(2) === 4.
    expect(probe?.data).toMatchObject({ task_id: 'T-001', status: 'done', killed: 2, survived: 0, survivors: [], note: null });
    const allDone = events(id).find((e) => e.type === 'status_changed' && e.data.to === 'all_done')!;
    expect(allDone.seq).toBeGreaterThan(probe!.seq);
    const review = (await t.app.inject({ url: `/api/sessions/${id}/tasks/T-001`, headers: auth })).json();
    expect(review.mutation).toMatchObject({ status: 'done', killed: 2, survived: 0 });
    expect(fs.existsSync(path.join(t.store.session(id).dir, 'probe-scratch', 'T-001'))).toBe(false);
  });

  it('answers a case that leaves a criterion out at once: no checks run and no evaluator call is spent on it', async () => {
    await open();
    const criteria = ['double(2) returns 4', 'double rejects a string with a TypeError'];
    const id = await makePreparedSession(t.store, repo.dir, 'node', [{ ...THREE[0]!, criteria }]);
    const fullCase = workerTurn([
      'submit_case',
      {
        summary: 'Doubles numbers and rejects strings.',
        ac_coverage: criteria.map((criterion) => ({ criterion, addressed_by: 'src/double.js:double()' })),
      },
    ]);
    fake.load({
      models: {
        // The first case covers only the first criterion.
        [WORKER]: [impl('double', 'n * 2'), caseTurn('Doubles.', 'double(2) returns 4', 'src/double.js:double()'), fullCase, noLearning],
        [EVAL]: [verdictTurn('accept')],
      },
    });
    await start(id);
    const d = await settled(id);
    fake.assertDone();
    expect(d.session.status).toBe('all_done');

    const [gap, ...more] = ofType(id, 'coverage_gap');
    expect(more).toEqual([]);
    expect(gap?.data).toMatchObject({ task_id: 'T-001', missing: ['double rejects a string with a TypeError'], criteria: 2 });
    // The gate answered before anything ran: the only check run and the only verdict come after it.
    const seqsOf = (type: TilthEvent['type']) =>
      events(id)
        .filter((e) => e.type === type)
        .map((e) => e.seq);
    const checkRuns = seqsOf('validator_run');
    expect(checkRuns).toHaveLength(1);
    expect(seqsOf('evaluator_verdict')).toHaveLength(1);
    expect(checkRuns[0]!).toBeGreaterThan(gap!.seq);
    // The worker read which criterion was missing, verbatim.
    const third = JSON.stringify(fake.requests.filter((r) => r.model === WORKER)[2]!.messages.at(-1));
    expect(third).toContain('not sent to the reviewer');
    expect(third).toContain('- double rejects a string with a TypeError');
  });

  it('runs three node tasks to three commits over the seed commit, leaving the source repo untouched', async () => {
    await open();
    const id = await makePreparedSession(t.store, repo.dir, 'node', THREE);
    fake.load({
      models: {
        [WORKER]: [
          impl('double', 'n * 2'),
          caseTurn(),
          noLearning,
          impl('triple', 'n * 3'),
          caseTurn(),
          noLearning,
          impl('square', 'n * n'),
          caseTurn(),
          { content: '{"learning": "Keep one function per file in src/."}' },
        ],
        [EVAL]: [verdictTurn('accept'), verdictTurn('accept'), verdictTurn('accept')],
      },
    });
    const sourceStatus = git(repo.dir, 'status', '--porcelain');
    const sourceHead = git(repo.dir, 'rev-parse', 'HEAD');
    await start(id);
    const d = await settled(id);
    fake.assertDone();

    expect(d.session.status).toBe('all_done');
    expect(d.tasks.map((x) => x.status)).toEqual(['done', 'done', 'done']);
    const wt = checkpoint(id).worktree;
    expect(git(wt, 'log', '--format=%s', '-4').split('\n')).toEqual(['T-003: Square', 'T-002: Triple', 'T-001: Double', 'seed: 3 task(s)']);
    expect(git(wt, 'status', '--porcelain')).toBe('');
    expect(git(repo.dir, 'status', '--porcelain')).toBe(sourceStatus);
    expect(git(repo.dir, 'rev-parse', 'HEAD')).toBe(sourceHead);

    const progress = fs.readFileSync(path.join(t.store.session(id).dir, 'progress.txt'), 'utf8');
    expect(progress).toBe('T-001\tdone\tDouble\nT-002\tdone\tTriple\nT-003\tdone\tSquare\n');
    expect(ofType(id, 'commit').map((e) => e.data.task_id)).toEqual(['T-001', 'T-002', 'T-003']);
    expect(fs.readFileSync(path.join(t.store.session(id).dir, 'proposed-learnings.md'), 'utf8')).toContain(
      '## From T-003 — Square\n\n- Keep one function per file in src/.',
    );

    const start0 = ofType(id, 'session_start').find((e) => e.data.phase === 'run')!;
    expect(start0.data.caps).toMatchObject({ max_iterations_per_task: 32, max_evaluator_calls_per_task: 0 });

    const summary = SummarySchema.parse(JSON.parse(fs.readFileSync(path.join(t.store.session(id).dir, 'summary.json'), 'utf8')));
    expect(Object.values(summary.tasks).map((x) => x.status)).toEqual(['done', 'done', 'done']);
    expect(summary.verdicts.accepts).toBe(3);
    expect(summary.stop?.reason).toBe('all_done');
    expect(checkpoint(id).usage.calls).toBe(12); // 9 worker (3 of them learnings) + 3 evaluator

    // The worker never sees harness file names.
    for (const r of fake.requests.filter((x) => x.model === WORKER)) {
      const text = JSON.stringify(r.messages);
      for (const name of ['prd.json', 'progress.txt', 'seed-meta.json', 'ledger/', 'checkpoint.json', 'steering.jsonl']) expect(text).not.toContain(name);
    }
  });

  it('runs the tasks in the order of the plan, whatever their numbers, and copes with a gap in the ids', async () => {
    await open();
    // As seed review leaves a plan after T-002 was removed and T-003 moved first.
    const id = await makePreparedSession(t.store, repo.dir, 'node', [THREE[2]!, THREE[0]!]);
    fake.load({
      models: {
        [WORKER]: [impl('square', 'n * n'), caseTurn(), noLearning, impl('double', 'n * 2'), caseTurn(), noLearning],
        [EVAL]: [verdictTurn('accept'), verdictTurn('accept')],
      },
    });
    await start(id);
    const d = await settled(id);
    fake.assertDone();
    expect(d.session.status).toBe('all_done');
    expect(d.tasks.map((x) => [x.id, x.status])).toEqual([
      ['T-003', 'done'],
      ['T-001', 'done'],
    ]);
    expect(git(checkpoint(id).worktree, 'log', '--format=%s', '-3').split('\n')).toEqual(['T-001: Double', 'T-003: Square', 'seed: 2 task(s)']);
  });

  it('sends a failing check back to the worker, and the fix then passes', async () => {
    await open();
    const id = await makePreparedSession(t.store, repo.dir, 'node', THREE.slice(0, 1));
    fake.load({
      models: {
        [WORKER]: [impl('double', 'n * 3'), caseTurn(), impl('double', 'n * 2'), caseTurn(), noLearning],
        [EVAL]: [verdictTurn('accept')],
      },
    });
    await start(id);
    const d = await settled(id);
    expect(d.session.status).toBe('all_done');
    const runs = ofType(id, 'validator_run');
    expect(runs.map((e) => e.data.passed)).toEqual([false, true]);
    expect(runs[0]!.data.results[0]!.output).toMatch(/6|expected/);
    // The third worker request answers the first case with the check output.
    const third = fake.requests.filter((r) => r.model === WORKER)[2]!;
    const lastTool = (third.messages as { role: string; content: string }[]).filter((m) => m.role === 'tool').at(-1)!;
    expect(lastTool.content).toContain('The checks failed');
    expect(lastTool.content).toContain('t001_double.test.js');
  });

  it('records a reject then an accept in the ledger; the worker gets next_step, the evaluator its first verdict', async () => {
    await open();
    const id = await makePreparedSession(t.store, repo.dir, 'node', THREE.slice(0, 1));
    fake.load({
      models: {
        [WORKER]: [impl('double', 'n * 2'), caseTurn(), workerTurn(['read_file', { path: 'src/double.js' }]), caseTurn('Now with a doc comment.'), noLearning],
        [EVAL]: [verdictTurn('reject', { category: 'half_finished', next_step: 'Add a JSDoc comment to double().' }), verdictTurn('accept')],
      },
    });
    await start(id);
    expect((await settled(id)).session.status).toBe('all_done');
    const ledger = t.store.session(id).ledger.read('T-001');
    expect(ledger.map((e) => e.verdict.verdict)).toEqual(['reject', 'accept']);
    expect(ledger[0]!.diff_summary).toContain('src/double.js (+3 -0)');
    const workerReqs = fake.requests.filter((r) => r.model === WORKER);
    expect(JSON.stringify(workerReqs[2]!.messages)).toContain('Add a JSDoc comment to double().');
    const evalReqs = fake.requests.filter((r) => r.model === EVAL);
    expect(JSON.stringify(evalReqs[1]!.messages)).toContain('half_finished');
    expect(JSON.stringify(evalReqs[1]!.messages)).toContain('Add a JSDoc comment to double().');
  });

  it('refuses the first run when a test case named for a criterion does not run at all (skipped), and seed review says why', async () => {
    await open();
    const skipped =
      "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport * as m from '../src/todo.js';\n\ntest.skip('double works', () => assert.equal(m.double(2), 4));\n";
    const id = await makePreparedSession(t.store, repo.dir, 'node', [{ id: 'T-001', title: 'Double', tests: { 'tests/t001_double.test.js': skipped } }]);
    const body = await start(id, 409);
    expect(body.error.code).toBe('environment_problem');
    expect(body.error.message).toMatch(
      /cannot prove the work: The test case "double works" of T-001 did not run: T-001's case `double works` was skipped by node --test in tests\/t001_double.test.js, so it proves nothing/,
    );
    const seed = (await t.app.inject({ url: `/api/sessions/${id}/seed`, headers: auth })).json();
    expect(seed.criteria['T-001']).toEqual([
      { criterion: 'Double works', tests: ['double works'], red: 'not_run', red_detail: expect.stringContaining('was skipped by node --test') },
    ]);
    expect(seed.contract.map((w: { kind: string }) => w.kind)).toContain('case_error');
    expect(fake.requests).toEqual([]);
  });

  it('refuses the first run when the acceptance tests cannot run in the environment, showing the output', async () => {
    await open();
    // Mocha's globals under node --test: no work on the task could make this test load.
    const mochaStyle =
      "import assert from 'node:assert/strict';\nimport * as todo from '../src/todo.js';\n\ndescribe('double', () => {\n  it('doubles', () => assert.equal(todo.double(2), 4));\n});\n";
    const id = await makePreparedSession(t.store, repo.dir, 'node', [{ id: 'T-001', title: 'Double', tests: { 'tests/t001_double.test.js': mochaStyle } }]);
    const body = await start(id, 409);
    expect(body.error.code).toBe('environment_problem');
    expect(body.error.message).toMatch(/cannot run in this environment.*uses `describe` as a global/s);
    expect(body.error.message).toContain('ReferenceError: describe is not defined');
    expect(checkpoint(id).status).toBe('prepared');
    expect(fake.requests).toEqual([]);
  });

  it('checks again on request once the environment is fixed outside Tilth', async () => {
    await open();
    const pkg = JSON.parse(fs.readFileSync(path.join(repo.dir, 'package.json'), 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(path.join(repo.dir, 'package.json'), JSON.stringify({ ...pkg, dependencies: { 'left-pad': '^1.3.0' } }, null, 2));
    git(repo.dir, 'commit', '-qam', 'Depend on left-pad');
    const test =
      "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport leftPad from 'left-pad';\nimport { pad } from '../src/pad.js';\n\ntest('pads', () => assert.equal(pad('1'), leftPad('1', 3, '0')));\n";
    const id = await makePreparedSession(t.store, repo.dir, 'node', [{ id: 'T-001', title: 'Pad', tests: { 'tests/t001_pad.test.js': test } }]);
    const seed = async (query = '') =>
      (await t.app.inject({ url: `/api/sessions/${id}/seed${query}`, headers: auth })).json() as { contract: { kind: string; message: string }[] };
    expect((await seed()).contract).toEqual([
      expect.objectContaining({ kind: 'environment', message: expect.stringMatching(/'left-pad' is a dependency in package\.json but is not installed/) }),
    ]);

    // The user installs the dependency; the remembered result still says what it said, until asked again.
    const installed = path.join(checkpoint(id).worktree, 'node_modules', 'left-pad');
    fs.mkdirSync(installed, { recursive: true });
    fs.writeFileSync(path.join(installed, 'package.json'), JSON.stringify({ name: 'left-pad', version: '1.3.0', type: 'module', main: 'index.js' }));
    fs.writeFileSync(path.join(installed, 'index.js'), 'export default (s, n, c) => String(s).padStart(n, c);\n');
    expect((await seed()).contract.map((w) => w.kind)).toEqual(['environment']);
    expect((await seed('?recheck=1')).contract).toEqual([]);
    expect((await t.app.inject({ url: `/api/sessions/${id}/seed?recheck=yes`, headers: auth })).statusCode).toBe(400);
  });

  it('refuses to run a session that is not prepared or stopped, with the reason', async () => {
    await open();
    const id = await makePreparedSession(t.store, repo.dir, 'node', THREE.slice(0, 1));
    t.store.session(id).checkpoint.setStatus('all_done');
    const body = await start(id, 409);
    expect(body.error.code).toBe('session_not_runnable');
    expect(body.error.message).toContain('all_done');
    const stop = await t.app.inject({ method: 'POST', url: `/api/sessions/${id}/stop`, headers: post });
    expect(stop.statusCode).toBe(409);
    const bad = await t.app.inject({ method: 'POST', url: `/api/sessions/${id}/run`, headers: post, payload: { force: true } });
    expect(bad.statusCode).toBe(400);
  });
});

describe('every stop is loud and resumable', RUN_BUDGET, () => {
  const ONE = THREE.slice(0, 1);
  async function runOnce(
    env: NodeJS.ProcessEnv,
    worker: Parameters<ScriptedModel['enqueue']>[1][],
    evaluator: Parameters<ScriptedModel['enqueue']>[1][] = [],
    options: TestAppOptions = {},
  ) {
    await open(env, options);
    const id = await makePreparedSession(t.store, repo.dir, 'node', ONE);
    fake.load({ models: { [WORKER]: worker, [EVAL]: evaluator } });
    await start(id);
    const d = await settled(id);
    return { id, d };
  }
  const failedWith = (id: string) => ofType(id, 'task_failed').map((e) => e.data.reason);

  it('iter_cap fails the task with a FAILED placeholder commit; resume folds it back and the retry is judged on all the work', async () => {
    const { id, d } = await runOnce({ TILTH_MAX_ITERATIONS_PER_TASK: '2' }, [impl('double', 'n * 2'), workerTurn(['read_file', { path: 'src/double.js' }])]);
    expect(d.session.status).toBe('stopped');
    expect(d.session.last_stop).toBe('iter_cap');
    expect(d.last_error).toContain('TILTH_MAX_ITERATIONS_PER_TASK=2');
    expect(failedWith(id)).toEqual(['iter_cap']);
    expect(d.tasks[0]!.status).toBe('failed');
    const wt = checkpoint(id).worktree;
    expect(git(wt, 'log', '-1', '--format=%s')).toBe('T-001: FAILED (iter_cap): Double');
    expect(fs.readFileSync(path.join(t.store.session(id).dir, 'progress.txt'), 'utf8')).toBe('T-001\tfailed:iter_cap\tDouble\n');

    const plan = await t.app.inject({ url: `/api/sessions/${id}/resume-plan`, headers: auth });
    expect(plan.json()).toMatchObject({ retried: ['T-001'], pending: [], unwind: true, last_stop: 'iter_cap', worktree_missing: false });
    expect(git(wt, 'log', '-1', '--format=%s')).toBe('T-001: FAILED (iter_cap): Double'); // the plan changed nothing

    fake.load({ models: { [WORKER]: [caseTurn(), noLearning], [EVAL]: [verdictTurn('accept')] } });
    await start(id);
    const after = await settled(id);
    expect(after.session.status).toBe('all_done');
    expect((await t.app.inject({ url: `/api/sessions/${id}/resume-plan`, headers: auth })).statusCode).toBe(409);
    const summary = (await t.app.inject({ url: `/api/sessions/${id}/summary`, headers: auth })).json();
    expect(summary.tasks['T-001']).toMatchObject({ status: 'done', failure_reason: null });
    expect(summary.timeline.attempts.map((a: unknown[]) => a[4])).toEqual(['failed', 'done']);
    expect(summary.last_seq).toBe(t.store.session(id).log().lastSeq);
    const resume = ofType(id, 'session_resume')[0]!;
    expect(resume.data).toMatchObject({ retried: ['T-001'], unwound_commit: true, last_stop: 'iter_cap' });
    expect(resume.data.plan).toContain('retrying T-001 (was: failed)');
    expect(git(wt, 'log', '--format=%s', '-2').split('\n')).toEqual(['T-001: Double', 'seed: 1 task(s)']);
    // The evaluator saw the first attempt's file in the diff.
    expect(JSON.stringify(fake.requests.filter((r) => r.model === EVAL)[0]!.messages)).toContain('return n * 2');
  });

  it('evaluator_cap fails the task after the capped number of rejects, without delivering the feedback', async () => {
    const { id, d } = await runOnce({ TILTH_MAX_EVALUATOR_CALLS_PER_TASK: '1' }, [impl('double', 'n * 2'), caseTurn()], [verdictTurn('reject')]);
    expect(d.session.last_stop).toBe('evaluator_cap');
    expect(failedWith(id)).toEqual(['evaluator_cap']);
  });

  it('evaluator_unreadable after two unreadable verdicts in a row, saying what the evaluator sent, with no loop', async () => {
    const prose = { content: 'The work looks fine to me overall, nicely done.' };
    const { id, d } = await runOnce({}, [impl('double', 'n * 2'), caseTurn()], [prose, prose]);
    expect(d.session.last_stop).toBe('evaluator_unreadable');
    expect(failedWith(id)).toEqual(['evaluator_unreadable']);
    const failed = ofType(id, 'task_failed')[0]!;
    expect(failed.data.detail).toMatch(
      /answered 2 times in a row without a usable submit_verdict call; the last time it sent text instead of a tool call: "The work looks fine/,
    );
    expect(fake.requests.filter((r) => r.model === EVAL)).toHaveLength(2);
    expect(fake.requests.filter((r) => r.model === WORKER)).toHaveLength(2);
  });

  it('empty_responses after three empty replies in a row', async () => {
    const { id, d } = await runOnce({}, [{ fault: 'empty' }, { fault: 'empty' }, { fault: 'empty' }]);
    expect(d.session.last_stop).toBe('empty_responses');
    expect(ofType(id, 'empty_model_response').map((e) => e.data.streak)).toEqual([1, 2, 3]);
  });

  it('no_case after three quiet turns, each nudged', async () => {
    const quiet = { content: 'I think it is done.' };
    const { id, d } = await runOnce({}, [quiet, quiet, quiet]);
    expect(d.session.last_stop).toBe('no_case');
    expect(failedWith(id)).toEqual(['no_case']);
    const third = fake.requests.filter((r) => r.model === WORKER)[2]!;
    expect(JSON.stringify(third.messages)).toContain('without calling `submit_case`');
  });

  it('provider_failure when retries run out; the unhealthy reply never enters the conversation', async () => {
    const { id, d } = await runOnce({}, [{ fault: 'server_error' }, { fault: 'server_error' }]);
    expect(d.session.last_stop).toBe('provider_failure');
    expect(failedWith(id)).toEqual(['provider_failure']);
  });

  it('dollar_cap stops before the model call that would exceed it; the task stays pending', async () => {
    // Each worker turn costs $0.001: after three, spend is $0.003 >= $0.0025.
    const { id, d } = await runOnce({ TILTH_MAX_DOLLARS: '0.0025' }, [
      workerTurn(['read_file', { path: 'package.json' }]),
      workerTurn(['read_file', { path: 'package.json' }]),
      workerTurn(['read_file', { path: 'package.json' }]),
    ]);
    expect(d.session.status).toBe('stopped');
    expect(d.session.last_stop).toBe('dollar_cap');
    expect(d.last_error).toContain('$0.0030');
    expect(fake.requests.filter((r) => r.model === WORKER)).toHaveLength(3);
    expect(d.tasks[0]!.status).toBe('pending');
    expect(ofType(id, 'task_failed')).toHaveLength(0);
    expect(d.usage.cost_usd).toBeCloseTo(0.003, 6);
  });

  it('token_cap stops before a model call once the run has used its tokens', async () => {
    const { d } = await runOnce({ TILTH_MAX_TOKENS: '200' }, [
      workerTurn(['read_file', { path: 'package.json' }]),
      workerTurn(['read_file', { path: 'package.json' }]),
    ]);
    expect(d.session.last_stop).toBe('token_cap');
    expect(fake.requests).toHaveLength(2);
  });

  // SPEC: the caps hold "before every model call" — the evaluator's and the learnings call too.
  it.each([
    // Two worker turns: $0.002 and 240 tokens once the case is in.
    ['dollar_cap', { TILTH_MAX_DOLLARS: '0.0015' }, 'dollar cap reached: $0.0020 of $0.0015 (TILTH_MAX_DOLLARS)'],
    ['token_cap', { TILTH_MAX_TOKENS: '240' }, 'token cap reached: 240 of 240 tokens'],
  ])('%s is checked before the evaluator call: a case that used up the budget is not judged', async (reason, env, message) => {
    const { id, d } = await runOnce(env, [impl('double', 'n * 2'), caseTurn()]);
    expect(d.session.last_stop).toBe(reason);
    expect(d.last_error).toContain(message);
    expect(ofType(id, 'validator_run').map((e) => e.data.passed)).toEqual([true]);
    expect(fake.requests.filter((r) => r.model === EVAL)).toHaveLength(0);
    expect(ofType(id, 'evaluator_verdict')).toHaveLength(0);
    expect(d.tasks[0]!.status).toBe('pending');
    expect(ofType(id, 'task_failed')).toHaveLength(0);
  });

  it.each([
    // Two worker turns and an accept: $0.004 and 470 tokens when the learnings call is due.
    ['dollar_cap', { TILTH_MAX_DOLLARS: '0.0035' }, 'dollar cap reached: $0.0040 of $0.0035 (TILTH_MAX_DOLLARS)'],
    ['token_cap', { TILTH_MAX_TOKENS: '400' }, 'token cap reached: 470 of 400 tokens'],
  ])('%s is checked before the learnings call: it is skipped, the task stays done, the next one pending', async (reason, env, message) => {
    await open(env);
    const id = await makePreparedSession(t.store, repo.dir, 'node', THREE.slice(0, 2));
    fake.load({ models: { [WORKER]: [impl('double', 'n * 2'), caseTurn()], [EVAL]: [verdictTurn('accept')] } });
    await start(id);
    const d = await settled(id);
    fake.assertDone();
    expect(fake.requests.filter((r) => r.model === WORKER)).toHaveLength(2);
    const skipped = ofType(id, 'proposed_learnings').map((e) => e.data);
    expect(skipped).toEqual([expect.objectContaining({ emitted: false, reason: 'error', raw: expect.stringContaining(message) })]);
    expect(d.session.last_stop).toBe(reason);
    expect(d.tasks.map((x) => x.status)).toEqual(['done', 'pending']);
    expect(checkpoint(id).usage.calls).toBe(3);
  });

  it('wall_clock stops between tasks', async () => {
    let calls = 0;
    const { d } = await runOnce({ TILTH_MAX_WALL_CLOCK_MINUTES: '1' }, [], [], { run: { now: () => (calls++ === 0 ? 0 : 5 * 60_000) } });
    expect(d.session.last_stop).toBe('wall_clock');
    expect(d.tasks[0]!.status).toBe('pending');
    expect(fake.requests).toHaveLength(0);
  });

  it('Stop interrupts a model call; resume finishes the task', async () => {
    await open();
    const id = await makePreparedSession(t.store, repo.dir, 'node', ONE);
    fake.load({ models: { [WORKER]: [impl('double', 'n * 2'), { fault: 'hang' }], [EVAL]: [] } });
    await start(id);
    const deadline = Date.now() + 10_000;
    while (fake.requests.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const stop = await t.app.inject({ method: 'POST', url: `/api/sessions/${id}/stop`, headers: post });
    expect(stop.statusCode, stop.body).toBe(200);
    expect(stop.json().was).toBe('running');
    const d = await settled(id);
    expect(d.session.status).toBe('stopped');
    expect(d.session.last_stop).toBe('interrupted');
    expect(fs.existsSync(path.join(checkpoint(id).worktree, 'src/double.js'))).toBe(true);

    fake.load({ models: { [WORKER]: [caseTurn(), noLearning], [EVAL]: [verdictTurn('accept')] } });
    await start(id);
    expect((await settled(id)).session.status).toBe('all_done');
    expect(ofType(id, 'session_resume').at(-1)!.data.plan).toContain('last stop: interrupted');
  });

  it('resuming after a crash first removes the git lock a killed git left in the worktree', async () => {
    await open();
    const id = await makePreparedSession(t.store, repo.dir, 'node', ONE);
    t.store.session(id).checkpoint.setStatus('stopped', { reason: 'crash', phase: 'run', error: 'The server stopped while this session was active.' });
    const lock = path.join(git(checkpoint(id).worktree, 'rev-parse', '--path-format=absolute', '--git-dir'), 'index.lock');
    fs.writeFileSync(lock, '');
    fake.load({ models: { [WORKER]: [impl('double', 'n * 2'), caseTurn(), noLearning], [EVAL]: [verdictTurn('accept')] } });
    await start(id);
    const d = await settled(id);
    expect(d.session.status, d.last_error ?? '').toBe('all_done');
    expect(fs.existsSync(lock)).toBe(false);
  });

  it('re-creates a worktree deleted by hand from its branch', async () => {
    const { id } = await runOnce({ TILTH_MAX_ITERATIONS_PER_TASK: '1' }, [impl('double', 'n * 2')]);
    const wt = checkpoint(id).worktree;
    fs.rmSync(wt, { recursive: true, force: true });
    fake.load({ models: { [WORKER]: [caseTurn(), noLearning], [EVAL]: [verdictTurn('accept')] } });
    await start(id);
    expect((await settled(id)).session.status).toBe('all_done');
    expect(fs.readFileSync(path.join(wt, 'src/double.js'), 'utf8')).toContain('n * 2');
    expect(git(wt, 'log', '-1', '--format=%s')).toBe('T-001: Double');
  });
});

describe('guard, locks, guidance and the queue', RUN_BUDGET, () => {
  it('blocks a push through the guard and tells the model; a worker edit of a locked test fails the checks', async () => {
    await open();
    const id = await makePreparedSession(t.store, repo.dir, 'node', THREE.slice(0, 1));
    fake.load({
      models: {
        [WORKER]: [
          workerTurn(['bash', { command: 'git push origin HEAD' }]),
          writeTurn('tests/t001_double.test.js', '// gutted\n'),
          impl('double', 'n * 2'),
          caseTurn(),
          workerTurn(['bash', { command: 'git show HEAD:tests/t001_double.test.js > tests/t001_double.test.js' }]),
          caseTurn(),
          noLearning,
        ],
        [EVAL]: [verdictTurn('accept')],
      },
    });
    await start(id);
    const done = await settled(id);
    expect(done.session.status, `${done.last_error}`).toBe('all_done');
    const blocks = ofType(id, 'pre_tool_block');
    expect(blocks).toHaveLength(1);
    expect(blocks[0]!.data.result_preview).toContain('BLOCKED');
    const second = fake.requests.filter((r) => r.model === WORKER)[1]!;
    expect(JSON.stringify(second.messages)).toContain('BLOCKED by the pre-tool guard');
    const runs = ofType(id, 'validator_run');
    expect(runs[0]!.data.passed).toBe(false);
    expect(runs[0]!.data.results[0]).toMatchObject({ name: 'locked_tests' });
    expect(runs[0]!.data.results[0]!.output).toContain('tests/t001_double.test.js');
    expect(runs[1]!.data.passed).toBe(true);
  });

  it('hands a guidance note to the worker exactly once', async () => {
    await open();
    const id = await makePreparedSession(t.store, repo.dir, 'node', THREE.slice(0, 2));
    const note = await t.app.inject({ method: 'POST', url: `/api/sessions/${id}/notes`, headers: post, payload: { text: 'Use arrow functions please.' } });
    expect(note.statusCode).toBe(201);
    fake.load({
      models: {
        [WORKER]: [impl('double', 'n * 2'), caseTurn(), noLearning, impl('triple', 'n * 3'), caseTurn(), noLearning],
        [EVAL]: [verdictTurn('accept'), verdictTurn('accept')],
      },
    });
    await start(id);
    expect((await settled(id)).session.status).toBe('all_done');
    const worker = fake.requests.filter((r) => r.model === WORKER);
    const mentions = (r: (typeof worker)[number]) =>
      (r.messages as { content?: string }[]).filter((m) => m.content?.includes('Use arrow functions please.')).length;
    expect(mentions(worker[0]!)).toBe(1);
    expect(mentions(worker[1]!)).toBe(1); // the same first message, not a second copy
    expect(mentions(worker[3]!)).toBe(0); // the next task does not see it again
    expect(ofType(id, 'steering_note').map((e) => e.data.consumed_by?.task_id ?? null)).toEqual([null, 'T-001']);
  });

  it('queues runs past the concurrency limit and starts them in turn', async () => {
    await open({ TILTH_MAX_CONCURRENT_RUNS: '1' });
    const first = await makePreparedSession(t.store, repo.dir, 'node', THREE.slice(0, 1));
    const second = await makePreparedSession(t.store, repo.dir, 'node', THREE.slice(1, 2));
    fake.load({
      models: {
        [WORKER]: [{ ...impl('double', 'n * 2'), delay_ms: 300 }, caseTurn(), noLearning, impl('triple', 'n * 3'), caseTurn(), noLearning],
        [EVAL]: [verdictTurn('accept'), verdictTurn('accept')],
      },
    });
    expect((await start(first)).run.state).toBe('running');
    const queued = await start(second);
    expect(queued.run).toEqual({ state: 'queued', queue_position: 1 });
    expect((await settled(first)).session.status).toBe('all_done');
    await new Promise((r) => setTimeout(r, 50));
    expect((await settled(second)).session.status).toBe('all_done');
  });

  it('runs the pytest preset', async () => {
    await repo.cleanup();
    repo = await makeExampleRepo('py-todo');
    await open();
    const test = ['from todo.double import double', '', '', 'def test_double():', '    assert double(2) == 4', ''].join('\n');
    const id = await makePreparedSession(t.store, repo.dir, 'pytest', [{ id: 'T-001', title: 'Double', tests: { 'tests/test_t001_double.py': test } }]);
    fake.load({
      models: {
        [WORKER]: [
          writeTurn('todo/double.py', 'def double(n):\n    return n * 3\n'),
          caseTurn(),
          writeTurn('todo/double.py', 'def double(n):\n    return n * 2\n'),
          caseTurn(),
          noLearning,
        ],
        [EVAL]: [verdictTurn('accept')],
      },
    });
    await start(id);
    expect((await settled(id)).session.status).toBe('all_done');
    expect(ofType(id, 'validator_run').map((e) => e.data.passed)).toEqual([false, true]);
    expect(ofType(id, 'validator_run')[0]!.data.results[0]!.output).toContain('assert 6 == 4');
  });
});

describe('evaluator provider failure', RUN_BUDGET, () => {
  it('fails the task as provider_failure, resumable', async () => {
    await open();
    const id = await makePreparedSession(t.store, repo.dir, 'node', THREE.slice(0, 1));
    fake.load({ models: { [WORKER]: [impl('double', 'n * 2'), caseTurn()], [EVAL]: [{ fault: 'server_error' }, { fault: 'server_error' }] } });
    await start(id);
    const d = await settled(id);
    expect(d.session.status).toBe('stopped');
    expect(d.session.last_stop).toBe('provider_failure');
    expect(d.tasks[0]!.status).toBe('failed');
  });
});

describe('the sandbox in a run', RUN_BUDGET, () => {
  it.skipIf(!detectSandbox('auto').available)('cuts the network off unless the run allows it', async () => {
    const net = await import('node:net');
    const server = net.createServer((s) => s.end());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      await open({ TILTH_MAX_ITERATIONS_PER_TASK: '1' });
      const probe = workerTurn(['bash', { command: `(exec 3<>/dev/tcp/127.0.0.1/${port}) && echo reached-the-network || echo no-network` }]);
      const results: string[] = [];
      for (const allow of [false, true]) {
        const id = await makePreparedSession(t.store, repo.dir, 'node', THREE.slice(0, 1));
        fake.load({ models: { [WORKER]: [probe] } });
        const res = await t.app.inject({ method: 'POST', url: `/api/sessions/${id}/run`, headers: post, payload: { allow_network: allow } });
        expect(res.statusCode).toBe(202);
        const d = await settled(id);
        expect(d.allow_network).toBe(allow);
        results.push(ofType(id, 'tool_result')[0]!.data.result_preview);
        expect(ofType(id, 'session_start').at(-1)!.data.sandbox).toMatchObject({ available: true, network: allow });
      }
      expect(results[0]).toContain('no-network');
      expect(results[1]).toContain('reached-the-network');
    } finally {
      server.close();
    }
  });
});
