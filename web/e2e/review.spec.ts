import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { makeExampleRepo, type ExampleRepo } from '../../server/demo/example-repo.ts';
import type { ScriptedReplyInput } from '../../server/scripted-model/model-server.ts';
import { noLearning, nodeTest, verdictTurn, workerTurn, writeTurn } from '../../server/testing/run-fixtures.ts';
import { createSession, git, modelState, script } from './helpers.ts';

/**
 * Review and getting the work out, in the browser: a task's review page (diff, case against the
 * criteria, ledger, checks), the session review, and a merge into the source repo's checked-out
 * `main` — plus the refusals that must leave the repo exactly as it was. The model is scripted
 * (every role shares one queue: worker turns, the evaluator's verdict, then a learnings reply
 * after each accepted task); git, the checks, the merge and the server are real.
 */
test.setTimeout(120_000);

interface Task {
  id: string;
  title: string;
  fn: string;
  criteria: string[];
}

const DOUBLE: Task = {
  id: 'T-001',
  title: 'Double a number',
  fn: 'double',
  criteria: ['double(2) returns 4', 'double() throws a TypeError for anything but a number', 'The README mentions double()'],
};
const TRIPLE: Task = { id: 'T-002', title: 'Triple a number', fn: 'triple', criteria: ['triple(2) returns 6'] };

const testFile = (t: Task) => `tests/t${t.id.slice(2)}_${t.fn}.test.js`;
const expected = (t: Task) => (t.fn === 'double' ? '4' : '6');

/** The interview's one turn: write the seed for `tasks` straight away. */
function seedTurn(tasks: Task[]): ScriptedReplyInput {
  return {
    tool_calls: [
      {
        name: 'write_seed',
        arguments: {
          prd_entries: tasks.map((t) => ({
            id: t.id,
            title: t.title,
            description: `Add ${t.fn}(n) in src/${t.fn}.js.`,
            acceptance_criteria: t.criteria,
            // nodeTest declares one case; every criterion names it (the README one is the evaluator's to see through).
            criteria_tests: t.criteria.map(() => [`${t.fn} works`]),
          })),
          test_files: Object.fromEntries(tasks.map((t) => [testFile(t), nodeTest(t.fn, t.fn, '2', expected(t))])),
          tldr: tasks.map((t) => `- **${t.id}:** ${t.title}`).join('\n'),
          open_questions: [],
          blockers: [],
          scope_notes: 'Nothing else.',
        },
      },
    ],
  };
}

const factor = (t: Task) => (t.fn === 'double' ? 2 : 3);
const naive = (t: Task) => writeTurn(`src/${t.fn}.js`, `export function ${t.fn}(n) {\n  return n * ${factor(t)};\n}\n`);
const guarded = (t: Task) =>
  writeTurn(
    `src/${t.fn}.js`,
    `export function ${t.fn}(n) {\n  if (typeof n !== 'number') throw new TypeError('${t.fn}() takes a number');\n  return n * ${factor(t)};\n}\n`,
  );
const submitCase = (summary: string, coverage: { criterion: string; addressed_by: string; evidence?: string }[]) =>
  workerTurn(['submit_case', { summary, ac_coverage: coverage }]);

const REJECT = {
  category: 'acceptance_gap',
  concern: 'double() returns NaN for a string instead of throwing.',
  next_step: 'Throw a TypeError when n is not a number, then submit again.',
};

/**
 * T-001 rejected once (category + next step), then accepted. Each case names all three criteria,
 * or the coverage gate would answer it before the evaluator; the README one is claimed by a file
 * the worker never touched, which the review shows as it is.
 */
