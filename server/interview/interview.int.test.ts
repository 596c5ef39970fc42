/**
 * The interview through the API, with the scripted model and real git repos.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionDetailSchema, WorkspaceCheckSchema, type SessionDetail } from '../../shared/api.ts';
import { recoverAfterCrash } from '../jobs/job-runner.ts';
import { startScriptedModel, type ScriptedModel, type ScriptedReplyInput } from '../scripted-model/model-server.ts';
import { makeExampleRepo } from '../demo/example-repo.ts';
import { auth, makeTestApp, silentLogger, tempDir, type TestApp } from '../testing/test-app.ts';
import { MAX_INTERVIEW_ITERATIONS } from './interviewer.ts';
import { startInterviewJob } from '../sessions/session-setup.ts';
import { validateSeedBundle, writeSeed } from '../seed/sink.ts';

const PREP = 'prep-model';
let fake: ScriptedModel;
let t: TestApp;
let repo: { dir: string; cleanup: () => Promise<void> | void };
const post = { ...auth, origin: 'http://localhost' };

function env(): NodeJS.ProcessEnv {
  return { TILTH_BASE_URL: fake.baseURL, TILTH_API_KEY: 'test-key', TILTH_WORKER_MODEL: 'worker-model', TILTH_PREP_MODEL: PREP };
}

beforeEach(async () => {
  fake = await startScriptedModel();
  t = await makeTestApp({ env: env() });
  repo = await makeExampleRepo('js-todo');
});
afterEach(async () => {
  await t.close();
  await fake.close();
  await repo.cleanup();
});

const call = (name: string, args: unknown, id?: string) => ({ ...(id ? { id } : {}), name, arguments: args as Record<string, unknown> });
const ask = (question: string, options?: string[]): ScriptedReplyInput => ({ tool_calls: [call('ask_user', options ? { question, options } : { question })] });

const GOOD_TEST = [
  "import { test } from 'node:test';",
  "import assert from 'node:assert/strict';",
  "import { setDue } from '../src/todo.js';",
  '',
  "test('a todo can carry a due date', () => {",
  "  assert.equal(setDue({ title: 'x' }, '2026-01-01').due, '2026-01-01');",
  '});',
  '',
].join('\n');

function seedArgs(overrides: Record<string, unknown> = {}) {
  return {
    prd_entries: [
      {
        id: 'T-001',
        title: 'Add due dates',
        description: 'Add setDue(todo, date) to src/todo.js.',
        acceptance_criteria: ['setDue stores the date on the todo'],
        criteria_tests: [['a todo can carry a due date']],
      },
    ],
    test_files: { 'tests/t001_due_dates.test.js': GOOD_TEST },
    tldr: '- **T-001:** Add due dates — todos carry a due date',
    open_questions: [],
    blockers: [],
    scope_notes: 'No reminders.',
    ...overrides,
  };
}

async function create(brief = 'Add due dates to todos'): Promise<string> {
  const res = await t.app.inject({ method: 'POST', url: '/api/sessions', headers: post, payload: { workspace: repo.dir, brief } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().session.id as string;
}

async function detail(id: string): Promise<SessionDetail> {
  return SessionDetailSchema.parse((await t.app.inject({ url: `/api/sessions/${id}`, headers: auth })).json());
}

async function until(id: string, test: (d: SessionDetail) => boolean, what: string): Promise<SessionDetail> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const d = await detail(id);
    if (test(d) && !d.interview?.running) return d;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(d)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const answer = (id: string, questionId: string, text: string) =>
  t.app.inject({ method: 'POST', url: `/api/sessions/${id}/answer`, headers: post, payload: { questionId, answer: text } });

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

describe('creating a session', () => {
  it('checks a workspace: repo, preset, and clear answers for what is not', async () => {
    const ok = WorkspaceCheckSchema.parse(
      (await t.app.inject({ url: `/api/workspaces/check?path=${encodeURIComponent(path.join(repo.dir, 'src'))}`, headers: auth })).json(),
    );
    expect(ok).toMatchObject({ ok: true, kind: 'repo', branch: 'main', clean: true, preset: 'node', existing: [] });
    expect(ok.env).toMatchObject({
      languages: ['javascript'],
      module_type: 'esm',
      test_runner: 'node',
      test_runner_evidence: 'scripts.test: node --test',
      test_dirs: ['tests'],
    });
    const missing = WorkspaceCheckSchema.parse(
      (await t.app.inject({ url: `/api/workspaces/check?path=${encodeURIComponent('/nowhere/at/all')}`, headers: auth })).json(),
    );
    expect(missing).toMatchObject({ ok: false, kind: 'missing' });
    const bad = await t.app.inject({ url: '/api/workspaces/check', headers: auth });
    expect(bad.statusCode).toBe(400);
  });

  it('validates the body and refuses a folder that is not a repo', async () => {
    const empty = await t.app.inject({ method: 'POST', url: '/api/sessions', headers: post, payload: { workspace: repo.dir, brief: '  ' } });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().error.message).toMatch(/brief is required/);
    const notRepo = await t.app.inject({ method: 'POST', url: '/api/sessions', headers: post, payload: { workspace: tempDir(), brief: 'x' } });
    expect(notRepo.statusCode).toBe(400);
    expect(notRepo.json().error.code).toBe('workspace_not_ready');
  });

  it('offers open / discard / alongside when the repo already has an open session', async () => {
    fake.enqueue(PREP, ask('First question?'));
    const first = await create();
    await until(first, (d) => d.interview?.pending !== null, 'a question');
    const again = await t.app.inject({ method: 'POST', url: '/api/sessions', headers: post, payload: { workspace: repo.dir, brief: 'Another' } });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('workspace_has_sessions');
    const check = WorkspaceCheckSchema.parse((await t.app.inject({ url: `/api/workspaces/check?path=${encodeURIComponent(repo.dir)}`, headers: auth })).json());
    expect(check.existing.map((s) => s.id)).toEqual([first]);

    fake.enqueue(PREP, ask('Second session question?'));
    const alongside = await t.app.inject({
      method: 'POST',
      url: '/api/sessions',
      headers: post,
      payload: { workspace: repo.dir, brief: 'Another', alongside: true },
    });
    expect(alongside.statusCode).toBe(201);

    const wrongConfirm = await t.app.inject({ method: 'DELETE', url: `/api/sessions/${first}?confirm=nope`, headers: post });
    expect(wrongConfirm.statusCode).toBe(400);
    const discard = await t.app.inject({ method: 'DELETE', url: `/api/sessions/${first}?confirm=${first}`, headers: post });
    expect(discard.statusCode).toBe(200);
    expect(fs.existsSync(t.store.session(first).dir)).toBe(false);
    expect(git(repo.dir, 'branch', '--list', `session/${first}`)).toBe('');
  });
});

describe('the interview', () => {
  it('explores, asks an option question and a free-form one, and writes a committed seed', async () => {
    fake.enqueue(
      PREP,
      {
        tool_calls: [
          call('glob', { pattern: 'src/**/*.js' }),
          call('read_file', { path: 'src/todo.js' }),
          call('grep', { pattern: 'export', path_glob: 'src/**' }),
        ],
      },
      ask('Which date format should due dates use?', ['ISO 8601 strings', 'Unix timestamps']),
      { ...ask('Anything that must stay out of scope?'), expect: { last_message_contains: 'ISO 8601 strings' } },
      { tool_calls: [call('write_seed', seedArgs())], expect: { last_message_contains: 'No reminders, please' } },
    );
    const id = await create();
    expect(git(repo.dir, 'branch', '--list', `session/${id}`)).toContain(`session/${id}`);

    const q1 = await until(id, (d) => d.interview?.pending !== null, 'the first question');
    expect(q1.interview?.pending).toMatchObject({ text: 'Which date format should due dates use?', options: ['ISO 8601 strings', 'Unix timestamps'] });
    expect(q1.session.status).toBe('interviewing');

    const wrong = await answer(id, 'q-not-this-one', 'x');
    expect(wrong.statusCode).toBe(409);
    const blank = await answer(id, q1.interview!.pending!.question_id, '   ');
    expect(blank.statusCode).toBe(400);
    expect((await answer(id, q1.interview!.pending!.question_id, 'ISO 8601 strings')).statusCode).toBe(200);
    const again = await answer(id, q1.interview!.pending!.question_id, 'ISO 8601 strings');
    expect(again.statusCode).toBe(409);

    const q2 = await until(id, (d) => d.interview?.pending?.text === 'Anything that must stay out of scope?', 'the second question');
    expect(q2.interview?.pending?.options).toBeUndefined();
    expect((await answer(id, q2.interview!.pending!.question_id, 'No reminders, please')).statusCode).toBe(200);

    const done = await until(id, (d) => d.session.status === 'prepared', 'the seed');
    expect(done.has_seed).toBe(true);
    fake.assertDone();

    // The answers reached the model verbatim, as the ask_user tool results.
    const toolMessages = fake.requests
      .at(-1)!
      .messages.filter((m) => (m as { role: string }).role === 'tool')
      .map((m) => (m as { content: string }).content);
    expect(toolMessages).toContain('ISO 8601 strings');
    expect(toolMessages).toContain('No reminders, please');
    // The exploration ran against the source repo.
    expect(toolMessages.some((c) => c.includes('export function'))).toBe(true);

    const types = t.store
      .session(id)
      .log()
      .readAfter(0, 1000)
      .map((e) => e.type);
    for (const type of [
      'session_start',
      'model_call',
      'tool_call',
      'tool_result',
      'question_asked',
      'question_answered',
      'seed_written',
      'seed_committed',
      'session_prepared',
    ]) {
      expect(types, type).toContain(type);
    }
    expect(git(done.worktree, 'log', '-1', '--format=%s')).toBe('seed: 1 task(s) + 1 acceptance test(s)');
    expect(fs.readFileSync(path.join(done.worktree, 'tests', 't001_due_dates.test.js'), 'utf8')).toBe(GOOD_TEST);
    // The environment detected at creation goes with the session and its seed.
    const env = t.store.session(id).checkpoint.read().project_env;
    expect(env).toMatchObject({ test_runner: 'node', module_type: 'esm' });
    expect(JSON.parse(fs.readFileSync(path.join(t.store.session(id).dir, 'seed-meta.json'), 'utf8')).project_env).toEqual(env);
    // The source repo's working tree is untouched and it gained only the session branch.
    expect(git(repo.dir, 'status', '--porcelain')).toBe('');
    expect(git(repo.dir, 'branch', '--format=%(refname:short)').split('\n').sort()).toEqual(['main', `session/${id}`]);
    expect(done.interview_usage.calls).toBe(4);
  });

  it('sends every sink problem back at once, then accepts the fixed bundle', async () => {
    fake.enqueue(
      PREP,
      { tool_calls: [call('write_seed', seedArgs({ test_files: { 'tests/wrong_name.js': GOOD_TEST }, open_questions: 'not a list' }))] },
      { tool_calls: [call('write_seed', seedArgs())], expect: { last_message_contains: 'rejected' } },
    );
    const id = await create();
    await until(id, (d) => d.session.status === 'prepared', 'the seed');
    const rejection = fake.requests[1]!.messages.at(-1) as { content: string };
    expect(rejection.content).toMatch(/wrong_name/);
    expect(rejection.content).toMatch(/open_questions/);
    fake.assertDone();
  });

  it('fails with the reason shown when the model stops without a tool call', async () => {
    fake.enqueue(PREP, { content: 'I think we are done here.' });
    const id = await create();
    const d = await until(id, (x) => x.session.status === 'failed', 'failure');
    expect(d.last_error).toMatch(/stopped without writing the seed.*I think we are done here/);
    expect(d.session.last_stop).toBe('error');
  });

  it('answers malformed tool arguments with a retry hint and carries on', async () => {
    fake.enqueue(
      PREP,
      { fault: 'malformed_tool_args', tool_calls: [call('glob', {})] },
      { ...ask('Still with me?'), expect: { last_message_contains: 'are not valid JSON' } },
    );
    const id = await create();
    const d = await until(id, (x) => x.interview?.pending !== null, 'a question');
    expect(d.interview?.pending?.text).toBe('Still with me?');
    fake.assertDone();
  });

  it(`stops at the cap of ${MAX_INTERVIEW_ITERATIONS} model turns`, async () => {
    for (let i = 0; i < MAX_INTERVIEW_ITERATIONS; i++) fake.enqueue(PREP, { tool_calls: [call('glob', { pattern: '*.md' })] });
    const id = await create();
    const d = await until(id, (x) => x.session.status === 'failed', 'the cap');
    expect(d.last_error).toMatch(/cap of 60 model turns/);
    expect(fake.requests).toHaveLength(MAX_INTERVIEW_ITERATIONS);
    fake.assertDone();
  });

  it('retries empty replies with backoff before giving up', async () => {
    fake.enqueue(PREP, { fault: 'empty' }, { fault: 'empty' }, ask('After two empty replies?'));
    const id = await create();
    const d = await until(id, (x) => x.interview?.pending !== null, 'a question');
    expect(d.interview?.pending?.text).toBe('After two empty replies?');
  });

  it('survives a server restart with a question pending: same question, no model call repeated', async () => {
    fake.enqueue(PREP, { tool_calls: [call('glob', { pattern: '**/*' })] }, ask('Which format?', ['ISO', 'Unix']));
    const home = t.home;
    const id = await create();
    const before = await until(id, (d) => d.interview?.pending !== null, 'a question');
    await t.close({ keepHome: true });
    t = await makeTestApp({ env: env(), home });
    recoverAfterCrash(t.store, silentLogger, (sid) => startInterviewJob({ store: t.store, jobs: t.deps.jobs, llm: t.deps.llm }, sid));
    const after = await until(id, (d) => d.interview?.pending !== null, 'the same question');
    expect(after.interview?.pending).toEqual(before.interview?.pending);
    expect(after.session.status).toBe('interviewing');
    expect(fake.requests).toHaveLength(2);

    fake.enqueue(PREP, { tool_calls: [call('write_seed', seedArgs())], expect: { last_message_contains: 'ISO' } });
    expect((await answer(id, after.interview!.pending!.question_id, 'ISO')).statusCode).toBe(200);
    await until(id, (d) => d.session.status === 'prepared', 'the seed');
    expect(fake.requests).toHaveLength(3);
    fake.assertDone();
  });
});

