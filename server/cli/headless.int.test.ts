/**
 * The headless verbs as a user runs them: `node bin/tilth.js …` in a child process, against a
 * real sessions folder, real git and the scripted model.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../config/package-root.ts';
import { SessionStore } from '../store/session-store.ts';
import { makeExampleRepo, type ExampleRepo } from '../demo/example-repo.ts';
import { startScriptedModel, type ScriptedModel } from '../scripted-model/model-server.ts';
import { caseTurn, makePreparedSession, noLearning, nodeTest, verdictTurn, writeTurn } from '../testing/run-fixtures.ts';
import { tempDir } from '../testing/test-app.ts';
import { startTilth } from '../testing/tilth-process.ts';

const ROOT = PACKAGE_ROOT;
const WORKER = 'worker-model';
const EVAL = 'eval-model';

let fake: ScriptedModel;
let repo: ExampleRepo;
let home: string;

beforeEach(async () => {
  fake = await startScriptedModel();
  repo = await makeExampleRepo('js-todo');
  home = tempDir('tilth-cli-');
});
afterEach(async () => {
  await fake.close();
  await repo.cleanup();
  fs.rmSync(home, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  out: string;
}

function start(args: string[], env: Record<string, string> = {}): { child: ReturnType<typeof spawn>; done: Promise<Run> } {
  const child = spawn(process.execPath, ['bin/tilth.js', ...args], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      TILTH_HOME: home,
      TILTH_BASE_URL: fake.baseURL,
      TILTH_API_KEY: 'k',
      TILTH_WORKER_MODEL: WORKER,
      TILTH_EVALUATOR_MODEL: EVAL,
      ...env,
    },
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const timer = setTimeout(() => child.pid && process.kill(-child.pid, 'SIGKILL'), 60_000);
  const done = new Promise<Run>((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    }),
  );
  return { child, done };
}

const tilth = (args: string[], env: Record<string, string> = {}) => start(args, env).done;

const impl = (name: string, body: string) => writeTurn(`src/${name}.js`, `export function ${name}(n) {\n  return ${body};\n}\n`);

async function prepared(): Promise<{ id: string; store: SessionStore }> {
  const store = new SessionStore(path.join(home, 'sessions'));
  const id = await makePreparedSession(store, repo.dir, 'node', [
    { id: 'T-001', title: 'Double', tests: { 'tests/t001_double.test.js': nodeTest('double', 'double', '2', '4') } },
  ]);
  return { id, store };
}

// Each case starts real `node bin/tilth.js` processes (about a second each on this machine).
describe('tilth run / resume / info / reset', { timeout: 60_000 }, () => {
  it('runs a prepared session to all done with progress lines and exit 0; info shows it', async () => {
    const { id, store } = await prepared();
    store.close();
    fake.load({ models: { [WORKER]: [impl('double', 'n * 2'), caseTurn(), noLearning], [EVAL]: [verdictTurn('accept')] } });
    const run = await tilth(['run', id]);
    expect(run.code, run.out).toBe(0);
    expect(run.out).toContain('▶ T-001');
    expect(run.out).toContain('T-001 checks passed');
    expect(run.out).toContain('✓ T-001 done');
    expect(run.out).toContain('all_done: 1 of 1 tasks done');

    const list = await tilth(['info']);
    expect(list.code).toBe(0);
    expect(list.out).toContain(`${id}  all_done`);
    fs.rmSync(path.join(home, 'sessions', id, 'workspace'), { recursive: true, force: true });
    const one = await tilth(['info', id]);
    expect(one.out).toContain('STALE');
    expect(one.out).toContain('T-001  done');
  });

  it('reopen sends a done task back with a note (exit 0), refuses one that is not done (exit 1), resume commits the revision; add-task adds one', async () => {
    const { id, store } = await prepared();
    store.close();
    fake.load({ models: { [WORKER]: [impl('double', 'n + n'), caseTurn(), noLearning], [EVAL]: [verdictTurn('accept')] } });
    expect((await tilth(['run', id])).code).toBe(0);
    expect((await tilth(['reopen', id])).code).toBe(2);
    const sent = await tilth(['reopen', id, 'T-001', '--note', 'Write it as n * 2.']);
    expect(sent.code, sent.out).toBe(0);
    expect(sent.out).toContain(`T-001 sent back as revision 2. Work on it: tilth resume ${id}`);
    const twice = await tilth(['reopen', id, 'T-001', '--note', 'again']);
    expect(twice.code).toBe(1);
    expect(twice.out).toContain('T-001 is pending');

    fake.load({ models: { [WORKER]: [impl('double', 'n * 2'), caseTurn(), noLearning], [EVAL]: [verdictTurn('accept')] } });
    const resumed = await tilth(['resume', id]);
    expect(resumed.code, resumed.out).toBe(0);
    const workerPrompts = fake.requests.filter((r) => r.model === WORKER).map((r) => JSON.stringify(r.messages));
    expect(workerPrompts.filter((p) => p.includes('## Your task')).at(-1)).toContain('Write it as n * 2.');
    const reopened = new SessionStore(path.join(home, 'sessions'));
    const cp = reopened.session(id).checkpoint.read();
    reopened.close();
    expect(execFileSync('git', ['log', '-1', '--format=%s', cp.branch], { cwd: cp.source, encoding: 'utf8' }).trim()).toBe('T-001 (rev 2): Double');

    // add-task: a usage error without a criterion; then the model (the worker's, as prep falls back to it) writes the test.
    expect((await tilth(['add-task', id, '--title', 'Triple', '--description', 'Add triple.'])).code).toBe(2);
    fake.enqueue(WORKER, {
      tool_calls: [
        {
          name: 'write_task_test',
          arguments: { test_file: 'tests/t002_triple.test.js', content: nodeTest('triple', 'triple', '2', '6'), criteria_tests: [['triple works']] },
        },
      ],
    });
    const added = await tilth(['add-task', id, '--title', 'Triple', '--description', 'Add triple.', '--criterion', 'triple(2) returns 6']);
    expect(added.code, added.out).toBe(0);
    expect(added.out).toContain(`Added T-002 (Triple) with tests/t002_triple.test.js. Build it: tilth resume ${id}`);
    expect(execFileSync('git', ['log', '-1', '--format=%s', cp.branch], { cwd: cp.source, encoding: 'utf8' }).trim()).toBe('seed: added T-002');
  }, 150_000);

  it("runs with the configured context windows and per-role prices, as the server's run does", async () => {
    const { id, store } = await prepared();
    store.close();
    // The provider reports no cost: the dollar figures come from the configured prices.
    const noCost = (reply: ReturnType<typeof caseTurn>) => ({ ...reply, usage: { prompt_tokens: 100_000, completion_tokens: 1_000 } });
    fake.load({ models: { [WORKER]: [noCost(impl('double', 'n * 2')), noCost(caseTurn()), noLearning], [EVAL]: [verdictTurn('accept')] } });
    const run = await tilth(['run', id], {
      TILTH_WORKER_CONTEXT_WINDOW: '64000',
      TILTH_WORKER_PRICE_IN: '1',
      TILTH_WORKER_PRICE_OUT: '2',
    });
    expect(run.code, run.out).toBe(0);
    const events = new SessionStore(path.join(home, 'sessions')).session(id).log().readAfter(0, 10_000);
    const calls = events.flatMap((e) => (e.type === 'model_call' && e.data.role === 'worker' && e.data.phase !== 'self_improve' ? [e.data] : []));
    expect(calls.map((c) => c.context_window)).toEqual([64_000, 64_000]);
    // 100,000 prompt tokens at $1 per million and 1,000 completion tokens at $2 per million.
    for (const c of calls) expect(c.cost_usd).toBeCloseTo(0.102, 6);
  });

  it('exits 1 when a task fails; resume refuses a prepared session, run refuses a stopped one', async () => {
    const { id, store } = await prepared();
    store.close();
    expect((await tilth(['resume', id])).code).toBe(1);
    fake.load({ models: { [WORKER]: [impl('double', 'n * 2')] } });
    const run = await tilth(['run', id], { TILTH_MAX_ITERATIONS_PER_TASK: '1' });
    expect(run.code, run.out).toBe(1);
    expect(run.out).toContain('✗ T-001 failed (iter_cap)');
    const again = await tilth(['run', id]);
    expect(again.code).toBe(1);
    expect(again.out).toContain(`tilth resume ${id}`);
  });

  it('stops gracefully on Ctrl+C with exit 130, leaving the session resumable', async () => {
    const { id, store } = await prepared();
    store.close();
    fake.load({ models: { [WORKER]: [impl('double', 'n * 2'), { fault: 'hang' }] } });
    const proc = start(['run', id]);
    for (let i = 0; i < 400 && fake.requests.length < 2; i++) await new Promise((r) => setTimeout(r, 25));
    expect(fake.requests.length).toBe(2);
    process.kill(proc.child.pid!, 'SIGINT');
    const run = await proc.done;
    expect(run.code, run.out).toBe(130);
    const after = new SessionStore(path.join(home, 'sessions'));
    expect(after.session(id).checkpoint.read()).toMatchObject({ status: 'stopped', last_stop: 'interrupted' });
    after.close();
    fake.load({ models: { [WORKER]: [caseTurn(), noLearning], [EVAL]: [verdictTurn('accept')] } });
    const resumed = await tilth(['resume', id]);
    expect(resumed.code, resumed.out).toBe(0);
    expect(resumed.out).toContain('resuming:');
  });

  it('refuses a session the server is running, and takes over a stale lock', async () => {
    const { id, store } = await prepared();
    store.close();
    fake.load({ models: { [WORKER]: [{ fault: 'hang' }] } });
    const server = await startTilth({
      home,
      env: { TILTH_BASE_URL: fake.baseURL, TILTH_API_KEY: 'k', TILTH_WORKER_MODEL: WORKER, TILTH_EVALUATOR_MODEL: EVAL },
    });
    try {
      const res = await fetch(`${server.origin}/api/sessions/${id}/run`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.token}`, origin: server.origin },
      });
      expect(res.status).toBe(202);
      for (let i = 0; i < 200 && fake.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
      const refused = await tilth(['resume', id]);
      expect(refused.code).toBe(1);
      const run = await tilth(['run', id]);
      expect(run.code).toBe(1);
      expect(run.out).toMatch(/being run by|Only a prepared session/);
    } finally {
      await server.kill();
    }
    // The server died holding the lock: its pid is gone, so the lock is stale and taken over.
    expect(fs.existsSync(path.join(home, 'sessions', id, 'run.lock'))).toBe(true);
    fake.load({ models: { [WORKER]: [impl('double', 'n * 2'), caseTurn(), noLearning], [EVAL]: [verdictTurn('accept')] } });
    const after = new SessionStore(path.join(home, 'sessions'));
    after.session(id).checkpoint.setStatus('stopped', { reason: 'crash', phase: 'run' }); // what the next serve would do
    after.close();
    const resumed = await tilth(['resume', id]);
    expect(resumed.code, resumed.out).toBe(0);
  });

  it('rewind prints its plan and exits 0, refuses with exit 1, wants --after (exit 2); resume then redoes the task', async () => {
    const { id, store } = await prepared();
    store.close();
    fake.load({ models: { [WORKER]: [impl('double', 'n * 2'), caseTurn(), noLearning], [EVAL]: [verdictTurn('accept')] } });
    expect((await tilth(['run', id])).code).toBe(0);

    const dry = await tilth(['rewind', id, '--after', 'seed', '--dry-run']);
    expect(dry.code, dry.out).toBe(0);
    expect(dry.out).toContain('leaves the branch:');
    expect(dry.out).not.toContain('Rewound');
    const rewound = await tilth(['rewind', id, '--after', 'seed']);
    expect(rewound.code, rewound.out).toBe(0);
    expect(rewound.out).toContain('back to pending: T-001');
    expect(rewound.out).toContain(`refs/tilth/backups/${id}-rewind-1`);
    expect(rewound.out).toContain(`tilth resume ${id}`);

    const again = await tilth(['rewind', id, '--after', 'seed']);
    expect(again.code, again.out).toBe(1);
    expect(again.out).toContain('nothing to rewind');
    expect((await tilth(['rewind', id, '--after', 'T-001'])).code).toBe(1);
    expect((await tilth(['rewind', id])).code).toBe(2);

    fake.load({ models: { [WORKER]: [impl('double', 'n + n'), caseTurn(), noLearning], [EVAL]: [verdictTurn('accept')] } });
    const resumed = await tilth(['resume', id]);
    expect(resumed.code, resumed.out).toBe(0);
    expect(resumed.out).toContain('all_done: 1 of 1 tasks done');
  }, 120_000);

  it('serve --demo starts a demo session with no provider configured', async () => {
    const server = await startTilth({ home, env: { TILTH_BASE_URL: '', TILTH_API_KEY: '', TILTH_WORKER_MODEL: '' }, args: ['--demo'] });
    try {
      for (let i = 0; i < 200 && !/Demo session/.test(server.output()); i++) await new Promise((r) => setTimeout(r, 25));
      const id = /Demo session (\S+) started/.exec(server.output())?.[1];
      expect(id, server.output()).toBeDefined();
      expect(server.url).toBe(`${server.origin}/sessions/${id}#token=${server.token}`); // the link opens the demo itself
      const res = await fetch(`${server.origin}/api/sessions/${id}`, { headers: { authorization: `Bearer ${server.token}` } });
      expect(await res.json()).toMatchObject({ demo: true, session: { status: 'interviewing' } });
    } finally {
      await server.stop();
    }
  }, 60_000);

  it('a demo session runs, resumes and gains a task from the terminal with no provider: the demo model starts in the process', async () => {
    const server = await startTilth({ home, env: { TILTH_BASE_URL: '', TILTH_API_KEY: '', TILTH_WORKER_MODEL: '' }, args: ['--demo'] });
    let id = '';
    try {
      for (let i = 0; i < 200 && !/Demo session/.test(server.output()); i++) await new Promise((r) => setTimeout(r, 25));
      id = /Demo session (\S+) started/.exec(server.output())![1]!;
      for (const answer of ['A due date', 'Know what is late.', 'Yes, show it in the listing']) {
        let pending: { question_id: string } | null = null;
        for (let i = 0; i < 400 && pending === null; i++) {
          const d = (await server.api('GET', `/api/sessions/${id}`)).body as {
            interview: { pending: { question_id: string } | null; running: boolean } | null;
          };
          pending = d.interview?.running === false ? d.interview.pending : null;
          if (pending === null) await new Promise((r) => setTimeout(r, 25));
        }
        expect((await server.api('POST', `/api/sessions/${id}/answer`, { questionId: pending!.question_id, answer })).status).toBe(200);
      }
      for (let i = 0; i < 400; i++) {
        if (((await server.api('GET', `/api/sessions/${id}`)).body as { session: { status: string } }).session.status === 'prepared') break;
        await new Promise((r) => setTimeout(r, 25));
      }
    } finally {
      await server.stop();
    }
    const none = { TILTH_BASE_URL: '', TILTH_API_KEY: '', TILTH_WORKER_MODEL: '', TILTH_EVALUATOR_MODEL: '' };
    const ran = await tilth(['run', id], none);
    expect(ran.code, ran.out).toBe(0);
    expect(ran.out).toContain('all_done: 2 of 2 tasks done');
    expect((await tilth(['reopen', id, 'T-001', '--note', 'Word the error so it says what is expected.'], none)).code).toBe(0);
    const resumed = await tilth(['resume', id], none);
    expect(resumed.code, resumed.out).toBe(0);
    expect(resumed.out).not.toContain('No model provider');
    const added = await tilth(
      [
        'add-task',
        id,
        '--title',
        'Count the open todos',
        '--description',
        'countOpen(todos) says how many are open.',
        '--criterion',
        'countOpen counts the todos not done',
      ],
      none,
    );
    expect(added.code, added.out).toBe(0);
    expect(added.out).toContain('Added T-003 (Count the open todos)');
    const cp = new SessionStore(path.join(home, 'sessions')).session(id).checkpoint.read();
    const log = execFileSync('git', ['log', '--format=%s', cp.branch], { cwd: cp.worktree, encoding: 'utf8' });
    expect(log).toContain('T-001 (rev 2): Todos carry a due date');
    expect(log).toContain('seed: added T-003');
  }, 120_000);

  it('reset asks first, --yes discards; usage errors exit 2; every verb has --help', async () => {
    const { id, store } = await prepared();
    store.close();
    const noTty = await tilth(['reset', id]);
    expect(noTty.code).toBe(2);
    expect(noTty.out).toContain('--yes');
    const gone = await tilth(['reset', id, '--yes']);
    expect(gone.code, gone.out).toBe(0);
    expect(fs.existsSync(path.join(home, 'sessions', id))).toBe(false);
    expect((await tilth(['run'])).code).toBe(2);
    expect((await tilth(['run', 'not-an-id'])).code).toBe(2);
    expect((await tilth(['info', '--bogus'])).code).toBe(2);
    for (const verb of ['info', 'run', 'resume', 'rewind', 'reset', 'serve', 'config']) {
      const help = await tilth([verb, '--help']);
      expect(help.code, verb).toBe(0);
      expect(help.out).toContain('tilth');
    }
  }, 120_000);
});
