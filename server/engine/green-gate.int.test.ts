/**
 * Green is a gate, through a real `tilth serve` with the scripted model: a worker whose code
 * passes the whole test file but not each named case on its own gets the failing case back as a
 * failed check, and no evaluator call is spent on it; the accepted task then has its receipt.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionDetailSchema, type SessionDetail } from '../../shared/api.ts';
import { EvidenceSchema } from '../../shared/evidence.ts';
import type { TilthEvent } from '../../shared/events.ts';
import { CheckAttemptSchema } from '../../shared/review.ts';
import { makeExampleRepo, type ExampleRepo } from '../demo/example-repo.ts';
import { startScriptedModel, type ScriptedModel } from '../scripted-model/model-server.ts';
import { EventLog } from '../store/event-log.ts';
import { SessionStore } from '../store/session-store.ts';
import { makePreparedSession, noLearning, verdictTurn, workerTurn, writeTurn, type SeedTask } from '../testing/run-fixtures.ts';
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
  home = tempDir('tilth-green-');
});
afterEach(async () => {
  await server?.stop();
  server = null;
  await fake.close();
  await repo.cleanup();
  fs.rmSync(home, { recursive: true, force: true });
});

const CRITERIA = ['double(1) is 2', 'double(2) is 4'];
const TASK: SeedTask = {
  id: 'T-001',
  title: 'Double',
  criteria: CRITERIA,
  criteriaTests: [['double one'], ['double two']],
  tests: {
    'tests/t001_double.test.js': [
      "import { test } from 'node:test';",
      "import assert from 'node:assert/strict';",
      "import { double } from '../src/double.js';",
      '',
      "test('double one', () => {",
      '  assert.equal(double(1), 2);',
      '});',
      '',
      "test('double two', () => {",
      '  assert.equal(double(2), 4);',
      '});',
      '',
    ].join('\n'),
  },
};

// Right only once something has called it with 1: the file's first case warms it up for the second.
const WARM_UP = 'let warm = false;\nexport function double(n) {\n  if (!warm) {\n    warm = true;\n    if (n !== 1) return 0;\n  }\n  return n * 2;\n}\n';
const RIGHT = 'export function double(n) {\n  return n * 2;\n}\n';
const fullCase = workerTurn([
  'submit_case',
  { summary: 'double doubles.', ac_coverage: CRITERIA.map((criterion) => ({ criterion, addressed_by: 'src/double.js:double()' })) },
]);

async function detail(id: string): Promise<SessionDetail> {
  return SessionDetailSchema.parse((await server!.api('GET', `/api/sessions/${id}`)).body);
}

async function settled(id: string, timeoutMs = 90_000): Promise<SessionDetail> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const d = await detail(id);
    if (d.run.state === 'idle' && d.session.status !== 'running') return d;
    if (Date.now() > deadline) throw new Error(`the run did not settle\n${server?.output() ?? ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function events(dir: string, id: string): TilthEvent[] {
  const log = new EventLog(path.join(dir, 'events.jsonl'), id);
  try {
    return log.readAfter(0, 100_000);
  } finally {
    log.close();
  }
}

describe('green is a gate', { timeout: 120_000 }, () => {
  it('sends a case whose named test passes only beside the others back to the worker with that test, without asking the evaluator', async () => {
    const store = new SessionStore(path.join(home, 'sessions'));
    const id = await makePreparedSession(store, repo.dir, 'node', [TASK]);
    store.close();
    const dir = path.join(home, 'sessions', id);
    fake.load({
      models: {
        [WORKER]: [writeTurn('src/double.js', WARM_UP), fullCase, writeTurn('src/double.js', RIGHT), fullCase, noLearning],
        [EVAL]: [verdictTurn('accept')],
      },
    });
    server = await startTilth({
      home,
      env: { TILTH_BASE_URL: fake.baseURL, TILTH_API_KEY: 'test-key', TILTH_WORKER_MODEL: WORKER, TILTH_EVALUATOR_MODEL: EVAL },
    });
    // No receipt before the task is accepted.
    const before = await server.api('GET', `/api/sessions/${id}/tasks/T-001/evidence`);
    expect(before).toMatchObject({ status: 404, body: { error: { code: 'evidence_not_found' } } });
    expect((await server.api('GET', `/api/sessions/${id}/tasks/t-1/evidence`)).body).toMatchObject({ error: { code: 'invalid_request' } });

    expect((await server.api('POST', `/api/sessions/${id}/run`)).status).toBe(202);
    const d = await settled(id);
    expect(d.session.status, d.last_error ?? '').toBe('all_done');
    fake.assertDone();

    // One evaluator call in all: the first case never reached it.
    const judged = fake.requests.filter((r) => r.model === EVAL);
    expect(judged).toHaveLength(1);
    expect(JSON.stringify(judged[0]!.messages)).not.toContain('let warm');

    // The worker was told which case did not pass on its own, for which criterion, with its output.
    const told = JSON.stringify(fake.requests.filter((r) => r.model === WORKER)[2]!.messages);
    expect(told).toContain('The checks failed');
    expect(told).toContain('`double two` in tests/t001_double.test.js (criterion 2): failed');
    expect(told).toMatch(/Its output, run alone \(exit 1\)/);

    // Like a failed check: in the checks history and in the log.
    const attempts = fs
      .readFileSync(path.join(dir, 'checks', 'T-001.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => CheckAttemptSchema.parse(JSON.parse(l)));
    expect(attempts.map((a) => [a.passed, a.results.map((r) => `${r.name}:${r.passed}`)])).toEqual([
      [false, ['acceptance:true', 'test_machinery:true', 'green_proof:false']],
      [true, ['acceptance:true', 'test_machinery:true']],
    ]);
    const log = events(dir, id);
    expect(log.filter((e) => e.type === 'validator_run').map((e) => (e.type === 'validator_run' ? e.data.passed : null))).toEqual([false, true]);
    expect(log.filter((e) => e.type === 'evaluator_verdict')).toHaveLength(1);

    // The receipt of the accepted task, from the API and on disk in the session folder.
    const res = await server.api('GET', `/api/sessions/${id}/tasks/T-001/evidence`);
    expect(res.status).toBe(200);
    const receipt = EvidenceSchema.parse(res.body);
    expect(receipt).toMatchObject({ task_id: 'T-001', revision: 1 });
    expect(receipt.green.map((g) => [g.test, g.result])).toEqual([
      ['double one', 'passed'],
      ['double two', 'passed'],
    ]);
    expect(receipt.red.map((g) => [g.test, g.result])).toEqual([
      ['double one', 'failed'],
      ['double two', 'failed'],
    ]);
    expect(receipt.claims.verdict.verdict).toBe('accept');
    expect(receipt.commands.map((c) => [c.name, c.exit_code])).toEqual([
      ['acceptance', 0],
      ['test_machinery', null],
    ]);
    expect(receipt.diff_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(receipt.seed_commit).toMatch(/^[0-9a-f]{40}$/);
    expect(receipt.task_commit).toBe(log.findLast((e) => e.type === 'commit')?.data.sha);
    expect(receipt.claims.worker_case?.summary).toBe('double doubles.');
    // The probe reported after the commit: the receipt carries its counts. The machinery check
    // passed on every attempt that ran the tests, so with every mutant killed nothing is missing.
    expect(receipt.mutation).toMatchObject({ status: 'done', survived: 0 });
    expect(receipt.mutation.killed).toBeGreaterThan(0);
    expect(receipt.machinery).toEqual({ ran: true, passed: true });
    expect(receipt.gaps).toEqual([]);
    expect(receipt.status).toBe('verified');
    expect(EvidenceSchema.parse(JSON.parse(fs.readFileSync(path.join(dir, 'evidence', 'T-001.json'), 'utf8')))).toEqual(receipt);
    // Nothing of it in the worktree, where the worker could have written it.
    expect(fs.existsSync(path.join(dir, 'workspace', 'evidence.json'))).toBe(false);

    const missing = await server.api('GET', `/api/sessions/${id}/tasks/T-002/evidence`);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error: { code: 'task_not_found' } });
  });
});