const doubleRejectedOnce: ScriptedReplyInput[] = [
  naive(DOUBLE),
  submitCase('Added double().', [
    { criterion: 'double(2) returns 4', addressed_by: 'src/double.js:double()' },
    { criterion: 'AC2', addressed_by: 'src/double.js:double()' },
    { criterion: 'AC3', addressed_by: 'README.md' },
  ]),
  verdictTurn('reject', REJECT),
  guarded(DOUBLE),
  submitCase('double() now **throws a TypeError** for non-numbers.', [
    { criterion: 'double(2) returns 4', addressed_by: 'src/double.js:double()', evidence: 'tests/t001_double.test.js passes' },
    { criterion: 'AC2', addressed_by: 'src/double.js:2 (typeof guard)', evidence: "double('x') throws TypeError" },
    { criterion: 'The README mentions double()', addressed_by: 'README.md' },
  ]),
  verdictTurn('accept', {
    concern: 'Both behaviours are implemented and tested.',
    criteria: [
      { n: 1, met: true, note: 'double(2) is 4 in the test output.' },
      { n: 2, met: true, note: 'The typeof guard throws a TypeError.' },
    ],
  }),
  noLearning,
];

const acceptedAtOnce = (t: Task): ScriptedReplyInput[] => [
  guarded(t),
  submitCase(`Added ${t.fn}().`, [{ criterion: t.criteria[0]!, addressed_by: `src/${t.fn}.js:${t.fn}()` }]),
  verdictTurn('accept', { concern: `${t.fn}() does what the criterion asks.` }),
  noLearning,
];

async function apiGet<T>(page: Page, url: string): Promise<T> {
  return page.evaluate(async (u) => (await fetch(u)).json() as Promise<T>, url);
}

const sessionStatus = async (page: Page, id: string) => (await apiGet<{ session: { status: string } }>(page, `/api/sessions/${id}`)).session.status;

/** Interview through the form → seed review → Run → all_done (asked of the API, not the dashboard). */
async function runToAllDone(page: Page, repo: ExampleRepo, tasks: Task[], replies: ScriptedReplyInput[]): Promise<string> {
  await script([seedTurn(tasks), ...replies]);
  const id = await createSession(page, repo.dir, tasks.map((t) => t.title).join(' and '));
  await expect(page.getByTestId('seed-review')).toBeVisible({ timeout: 15_000 });
  await page.getByTestId('run-button').click();
  await expect.poll(() => sessionStatus(page, id), { timeout: 60_000, intervals: [250, 500, 1000] }).toBe('all_done');
  const state = await modelState();
  expect(state.failures).toEqual([]);
  expect(state.pending).toEqual([]);
  return id;
}

/** From the session page, through its header link, to the session review. */
async function openSessionReview(page: Page, id: string): Promise<void> {
  await page.getByTestId('session-review-link').click();
  await expect(page).toHaveURL(new RegExp(`/sessions/${id}/review$`));
  await expect(page.getByTestId('review-actions')).toBeVisible();
}

/** Everything a merge refusal must leave as it was. */
function repoState(dir: string) {
  return {
    head: git(dir, 'rev-parse', 'HEAD'),
    main: git(dir, 'rev-parse', 'refs/heads/main'),
    status: git(dir, 'status', '--porcelain'),
    worktrees: git(dir, 'worktree', 'list', '--porcelain'),
    backups: git(dir, 'for-each-ref', 'refs/tilth'),
    mergeHead: fs.existsSync(path.join(dir, '.git', 'MERGE_HEAD')),
  };
}

let repo: ExampleRepo | undefined;
test.afterEach(async () => {
  await repo?.cleanup();
  repo = undefined;
});

