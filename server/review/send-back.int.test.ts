/**
 * Sending a done task back, through the API with the scripted model, real git and real test
 * processes: the comment and the lines it was written on reach the worker's fresh context and the
 * evaluator's prompt, the revision is committed on top as `(rev 2)`, and the merge carries both.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ReopenResultSchema, TaskReviewSchema } from '../../shared/review.ts';
import { caseTurn, makePreparedSession, noLearning, verdictTurn, writeTurn } from '../testing/run-fixtures.ts';
import { EVAL, git, post, TWO_TASKS, useRunHarness, WORKER } from '../testing/run-harness.ts';
import { auth, tempDir } from '../testing/test-app.ts';

const h = useRunHarness();
const impl = (name: string, body: string) => writeTurn(`src/${name}.js`, `export function ${name}(n) {\n  // ${name}s n\n  return ${body};\n}\n`);

const reopen = (id: string, taskId: string, payload: unknown) =>
  h.t.app.inject({ method: 'POST', url: `/api/sessions/${id}/tasks/${taskId}/reopen`, headers: post, payload: payload as object });

async function doneSession(): Promise<string> {
  const id = await makePreparedSession(h.t.store, h.repo.dir, 'node', TWO_TASKS);
  h.fake.load({
    models: {
      [WORKER]: [impl('double', 'n + n'), caseTurn('Doubles.', 'Double works', 'src/double.js:double()'), noLearning],
      [EVAL]: [verdictTurn('accept'), verdictTurn('accept')],
    },
  });
  h.fake.enqueue(WORKER, impl('triple', 'n * 3'), caseTurn('Triples.', 'Triple works', 'src/triple.js:triple()'), noLearning);
  expect((await h.runToEnd(id)).session.status).toBe('all_done');
  return id;
}

describe('sending a task back', () => {
  it('gives the revision the comment at its lines and the note, commits it as (rev 2) on top, and the merge carries both', async () => {
    const id = await doneSession();
    const firstReceipt = h.t.store.session(id).evidence.read('T-001');
    expect(firstReceipt?.revision).toBe(1);
    const comment = h.t.store
      .session(id)
      .comments.add({ task_id: 'T-001', file: 'src/double.js', line: 3, side: 'new', text: 'Use n * 2: it reads as doubling.' });

    const res = await reopen(id, 'T-001', { note: 'Keep the comment line.' });
    expect(res.statusCode, res.body).toBe(200);
    const sent = ReopenResultSchema.parse(res.json());
    expect(sent.task).toMatchObject({ id: 'T-001', status: 'pending', revision: 2 });
    expect(sent.send_back.comments).toEqual([
      {
        id: comment.id,
        file: 'src/double.js',
        line: 3,
        side: 'new',
        text: 'Use n * 2: it reads as doubling.',
        excerpt: { start: 1, lines: ['export function double(n) {', '  // doubles n', '  return n + n;', '}', ''] },
      },
    ]);
    expect(sent.send_back.previous_case?.summary).toBe('Doubles.');
    expect(sent.send_back.last_verdict?.verdict).toBe('accept');
    // The comment is fixed now, marked with the revision that answers it; the session waits for Run.
    expect(h.t.store.session(id).comments.list()[0]!.sent).toMatchObject({ task_id: 'T-001', revision: 2 });
    expect((await h.detail(id)).session).toMatchObject({ status: 'stopped', last_stop: 'sent_back' });

    h.fake.reset();
    h.fake.load({
      models: {
        [WORKER]: [impl('double', 'n * 2'), caseTurn('Now n * 2.', 'Double works', 'src/double.js:double()'), noLearning],
        [EVAL]: [verdictTurn('accept', { concern: 'The reviewer asked for n * 2 and got it.' })],
      },
    });
    expect((await h.runToEnd(id)).session.status).toBe('all_done');
    h.fake.assertDone();

    // A fresh context with the comment, its anchored lines, the note, the case and verdict before.
    const workerPrompt = JSON.stringify(h.fake.requests.find((r) => r.model === WORKER)!.messages);
    for (const part of [
      'Sent back by the reviewer (revision 2)',
      'Use n * 2: it reads as doubling.',
      '>    3 |   return n + n;',
      'Keep the comment line.',
      'Doubles.',
    ]) {
      expect(workerPrompt).toContain(part);
    }
    const judged = JSON.stringify(h.fake.requests.find((r) => r.model === EVAL)!.messages);
    expect(judged).toContain("The reviewer's requirements for this revision (2)");
    expect(judged).toContain('Use n * 2: it reads as doubling.');

    const cp = h.t.store.session(id).checkpoint.read();
    const subjects = git(h.repo.dir, 'log', '--format=%s', cp.branch).split('\n');
    expect(subjects.slice(0, 3)).toEqual(['T-001 (rev 2): Double', 'T-002: Triple', 'T-001: Double']);
    // Nothing rewritten: the first revision's commit is still an ancestor of the branch.
    const ledger = h.t.store.session(id).ledger.read('T-001');
    expect(ledger.map((e) => e.revision ?? 1)).toEqual([1, 2]);

    const review = TaskReviewSchema.parse((await h.t.app.inject({ url: `/api/sessions/${id}/tasks/T-001`, headers: auth })).json());
    expect(review.task.revision).toBe(2);
    expect(review.commits.map((c) => c.subject)).toEqual(['T-001: Double', 'T-001 (rev 2): Double']);
    expect(review.send_backs.map((s) => s.revision)).toEqual([2]);
    // A new receipt for the new revision: its own commit, diff and claims.
    const receipt = h.t.store.session(id).evidence.read('T-001')!;
    expect(receipt).toMatchObject({ revision: 2, task_commit: review.commits[1]!.sha });
    expect(receipt.diff_sha256).not.toBe(firstReceipt!.diff_sha256);
    expect(receipt.claims.worker_case?.summary).toBe('Now n * 2.');

    const merged = await h.t.app.inject({
      method: 'POST',
      url: `/api/sessions/${id}/merge`,
      headers: post,
      payload: { strategy: 'merge', override_failed_tests: true },
    });
    expect(merged.statusCode, merged.body).toBe(200);
    const onMain = git(h.repo.dir, 'log', '--format=%s', 'main');
    expect(onMain).toContain('T-001: Double');
    expect(onMain).toContain('T-001 (rev 2): Double');
  }, 90_000);

  it('a revision whose case changes nothing is answered once before the checks; presented again, the evaluator sees the empty diff and nothing is committed', async () => {
    const id = await doneSession();
    expect((await reopen(id, 'T-001', { note: 'Use n * 2.' })).statusCode).toBe(200);
    h.fake.reset();
    h.fake.load({
      models: {
        [WORKER]: [
          caseTurn('Already right.', 'Double works', 'src/double.js:double()'),
          caseTurn('Still right.', 'Double works', 'src/double.js:double()'),
          noLearning,
        ],
        [EVAL]: [verdictTurn('accept', { concern: 'The code already does it.' })],
      },
    });
    expect((await h.runToEnd(id)).session.status).toBe('all_done');
    h.fake.assertDone();
    const events = h.t.store.session(id).log().readAfter(0, 10_000);
    const unchanged = events.flatMap((e) => (e.type === 'revision_unchanged' ? [e.data] : []));
    expect(unchanged).toMatchObject([{ task_id: 'T-001', revision: 2, iter: 1 }]);
    // The first case was answered without checks or an evaluator; the second went on to both.
    const second = JSON.stringify(h.fake.requests.filter((r) => r.model === WORKER)[1]!.messages);
    expect(second).toContain('Case not reviewed: nothing changed since the reviewer sent this task back. Revision 2 exists because they asked for a change');
    expect(events.filter((e) => e.type === 'validator_run' && e.data.task_id === 'T-001' && e.data.iter === 1)).toEqual([]);
    expect(JSON.stringify(h.fake.requests.find((r) => r.model === EVAL)!.messages)).toContain('(empty diff)');
    const commits = events.flatMap((e) => (e.type === 'commit' && e.data.task_id === 'T-001' ? [e.data.sha] : []));
    expect(commits.at(-1)).toBeNull();
  }, 90_000);

  it('refuses a task that is not done, a send-back with nothing to say, a sent comment, a running or merged session, each with its code', async () => {
    const id = await makePreparedSession(h.t.store, h.repo.dir, 'node', TWO_TASKS);
    const prepared = await reopen(id, 'T-001', { note: 'x' });
    expect(prepared.statusCode).toBe(409);
    expect(prepared.json().error.code).toBe('session_not_reopenable');

    const session = h.t.store.session(id);
    session.prd.write(session.prd.tasks().map((task) => (task.id === 'T-001' ? { ...task, status: 'done' } : task)));
    h.t.store.session(id).checkpoint.setStatus('all_done');
    const notDone = await reopen(id, 'T-002', { note: 'x' });
    expect(notDone.statusCode).toBe(409);
    expect(notDone.json().error.code).toBe('task_not_done');
    const unknown = await reopen(id, 'T-009', { note: 'x' });
    expect(unknown.statusCode).toBe(404);
    const empty = await reopen(id, 'T-001', { note: '   ' });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().error.message).toMatch(/Say what to change/);
    const badId = await reopen(id, 'T-001', { comment_ids: ['nope'] });
    expect(badId.statusCode).toBe(400);
    const extra = await reopen(id, 'T-001', { note: 'x', force: true });
    expect(extra.statusCode).toBe(400);
    const missing = await reopen(id, 'T-001', { comment_ids: ['c-000000'] });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('comment_not_found');

    const c = session.comments.add({ task_id: 'T-001', file: 'src/double.js', line: 1, side: 'new', text: 'Rename it.' });
    expect((await reopen(id, 'T-001', { comment_ids: [c.id] })).statusCode).toBe(200);
    session.prd.write(session.prd.tasks().map((task) => (task.id === 'T-001' ? { ...task, status: 'done' } : task)));
    const again = await reopen(id, 'T-001', { comment_ids: [c.id] });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('comment_sent');

    h.t.store.session(id).checkpoint.setStatus('merged');
    const merged = await reopen(id, 'T-001', { note: 'x' });
    expect(merged.statusCode).toBe(409);
    expect(merged.json().error.message).toContain('this session is merged');
  });

  it('reads the lines of 200 comments on two diffs and both sides with one git process, not one per comment', async () => {
    const id = await makePreparedSession(h.t.store, h.repo.dir, 'node', TWO_TASKS);
    const session = h.t.store.session(id);
    const { worktree } = h.t.store.session(id).checkpoint.read();
    const body = Array.from({ length: 40 }, (_, i) => `// line ${i + 1}`);
    fs.writeFileSync(path.join(worktree, 'src', 'double.js'), `${body.join('\n')}\n`);
    git(worktree, 'add', 'src/double.js');
    git(worktree, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'T-001: Double');
    session.prd.write(session.prd.tasks().map((task) => (task.id === 'T-001' ? { ...task, status: 'done' } : task)));
    h.t.store.session(id).checkpoint.setStatus('all_done');
    const base = fs.readFileSync(path.join(h.repo.dir, 'src', 'todo.js'), 'utf8').split('\n');
    // 150 on the task's new lines, 40 on the base's lines of the session diff, 10 on a file neither side has.
    const asked = [
      ...Array.from({ length: 150 }, (_, i) => ({ task_id: 'T-001', file: 'src/double.js', line: (i % 40) + 1, side: 'new' as const })),
      ...Array.from({ length: 40 }, (_, i) => ({ task_id: null, file: 'src/todo.js', line: (i % 30) + 1, side: 'old' as const })),
      ...Array.from({ length: 10 }, (_, i) => ({ task_id: null, file: 'src/gone.js', line: i + 1, side: 'new' as const })),
    ];
    const ids = asked.map((c, i) => session.comments.add({ ...c, text: `comment ${i}` }).id);

    // Every git process the server starts from here is the real git behind a first `git` on the
    // PATH that writes its arguments down. (simple-git drops GIT_TRACE and every other GIT_*
    // variable from the environment it passes, so git's own trace cannot count them.)
    const shim = tempDir();
    const log = path.join(shim, 'calls.log');
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    fs.writeFileSync(path.join(shim, 'git'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${realGit}' "$@"\n`, { mode: 0o755 });
    const pathBefore = process.env.PATH;
    process.env.PATH = `${shim}${path.delimiter}${pathBefore}`;
    let res: Awaited<ReturnType<typeof reopen>>;
    try {
      res = await reopen(id, 'T-001', { comment_ids: ids });
    } finally {
      process.env.PATH = pathBefore;
    }
    expect(res.statusCode, res.body).toBe(200);
    const calls = fs.readFileSync(log, 'utf8').trim().split('\n');
    expect(calls.filter((c) => /(^| )(show|cat-file) /.test(c))).toHaveLength(1);
    expect(calls.length).toBeLessThanOrEqual(5);

    const sent = ReopenResultSchema.parse(res.json()).send_back.comments;
    expect(sent).toHaveLength(200);
    expect(sent[19]!.excerpt).toEqual({ start: 17, lines: body.slice(16, 23) });
    expect(sent[150]!.excerpt).toEqual({ start: 1, lines: base.slice(0, 4) });
    expect(sent[170]!.excerpt).toEqual({ start: 18, lines: base.slice(17, 24) });
    expect(sent.slice(190).map((c) => c.excerpt)).toEqual(Array(10).fill(null));
  });
});
