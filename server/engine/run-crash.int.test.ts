/**
 * kill -9 of a real `tilth serve` mid-run, at several moments, then a restart and a resume. No
 * accepted task may be lost, every JSON file must stay valid, and the run must finish.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionDetailSchema, type SessionDetail } from '../../shared/api.ts';
import { EvidenceSchema } from '../../shared/evidence.ts';
import { CheckpointSchema, LedgerEntrySchema, PrdSchema, SeedMetaSchema } from '../../shared/files.ts';
import { SummarySchema } from '../../shared/summary.ts';
import { EventLog } from '../store/event-log.ts';
import { SessionStore } from '../store/session-store.ts';
import { makeExampleRepo, type ExampleRepo } from '../demo/example-repo.ts';
import { startScriptedModel, type ScriptedModel, type ScriptedReplyInput } from '../scripted-model/model-server.ts';
import { caseTurn, makePreparedSession, noLearning, nodeTest, verdictTurn, writeTurn, type SeedTask } from '../testing/run-fixtures.ts';
import { tempDir } from '../testing/test-app.ts';
import { startTilth, type TilthProcess } from '../testing/tilth-process.ts';

const WORKER = 'worker-model';
const EVAL = 'eval-model';

let fake: ScriptedModel;
let repo: ExampleRepo;
let home: string;
let server: TilthProcess | null = null;

beforeEach(async () => {
  fake = await startScriptedModel();
  repo = await makeExampleRepo('js-todo');
  home = tempDir('tilth-crash-');
});
afterEach(async () => {
  await server?.stop();
  server = null;
  await fake.close();
  await repo.cleanup();
  fs.rmSync(home, { recursive: true, force: true });
});

const slowTest = (fn: string, input: string, expected: string) =>
  nodeTest(fn, fn, input, expected).replace(
    `test('${fn} works', () => {`,
    `test('${fn} works', async () => {\n  await new Promise((r) => setTimeout(r, 1500));`,
  );

const TASKS: SeedTask[] = [
  { id: 'T-001', title: 'Double', tests: { 'tests/t001_double.test.js': slowTest('double', '2', '4') } },
  { id: 'T-002', title: 'Triple', tests: { 'tests/t002_triple.test.js': nodeTest('triple', 'triple', '2', '6') } },
];
const impl = (name: string, body: string) => writeTurn(`src/${name}.js`, `export function ${name}(n) {\n  return ${body};\n}\n`);

function env(extra: Record<string, string> = {}): Record<string, string> {
  return { TILTH_BASE_URL: fake.baseURL, TILTH_API_KEY: 'test-key', TILTH_WORKER_MODEL: WORKER, TILTH_EVALUATOR_MODEL: EVAL, ...extra };
}

async function detail(id: string): Promise<SessionDetail> {
  return SessionDetailSchema.parse((await server!.api('GET', `/api/sessions/${id}`)).body);
}

async function until<T>(what: string, probe: () => T | Promise<T>, timeoutMs = 30_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${server?.output() ?? ''}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Every JSON file of the session parses against its schema; the log opens and reads whole. */
function assertFilesValid(dir: string): void {
  const json = (name: string) => JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8'));
  CheckpointSchema.parse(json('checkpoint.json'));
  PrdSchema.parse(json('prd.json'));
  SeedMetaSchema.parse(json('seed-meta.json'));
  if (fs.existsSync(path.join(dir, 'summary.json'))) SummarySchema.parse(json('summary.json'));
  const ledgerDir = path.join(dir, 'ledger');
  if (fs.existsSync(ledgerDir)) {
    for (const f of fs.readdirSync(ledgerDir)) {
      for (const line of fs.readFileSync(path.join(ledgerDir, f), 'utf8').split('\n').filter(Boolean)) LedgerEntrySchema.parse(JSON.parse(line));
    }
  }
  const log = new EventLog(path.join(dir, 'events.jsonl'), path.basename(dir));
  expect(log.readAfter(0, 100_000).length).toBe(log.lastSeq);
  log.close();
}

async function prepare(): Promise<{ id: string; dir: string }> {
  const store = new SessionStore(path.join(home, 'sessions'));
  const id = await makePreparedSession(store, repo.dir, 'node', TASKS);
  store.close();
  return { id, dir: path.join(home, 'sessions', id) };
}