describe('crash safety', () => {
  it('repeats only the model call that was in flight when the server stopped', async () => {
    fake.enqueue(PREP, { tool_calls: [call('glob', { pattern: '*.md' })] }, { fault: 'hang' });
    const home = t.home;
    const id = await create();
    const deadline = Date.now() + 5_000;
    while (fake.requests.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(fake.requests).toHaveLength(2); // the second call hangs: the server stops mid-call
    await t.close({ keepHome: true });
    expect(t.store.session(id).checkpoint.read().status).toBe('interviewing');

    fake.enqueue(PREP, { ...ask('Picked up where we were?'), expect: { last_message_contains: 'README.md' } });
    t = await makeTestApp({ env: env(), home });
    recoverAfterCrash(t.store, silentLogger, (sid) => startInterviewJob({ store: t.store, jobs: t.deps.jobs, llm: t.deps.llm }, sid));
    const d = await until(id, (x) => x.interview?.pending !== null, 'the question after restart');
    expect(d.interview?.pending?.text).toBe('Picked up where we were?');
    // Call 1 (glob) was saved and not repeated; call 2 (in flight) was repeated once as call 3.
    expect(fake.requests).toHaveLength(3);
    expect(d.interview?.iterations).toBe(2);
  });
});

describe('crash safety, continued', () => {
  it('finishes a seed that was written just before the server stopped, its commit cut short, without asking the model again', async () => {
    fake.enqueue(PREP, ask('Anything?'));
    const home = t.home;
    const id = await create();
    await until(id, (d) => d.interview?.pending !== null, 'a question');
    const cp = t.store.session(id).checkpoint.read();
    const checked = validateSeedBundle(seedArgs(), { preset: 'node' });
    if (!checked.ok) throw new Error(checked.problems.join('; '));
    writeSeed(checked.seed, {
      session: t.store.session(id),
      meta: {
        interviewer_model: PREP,
        started_at: cp.created_at,
        ended_at: cp.created_at,
        tokens: { prompt: 0, completion: 0, total: 0 },
        cost_usd: 0,
        checks_preset: 'node',
      },
    });
    // A git commit killed with the server leaves its lock behind.
    const lock = path.join(git(cp.worktree, 'rev-parse', '--path-format=absolute', '--git-dir'), 'index.lock');
    fs.writeFileSync(lock, '');
    await t.close({ keepHome: true });
    t = await makeTestApp({ env: env(), home });
    recoverAfterCrash(t.store, silentLogger, (sid) => startInterviewJob({ store: t.store, jobs: t.deps.jobs, llm: t.deps.llm }, sid));
    const d = await until(id, (x) => x.session.status === 'prepared', 'prepared');
    expect(d.has_seed).toBe(true);
    expect(fs.existsSync(lock)).toBe(false);
    expect(fake.requests).toHaveLength(1);
    expect(git(cp.worktree, 'log', '-1', '--format=%s')).toBe('seed: 1 task(s) + 1 acceptance test(s)');
  });

  it('continues task ids after acceptance tests the branch already has, and tells the interviewer', async () => {
    fs.writeFileSync(path.join(repo.dir, 'tests', 't001_earlier.test.js'), GOOD_TEST);
    git(repo.dir, 'add', '-A');
    git(repo.dir, 'commit', '-q', '-m', 'an earlier seed');
    fake.enqueue(
      PREP,
      { tool_calls: [call('write_seed', seedArgs())], expect: { system_contains: 'T-001' } },
      {
        tool_calls: [
          call(
            'write_seed',
            seedArgs({
              prd_entries: [
                {
                  id: 'T-002',
                  title: 'Add due dates',
                  description: 'Add setDue.',
                  acceptance_criteria: ['setDue stores the date'],
                  criteria_tests: [['a todo can carry a due date']],
                },
              ],
              test_files: { 'tests/t002_due_dates.test.js': GOOD_TEST },
              tldr: '- **T-002:** Add due dates',
            }),
          ),
        ],
        expect: { last_message_contains: 'T-001' },
      },
    );
    const id = await create();
    await until(id, (d) => d.session.status === 'prepared', 'the seed');
    const rejection = (fake.requests[1]!.messages.at(-1) as { content: string }).content;
    expect(rejection).toMatch(/rejected/);
    fake.assertDone();
  });
});

describe('seed review', () => {
  async function prepared(): Promise<{ id: string; worktree: string }> {
    fake.enqueue(PREP, { tool_calls: [call('write_seed', seedArgs())] });
    const id = await create();
    const d = await until(id, (x) => x.session.status === 'prepared', 'the seed');
    return { id, worktree: d.worktree };
  }

  it('shows the seed with its contract check, and records an edit as a "seed: edited" commit', async () => {
    const { id, worktree } = await prepared();
    const view = (await t.app.inject({ url: `/api/sessions/${id}/seed`, headers: auth })).json();
    expect(view.prd[0]).toMatchObject({ id: 'T-001', status: 'pending' });
    expect(view.test_files['tests/t001_due_dates.test.js']).toBe(GOOD_TEST);
    expect(view.meta).toMatchObject({ checks_preset: 'node', scope_notes: 'No reminders.' });
    expect(Object.keys(view.meta.locked_tests)).toEqual(['tests/t001_due_dates.test.js']);
    expect(Array.isArray(view.contract)).toBe(true);

    const edit = {
      prd_entries: [
        {
          id: 'T-001',
          title: 'Add due dates',
          description: 'Add setDue(todo, date) to src/todo.js.',
          acceptance_criteria: ['setDue stores an ISO date on the todo'],
          criteria_tests: [['a todo can carry a due date']],
        },
      ],
      test_files: view.test_files,
    };
    const res = await t.app.inject({ method: 'PUT', url: `/api/sessions/${id}/seed`, headers: post, payload: edit });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().prd[0].acceptance_criteria).toEqual(['setDue stores an ISO date on the todo']);
    expect(git(worktree, 'log', '-2', '--format=%s').split('\n')).toEqual(['seed: edited', 'seed: 1 task(s) + 1 acceptance test(s)']);
    // The answer names the commit that recorded the edit, for seed review's "Saved — committed as …".
    expect(res.json().saved).toEqual({ sha: git(worktree, 'rev-parse', 'HEAD'), changed: ['T-001'] });
    expect(
      t.store
        .session(id)
        .log()
        .readAfter(0, 1000)
        .some((e) => e.type === 'seed_edited'),
    ).toBe(true);
  });

  it("lets the checks preset change to the user's own command, and runs the contract check with it", async () => {
    const { id } = await prepared();
    const view = (await t.app.inject({ url: `/api/sessions/${id}/seed`, headers: auth })).json();
    const res = await t.app.inject({
      method: 'PUT',
      url: `/api/sessions/${id}/seed`,
      headers: post,
      payload: {
        prd_entries: view.prd.map(({ status: _s, ...t }: Record<string, unknown>) => t),
        test_files: view.test_files,
        checks_preset: 'custom',
        custom_checks: { test: 'node --test {files}' },
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().meta).toMatchObject({ checks_preset: 'custom', custom_checks: { test: 'node --test {files}' } });
    expect(git(t.store.session(id).checkpoint.read().worktree, 'log', '-1', '--format=%B')).toMatch(/seed: edited\s+Changed in seed review: checks: custom/);
    expect(res.json().contract.filter((w: { kind: string }) => w.kind === 'check_failed')).toEqual([]);
    const noPlaceholder = await t.app.inject({
      method: 'PUT',
      url: `/api/sessions/${id}/seed`,
      headers: post,
      payload: { prd_entries: [], test_files: {}, checks_preset: 'custom', custom_checks: { test: 'node --test' } },
    });
    expect(noPlaceholder.statusCode).toBe(400);
    expect(noPlaceholder.json().error.message).toMatch(/must contain \{files\}/);
  });

  it('adds, removes and reorders tasks: ids stay stable, the removed test file goes, one "seed: edited" commit per save', async () => {
    const testOf = (name: string) => GOOD_TEST.replace('a todo can carry a due date', name);
    const task = (n: number) => ({
      id: `T-00${n}`,
      title: `Task ${n}`,
      description: `Does thing ${n} in src/todo.js.`,
      acceptance_criteria: [`thing ${n} happens`],
      criteria_tests: [[`thing ${n}`]],
    });
    fake.enqueue(PREP, {
      tool_calls: [
        call(
          'write_seed',
          seedArgs({
            prd_entries: [task(1), task(2), task(3)],
            test_files: {
              'tests/t001_one.test.js': testOf('thing 1'),
              'tests/t002_two.test.js': testOf('thing 2'),
              'tests/t003_three.test.js': testOf('thing 3'),
            },
          }),
        ),
      ],
    });
    const id = await create();
    const { worktree } = await until(id, (x) => x.session.status === 'prepared', 'the seed');
    const put = (payload: Record<string, unknown>) => t.app.inject({ method: 'PUT', url: `/api/sessions/${id}/seed`, headers: post, payload });
    const lastEdit = () =>
      t.store
        .session(id)
        .log()
        .readAfter(0, 1000)
        .filter((e) => e.type === 'seed_edited')
        .at(-1);

    // T-002 goes, T-003 moves first, a new T-004 comes last with its own test file.
    const files = {
      'tests/t001_one.test.js': testOf('thing 1'),
      'tests/t003_three.test.js': testOf('thing 3'),
      'tests/t004_four.test.js': testOf('thing 4'),
    };
    const res = await put({ prd_entries: [task(3), task(1), task(4)], test_files: files });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().prd.map((p: { id: string }) => p.id)).toEqual(['T-003', 'T-001', 'T-004']);
    expect(res.json().meta.removed_task_ids).toEqual(['T-002']);
    expect(fs.existsSync(path.join(worktree, 'tests/t002_two.test.js'))).toBe(false);
    expect(fs.readFileSync(path.join(worktree, 'tests/t004_four.test.js'), 'utf8')).toBe(files['tests/t004_four.test.js']);
    expect(git(worktree, 'log', '-2', '--format=%s').split('\n')).toEqual(['seed: edited', 'seed: 3 task(s) + 3 acceptance test(s)']);
    expect(git(worktree, 'ls-files', 'tests/t0*').split('\n')).toEqual(['tests/t001_one.test.js', 'tests/t003_three.test.js', 'tests/t004_four.test.js']);
    expect(git(worktree, 'status', '--porcelain', '--', 'tests')).toBe('');
    expect(lastEdit()?.data).toMatchObject({ changed: ['T-004 added', 'T-002 removed', 'order', 'tests/t004_four.test.js', 'tests/t002_two.test.js removed'] });

    // A removed id is never given again, and a new id may not repeat or sit below the highest used.
    const reuse = await put({ prd_entries: [task(3), task(1), task(4), task(2)], test_files: { ...files, 'tests/t002_two.test.js': testOf('thing 2') } });
    expect(reuse.statusCode).toBe(400);
    expect(reuse.json().error.code).toBe('seed_invalid');
    expect(reuse.json().error.message).toMatch(/T-002 does not continue after the existing tasks \(the highest is T-004\); number new tasks from T-005/);
    const twice = await put({ prd_entries: [task(3), task(1), task(4), { ...task(4), title: 'Four again' }], test_files: files });
    expect(twice.statusCode).toBe(400);
    expect(twice.json().error.message).toMatch(/duplicate task id T-004/);
    expect(fs.existsSync(path.join(worktree, 'tests/t002_two.test.js'))).toBe(false);

    // A save that only reorders is still one commit, named "order".
    const moved = await put({ prd_entries: [task(1), task(3), task(4)], test_files: files });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json().prd.map((p: { id: string }) => p.id)).toEqual(['T-001', 'T-003', 'T-004']);
    expect(git(worktree, 'log', '-3', '--format=%s').split('\n')).toEqual(['seed: edited', 'seed: edited', 'seed: 3 task(s) + 3 acceptance test(s)']);
    expect(lastEdit()?.data).toMatchObject({ changed: ['order'] });
    expect(git(worktree, 'log', '-1', '--format=%b')).toMatch(/Changed in seed review: order/);
  });

  it('re-validates an edit through the sink and refuses it with every problem, writing nothing', async () => {
    const { id, worktree } = await prepared();
    const bad = {
      prd_entries: [{ id: 'T-1', title: '', description: 'x', acceptance_criteria: [] }],
      test_files: { 'tests/t001_due_dates.test.js': GOOD_TEST },
    };
    const res = await t.app.inject({ method: 'PUT', url: `/api/sessions/${id}/seed`, headers: post, payload: bad });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('seed_invalid');
    expect(res.json().error.message.split('\n').length).toBeGreaterThanOrEqual(3);
    expect(git(worktree, 'log', '-1', '--format=%s')).toBe('seed: 1 task(s) + 1 acceptance test(s)');
    const missing = await t.app.inject({ url: '/api/sessions/20200101-000000-000000/seed', headers: auth });
    expect(missing.statusCode).toBe(404);
  });
});
