import { expect, test } from '@playwright/test';
import { E2E_TOKEN } from '../../playwright.config.ts';
import { makeExampleRepo, type ExampleRepo } from '../../server/demo/example-repo.ts';
import { nodeTest } from '../../server/testing/run-fixtures.ts';
import { doubleDoneTurns, git, modelRequests, runToAllDone, script } from './helpers.ts';

/**
 * Cancelling an add-task from the session review (issue 27): while the model writes the new task's
 * test (here it never answers) the form says so and offers Cancel, and the session is held — a
 * Resume is refused; Cancel ends it, nothing is added, and the form is ready again.
 */
test.setTimeout(120_000);

let repo: ExampleRepo | undefined;
test.afterEach(async () => {
  await repo?.cleanup();
  repo = undefined;
});

test('Cancel in the add-task form ends the add-task at once, adds nothing, and frees the session', async ({ page, baseURL }) => {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  repo = await makeExampleRepo('js-todo');
  const id = await runToAllDone(page, repo.dir, 'Double a number', doubleDoneTurns('export function double(n) {\n  return n * 2;\n}\n'));
  const branchBefore = git(repo.dir, 'log', '--format=%H %s', `session/${id}`);

  await page.goto(`/sessions/${id}/review`);
  await page.getByTestId('add-task').locator('summary').click();
  const form = page.getByTestId('add-task-form');
  await form.getByTestId('add-task-title').fill('Triple a number');
  await form.getByTestId('add-task-description').fill('Add triple(n) in src/triple.js.');
  await form.getByTestId('add-task-criteria').fill('triple(2) returns 6');
  await script([{ fault: 'hang' }]);
  const calls = (await modelRequests()).length;
  await form.getByTestId('add-task-submit').click();

  // Working: said so, the submit held, Cancel offered; the model has the request.
  await expect(form.getByTestId('add-task-working')).toContainText('The model is writing its test');
  await expect(form.getByTestId('add-task-submit')).toBeDisabled();
  const cancel = form.getByTestId('add-task-cancel');
  await expect(cancel).toBeEnabled();
  await expect.poll(async () => (await modelRequests()).length).toBe(calls + 1);
  // The page, not the element: an element shot scrolls it under the sticky header.
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.getByTestId('add-task').evaluate((e) => e.scrollIntoView({ block: 'center' }));
  await page.screenshot({ path: 'test-results/screens/add-task-working.png' });

  // The session is held meanwhile: a Resume is refused, and says how to cancel.
  const auth = { authorization: `Bearer ${E2E_TOKEN}`, origin: baseURL!, 'content-type': 'application/json' };
  const resume = await fetch(`${baseURL}/api/sessions/${id}/run`, { method: 'POST', headers: auth, body: '{}' });
  expect(resume.status).toBe(409);
  const refusal = ((await resume.json()) as { error: { code: string; message: string } }).error;
  expect(refusal.code).toBe('session_busy');
  expect(refusal.message).toContain('Cancel in the add-task form');

  const started = Date.now();
  await cancel.click();
  await expect(page.getByTestId('add-task-cancelled')).toHaveText('Cancelled: nothing was added, and the session is as it was.');
  expect(Date.now() - started).toBeLessThan(5_000);
  await expect(form.getByTestId('add-task-working')).toHaveCount(0);
  await expect(form.getByTestId('add-task-cancel')).toHaveCount(0);
  await expect(form.getByTestId('add-task-error')).toHaveCount(0);
  // The form keeps what was typed, ready to try again.
  await expect(form.getByTestId('add-task-title')).toHaveValue('Triple a number');
  await expect(form.getByTestId('add-task-submit')).toBeEnabled();

  // Nothing was added: the plan, the branch; and the session is free again.
  const detail = (await (await fetch(`${baseURL}/api/sessions/${id}`, { headers: auth })).json()) as {
    tasks: { id: string }[];
    adding_task: boolean;
    session: { status: string };
  };
  expect(detail.tasks.map((t) => t.id)).toEqual(['T-001']);
  expect(detail.adding_task).toBe(false);
  expect(detail.session.status).toBe('all_done');
  expect(git(repo.dir, 'log', '--format=%H %s', `session/${id}`)).toBe(branchBefore);
  expect(problems).toEqual([]);
});

test('an add-task outlives a reload: the page finds it running with its time so far, then shows how it ended — added, or declined until dismissed', async ({
  page,
}) => {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  repo = await makeExampleRepo('js-todo');
  const id = await runToAllDone(page, repo.dir, 'Double a number', doubleDoneTurns('export function double(n) {\n  return n * 2;\n}\n'));

  const fill = async (title: string) => {
    // Open unless it already is (the last one's outcome holds it open).
    if ((await page.getByTestId('add-task').getAttribute('open')) === null) await page.getByTestId('add-task').locator('summary').click();
    const form = page.getByTestId('add-task-form');
    await form.getByTestId('add-task-title').fill(title);
    await form.getByTestId('add-task-description').fill(`${title} in src/triple.js.`);
    await form.getByTestId('add-task-criteria').fill('triple(2) returns 6');
    await form.getByTestId('add-task-submit').click();
    await expect(form.getByTestId('add-task-working')).toContainText('The model is writing its test');
  };

  // The model takes a while; the reviewer reloads meanwhile.
  await page.goto(`/sessions/${id}/review`);
  await script([
    {
      delay_ms: 4_000,
      tool_calls: [
        {
          name: 'write_task_test',
          arguments: { test_file: 'tests/t002_triple.test.js', content: nodeTest('triple', 'triple', '2', '6'), criteria_tests: [['triple works']] },
        },
      ],
    },
  ]);
  await fill('Triple a number');
  await page.reload();
  const working = page.getByTestId('add-task-working');
  await expect(working).toContainText('The model is writing the test of “Triple a number” (started before this page)');
  await expect(page.getByTestId('add-task-elapsed')).toHaveText(/ · \d+ s/);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.getByTestId('add-task').evaluate((e) => e.scrollIntoView({ block: 'center' }));
  await page.screenshot({ path: 'test-results/screens/add-task-after-reload.png' });
  // It ends without a click: the outcome, and the plan with the new task pending.
  const done = page.getByTestId('add-task-done');
  await expect(done).toHaveAttribute('data-task-id', 'T-002', { timeout: 30_000 });
  await expect(done).toContainText('tests/t002_triple.test.js');
  await expect(page.locator('[data-testid="review-task"][data-task-id="T-002"]')).toHaveAttribute('data-status', 'pending');
  await page.reload();
  await expect(page.getByTestId('add-task-done')).toHaveAttribute('data-task-id', 'T-002');

  // A decline, reloaded over: its words stay until dismissed, and stay dismissed.
  await script([{ delay_ms: 3_000, tool_calls: [{ name: 'decline_task', arguments: { reason: 'The criteria name no function to test.' } }] }]);
  await fill('Something vague');
  await page.reload();
  const error = page.getByTestId('add-task-error');
  await expect(error).toHaveAttribute('data-code', 'add_task_declined', { timeout: 30_000 });
  await expect(error).toContainText('The model did not add T-003: The criteria name no function to test.');
  await page.getByTestId('add-task').evaluate((e) => e.scrollIntoView({ block: 'center' }));
  await page.screenshot({ path: 'test-results/screens/add-task-declined-after-reload.png' });
  await error.getByTestId('add-task-dismiss').click();
  await expect(error).toHaveCount(0);
  await page.reload();
  await expect(page.getByTestId('review-task').first()).toBeVisible();
  await expect(page.getByTestId('add-task-error')).toHaveCount(0);
  expect(problems).toEqual([]);
});