test('the journey: review a task rejected once, merge with passing tests into main, then cleanse', async ({ page }) => {
  // A CSP violation or a render error shows up here (this journey has no refused requests).
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  repo = await makeExampleRepo('js-todo');
  const baseMain = git(repo.dir, 'rev-parse', 'main');
  const id = await runToAllDone(page, repo, [DOUBLE, TRIPLE], [...doubleRejectedOnce, ...acceptedAtOnce(TRIPLE)]);

  await openSessionReview(page, id);
  const tasks = page.getByTestId('review-task');
  await expect(tasks).toHaveCount(2);
  await expect(tasks.first()).toHaveAttribute('data-status', 'done');
  await tasks.filter({ hasText: 'Double a number' }).getByTestId('task-review-link').click();

  // The task review: one task's diff, case, ledger and checks.
  await expect(page).toHaveURL(new RegExp(`/sessions/${id}/tasks/T-001$`));
  const review = page.getByTestId('task-review-page');
  await expect(review).toHaveAttribute('data-status', 'done');
  await expect(page.getByTestId('task-stats')).toHaveAttribute('data-ran', 'true');
  await expect(page.getByTestId('task-stats')).toContainText('Iterations');
  await expect(page.getByTestId('task-stats')).toContainText('2 (1 accepted, 1 rejected)');

  const diff = page.getByTestId('task-diff');
  await expect(diff.getByTestId('diff-file-list-item')).toHaveCount(1);
  await expect(diff.getByTestId('diff-file-list-item')).toHaveAttribute('data-path', 'src/double.js');
  const file = diff.locator('[data-testid="diff-file"][data-path="src/double.js"]');
  await expect(file).toHaveAttribute('data-body', 'hunks');
  await expect(file).toContainText("throw new TypeError('double() takes a number')");
  // Highlighted by refractor: the keyword is its own token.
  await expect(file.locator('.token.keyword').first()).toBeVisible();
  await page.getByTestId('diff-view-split').click();
  await expect(diff).toHaveAttribute('data-view', 'split');
  await page.getByTestId('diff-view-unified').click();
  await expect(diff).toHaveAttribute('data-view', 'unified');
  await expect(page.getByTestId('commit')).toHaveCount(1);
  await expect(page.getByTestId('commit')).toContainText('T-001: Double a number');

  // The final case beside the criteria: all three claimed (one by "AC2"), the README one by a file the diff does not touch.
  const criteria = page.getByTestId('criterion');
  await expect(criteria).toHaveCount(3);
  await expect(criteria.nth(0)).toHaveAttribute('data-covered', 'true');
  await expect(criteria.nth(0).getByTestId('claim-evidence')).toHaveText('tests/t001_double.test.js passes');
  await expect(criteria.nth(1)).toHaveAttribute('data-covered', 'true');
  await expect(criteria.nth(1).getByTestId('claim-addressed-by')).toHaveText('src/double.js:2 (typeof guard)');
  await expect(criteria.nth(2)).toHaveAttribute('data-covered', 'true');
  await expect(criteria.nth(2).getByTestId('claim-addressed-by')).toHaveText('README.md');
  // With the case, each criterion's test: red on the seed commit (no src/double.js yet), green at the task's commit.
  for (const i of [0, 1, 2]) {
    await expect(criteria.nth(i).getByTestId('criterion-tests')).toHaveText('double works');
    await expect(criteria.nth(i)).toHaveAttribute('data-red', 'failed');
    await expect(criteria.nth(i)).toHaveAttribute('data-green', 'passed');
  }
  await expect(criteria.nth(1)).toHaveAttribute('data-claimed-by', 'src/double.js:2 (typeof guard)');
  // The evaluator's word on the two criteria it spoke to; the README one it left without a word.
  await expect(criteria.nth(1).getByTestId('evaluator-word')).toHaveAttribute('data-met', 'true');
  await expect(criteria.nth(1).getByTestId('evaluator-note')).toHaveText('The typeof guard throws a TypeError.');
  await expect(criteria.nth(2).getByTestId('evaluator-word')).toHaveAttribute('data-met', 'none');
  await page.getByTestId('case-coverage').screenshot({ path: 'test-results/screens/task-review-matrix.png' });

  // The ledger in order: the reject with its category and next step, then the accept.
  const entries = page.getByTestId('ledger-entry');
  await expect(entries).toHaveCount(2);
  await expect(entries.nth(0)).toHaveAttribute('data-verdict', 'reject');
  await expect(entries.nth(0)).toHaveAttribute('data-category', 'acceptance_gap');
  await expect(entries.nth(0).getByTestId('ledger-category')).toHaveText('acceptance gap');
  await expect(entries.nth(0).getByTestId('ledger-concern')).toHaveText(REJECT.concern);
  await expect(entries.nth(0).getByTestId('ledger-next-step')).toHaveText(REJECT.next_step);
  await expect(entries.nth(1)).toHaveAttribute('data-verdict', 'accept');
  await expect(entries.nth(1).getByTestId('ledger-concern')).toHaveText('Both behaviours are implemented and tested.');

  // Every attempt's check output, in full.
  const attempts = page.getByTestId('check-attempt');
  await expect(attempts).toHaveCount(2);
  for (const i of [0, 1]) {
    const result = attempts.nth(i).locator(`[data-testid="check-result"][data-name="acceptance"]`);
    await expect(result).toHaveAttribute('data-passed', 'true');
    await expect(result.getByTestId('check-output')).toContainText('double works');
    await expect(result.getByTestId('check-output')).toContainText('pass 1');
  }

  await page.setViewportSize({ width: 1280, height: 900 });
  await page.getByRole('heading', { name: 'T-001 Double a number' }).scrollIntoViewIfNeeded();
  await page.screenshot({ path: 'test-results/screens/task-review-desktop.png', fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: 'test-results/screens/task-review-narrow.png', fullPage: true });
  await page.setViewportSize({ width: 1280, height: 720 });

  // The session review: merge with a merge commit, after a preview whose tests pass.
  await page.getByTestId('breadcrumb-session-review').click();
  await expect(page.getByTestId('session-diff').getByTestId('diff-file-list-item')).toHaveCount(4);
  await expect(page.getByTestId('review-branch')).toContainText(`session/${id} → main`);
  await expect(page.getByTestId('action-row-cleanse')).toHaveAttribute('data-allowed', 'false');
  await expect(page.getByTestId('action-cleanse-reason')).toContainText('merge or push the branch first');
  await page.getByTestId('action-merge').click();
  const dialog = page.getByTestId('merge-dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog.getByTestId('merge-strategy-merge')).toBeChecked();
  await expect(dialog.getByTestId('merge-confirm')).toBeDisabled();
  await dialog.getByTestId('merge-preview-run').click();
  await expect(dialog.getByTestId('merge-preview')).toHaveAttribute('data-passed', 'true', { timeout: 30_000 });
  // Both done tasks' acceptance tests ran on the merge result, and passed.
  const tests = dialog.getByTestId('merge-test');
  await expect(tests).toHaveCount(1);
  await expect(tests).toHaveAttribute('data-name', 'acceptance');
  await expect(tests).toHaveAttribute('data-passed', 'true');
  await expect(tests.getByTestId('check-output')).toContainText('double works');
  await expect(tests.getByTestId('check-output')).toContainText('triple works');
  await expect(tests.getByTestId('check-output')).toContainText('pass 2');
  await expect(dialog.getByTestId('merge-override')).toHaveCount(0);
  await page.screenshot({ path: 'test-results/screens/merge-preview.png' });
  await dialog.getByTestId('merge-confirm').click();

  const result = dialog.getByTestId('merge-result');
  await expect(result).toBeVisible({ timeout: 30_000 });
  await expect(result.getByTestId('merge-result-backup')).toHaveText(`refs/tilth/backups/${id}`);
  await expect(result.getByTestId('merge-result-undo')).toContainText(`reset --keep refs/tilth/backups/${id}`);
  const mergeSha = git(repo.dir, 'rev-parse', 'main');
  await expect(result.getByTestId('merge-result-sha')).toHaveText(mergeSha.slice(0, 8));
  await dialog.getByTestId('merge-close').click();
  await expect(dialog).toBeHidden();

  // main has the task commits under a merge commit; the checkout is clean and on main.
  const subjects = git(repo.dir, 'log', '--format=%s', 'main').split('\n');
  expect(subjects[0]).toMatch(new RegExp(`^Merge session/${id}: `));
  expect(subjects).toContain('T-001: Double a number');
  expect(subjects).toContain('T-002: Triple a number');
  expect(git(repo.dir, 'rev-parse', 'refs/tilth/backups/' + id)).toBe(baseMain);
  expect(git(repo.dir, 'status', '--porcelain')).toBe('');
  expect(git(repo.dir, 'symbolic-ref', '--short', 'HEAD')).toBe('main');
  expect(fs.readFileSync(path.join(repo.dir, 'src', 'double.js'), 'utf8')).toContain('TypeError');
  await expect(page.getByTestId('merged-info')).toContainText(`refs/tilth/backups/${id}`);
  await expect(page.getByTestId('session-review-page').getByTestId('status-badge')).toHaveAttribute('data-status', 'merged');
  expect(await sessionStatus(page, id)).toBe('merged');
  await expect(page.getByTestId('action-merge')).toBeDisabled();
  await expect(page.getByTestId('action-merge-reason')).toContainText('already merged into main');
  await page.screenshot({ path: 'test-results/screens/session-review-merged.png', fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: 'test-results/screens/session-review-narrow.png', fullPage: true });
  await page.setViewportSize({ width: 1280, height: 720 });

  // Cleanse: the worktree and branch go, the record stays, the session is archived.
  await page.getByTestId('action-cleanse').click();
  await expect(page.getByTestId('confirm-cleanse')).toBeVisible();
  await page.getByTestId('confirm-yes').click();
  await expect(page.getByTestId('cleanse-result')).toContainText('archived');
  await expect(page.getByTestId('session-review-page').getByTestId('status-badge')).toHaveAttribute('data-status', 'archived');
  expect(await sessionStatus(page, id)).toBe('archived');
  expect(git(repo.dir, 'branch', '--list', `session/${id}`)).toBe('');
  expect(git(repo.dir, 'log', '--format=%s', 'main')).toContain('T-001: Double a number');

  // The record stays: the task's review still shows its commit and diff, read from the merge.
  await page.getByTestId('review-task').filter({ hasText: 'Double a number' }).getByTestId('task-review-link').click();
  await expect(page.getByTestId('task-diff').getByTestId('diff-file-list-item')).toHaveAttribute('data-path', 'src/double.js');
  await expect(page.getByTestId('ledger-entry')).toHaveCount(2);

  // Archived sessions are hidden from the list until asked for.
  await page.getByTestId('nav-sessions').click();
  const row = page.locator(`[data-testid="session-row"][data-session-id="${id}"]`);
  await expect(page.getByTestId('sessions-page')).toBeVisible();
  await expect(page.getByTestId('sessions-archived-hidden')).toBeVisible();
  await expect(row).toHaveCount(0);
  await page.getByTestId('sessions-show-archived').check();
  await expect(row).toHaveAttribute('data-status', 'archived');
  await page.getByTestId('sessions-show-archived').uncheck();
  await expect(row).toHaveCount(0);
  await page.getByTestId('sessions-status-filter').selectOption('archived');
  await expect(row).toBeVisible();
  expect(problems).toEqual([]);
});

test('a merge is refused while main is checked out with uncommitted changes, and the repo is left exactly as it was', async ({ page }) => {
  repo = await makeExampleRepo('js-todo');
  const id = await runToAllDone(page, repo, [TRIPLE], acceptedAtOnce(TRIPLE));
  await openSessionReview(page, id);

  await page.getByTestId('action-merge').click();
  const dialog = page.getByTestId('merge-dialog');
  await dialog.getByTestId('merge-preview-run').click();
  await expect(dialog.getByTestId('merge-preview')).toHaveAttribute('data-passed', 'true', { timeout: 30_000 });

  // The user edits a tracked file in their checkout between the preview and the merge.
  const readme = path.join(repo.dir, 'README.md');
  fs.appendFileSync(readme, '\nA local edit, not committed.\n');
  const content = fs.readFileSync(readme, 'utf8');
  const before = repoState(repo.dir);
  expect(before.status).toBe('M README.md');

  await dialog.getByTestId('merge-confirm').click();
  const error = dialog.getByTestId('merge-error');
  await expect(error).toHaveAttribute('data-code', 'base_dirty');
  await expect(error).toContainText('main is checked out');
  await expect(error).toContainText('uncommitted changes (README.md)');
  await expect(error).toContainText('nothing was changed');
  await expect(dialog.getByTestId('merge-result')).toHaveCount(0);
  await page.screenshot({ path: 'test-results/screens/merge-refused-dirty.png' });

  expect(repoState(repo.dir)).toEqual(before);
  expect(fs.readFileSync(readme, 'utf8')).toBe(content);
  expect(await sessionStatus(page, id)).toBe('all_done');

  // Building it again is refused for the same reason, still touching nothing.
  await dialog.getByTestId('merge-preview-run').click();
  await expect(error).toHaveAttribute('data-code', 'base_dirty');
  await expect(dialog.getByTestId('merge-preview')).toHaveCount(0);
  expect(repoState(repo.dir)).toEqual(before);
});

test('a conflicting merge is refused with the file named, and nothing is left half-merged', async ({ page }) => {
  repo = await makeExampleRepo('js-todo');
  const id = await runToAllDone(page, repo, [TRIPLE], acceptedAtOnce(TRIPLE));

  // Meanwhile someone commits their own src/triple.js on main.
  fs.mkdirSync(path.join(repo.dir, 'src'), { recursive: true });
  fs.writeFileSync(path.join(repo.dir, 'src', 'triple.js'), 'export const triple = (n) => n + n + n;\n');
  git(repo.dir, 'add', 'src/triple.js');
  git(repo.dir, 'commit', '-q', '-m', 'triple, written by hand');
  const before = repoState(repo.dir);

  await openSessionReview(page, id);
  await page.getByTestId('action-merge').click();
  const dialog = page.getByTestId('merge-dialog');
  await dialog.getByTestId('merge-preview-run').click();
  const error = dialog.getByTestId('merge-error');
  await expect(error).toHaveAttribute('data-code', 'merge_conflict', { timeout: 30_000 });
  await expect(error).toContainText('conflicts in src/triple.js');
  await expect(dialog.getByTestId('merge-confirm')).toBeDisabled();

  const after = repoState(repo.dir);
  expect(after).toEqual(before);
  expect(after.mergeHead).toBe(false);
  // The session's own worktree and the main checkout, and no scratch worktree left behind.
  expect(git(repo.dir, 'worktree', 'list').split('\n')).toHaveLength(2);
  expect(await sessionStatus(page, id)).toBe('all_done');

  // Fast-forward is refused too, for its own reason.
  await dialog.getByTestId('merge-strategy-ff').check();
  await dialog.getByTestId('merge-preview-run').click();
  await expect(error).toHaveAttribute('data-code', 'ff_impossible');
  expect(repoState(repo.dir)).toEqual(before);
});

test('tests failing on the merge result need the explicit "merge anyway", and the server refuses without it', async ({ page }) => {
  repo = await makeExampleRepo('js-todo');
  const id = await runToAllDone(page, repo, [TRIPLE], acceptedAtOnce(TRIPLE));

  // main stops treating .js as ES modules: no conflict, but the acceptance test cannot load.
  const pkg = path.join(repo.dir, 'package.json');
  fs.writeFileSync(pkg, fs.readFileSync(pkg, 'utf8').replace('"type": "module"', '"type": "commonjs"'));
  git(repo.dir, 'commit', '-q', '-am', 'package: commonjs');
  const mainBefore = git(repo.dir, 'rev-parse', 'main');

  await openSessionReview(page, id);
  await page.getByTestId('action-merge').click();
  const dialog = page.getByTestId('merge-dialog');
  await dialog.getByTestId('merge-preview-run').click();
  await expect(dialog.getByTestId('merge-preview')).toHaveAttribute('data-passed', 'false', { timeout: 30_000 });
  await expect(dialog.getByTestId('merge-test')).toHaveAttribute('data-passed', 'false');
  await expect(dialog.getByTestId('merge-test').getByTestId('check-output')).toContainText('fail 1');
  const confirm = dialog.getByTestId('merge-confirm');
  await expect(confirm).toBeDisabled();

  // The server holds the same line: no override, no merge.
  const refused = await page.evaluate(async (sessionId) => {
    const res = await fetch(`/api/sessions/${sessionId}/merge`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ strategy: 'merge' }),
    });
    return { status: res.status, body: (await res.json()) as { error: { code: string } } };
  }, id);
  expect(refused.status).toBe(409);
  expect(refused.body.error.code).toBe('merge_tests_failed');
  expect(git(repo.dir, 'rev-parse', 'main')).toBe(mainBefore);

  await dialog.getByTestId('merge-override').check();
  await expect(confirm).toBeEnabled();
  await confirm.click();
  await expect(dialog.getByTestId('merge-result')).toContainText('Merged with failing acceptance tests');
  expect(git(repo.dir, 'log', '-1', '--format=%P', 'main').split(' ')[0]).toBe(mainBefore);
  expect(git(repo.dir, 'status', '--porcelain')).toBe('');
});