async function crashThenResume(id: string, dir: string, resumeScript: { worker: ScriptedReplyInput[]; evaluator: ScriptedReplyInput[] }): Promise<void> {
  assertFilesValid(dir);
  server = await startTilth({ home, env: env() });
  const after = await detail(id);
  expect(after.session.status).toBe('stopped');
  expect(after.session.last_stop).toBe('crash');
  fake.load({ models: { [WORKER]: resumeScript.worker, [EVAL]: resumeScript.evaluator } });
  expect((await server!.api('POST', `/api/sessions/${id}/run`)).status).toBe(202);
  const done = await until('the resumed run to finish', async () => {
    const d = await detail(id);
    return d.run.state === 'idle' && d.session.status !== 'running' && d.session.status !== 'stopped' ? d : null;
  });
  expect(done.session.status, done.last_error ?? '').toBe('all_done');
  const wt = path.join(dir, 'workspace');
  const log = execFileSync('git', ['log', '--format=%s', '-3'], { cwd: wt, encoding: 'utf8' }).trim().split('\n');
  expect(log).toEqual(['T-002: Triple', 'T-001: Double', 'seed: 2 task(s)']);
  expect(fs.readFileSync(path.join(dir, 'progress.txt'), 'utf8')).toBe('T-001\tdone\tDouble\nT-002\tdone\tTriple\n');
  // Every done task has its receipt, whatever moment the crash cut, each for its own commit.
  const commits = execFileSync('git', ['log', '--format=%H %s', '-2'], { cwd: wt, encoding: 'utf8' }).trim().split('\n');
  for (const [taskId, subject] of [
    ['T-001', 'T-001: Double'],
    ['T-002', 'T-002: Triple'],
  ] as const) {
    const receipt = EvidenceSchema.parse(JSON.parse(fs.readFileSync(path.join(dir, 'evidence', `${taskId}.json`), 'utf8')));
    expect(`${receipt.task_commit} ${subject}`).toBe(commits.find((c) => c.endsWith(subject)));
  }
  assertFilesValid(dir);
}

// Two server starts and a run each: a minute on a loaded two-core machine.
describe('kill -9 and resume', { timeout: 60_000 }, () => {
  it('during a model call', async () => {
    const { id, dir } = await prepare();
    server = await startTilth({ home, env: env() });
    fake.load({ models: { [WORKER]: [impl('double', 'n * 2'), { fault: 'hang' }], [EVAL]: [] } });
    expect((await server!.api('POST', `/api/sessions/${id}/run`)).status).toBe(202);
    await until('the second worker call', () => fake.requests.length >= 2);
    await server.kill();
    await crashThenResume(id, dir, {
      worker: [caseTurn(), noLearning, impl('triple', 'n * 3'), caseTurn(), noLearning],
      evaluator: [verdictTurn('accept'), verdictTurn('accept')],
    });
  });

  it('during the checks', async () => {
    const { id, dir } = await prepare();
    server = await startTilth({ home, env: env() });
    fake.load({ models: { [WORKER]: [impl('double', 'n * 2'), caseTurn()], [EVAL]: [] } });
    expect((await server!.api('POST', `/api/sessions/${id}/run`)).status).toBe(202);
    await until('the acceptance test to be running', () => {
      try {
        return execFileSync('pgrep', ['-f', 't001_double.test.js'], { encoding: 'utf8' }).trim() !== '';
      } catch {
        return false;
      }
    });
    await server.kill();
    await crashThenResume(id, dir, {
      worker: [caseTurn(), noLearning, impl('triple', 'n * 3'), caseTurn(), noLearning],
      evaluator: [verdictTurn('accept'), verdictTurn('accept')],
    });
  });

  it.each(['after_task_commit', 'after_task_done_prd'])('between the task commit and its bookkeeping (%s)', async (point) => {
    const { id, dir } = await prepare();
    server = await startTilth({ home, env: env({ TILTH_FAILPOINT: point }) });
    fake.load({ models: { [WORKER]: [impl('double', 'n * 2'), caseTurn()], [EVAL]: [verdictTurn('accept')] } });
    expect((await server!.api('POST', `/api/sessions/${id}/run`)).status).toBe(202);
    await server.exited;
    server = null;
    await crashThenResume(id, dir, {
      worker: [impl('triple', 'n * 3'), caseTurn(), noLearning],
      evaluator: [verdictTurn('accept')],
    });
    // The repair shows in the resume plan: T-001 is done, only T-002 was left.
    const log = new EventLog(path.join(dir, 'events.jsonl'), id);
    const resume = log.readAfter(0, 100_000).find((e) => e.type === 'session_resume');
    log.close();
    expect(resume?.data).toMatchObject({ retried: [], pending: ['T-002'] });
  });
});
