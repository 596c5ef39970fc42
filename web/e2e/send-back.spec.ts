import { execFileSync } from 'node:child_process';
import { expect, test } from '@playwright/test';
import { makeExampleRepo, type ExampleRepo } from '../../server/demo/example-repo.ts';
import type { ScriptedReplyInput } from '../../server/scripted-model/model-server.ts';
import { noLearning, nodeTest, verdictTurn, workerTurn, writeTurn } from '../../server/testing/run-fixtures.ts';
import { DOUBLE_CRITERION, doubleSeedTurn, modelState, runToAllDone, script, untilStatus } from './helpers.ts';

/**
 * Send it back (issue 15) in the browser: a task accepted by the scripted model, a comment on a
 * line of its diff, the task sent back with a note, revision 2 run from the session page, the
 * review read revision by revision, and the merge carrying both commits. Real server, git, tests.
 */
test.setTimeout(150_000);

const CRITERION = DOUBLE_CRITERION;
const FIRST = 'export function double(n) {\n  return n + n;\n}\n';
const SECOND = 'export function double(n) {\n  // Doubling, said as such.\n  return n * 2;\n}\n';
const COMMENT = 'Write it as n * 2: the name says doubling.';
const NOTE = 'Keep the function pure.';

const caseTurn = (summary: string) => workerTurn(['submit_case', { summary, ac_coverage: [{ criterion: CRITERION, addressed_by: 'src/double.js:double()' }] }]);

const seedAndFirstRevision: ScriptedReplyInput[] = [
  doubleSeedTurn(),
  writeTurn('src/double.js', FIRST),
  caseTurn('Added double().'),
  verdictTurn('accept'),
  noLearning,
];

const secondRevision: ScriptedReplyInput[] = [
  writeTurn('src/double.js', SECOND),
  caseTurn('double() now multiplies, as the reviewer asked.'),
  verdictTurn('accept', { concern: 'The reviewer’s comment is answered: n * 2.', criteria: [{ n: 1, met: true, note: 'double(2) is 4.' }] }),
  noLearning,
];

let repo: ExampleRepo | undefined;
test.afterEach(async () => {
  await repo?.cleanup();
  repo = undefined;
});

test('a comment on a diff line goes back with the task; revision 2 runs, is reviewed revision by revision, and the merge carries both', async ({ page }) => {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  repo = await makeExampleRepo('js-todo');
  const id = await runToAllDone(page, repo.dir, 'Double a number', seedAndFirstRevision);

  // The reviewer comments on the line they want changed.
  await page.goto(`/sessions/${id}/tasks/T-001`);
  const file = page.getByTestId('task-diff').locator('[data-testid="diff-file"][data-path="src/double.js"]');
  await expect(file).toContainText('return n + n;');
  const add = file.locator('[data-testid="comment-add"][data-line="2"][data-side="new"]');
  await add.focus();
  await add.click();
  await file.getByTestId('comment-input').fill(COMMENT);
  await file.getByTestId('comment-save').click();
  await expect(file.getByTestId('line-comment')).toHaveCount(1);

  // Send it back: the open comment is ticked, the note added.
  const form = page.getByTestId('send-back-form');
  await expect(form.getByTestId('send-back-comment')).toHaveText([`src/double.js:2 ${COMMENT}`]);
  await form.getByTestId('send-back-note').fill(NOTE);
  await expect(form.getByTestId('send-back-submit')).toHaveText('Send back as revision 2');
  await page.setViewportSize({ width: 1280, height: 900 });
  await form.screenshot({ path: 'test-results/screens/send-back-form.png' });
  await script(secondRevision);
  await form.getByTestId('send-back-submit').click();
  const done = page.getByTestId('send-back-pending');
  await expect(done).toHaveAttribute('data-revision', '2');
  await expect(page.getByTestId('task-status')).toHaveAttribute('data-status', 'pending');
  await expect(page.getByTestId('task-revision')).toHaveText('revision 2');
  await expect(file.getByTestId('comment-sent')).toHaveText('sent with rev 2');
  await expect(page.getByTestId('send-back-entry-note')).toHaveText(NOTE);
  await expect(page.getByTestId('send-back-entry-comment')).toContainText(COMMENT);
  await expect(page.getByTestId('send-back-entry-comment').locator('.excerpt-anchor')).toContainText('return n + n;');
  // Every line of the excerpt shows, each under the one before: the line after the commented one too.
  const excerpt = page.getByTestId('send-back-entry-comment').getByTestId('excerpt-line');
  await expect(excerpt).toHaveText(['   1  export function double(n) {', '   2    return n + n;', '   3  }', '   4  ']);
  const boxes = await excerpt.evaluateAll((spans) =>
    spans.map((s) => s.getBoundingClientRect()).map((r) => ({ left: Math.round(r.left), top: Math.round(r.top) })),
  );
  expect(new Set(boxes.map((b) => b.left)).size).toBe(1);
  expect(boxes.map((b) => b.top)).toEqual([...boxes.map((b) => b.top)].sort((a, b) => a - b));
  expect(new Set(boxes.map((b) => b.top)).size).toBe(boxes.length);
  // At 390 px the history fits the page; a long line scrolls inside its excerpt.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await page.getByTestId('send-back-history').screenshot({ path: 'test-results/screens/send-back-history-390.png' });
  await page.setViewportSize({ width: 1280, height: 900 });

  // The session page's board says what the review says: T-001 pending again, none done.
  await done.getByTestId('send-back-go-run').click();
  const board = page.getByTestId('task-board');
  await expect(board.locator('[data-testid="board-task"][data-task-id="T-001"]')).toHaveAttribute('data-status', 'pending');
  await expect(board.getByTestId('task-progress')).toContainText('0 of 1 done');
  await page.reload();
  await expect(board.locator('[data-testid="board-task"][data-task-id="T-001"]')).toHaveAttribute('data-status', 'pending');
  await board.screenshot({ path: 'test-results/screens/board-after-send-back.png' });
  // A send-back is the user's doing: a pause that names the button going on, not a red stop.
  await expect(page.getByTestId('run-headline')).toHaveText('paused: a task was sent back for another revision; Resume runs it');
  await expect(page.getByTestId('run-headline')).toHaveAttribute('data-tone', 'stopped');
  await expect(page.getByTestId('now-line')).toHaveAttribute('data-activity', 'paused');
  await page.getByTestId('run-header').screenshot({ path: 'test-results/screens/header-after-send-back.png' });

  // Revision 2 runs from the session page, through Resume and its plan.
  await page.getByTestId('resume-button').click();
  await expect(page.getByTestId('resume-plan')).toContainText('pending: T-001');
  await page.getByTestId('resume-confirm-button').click();
  await untilStatus(page, id, 'all_done');
  expect((await modelState()).pending).toEqual([]);

  // The review shows the latest revision's diff, and the first on request; the ledger names each.
  await page.goto(`/sessions/${id}/tasks/T-001`);
  await expect(page.getByTestId('task-status')).toHaveAttribute('data-status', 'done');
  await expect(page.getByTestId('commit')).toHaveText([/T-001: Double a number/, /T-001 \(rev 2\): Double a number/]);
  await expect(page.getByTestId('revision-pick')).toHaveText(['Revision 1', 'Revision 2']);
  await expect(page.locator('[data-testid="revision-pick"][data-revision="2"]')).toHaveAttribute('aria-pressed', 'true');
  await expect(file).toContainText('return n * 2;');
  await expect(file).toContainText('return n + n;');
  await page.locator('[data-testid="revision-pick"][data-revision="1"]').click();
  await expect(file).not.toContainText('return n * 2;');
  await expect(file.locator('[data-testid="comment-add"]')).toHaveCount(0);
  await expect(page.getByTestId('ledger-entry')).toHaveCount(2);
  await expect(page.getByTestId('ledger-entry').nth(1).getByTestId('ledger-revision')).toHaveText('revision 2');
  await page.screenshot({ path: 'test-results/screens/task-review-revisions.png', fullPage: true });

  // Merge: both commits land on main.
  await page.getByTestId('breadcrumb-session-review').click();
  await page.getByTestId('action-merge').click();
  const dialog = page.getByTestId('merge-dialog');
  await dialog.getByTestId('merge-preview-run').click();
  await expect(dialog.getByTestId('merge-preview')).toHaveAttribute('data-passed', 'true', { timeout: 30_000 });
  await expect(dialog.getByTestId('merge-override')).toHaveCount(0);
  await dialog.getByTestId('merge-confirm').click();
  await expect(dialog.getByTestId('merge-result')).toBeVisible({ timeout: 30_000 });
  const log = execFileSync('git', ['log', '--format=%s', 'main'], { cwd: repo.dir, encoding: 'utf8' });
  expect(log).toContain('T-001: Double a number');
  expect(log).toContain('T-001 (rev 2): Double a number');
  expect(problems).toEqual([]);
});

