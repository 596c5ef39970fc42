import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { expect, test } from '@playwright/test';
import { startTilth, type TilthProcess } from '../../server/testing/tilth-process.ts';
import { answerDemoInterview } from './demo-steps.ts';

/**
 * The demo from a fresh sessions root with no provider configured, by clicking only: Try the
 * demo → three questions → seed review → Run → all done → review → merge into the demo repo.
 * Every page of the session says the model is scripted.
 */
test.setTimeout(180_000);

let server: TilthProcess;

test.beforeAll(async () => {
  // Its own server: the shared one has a (scripted) provider configured.
  server = await startTilth({ env: { TILTH_BASE_URL: '', TILTH_API_KEY: '', TILTH_WORKER_MODEL: '', TILTH_PREP_MODEL: '', TILTH_EVALUATOR_MODEL: '' } });
});
test.afterAll(async () => {
  await server?.stop();
  if (server) fs.rmSync(server.home, { recursive: true, force: true });
});

test('the demo, end to end, by clicking only', async ({ page }) => {
  await page.goto(server.url);
  await expect(page.getByTestId('sessions-empty')).toBeVisible();
  await page.getByTestId('try-demo').click();
  await expect(page).toHaveURL(/\/sessions\/\d{8}-\d{6}-[0-9a-f]{6}$/, { timeout: 30_000 });
  const id = new URL(page.url()).pathname.split('/').at(-1)!;
  await expect(page.getByTestId('demo-banner')).toContainText('demo model — scripted, not AI');

  await answerDemoInterview(page);

  await expect(page.getByTestId('seed-review')).toBeVisible({ timeout: 30_000 });
  await expect(page.locator('[data-testid="seed-task"][data-task-id="T-001"]')).toContainText('Todos carry a priority');
  await expect(page.locator('[data-testid="seed-task"][data-task-id="T-001"]')).toContainText('so a user can put the urgent things first.');
  await expect(page.locator('[data-testid="seed-task"][data-task-id="T-002"]')).toBeVisible();
  await expect(page.getByTestId('demo-banner')).toBeVisible();
  await page.getByTestId('run-button').click();

  await expect(page.getByText(/all tasks done/i).first()).toBeVisible({ timeout: 90_000 });
  await expect(page.getByTestId('demo-banner')).toBeVisible();
  await page.screenshot({ path: 'test-results/screens/demo-done.png', fullPage: true });

  // The coverage gate's answer is in the stream: the criterion the first case left out, by name.
  await page.getByTestId('event-search').fill('coverage_gap');
  const gap = page.locator('[data-testid="event-card"][data-type="coverage_gap"]');
  await expect(gap).toHaveCount(1);
  await expect(gap.getByTestId('coverage-gap')).toHaveText('setPriority throws an Error for a value it does not accept');
  await gap.screenshot({ path: 'test-results/screens/coverage-gap.png' });
  await page.getByTestId('event-search').fill('');

  await page.getByTestId('session-review-link').click();
  await expect(page.getByTestId('demo-banner')).toBeVisible();
  // The probe's honest survivor, in the session review and in T-001's own review beside the evaluator's word per criterion.
  await expect(page.getByTestId('session-survivors').getByTestId('mutation-survivor')).toContainText(["changes the string 'low' to 'mutant'"]);
  await expect(page.getByTestId('session-survivors')).toContainText(
    /The mutation probe made small changes to the tasks' code, and \d+ of them went unnoticed by their tests/,
  );
  await page.getByTestId('review-task').filter({ hasText: 'Todos carry a priority' }).getByTestId('task-review-link').click();
  const probe = page.getByTestId('mutation-panel');
  await expect(probe).toHaveAttribute('data-status', 'done');
  expect(Number(await probe.getAttribute('data-killed'))).toBeGreaterThan(0);
  await expect(probe.getByTestId('mutation-survivor')).toContainText(["changes the string 'low' to 'mutant'"]);
  const words = page.getByTestId('criterion').getByTestId('evaluator-word');
  await expect(words).toHaveCount(2);
  for (const i of [0, 1]) await expect(words.nth(i)).toHaveAttribute('data-met', 'true');
  await page.getByTestId('case-coverage').screenshot({ path: 'test-results/screens/demo-task-matrix.png' });
  // It says what a mutant is, and offers to send the task back asking for the missing tests.
  await expect(probe.getByTestId('mutation-what')).toContainText('A mutant is a small deliberate change to the task');
  await expect(probe).toContainText(/\(the probe took \d+(\.\d)? s\)/);
  await probe.screenshot({ path: 'test-results/screens/demo-mutation-panel.png' });
  await probe.getByTestId('mutation-send-back').click();
  const note = page.getByTestId('send-back-note');
  await expect(note).toBeFocused();
  await expect(note).toHaveValue(/src\/todo\.js:\d+: no test notices if it changes the string 'low' to 'mutant'/);
  await page.getByTestId('send-back-form').screenshot({ path: 'test-results/screens/demo-send-back-survivors.png' });
  await page.getByTestId('breadcrumb-session-review').click();
  await page.getByTestId('action-merge').click();
  const dialog = page.getByTestId('merge-dialog');
  await dialog.getByTestId('merge-preview-run').click();
  await expect(dialog.getByTestId('merge-preview')).toHaveAttribute('data-passed', 'true', { timeout: 60_000 });
  await dialog.getByTestId('merge-confirm').click();
  await expect(dialog.getByTestId('merge-result')).toBeVisible({ timeout: 30_000 });

  // The demo repo (kept beside the sessions) now has both task commits on main.
  const detail = await (await fetch(`${server.origin}/api/sessions/${id}/diff`, { headers: { authorization: `Bearer ${server.token}` } })).json();
  expect(detail.merged.into).toBe('main');
  const source = JSON.parse(fs.readFileSync(`${server.sessionsDir}/${id}/checkpoint.json`, 'utf8')).source as string;
  const log = execFileSync('git', ['log', '--format=%s', 'main'], { cwd: source, encoding: 'utf8' });
  expect(log).toContain('T-001: Todos carry a priority');
  expect(log).toContain('T-002: The listing shows the priority');
});
