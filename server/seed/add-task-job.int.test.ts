/**
 * Add-task is a job (issue 27), through a real `tilth serve` (and a real `tilth add-task`) with the
 * scripted model: while the model writes the new task's test, the session is held — Resume, rewind,
 * send-back, a seed edit and a second add-task are refused, and so is a headless `tilth resume` —
 * and the add-task can be cancelled, from the API or with Ctrl+C, or ends at its deadline. Any
 * of those leaves the session exactly as it was, and Resume then picks up where it stood.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionDetailSchema, type SessionDetail } from '../../shared/api.ts';
import { makeExampleRepo, type ExampleRepo } from '../demo/example-repo.ts';
import { startScriptedModel, type ScriptedModel } from '../scripted-model/model-server.ts';
import { SessionStore } from '../store/session-store.ts';
import { caseTurn, makePreparedSession, noLearning, nodeTest, verdictTurn } from '../testing/run-fixtures.ts';
import { EVAL, implTurn as impl, PREP, TWO_TASKS, WORKER } from '../testing/run-harness.ts';
import { tempDir } from '../testing/test-app.ts';
import { startTilth, type TilthProcess } from '../testing/tilth-process.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const QUAD = { title: 'Quadruple', description: 'Add quadruple(n) in src/quadruple.js.', acceptance_criteria: ['quadruple(2) returns 8'] };
const QUAD_TEST = {
  tool_calls: [
    {
      name: 'write_task_test',
      arguments: { test_file: 'tests/t003_quadruple.test.js', content: nodeTest('quadruple', 'quadruple', '2', '8'), criteria_tests: [['quadruple works']] },
    },
  ],
};

let fake: ScriptedModel;
let repo: ExampleRepo;
let home: string;
let server: TilthProcess | null = null;
/** Process groups of `tilth` commands a test started, killed after it whatever happened. */
const groups: number[] = [];

beforeEach(async () => {
  fake = await startScriptedModel();
  repo = await makeExampleRepo('js-todo');
  home = tempDir('tilth-add-task-');
});
afterEach(async () => {
  for (const pgid of groups.splice(0)) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // already ended
    }
  }
  await server?.stop();
  server = null;
  await fake.close();
  await repo.cleanup();
  fs.rmSync(home, { recursive: true, force: true });
});

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    TILTH_BASE_URL: fake.baseURL,
    TILTH_API_KEY: 'test-key',
    TILTH_WORKER_MODEL: WORKER,
    TILTH_EVALUATOR_MODEL: EVAL,
    TILTH_PREP_MODEL: PREP,
    TILTH_MUTATION_SECONDS: '0',
    ...extra,
  };
}

async function until<T>(what: string, probe: () => T | Promise<T>, timeoutMs = 60_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${server?.output() ?? ''}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function detail(id: string): Promise<SessionDetail> {
  return SessionDetailSchema.parse((await server!.api('GET', `/api/sessions/${id}`)).body);
}

const prepCalls = () => fake.requests.filter((r) => r.model === PREP).length;
const errorOf = (res: { status: number; body: unknown }) => ({ status: res.status, ...(res.body as { error: { code: string; message: string } }).error });

/** A `tilth` command in its own process group, as a user runs it in a terminal. */
function tilth(args: string[], extra: Record<string, string> = {}) {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'tilth.js'), ...args], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TILTH_HOME: home, ...env(extra) },
  });
  groups.push(child.pid!);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, out })),
  );
  return { child, done, output: () => out };
}

/** What an add-task could change: the session's plan and seed files, its events, its branch and its worktree. */
function snapshot(id: string): Record<string, string> {
  const dir = path.join(home, 'sessions', id);
  const store = new SessionStore(path.join(home, 'sessions'));
  const cp = store.session(id).checkpoint.read();
  store.close();
  const read = (name: string) => (fs.existsSync(path.join(dir, name)) ? fs.readFileSync(path.join(dir, name), 'utf8') : '(none)');
  return {
    prd: read('prd.json'),
    meta: read('seed-meta.json'),
    proof: read('seed-proof.json'),
    status: cp.status,
    events: read('events.jsonl')
      .split('\n')
      .filter((l) => l.includes('task_added'))
      .join('\n'),
    branch: execFileSync('git', ['log', '--format=%H %s', cp.branch], { cwd: repo.dir, encoding: 'utf8' }),
    worktree: execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: cp.worktree, encoding: 'utf8' }),
    lock: fs.existsSync(path.join(dir, 'run.lock')) ? 'held' : 'free',
  };
}