test('a task added after the run: its test is written by the model, then Resume builds it', async ({ page }) => {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  repo = await makeExampleRepo('js-todo');
  const id = await runToAllDone(page, repo.dir, 'Double a number', seedAndFirstRevision);

  await page.goto(`/sessions/${id}/review`);
  await page.getByTestId('add-task').locator('summary').click();
  const form = page.getByTestId('add-task-form');
  await form.getByTestId('add-task-title').fill('Triple a number');
  await form.getByTestId('add-task-description').fill('Add triple(n) in src/triple.js.');
  await form.getByTestId('add-task-criteria').fill('triple(2) returns 6');
  await script([
    {
      tool_calls: [
        {
          name: 'write_task_test',
          arguments: { test_file: 'tests/t002_triple.test.js', content: nodeTest('triple', 'triple', '2', '6'), criteria_tests: [['triple works']] },
        },
      ],
    },
    writeTurn('src/triple.js', 'export function triple(n) {\n  return n * 3;\n}\n'),
    workerTurn(['submit_case', { summary: 'Added triple().', ac_coverage: [{ criterion: 'triple(2) returns 6', addressed_by: 'src/triple.js:triple()' }] }]),
    verdictTurn('accept'),
    noLearning,
  ]);
  await form.getByTestId('add-task-submit').click();
  const done = page.getByTestId('add-task-done');
  await expect(done).toHaveAttribute('data-task-id', 'T-002', { timeout: 30_000 });
  await expect(done).toContainText('tests/t002_triple.test.js');
  await expect(done).toContainText('its test case fails before the work');
  await expect(page.locator('[data-testid="review-task"][data-task-id="T-002"]')).toHaveAttribute('data-status', 'pending');
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.getByTestId('add-task').screenshot({ path: 'test-results/screens/add-task.png' });

  await done.getByTestId('add-task-go-run').click();
  await page.getByTestId('resume-button').click();
  await expect(page.getByTestId('resume-plan')).toContainText('pending: T-002');
  await page.getByTestId('resume-confirm-button').click();
  await untilStatus(page, id, 'all_done');
  expect((await modelState()).pending).toEqual([]);
  const subjects = execFileSync('git', ['log', '--format=%s', `session/${id}`], { cwd: repo.dir, encoding: 'utf8' }).split('\n');
  expect(subjects.slice(0, 2)).toEqual(['T-002: Triple a number', 'seed: added T-002']);
  expect(problems).toEqual([]);
});
