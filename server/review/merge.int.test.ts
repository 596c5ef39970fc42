/**
 * Merge refusals that must leave the user's repository exactly as it was: a conflict (merge
 * commit or squash), a fast-forward the base has outgrown, and a dirty checkout of the base
 * branch named file by file. Real git, a prepared session with one committed task; no model.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppError } from '../errors/app-error.ts';
import { commitAll, worktreeRefOf } from '../git/worktree-git.ts';
import { makeExampleRepo, type ExampleRepo } from '../demo/example-repo.ts';
import { makePreparedSession, nodeTest } from '../testing/run-fixtures.ts';
import { useTempStore } from '../testing/test-app.ts';
import { merge, previewMerge } from './merge.ts';
import { cleanse } from './publish.ts';
import { sessionReview, taskDiff, taskReview } from './review.ts';

const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();
const env = useTempStore();
let repo: ExampleRepo;
beforeEach(async () => {
  repo = await makeExampleRepo('js-todo');
});
afterEach(async () => {
  await repo.cleanup();
});

/**
 * A session whose one task (src/triple.js) is committed and done: ready to merge. With `evidence`
 * (the default) its criterion is proven as a run proves it: red on the seed commit, green and
 * claimed in the accepting ledger entry.
 */
async function doneSession(evidence = true): Promise<string> {
  const { store } = env;
  const id = await makePreparedSession(store, repo.dir, 'node', [
    { id: 'T-001', title: 'Triple', tests: { 'tests/t001_triple.test.js': nodeTest('triple', 'triple', '2', '6') } },
  ]);
  const cp = store.session(id).checkpoint.read();
  const { worktree } = cp;
  fs.mkdirSync(path.join(worktree, 'src'), { recursive: true });
  fs.writeFileSync(path.join(worktree, 'src', 'triple.js'), 'export function triple(n) {\n  return n * 3;\n}\n');
  await commitAll(await worktreeRefOf(cp), 'T-001: Triple');
  const session = store.session(id);
  session.prd.write(session.prd.tasks().map((t) => ({ ...t, status: 'done' })));
  if (evidence) {
    const test = 'triple works';
    session.seedProof.write({ key: 'fixture', at: new Date().toISOString(), tasks: { 'T-001': [{ test, result: 'failed', detail: 'triple is missing' }] } });
    session.ledger.append('T-001', {
      ts: new Date().toISOString(),
      iter: 1,
      diff_summary: 'src/triple.js',
      case: { summary: 'Triples.', ac_coverage: [{ criterion: 'Triple works', addressed_by: 'src/triple.js:triple()' }] },
      verdict: { verdict: 'accept', concern: 'Fine.', evidence: [] },
      green: [{ test, result: 'passed', detail: 'it passes already' }],
    });
  }
  store.session(id).checkpoint.setStatus('all_done');
  return id;
}

function repoState() {
  return {
    head: git(repo.dir, 'rev-parse', 'HEAD'),
    main: git(repo.dir, 'rev-parse', 'refs/heads/main'),
    status: git(repo.dir, 'status', '--porcelain'),
    worktrees: git(repo.dir, 'worktree', 'list', '--porcelain'),
    refs: git(repo.dir, 'for-each-ref', 'refs/tilth'),
    mergeHead: fs.existsSync(path.join(repo.dir, '.git', 'MERGE_HEAD')),
  };
}

async function refusal(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e as AppError,
  );
  if (err === null) throw new Error('expected a refusal, got a result');
  return err;
}

/** Someone commits their own src/triple.js on main meanwhile. */
function conflictingCommitOnMain(): void {
  fs.mkdirSync(path.join(repo.dir, 'src'), { recursive: true });
  fs.writeFileSync(path.join(repo.dir, 'src', 'triple.js'), 'export const triple = (n) => n + n + n;\n');
  git(repo.dir, 'add', 'src/triple.js');
  git(repo.dir, 'commit', '-q', '-m', 'triple, by hand');
}