test('push to a chosen remote, a pull-request link or the reason there is none, then discard by typing the id', async ({ page }) => {
  repo = await makeExampleRepo('js-todo');
  const id = await runToAllDone(page, repo, [TRIPLE], acceptedAtOnce(TRIPLE));
  const bare = fs.mkdtempSync(path.join(os.tmpdir(), 'tilth-remote-'));
  try {
    git(bare, 'init', '-q', '--bare');
    git(repo.dir, 'remote', 'add', 'origin', bare);
    git(repo.dir, 'remote', 'add', 'github', 'https://github.com/example/js-todo.git');
    await openSessionReview(page, id);

    const remote = page.getByTestId('push-remote');
    await expect(remote).toHaveValue('origin');
    await page.getByTestId('action-push').click();
    await expect(page.getByTestId('confirm-push')).toContainText(`git push origin session/${id}`);
    await page.getByTestId('confirm-yes').click();
    await expect(page.getByTestId('push-result')).toHaveText(`✓ Pushed session/${id} to origin.`);
    expect(git(bare, 'rev-parse', `refs/heads/session/${id}`)).toBe(git(repo.dir, 'rev-parse', `session/${id}`));
    await expect(page.getByTestId('pushed-info')).toContainText('Pushed to origin');
    await expect(page.getByTestId('action-cleanse')).toBeEnabled();

    let ghSignedIn = false;
    try {
      execFileSync('gh', ['auth', 'status'], { stdio: 'ignore' });
      ghSignedIn = true;
    } catch {
      // No gh, or not signed in: the compare link is what the page offers.
    }
    if (!ghSignedIn) {
      // A remote that is not on GitHub has no compare link: the 409 says so, inline.
      await page.getByTestId('action-pr').click();
      await page.getByTestId('confirm-yes').click();
      const error = page.locator('[data-testid="action-error"][data-action="pr"]');
      await expect(error).toHaveAttribute('data-code', 'pr_unavailable');
      await expect(error).toContainText('is not a GitHub remote');

      await remote.selectOption('github');
      await page.getByTestId('action-pr').click();
      await page.getByTestId('confirm-yes').click();
      await expect(page.getByTestId('pr-result')).toHaveAttribute('data-via', 'compare_url');
      await expect(page.getByTestId('pr-link')).toHaveAttribute('href', `https://github.com/example/js-todo/compare/main...session%2F${id}?expand=1`);
      await expect(error).toHaveCount(0);
    }

    // Discard wants the id typed; then the session, its branch and its worktree are gone.
    const worktree = (await apiGet<{ worktree: string }>(page, `/api/sessions/${id}`)).worktree;
    await page.getByTestId('action-discard').click();
    const confirm = page.getByTestId('discard-confirm');
    await expect(confirm).toBeDisabled();
    await page.getByTestId('discard-confirm-input').fill(id.slice(0, -1));
    await expect(confirm).toBeDisabled();
    await page.getByTestId('discard-confirm-input').fill(id);
    await confirm.click();
    await expect(page.getByTestId('sessions-page')).toBeVisible();
    await expect(page).toHaveURL(/\/$/);
    await expect(page.locator(`[data-testid="session-row"][data-session-id="${id}"]`)).toHaveCount(0);
    expect(git(repo.dir, 'branch', '--list', `session/${id}`)).toBe('');
    expect(fs.existsSync(worktree)).toBe(false);
    expect(git(repo.dir, 'status', '--porcelain')).toBe('');
  } finally {
    fs.rmSync(bare, { recursive: true, force: true });
  }
});
