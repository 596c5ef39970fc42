/**
 * Review and getting the work out, through the API: real git repos (and a bare remote), real test
 * processes, the scripted model for the run that produces the work.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionDetailSchema } from '../../shared/api.ts';
import { MergePreviewSchema, MergeResultSchema, SessionReviewSchema, TaskReviewSchema, DiffSchema } from '../../shared/review.ts';
import { makeExampleRepo, type ExampleRepo } from '../demo/example-repo.ts';
import { startScriptedModel, type ScriptedModel } from '../scripted-model/model-server.ts';
import { caseTurn, makePreparedSession, noLearning, nodeTest, verdictTurn, writeTurn, type SeedTask } from '../testing/run-fixtures.ts';
import { auth, makeTestApp, tempDir, type TestApp } from '../testing/test-app.ts';
import { compareUrl } from './publish.ts';

const WORKER = 'worker-model';
const EVAL = 'eval-model';
const post = { ...auth, origin: 'http://localhost' };

let fake: ScriptedModel;
let t: TestApp;
let repo: ExampleRepo;

beforeEach(async () => {
  fake = await startScriptedModel();
  repo = await makeExampleRepo('js-todo');
  t = await makeTestApp({ env: { TILTH_BASE_URL: fake.baseURL, TILTH_API_KEY: 'k', TILTH_WORKER_MODEL: WORKER, TILTH_EVALUATOR_MODEL: EVAL } });
});
afterEach(async () => {
  await t.close();
  await fake.close();
  await repo.cleanup();
});

const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();
const impl = (name: string, body: string) => writeTurn(`src/${name}.js`, `export function ${name}(n) {\n  return ${body};\n}\n`);
const TASKS: SeedTask[] = [
  { id: 'T-001', title: 'Double', tests: { 'tests/t001_double.test.js': nodeTest('double', 'double', '2', '4') } },
  { id: 'T-002', title: 'Triple', tests: { 'tests/t002_triple.test.js': nodeTest('triple', 'triple', '2', '6') } },
];

/** A session run to all_done: T-001 fails its checks once, then is rejected once, then accepted. */
async function finishedSession(): Promise<string> {
  const id = await makePreparedSession(t.store, repo.dir, 'node', TASKS);
  fake.load({
    models: {
      [WORKER]: [
        impl('double', 'n * 3'),
        caseTurn(),
        impl('double', 'n * 2'),
        caseTurn(),
        caseTurn('Now with docs.'),
        noLearning,
        impl('triple', 'n * 3'),
        caseTurn(),
        noLearning,
      ],
      [EVAL]: [verdictTurn('reject', { category: 'weak_test', next_step: 'Document double().' }), verdictTurn('accept'), verdictTurn('accept')],
    },
  });
  const res = await t.app.inject({ method: 'POST', url: `/api/sessions/${id}/run`, headers: post });
  expect(res.statusCode).toBe(202);
  for (const deadline = Date.now() + 100_000; ; ) {
    const d = SessionDetailSchema.parse((await t.app.inject({ url: `/api/sessions/${id}`, headers: auth })).json());
    if (d.session.status === 'all_done' && d.run.state === 'idle') break;
    if (Date.now() > deadline || d.session.status === 'stopped') throw new Error(`run ended ${d.session.status}: ${d.last_error}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return id;
}

/** Each test runs a whole session first (red and green proofs, each case twice): minutes on a loaded machine. */
const RUN_BUDGET = { timeout: 120_000 };

const get = async (url: string) => t.app.inject({ url, headers: auth });
const act = async (url: string, payload: unknown = {}) => t.app.inject({ method: 'POST', url, headers: post, payload: payload as Record<string, unknown> });
const repoState = () => ({
  head: git(repo.dir, 'rev-parse', 'main'),
  status: git(repo.dir, 'status', '--porcelain'),
  worktrees: git(repo.dir, 'worktree', 'list').split('\n').length,
  mergeHead: fs.existsSync(path.join(repo.dir, '.git', 'MERGE_HEAD')),
});

describe('task and session review', RUN_BUDGET, () => {
  it('shows a task its commit, diff, final case, every verdict and every check attempt', async () => {
    const id = await finishedSession();
    const review = TaskReviewSchema.parse((await get(`/api/sessions/${id}/tasks/T-001`)).json());
    expect(review.commits.map((c) => c.subject)).toEqual(['T-001: Double']);
    expect(review.final_case?.summary).toBe('Now with docs.');
    expect(review.ledger.map((e) => [e.verdict.verdict, e.verdict.rejection_category ?? null, e.verdict.next_step ?? null])).toEqual([
      ['reject', 'weak_test', 'Document double().'],
      ['accept', null, null],
    ]);
    expect(review.checks.map((c) => c.passed)).toEqual([false, true, true]);
    expect(review.checks[0]!.results[0]!.output).toMatch(/6|expected/);
    expect(review.stats).toMatchObject({ status: 'done', evaluator_calls: 2, rejects: 1, accepts: 1 });

    const diff = DiffSchema.parse((await get(`/api/sessions/${id}/tasks/T-001/diff`)).json());
    expect(diff.files).toEqual([{ path: 'src/double.js', old_path: null, status: 'added', additions: 3, deletions: 0, binary: false }]);
    expect(diff.text).toContain('+  return n * 2;');

    const session = SessionReviewSchema.parse((await get(`/api/sessions/${id}/diff`)).json());
    expect(session.commits.map((c) => c.subject)).toEqual(['seed: 2 task(s)', 'T-001: Double', 'T-002: Triple']);
    expect(session.diff.files.map((f) => f.path).sort()).toEqual(['src/double.js', 'src/triple.js', 'tests/t001_double.test.js', 'tests/t002_triple.test.js']);
    expect(session.actions.merge).toEqual({ allowed: true, reason: null });
    expect(session.actions.cleanse.allowed).toBe(false);
    expect(session.actions.push).toMatchObject({ allowed: false, remotes: [] });

    expect((await get(`/api/sessions/${id}/tasks/T-009`)).statusCode).toBe(404);
    expect((await get(`/api/sessions/${id}/tasks/nope`)).statusCode).toBe(400);
  });
});

describe('merge', RUN_BUDGET, () => {
  it.each(['merge', 'squash', 'ff'] as const)(
    '%s: previews with the acceptance tests, merges into main, keeps a backup, leaves the checkout clean',
    async (strategy) => {
      const id = await finishedSession();
      const before = repoState();
      const preview = MergePreviewSchema.parse((await act(`/api/sessions/${id}/merge/preview`, { strategy })).json());
      expect(preview.passed).toBe(true);
      expect(preview.tests.map((x) => x.name)).toEqual(['acceptance']);
      expect(repoState()).toEqual(before); // a preview changes nothing

      const res = await act(`/api/sessions/${id}/merge`, { strategy });
      expect(res.statusCode, res.body).toBe(200);
      const merged = MergeResultSchema.parse(res.json());
      expect(git(repo.dir, 'rev-parse', 'main')).toBe(merged.sha);
      expect(git(repo.dir, 'status', '--porcelain')).toBe('');
      expect(fs.readFileSync(path.join(repo.dir, 'src/double.js'), 'utf8')).toContain('n * 2');
      expect(git(repo.dir, 'rev-parse', merged.backup_ref)).toBe(before.head);
      const subjects = git(repo.dir, 'log', '--format=%s', 'main');
      if (strategy === 'squash') expect(subjects.split('\n')[0]).toBe('test feature');
      else expect(subjects).toContain('T-002: Triple');
      if (strategy === 'merge') expect(git(repo.dir, 'log', '-1', '--format=%p', 'main').split(' ')).toHaveLength(2);
      if (strategy === 'ff') expect(git(repo.dir, 'log', '-1', '--format=%s', 'main')).toBe('T-002: Triple');
      const detail = SessionDetailSchema.parse((await get(`/api/sessions/${id}`)).json());
      expect(detail.session.status).toBe('merged');
      // A second merge is refused with the reason.
      const again = await act(`/api/sessions/${id}/merge`, { strategy });
      expect(again.statusCode).toBe(409);
      expect(again.json().error.message).toContain('already merged');
      // The undo command puts main back.
      execFileSync('sh', ['-c', merged.undo]);
      expect(git(repo.dir, 'rev-parse', 'main')).toBe(before.head);
    },
  );

  it('refuses when main is checked out with uncommitted changes, and changes nothing', async () => {
    const id = await finishedSession();
    fs.appendFileSync(path.join(repo.dir, 'README.md'), '\nlocal edit\n');
    const before = repoState();
    const readme = fs.readFileSync(path.join(repo.dir, 'README.md'), 'utf8');
    for (const url of [`/api/sessions/${id}/merge/preview`, `/api/sessions/${id}/merge`]) {
      const res = await act(url, { strategy: 'merge' });
      expect(res.statusCode).toBe(409);
      expect(res.json().error.code).toBe('base_dirty');
      expect(res.json().error.message).toContain('README.md');
    }
    expect(repoState()).toEqual(before);
    expect(fs.readFileSync(path.join(repo.dir, 'README.md'), 'utf8')).toBe(readme);
  });

  it('refuses a conflicting merge with nothing half-merged', async () => {
    const id = await finishedSession();
    fs.mkdirSync(path.join(repo.dir, 'src'), { recursive: true });
    fs.writeFileSync(path.join(repo.dir, 'src/double.js'), 'export const double = (n) => n + n;\n');
    git(repo.dir, 'add', '-A');
    git(repo.dir, 'commit', '-q', '-m', 'main: my own double');
    const before = repoState();
    const res = await act(`/api/sessions/${id}/merge`, { strategy: 'merge' });
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('merge_conflict');
    expect(res.json().error.message).toContain('src/double.js');
    expect(repoState()).toEqual(before);
    expect((await act(`/api/sessions/${id}/merge`, { strategy: 'ff' })).json().error.code).toBe('ff_impossible');
    expect(SessionDetailSchema.parse((await get(`/api/sessions/${id}`)).json()).session.status).toBe('all_done');
  });

  it('blocks a merge whose result fails the acceptance tests unless overridden', async () => {
    const id = await finishedSession();
    // main changes what the session's code relies on: the merge is clean but the tests fail
    // (CommonJS cannot load the ES-module test files).
    const pkg = JSON.parse(fs.readFileSync(path.join(repo.dir, 'package.json'), 'utf8'));
    fs.writeFileSync(path.join(repo.dir, 'package.json'), JSON.stringify({ ...pkg, type: 'commonjs' }, null, 2));
    git(repo.dir, 'add', '-A');
    git(repo.dir, 'commit', '-q', '-m', 'main: a stricter test');
    const previewRes = await act(`/api/sessions/${id}/merge/preview`, { strategy: 'merge' });
    expect(previewRes.statusCode, previewRes.body).toBe(200);
    const preview = MergePreviewSchema.parse(previewRes.json());
    expect(preview.passed).toBe(false);
    const before = repoState();
    const refused = await act(`/api/sessions/${id}/merge`, { strategy: 'merge' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.code).toBe('merge_tests_failed');
    expect(repoState()).toEqual(before);
    const forced = await act(`/api/sessions/${id}/merge`, { strategy: 'merge', override_failed_tests: true });
    expect(forced.statusCode, forced.body).toBe(200);
    expect(MergeResultSchema.parse(forced.json()).passed).toBe(false);
  });

  it('validates bodies and refuses sessions in the wrong state', async () => {
    const id = await makePreparedSession(t.store, repo.dir, 'node', TASKS);
    expect((await act(`/api/sessions/${id}/merge`, { strategy: 'rebase' })).statusCode).toBe(400);
    expect((await act(`/api/sessions/${id}/merge`, { strategy: 'merge', extra: 1 })).statusCode).toBe(400);
    const notYet = await act(`/api/sessions/${id}/merge`, { strategy: 'merge' });
    expect(notYet.statusCode).toBe(409);
    expect(notYet.json().error.message).toContain('the run has not started: run the plan first');
    expect((await act(`/api/sessions/${id}/cleanse`)).json().error.code).toBe('session_not_safe');
    expect((await act(`/api/sessions/${id}/push`, { remote: 'origin' })).statusCode).toBe(409);
  });
});

describe('push, PR and cleanse', RUN_BUDGET, () => {
  it('pushes to a named remote, offers a compare URL without gh, then cleanses to archived', async () => {
    const id = await finishedSession();
    const bare = tempDir('tilth-remote-');
    git(bare, 'init', '-q', '--bare');
    git(repo.dir, 'remote', 'add', 'origin', bare);
    expect((await act(`/api/sessions/${id}/push`, { remote: 'nowhere' })).statusCode).toBe(400);
    const pushed = await act(`/api/sessions/${id}/push`, { remote: 'origin' });
    expect(pushed.statusCode, pushed.body).toBe(200);
    const branch = `session/${id}`;
    expect(git(bare, 'rev-parse', branch)).toBe(git(repo.dir, 'rev-parse', branch));

    // A local path is not a GitHub remote: no compare URL to offer (gh is not installed here).
    const pr = await act(`/api/sessions/${id}/pr`, {});
    expect(pr.statusCode).toBe(409);
    expect(pr.json().error.code).toBe('pr_unavailable');
    git(repo.dir, 'remote', 'add', 'github', 'git@github.com:someone/js-todo.git');
    const viaCompare = await act(`/api/sessions/${id}/pr`, { remote: 'github' });
    expect(viaCompare.json()).toEqual({ url: `https://github.com/someone/js-todo/compare/main...session%2F${id}?expand=1`, via: 'compare_url' });

    const cleansed = await act(`/api/sessions/${id}/cleanse`);
    expect(cleansed.statusCode, cleansed.body).toBe(200);
    expect(cleansed.json()).toEqual({ removed_worktree: true, removed_branch: true });
    expect(git(repo.dir, 'branch', '--list', branch)).toBe('');
    expect(fs.existsSync(t.store.session(id).checkpoint.read().worktree)).toBe(false);
    expect(t.store.session(id).checkpoint.read().status).toBe('archived');
    expect(
      t.store
        .session(id)
        .log()
        .readAfter(0, 10_000)
        .map((e) => e.type),
    ).toEqual(expect.arrayContaining(['push', 'pr', 'cleanse']));
    expect((await act(`/api/sessions/${id}/cleanse`)).statusCode).toBe(409);
    fs.rmSync(bare, { recursive: true, force: true });
  });

  it('builds compare URLs from GitHub remotes only', () => {
    expect(compareUrl('https://github.com/a/b.git', 'main', 'session/x')).toBe('https://github.com/a/b/compare/main...session%2Fx?expand=1');
    expect(compareUrl('git@github.com:a/b', 'main', 'x')).toBe('https://github.com/a/b/compare/main...x?expand=1');
    expect(compareUrl('https://gitlab.com/a/b.git', 'main', 'x')).toBeNull();
    expect(compareUrl('/srv/git/b.git', 'main', 'x')).toBeNull();
  });
});
