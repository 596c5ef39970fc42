import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { startTilth, type TilthProcess } from '../../server/testing/tilth-process.ts';
import { answerDemoInterview } from './demo-steps.ts';

/**
 * The demo answers what the review loop invites (issue 30), by clicking, with no provider: a test
 * tightened in seed review is met by code that passes it, a send-back's revision changes the code
 * the note asks for, and a task added after the run gets its test and its code. The forms say what
 * the scripted model can do, since it is not AI.
 */
test.setTimeout(240_000);

let server: TilthProcess;

test.beforeAll(async () => {
  server = await startTilth({ env: { TILTH_BASE_URL: '', TILTH_API_KEY: '', TILTH_WORKER_MODEL: '', TILTH_PREP_MODEL: '', TILTH_EVALUATOR_MODEL: '' } });
});
test.afterAll(async () => {
  await server?.stop();
  if (server) fs.rmSync(server.home, { recursive: true, force: true });
});

async function statusOf(id: string): Promise<string> {
  const res = await fetch(`${server.origin}/api/sessions/${id}`, { headers: { authorization: `Bearer ${server.token}` } });
  return ((await res.json()) as { session: { status: string } }).session.status;
}
const untilDone = (id: string) => expect.poll(() => statusOf(id), { timeout: 90_000, intervals: [250, 500, 1000] }).toBe('all_done');

const branchFile = (id: string, file: string): string => {
  const cp = JSON.parse(fs.readFileSync(`${server.sessionsDir}/${id}/checkpoint.json`, 'utf8')) as { worktree: string; branch: string };
  return execFileSync('git', ['show', `${cp.branch}:${file}`], { cwd: cp.worktree, encoding: 'utf8' });
};

async function resume(page: Page, id: string, pending: string): Promise<void> {
  await page.goto(`${server.origin}/sessions/${id}`);
  await page.getByTestId('resume-button').click();
  await expect(page.getByTestId('resume-plan')).toContainText(`pending: ${pending}`);
  await page.getByTestId('resume-confirm-button').click();
  await untilDone(id);
}

test('a tightened test, a send-back and an added task: the scripted model answers each with code', async ({ page }) => {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(server.url);
  await page.getByTestId('try-demo').click();
  await expect(page).toHaveURL(/\/sessions\/\d{8}-\d{6}-[0-9a-f]{6}$/, { timeout: 30_000 });
  const id = new URL(page.url()).pathname.split('/').at(-1)!;
  await answerDemoInterview(page);

  // Seed review: the user tightens T-001's test — a level in any case is taken, as lower case.
  await expect(page.getByTestId('seed-review')).toBeVisible({ timeout: 30_000 });
  await page.getByTestId('edit-seed').click();
  const editor = page.locator('[data-testid="seed-test-file"][data-path="tests/t001_priority.test.js"]').getByTestId('edit-test-file');
  const test1 = await editor.inputValue();
  await editor.fill(
    test1.replace(
      "assert.throws(() => setPriority({ title: 'water plants', done: false }, ''));",
      "assert.throws(() => setPriority({ title: 'water plants', done: false }, ''));\n  assert.equal(setPriority({ title: 'water plants', done: false }, 'High').priority, 'high');",
    ),
  );
  await page.getByTestId('save-seed').click();
  await expect(page.getByTestId('seed-saved')).toBeVisible({ timeout: 30_000 });
  await page.getByTestId('run-button').click();
  await untilDone(id);
  expect(branchFile(id, 'src/todo.js')).toContain('level = String(level).toLowerCase();');

  // Send T-001 back with a note the demo can act on: the form says which those are.
  await page.goto(`${server.origin}/sessions/${id}/tasks/T-001`);
  const form = page.getByTestId('send-back-form');
  await expect(form.getByTestId('send-back-demo')).toContainText('word the error so it says what is expected');
  await form.getByTestId('send-back-note').fill('Word the error so it says which levels there are.');
  await page.setViewportSize({ width: 1280, height: 900 });
  await form.screenshot({ path: 'test-results/screens/demo-send-back-form.png' });
  await form.getByTestId('send-back-submit').click();
  await expect(page.getByTestId('send-back-pending')).toHaveAttribute('data-revision', '2');
  await resume(page, id, 'T-001');

  // Revision 2 is a real commit whose diff is the change the note asked for.
  await page.goto(`${server.origin}/sessions/${id}/tasks/T-001`);
  await expect(page.getByTestId('revision-pick')).toHaveText(['Revision 1', 'Revision 2']);
  const diff = page.getByTestId('task-diff').locator('[data-testid="diff-file"][data-path="src/todo.js"]');
  await expect(diff).toContainText('a priority is low, normal or high, not');
  await expect(page.getByTestId('send-back-unchanged')).toHaveCount(0);
  await page.screenshot({ path: 'test-results/screens/demo-revision-2.png', fullPage: true });

  // Add a task: the form offers the three the demo has code for, and fills one in.
  await page.goto(`${server.origin}/sessions/${id}/review`);
  await page.getByTestId('add-task').locator('summary').click();
  const add = page.getByTestId('add-task-form');
  await expect(add.getByTestId('add-task-demo-pick')).toHaveText(['Count the open todos', 'Rename a todo', 'Reopen a done todo']);
  await add.getByTestId('add-task-demo-pick').filter({ hasText: 'Rename a todo' }).click();
  await expect(add.getByTestId('add-task-title')).toHaveValue('Rename a todo');
  await add.getByTestId('add-task-submit').click();
  const added = page.getByTestId('add-task-done');
  await expect(added).toHaveAttribute('data-task-id', 'T-003', { timeout: 60_000 });
  await expect(added).toContainText('tests/t003_rename.test.js');
  await page.getByTestId('add-task').screenshot({ path: 'test-results/screens/demo-add-task.png' });

  // A task it has no code for is declined in words, and nothing is added.
  await add.getByTestId('add-task-title').fill('Sync with a calendar');
  await add.getByTestId('add-task-description').fill('Push due dates to a calendar.');
  await add.getByTestId('add-task-criteria').fill('Each due date shows in the calendar');
  await add.getByTestId('add-task-submit').click();
  await expect(add.getByTestId('add-task-error')).toHaveAttribute('data-code', 'add_task_declined', { timeout: 30_000 });
  await expect(add.getByTestId('add-task-error')).toContainText('The model did not add T-004: The demo model is scripted, not AI');
  await add.screenshot({ path: 'test-results/screens/demo-add-task-declined.png' });

  await resume(page, id, 'T-003');
  expect(branchFile(id, 'src/todo.js')).toContain('export function renameTodo(todos, index, title)');
  expect(problems).toEqual([]);
});

test('the interview by keyboard: the first option has focus, digits pick after a Tab, Enter answers', async ({ page }) => {
  await page.goto(server.url);
  await page.getByTestId('try-demo').click();
  await expect(page.getByTestId('question-text')).toHaveText('Which field should a todo gain?', { timeout: 30_000 });
  const options = page.locator('label.option input[type="radio"]');
  await expect(options.first()).toBeFocused();
  // A Tab moves off the choices; a digit still picks, and Enter then answers rather than following a link.
  await page.keyboard.press('Tab');
  await page.keyboard.press('2');
  await expect(options.nth(1)).toBeChecked();
  await expect(options.nth(1)).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('question-text')).toHaveText(/what should a user be able to do/, { timeout: 30_000 });
  await expect(page).toHaveURL(/\/sessions\/\d{8}-\d{6}-[0-9a-f]{6}$/);
  await expect(page.getByTestId('qa-item').first()).toContainText('A priority');
});