describe('merge refusals', () => {
  it('refuses a criterion without evidence (never proven red) until the override, and the review lists it', async () => {
    const id = await doneSession(false);
    const before = repoState();
    const preview = await previewMerge(env.store.session(id), 'merge');
    expect(preview.passed).toBe(true);
    expect(preview.criteria_problems).toEqual([
      { task_id: 'T-001', criterion: 'Triple works', problem: 'not_red', detail: 'its tests were never proven to fail before the work' },
    ]);
    expect((await sessionReview(env.store.session(id))).criteria_problems).toEqual(preview.criteria_problems);
    const refused = await refusal(merge(env.store.session(id), 'merge', false));
    expect(refused.code).toBe('merge_criteria_unproven');
    expect(refused.message).toContain('T-001 "Triple works": its tests were never proven to fail before the work');
    expect(repoState()).toEqual(before);

    const merged = await merge(env.store.session(id), 'merge', true);
    expect(git(repo.dir, 'rev-parse', 'refs/heads/main')).toBe(merged.sha);
  });

  it('has nothing to say about a criterion proven red, green and claimed; surviving mutants are shown, not a reason to refuse', async () => {
    const id = await doneSession();
    const survivor = { file: 'src/triple.js', line: 2, description: 'turns 3 into 4' };
    env.store.session(id).mutations.write('T-001', { status: 'done', killed: 1, survived: 1, survivors: [survivor], note: null, duration_ms: 10 });
    const preview = await previewMerge(env.store.session(id), 'merge');
    expect(preview.criteria_problems).toEqual([]);
    expect(preview.survivors).toEqual([{ task_id: 'T-001', ...survivor }]);
    expect((await sessionReview(env.store.session(id))).survivors).toEqual(preview.survivors);
    expect(preview.mutation_gate).toBe(false);
    await merge(env.store.session(id), 'merge', false);
  });

  it('with the mutation gate on, refuses to merge past a surviving mutant without the override, and merges with it', async () => {
    const id = await doneSession();
    env.store.session(id).mutations.write('T-001', {
      status: 'done',
      killed: 1,
      survived: 1,
      survivors: [{ file: 'src/triple.js', line: 2, description: 'turns 3 into 4' }],
      note: null,
      duration_ms: 10,
    });
    expect((await previewMerge(env.store.session(id), 'merge', true)).mutation_gate).toBe(true);
    const before = repoState();
    const refused = await refusal(merge(env.store.session(id), 'merge', false, true));
    expect(refused.code).toBe('merge_mutants_survive');
    expect(refused.message).toContain('T-001 src/triple.js:2 turns 3 into 4');
    expect(repoState()).toEqual(before);
    const merged = await merge(env.store.session(id), 'merge', true, true);
    expect(git(repo.dir, 'rev-parse', 'refs/heads/main')).toBe(merged.sha);
  });

  for (const strategy of ['merge', 'squash'] as const) {
    it(`refuses a conflicting ${strategy} with the file named, leaving no merge in progress and no scratch worktree`, async () => {
      const id = await doneSession();
      conflictingCommitOnMain();
      const before = repoState();

      const preview = await refusal(previewMerge(env.store.session(id), strategy));
      expect(preview.code).toBe('merge_conflict');
      expect(preview.message).toContain('conflicts in src/triple.js');
      const merged = await refusal(merge(env.store.session(id), strategy, true));
      expect(merged.code).toBe('merge_conflict');

      expect(repoState()).toEqual(before);
      expect(fs.existsSync(path.join(env.store.session(id).dir, 'merge-scratch'))).toBe(false);
      expect(env.store.session(id).checkpoint.read().status).toBe('all_done');
    });
  }

  it('refuses a fast-forward once the base branch has moved on, and changes nothing', async () => {
    const id = await doneSession();
    fs.writeFileSync(path.join(repo.dir, 'NOTES.md'), 'unrelated\n');
    git(repo.dir, 'add', 'NOTES.md');
    git(repo.dir, 'commit', '-q', '-m', 'unrelated work on main');
    const before = repoState();

    const err = await refusal(merge(env.store.session(id), 'ff', true));
    expect(err.code).toBe('ff_impossible');
    expect(repoState()).toEqual(before);
    expect(git(repo.dir, 'log', '-1', '--format=%s', 'main')).toBe('unrelated work on main');
  });

  it('refuses a fast-forward of a base branch nobody has checked out, rather than moving it backwards', async () => {
    const id = await doneSession();
    fs.writeFileSync(path.join(repo.dir, 'NOTES.md'), 'unrelated\n');
    git(repo.dir, 'add', 'NOTES.md');
    git(repo.dir, 'commit', '-q', '-m', 'unrelated work on main');
    git(repo.dir, 'checkout', '-q', '--detach');
    const before = repoState();

    const err = await refusal(merge(env.store.session(id), 'ff', true));
    expect(err.code).toBe('ff_impossible');
    expect(repoState()).toEqual(before);
  });

  it('fast-forwards when the base has not moved', async () => {
    const id = await doneSession();
    const head = git(repo.dir, 'rev-parse', `session/${id}`);
    const result = await merge(env.store.session(id), 'ff', false);
    expect(result.sha).toBe(head);
    expect(git(repo.dir, 'rev-parse', 'main')).toBe(head);
    expect(git(repo.dir, 'status', '--porcelain')).toBe('');
  });

  it('refuses while main is checked out with uncommitted changes, naming each file whole', async () => {
    const id = await doneSession();
    fs.appendFileSync(path.join(repo.dir, 'README.md'), '\nlocal edit\n');
    fs.appendFileSync(path.join(repo.dir, 'package.json'), '\n');
    const before = repoState();

    const err = await refusal(merge(env.store.session(id), 'merge', false));
    expect(err.code).toBe('base_dirty');
    expect(err.message).toContain('uncommitted changes (README.md, package.json)');
    expect(repoState()).toEqual(before);
  });
});

describe('the record after cleansing', () => {
  for (const strategy of ['merge', 'ff'] as const) {
    it(`still shows a task's commit and diff once a ${strategy === 'ff' ? 'fast-forwarded' : 'merged'} session's branch is gone`, async () => {
      const id = await doneSession();
      await merge(env.store.session(id), strategy, false);
      await cleanse(env.store.session(id));
      expect(git(repo.dir, 'branch', '--list', `session/${id}`)).toBe('');

      const task = await taskReview(env.store.session(id), 'T-001');
      expect(task.commits.map((c) => c.subject)).toEqual(['T-001: Triple']);
      expect((await taskDiff(env.store.session(id), 'T-001')).files.map((f) => f.path)).toEqual(['src/triple.js']);
      const session = await sessionReview(env.store.session(id));
      expect(session.head_sha).toBeNull();
      expect(session.diff.files.map((f) => f.path).sort()).toEqual(['src/triple.js', 'tests/t001_triple.test.js']);
      expect(session.actions.cleanse.allowed).toBe(false);
    });
  }
});