/** A session whose run finished T-001 and was stopped during T-002. */
async function stoppedAfterTheFirstTask(): Promise<string> {
  const store = new SessionStore(path.join(home, 'sessions'));
  const id = await makePreparedSession(store, repo.dir, 'node', TWO_TASKS);
  store.close();
  server = await startTilth({ home, env: env() });
  fake.load({ models: { [WORKER]: [impl('double', 'n * 2'), caseTurn(), noLearning, { fault: 'hang' }], [EVAL]: [verdictTurn('accept')] } });
  expect((await server.api('POST', `/api/sessions/${id}/run`)).status).toBe(202);
  await until('T-002 to be under way', () => fake.requests.filter((r) => r.model === WORKER).length >= 4);
  expect((await server.api('POST', `/api/sessions/${id}/stop`)).status).toBe(200);
  const stopped = await until('the run to stop', async () => {
    const d = await detail(id);
    return d.run.state === 'idle' && d.session.status === 'stopped' ? d : null;
  });
  expect(stopped.tasks.map((t) => [t.id, t.status])).toEqual([
    ['T-001', 'done'],
    ['T-002', 'in_progress'],
  ]);
  return id;
}

describe('add-task as a job', { timeout: 150_000 }, () => {
  it('holds the session while the model works: Resume, rewind, send-back, a seed edit, a second add-task and `tilth resume` are refused; Cancel ends it at once, nothing is written, and Resume builds only what was pending', async () => {
    const id = await stoppedAfterTheFirstTask();
    const before = snapshot(id);

    fake.enqueue(PREP, { fault: 'hang' });
    const adding = server!.api('POST', `/api/sessions/${id}/tasks`, QUAD);
    await until('the add-task to call the model', () => prepCalls() === 1);
    expect((await detail(id)).adding_task).toBe(true);

    const busy = [
      await server!.api('POST', `/api/sessions/${id}/run`),
      await server!.api('POST', `/api/sessions/${id}/rewind`, { after: 'seed' }),
      await server!.api('POST', `/api/sessions/${id}/tasks/T-001/reopen`, { note: 'again' }),
      await server!.api('POST', `/api/sessions/${id}/tasks`, QUAD),
    ].map(errorOf);
    for (const refusal of busy) {
      expect(refusal).toMatchObject({ status: 409, code: 'session_busy' });
      expect(refusal.message).toContain(`A task is being added to session ${id}`);
      expect(refusal.message).toContain(`DELETE /api/sessions/${id}/add-task`);
    }
    const seedEdit = await fetch(`${server!.origin}/api/sessions/${id}/seed`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${server!.token}`, origin: server!.origin, 'content-type': 'application/json' },
      body: JSON.stringify({ prd_entries: [], test_files: {} }),
    });
    expect(seedEdit.status).toBe(409);
    expect(((await seedEdit.json()) as { error: { code: string } }).error.code).toBe('session_busy');
    // Another process sees the session's lock, and is told who holds it and how to let it go.
    const resume = await tilth(['resume', id]).done;
    expect(resume.code, resume.out).toBe(1);
    expect(resume.out).toContain(`A task is being added to session ${id} by \`tilth serve\``);
    expect(prepCalls()).toBe(1); // the second add-task never reached the model

    const started = performance.now();
    const cancel = await server!.api('DELETE', `/api/sessions/${id}/add-task`);
    const cancelMs = performance.now() - started;
    expect(cancel).toEqual({ status: 200, body: { cancelled: true } });
    expect(cancelMs).toBeLessThan(5_000);
    expect(errorOf(await adding)).toMatchObject({ status: 409, code: 'add_task_cancelled', message: expect.stringContaining('nothing was added') });
    expect(await server!.api('DELETE', `/api/sessions/${id}/add-task`)).toEqual({ status: 200, body: { cancelled: false } });
    expect(snapshot(id)).toEqual(before);
    console.log(`[add-task] cancel answered in ${Math.round(cancelMs)} ms`);

    // Resume is taken, and builds T-002 only: T-001 stays done, its commit stays the one it was.
    fake.load({ models: { [WORKER]: [impl('triple', 'n * 3'), caseTurn(), noLearning], [EVAL]: [verdictTurn('accept')] } });
    expect((await server!.api('POST', `/api/sessions/${id}/run`)).status).toBe(202);
    const done = await until('the resumed run to end', async () => {
      const d = await detail(id);
      return d.run.state === 'idle' && d.session.status !== 'running' && d.session.status !== 'stopped' ? d : null;
    });
    expect(done.session.status, done.last_error ?? '').toBe('all_done');
    expect(fake.failures).toEqual([]);
    const subjects = execFileSync('git', ['log', '--format=%s', `session/${id}`], { cwd: repo.dir, encoding: 'utf8' })
      .trim()
      .split('\n');
    expect(subjects.slice(0, 3)).toEqual(['T-002: Triple', 'T-001: Double', 'seed: 2 task(s)']);
    expect(fs.readFileSync(path.join(home, 'sessions', id, 'progress.txt'), 'utf8')).toBe('T-001\tdone\tDouble\nT-002\tdone\tTriple\n');

    // Adding a task now works, and its commit holds the new test file and nothing else.
    fake.enqueue(PREP, QUAD_TEST);
    const added = await server!.api('POST', `/api/sessions/${id}/tasks`, QUAD);
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    expect(
      execFileSync('git', ['show', '--name-only', '--format=%s', `session/${id}`], { cwd: repo.dir, encoding: 'utf8' })
        .trim()
        .split('\n'),
    ).toEqual(['seed: added T-003', '', 'tests/t003_quadruple.test.js']);
    expect((await detail(id)).tasks.map((t) => [t.id, t.status])).toEqual([
      ['T-001', 'done'],
      ['T-002', 'done'],
      ['T-003', 'pending'],
    ]);
  });

  it('gives up at its deadline with one sentence, having written nothing, and frees the session', async () => {
    const store = new SessionStore(path.join(home, 'sessions'));
    const id = await makePreparedSession(store, repo.dir, 'node', TWO_TASKS);
    store.session(id).checkpoint.setStatus('stopped');
    store.close();
    server = await startTilth({ home, env: env({ TILTH_ADD_TASK_SECONDS: '2' }) });
    const before = snapshot(id);

    fake.enqueue(PREP, { fault: 'hang' });
    const started = performance.now();
    const res = errorOf(await server.api('POST', `/api/sessions/${id}/tasks`, QUAD));
    const tookMs = performance.now() - started;
    expect(res).toMatchObject({ status: 504, code: 'add_task_timed_out' });
    expect(res.message).toBe(
      "The model did not finish the new task's test within 2 seconds, so nothing was added; check the provider and try again (TILTH_ADD_TASK_SECONDS sets the limit).",
    );
    expect(tookMs).toBeGreaterThanOrEqual(2_000);
    expect(tookMs).toBeLessThan(10_000);
    expect(snapshot(id)).toEqual(before);
    console.log(`[add-task] a 2 s deadline answered after ${Math.round(tookMs)} ms`);

    fake.enqueue(PREP, QUAD_TEST);
    const added = await server.api('POST', `/api/sessions/${id}/tasks`, QUAD);
    expect(added.status, JSON.stringify(added.body)).toBe(201);
  });

  it('`tilth add-task` holds the session from its terminal, and Ctrl+C cancels it: exit 130, nothing written', async () => {
    const store = new SessionStore(path.join(home, 'sessions'));
    const id = await makePreparedSession(store, repo.dir, 'node', TWO_TASKS);
    store.session(id).checkpoint.setStatus('stopped');
    store.close();
    const before = snapshot(id);

    fake.enqueue(PREP, { fault: 'hang' });
    const cli = tilth(['add-task', id, '--title', QUAD.title, '--description', QUAD.description, '--criterion', QUAD.acceptance_criteria[0]!]);
    await until('the add-task to call the model', () => prepCalls() === 1);

    // The server refuses to run it, and says where it is held and how to let it go.
    server = await startTilth({ home, env: env() });
    expect(errorOf(await server.api('POST', `/api/sessions/${id}/run`))).toMatchObject({
      status: 409,
      code: 'session_locked',
      message: expect.stringContaining(`A task is being added to session ${id} by \`tilth add-task\``),
    });
    expect((await detail(id)).adding_task).toBe(true);
    expect(errorOf(await server.api('DELETE', `/api/sessions/${id}/add-task`)).message).toContain('Ctrl+C');

    const started = performance.now();
    process.kill(cli.child.pid!, 'SIGINT');
    const ended = await cli.done;
    const tookMs = performance.now() - started;
    expect({ code: ended.code, signal: ended.signal }, ended.out).toEqual({ code: 130, signal: null });
    expect(ended.out).toContain('Ctrl+C cancels');
    expect(ended.out).toContain('nothing was added');
    expect(tookMs).toBeLessThan(5_000);
    expect(snapshot(id)).toEqual(before);
    console.log(`[add-task] Ctrl+C ended tilth add-task in ${Math.round(tookMs)} ms`);

    fake.load({ models: { [WORKER]: [impl('double', 'n * 2'), caseTurn(), noLearning], [EVAL]: [verdictTurn('accept')] } });
    expect((await server.api('POST', `/api/sessions/${id}/run`)).status).toBe(202);
  });
});
