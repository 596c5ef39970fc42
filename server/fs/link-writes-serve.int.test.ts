/**
 * Issue 27's two high findings, end to end through a real `tilth serve` with the scripted model:
 * a link planted in the worktree must never carry one of the server's own writes outside it.
 *
 * 1. The worker commits `src/zz.js` as a link to a file of the user's and then does its task
 *    honestly. Before the fix the mutation probe, running as the server's user, rewrote a line of
 *    the link's target (and put it back only if it ended cleanly).
 * 2. A repository's committed `.tilth/setup` makes `node_modules/.gitignore` (or `node_modules`
 *    itself) a link. Before the fix the server's one-line ignore file was written over the target,
 *    0.2 s after the session was created, with no model involved.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionDetailSchema, type SessionDetail } from '../../shared/api.ts';
import { makeExampleRepo, type ExampleRepo } from '../demo/example-repo.ts';
import { startScriptedModel, type ScriptedModel } from '../scripted-model/model-server.ts';
import { SessionStore } from '../store/session-store.ts';
import { caseTurn, makePreparedSession, noLearning, nodeTest, verdictTurn, workerTurn, writeTurn } from '../testing/run-fixtures.ts';
import { tempDir } from '../testing/temp-dir.ts';
import { startTilth, type TilthProcess } from '../testing/tilth-process.ts';

const PREP = 'prep-model';
const WORKER = 'worker-model';
const EVAL = 'eval-model';

let fake: ScriptedModel;
let repo: ExampleRepo;
let home: string;
/** Outside /tmp (private in the sandbox) and outside every tree the server writes: the user's files. */
let outside: string;
let victim: string;
let server: TilthProcess | null = null;

const VICTIM_TEXT = 'export const same = (a, b) => a === b;\n';

beforeEach(async () => {
  fake = await startScriptedModel();
  repo = await makeExampleRepo('js-todo');
  home = tempDir('tilth-link-writes-');
  outside = fs.realpathSync(fs.mkdtempSync(path.join('/var/tmp', 'tilth-link-writes-victim-')));
  victim = path.join(outside, 'precious.js');
  fs.writeFileSync(victim, VICTIM_TEXT);
  // A past time, so any rewrite, even of the same bytes, shows in the mtime.
  fs.utimesSync(victim, new Date(2020, 0, 1), new Date(2020, 0, 1));
});
afterEach(async () => {
  await server?.stop();
  server = null;
  await fake.close();
  await repo.cleanup();
  fs.rmSync(home, { recursive: true, force: true });
  fs.rmSync(outside, { recursive: true, force: true });
});

function expectVictimUntouched(): void {
  expect(fs.readFileSync(victim, 'utf8')).toBe(VICTIM_TEXT);
  expect(fs.statSync(victim).mtime.getFullYear()).toBe(2020);
  expect(fs.readdirSync(outside)).toEqual(['precious.js']);
}

async function start(): Promise<TilthProcess> {
  server = await startTilth({
    home,
    env: { TILTH_BASE_URL: fake.baseURL, TILTH_API_KEY: 'sk-link-writes', TILTH_WORKER_MODEL: WORKER, TILTH_EVALUATOR_MODEL: EVAL, TILTH_PREP_MODEL: PREP },
  });
  return server;
}

async function detailUntil(id: string, done: (d: SessionDetail) => boolean, what: string, timeoutMs = 90_000): Promise<SessionDetail> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const detail = SessionDetailSchema.parse((await server!.api('GET', `/api/sessions/${id}`)).body);
    if (done(detail)) return detail;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(detail.session)}\n${server!.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function events(id: string): { type: string; data: Record<string, unknown> }[] {
  return fs
    .readFileSync(path.join(home, 'sessions', id, 'events.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string; data: Record<string, unknown> });
}

describe('the mutation probe and a link the worker committed', () => {
  it('mutates only its scratch copy: the linked file of the user is never rewritten, and the report says which file was left alone', async () => {
    const store = new SessionStore(path.join(home, 'sessions'));
    const id = await makePreparedSession(store, repo.dir, 'node', [
      { id: 'T-001', title: 'Double', tests: { 'tests/t001_double.test.js': nodeTest('double', 'double', '2', '4') } },
    ]);
    store.close();
    await start();
    fake.load({
      models: {
        [WORKER]: [
          workerTurn(['bash', { command: `ln -s ${victim} src/zz.js && echo LINKED` }]),
          writeTurn('src/double.js', 'export function double(n) {\n  return n * 2;\n}\n'),
          caseTurn(),
          noLearning,
        ],
        [EVAL]: [verdictTurn('accept')],
      },
    });
    expect((await server!.api('POST', `/api/sessions/${id}/run`)).status).toBe(202);
    const detail = await detailUntil(id, (d) => d.run.state === 'idle' && d.session.status !== 'running', 'the run to end');
    expect(detail.session.status, detail.last_error ?? '').toBe('all_done');

    const log = events(id);
    const bash = log.find((e) => e.type === 'tool_result' && e.data.tool === 'bash');
    expect(bash?.data.result_preview).toContain('LINKED');
    // The link is in the task's commit, as the worker left it.
    expect(execFileSync('git', ['ls-tree', `session/${id}`, 'src/zz.js'], { cwd: repo.dir, encoding: 'utf8' })).toMatch(/^120000 /);
    expectVictimUntouched();
    const probe = log.find((e) => e.type === 'mutation_probe');
    expect(probe?.data).toMatchObject({ task_id: 'T-001', status: 'done' });
    expect(probe?.data.note).toContain('src/zz.js');
    expect(probe?.data.killed).toBeGreaterThan(0); // src/double.js was still probed
  }, 120_000);
});

describe('the worktree’s node_modules/.gitignore and a committed setup script', () => {
  const ask = { tool_calls: [{ name: 'ask_user', arguments: { question: 'Which date format?' } }] };

  async function prepWith(setup: string): Promise<string> {
    fs.mkdirSync(path.join(repo.dir, '.tilth'), { recursive: true });
    fs.writeFileSync(path.join(repo.dir, '.tilth', 'setup'), setup);
    execFileSync('git', ['add', '-A'], { cwd: repo.dir });
    execFileSync('git', ['commit', '-qm', 'a setup command for Tilth'], { cwd: repo.dir });
    await start();
    fake.enqueue(PREP, ask);
    const created = await server!.api('POST', '/api/sessions', { workspace: repo.dir, brief: 'Add due dates to todos' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = (created.body as { session: { id: string } }).session.id;
    await detailUntil(id, (d) => d.interview?.pending != null || d.session.status === 'failed', 'the first question');
    return id;
  }

  it('replaces an ignore file the setup made a link, never writing through it', async () => {
    const id = await prepWith(`mkdir -p node_modules && ln -s ${victim} node_modules/.gitignore\n`);
    const own = path.join(home, 'sessions', id, 'workspace', 'node_modules', '.gitignore');
    expect(fs.lstatSync(own).isFile()).toBe(true);
    expect(fs.readFileSync(own, 'utf8')).toContain('*');
    expect(events(id).find((e) => e.type === 'setup_finished')?.data.passed).toBe(true);
    expectVictimUntouched();
  }, 120_000);

  it('writes no ignore file when the setup made node_modules itself a link leading out', async () => {
    const id = await prepWith(`ln -s ${outside} node_modules\n`);
    expect(fs.lstatSync(path.join(home, 'sessions', id, 'workspace', 'node_modules')).isSymbolicLink()).toBe(true);
    expectVictimUntouched();
  }, 120_000);
});
