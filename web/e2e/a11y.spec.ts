import fs from 'node:fs';
import { AxeBuilder } from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { E2E_TOKEN } from '../../playwright.config.ts';
import { makeExampleRepo } from '../../server/demo/example-repo.ts';
import { caseTurn, noLearning, verdictTurn, workerTurn } from '../../server/testing/run-fixtures.ts';
import { createSession, DOUBLE_CRITERION, doubleSeedTurn, script, untilStatus } from './helpers.ts';

/**
 * axe-core over every page a newcomer meets, in the light and the dark theme (chosen in the
 * header, with the emulated colour scheme to match). A serious or critical violation fails the test; lesser ones are axe's opinions
 * about best practice and are not gated. One session is walked from question to review so each
 * page is checked in the state a user sees it.
 */
test.setTimeout(300_000);

const SHOTS = process.env.A11Y_SHOTS_DIR;

async function expectAccessible(page: Page, name: string): Promise<void> {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    for (const scheme of ['light', 'dark'] as const) {
      // Chosen in the header (the way a user picks one): following a system switch while a page
      // is open is theme.spec's subject, and on the live dashboard Chromium did not always deliver
      // that media change within the wait (seen in 2 of 6 runs; see the issue 17 note).
      await page.emulateMedia({ colorScheme: scheme });
      const picker = page.getByTestId('theme-picker');
      if ((await picker.count()) > 0) await picker.selectOption(scheme); // the sign-in page has no header
      await expect(page.locator('html')).toHaveAttribute('data-theme', scheme);
      // Let the charts repaint for the new size and palette before axe reads colours.
      await page.waitForTimeout(150);
      const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21aa']).analyze();
      const blocking = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      const report = blocking.map(
        (v) => `${v.id} (${v.impact}): ${v.help}\n${v.nodes.map((n) => `    ${n.target.join(' ')}  ${n.failureSummary?.split('\n')[1] ?? ''}`).join('\n')}`,
      );
      // Soft: one run lists every page's problems, not only the first one's.
      expect.soft(report, `${name}, ${scheme}, ${width} px: serious or critical axe violations`).toEqual([]);
      if (SHOTS !== undefined) {
        fs.mkdirSync(SHOTS, { recursive: true });
        await page.screenshot({ path: `${SHOTS}/${name}-${scheme}-${width}.png`, fullPage: true });
      }
    }
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

test('the sign-in page has no serious accessibility problems, with no token or a wrong one', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByTestId('auth-required')).toBeVisible();
  await expectAccessible(page, 'sign-in');
  await page.goto('/#token=not-the-token');
  await expect(page.getByTestId('auth-required')).toBeVisible();
  await expectAccessible(page, 'sign-in-wrong-token');
});

test('every page of a session, from its question to its merge, has no serious accessibility problems', async ({ page }) => {
  const repo = await makeExampleRepo('js-todo');
  // A page error would leave axe reading a broken page: fail on it, naming it.
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.stack ?? err.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(msg.text());
  });
  try {
    await page.goto(`/#token=${E2E_TOKEN}`);
    await expect(page.getByTestId('sessions-page')).toBeVisible();
    await expectAccessible(page, 'sessions-empty');

    await page.goto('/settings');
    await expect(page.getByTestId('settings-page')).toBeVisible();
    await expectAccessible(page, 'settings');

    await page.goto('/new');
    await expect(page.getByTestId('new-session-page')).toBeVisible();
    await expectAccessible(page, 'new-session');

    // A new file and a changed one, so the diffs show deleted lines and word-level edit marks too.
    const todo = fs.readFileSync(`${repo.dir}/src/todo.js`, 'utf8').replace("'a todo needs a title'", "'a todo needs a title (not only spaces)'");
    // Slow enough for the live dashboard to be checked at both sizes in both themes.
    const implement = {
      ...workerTurn(
        ['write_file', { path: 'src/double.js', content: 'export function double(n) {\n  return n * 2;\n}\n' }],
        ['write_file', { path: 'src/todo.js', content: todo }],
      ),
      delay_ms: 15_000,
    };
    await script([
      {
        tool_calls: [{ name: 'ask_user', arguments: { question: 'Should double accept strings?', options: ['No, numbers only', 'Yes, numeric strings too'] } }],
      },
      doubleSeedTurn(),
      implement,
      caseTurn('Added double() and ran its test.', DOUBLE_CRITERION, 'src/double.js:double()'),
      verdictTurn('accept', { concern: 'double() does what the criterion asks.' }),
      noLearning,
    ]);
    const id = await createSession(page, repo.dir, 'Add a double function');
    await expect(page.getByTestId('question-text')).toHaveText('Should double accept strings?', { timeout: 15_000 });
    await expectAccessible(page, 'interview');

    await page.locator('[data-testid="question-option"][data-index="1"]').check();
    await page.getByTestId('submit-answer').click();
    await expect(page.getByTestId('seed-review')).toBeVisible({ timeout: 15_000 });
    await expectAccessible(page, 'seed-review');

    await page.getByTestId('run-button').click();
    await expect(page.getByTestId('dashboard')).toBeVisible({ timeout: 15_000 });
    await untilStatus(page, id, 'running');
    await expectAccessible(page, 'dashboard-live');

    await untilStatus(page, id, 'all_done');
    await expect(page.getByTestId('dashboard')).toHaveAttribute('data-settled', 'true');
    await expectAccessible(page, 'dashboard-finished');

    await page.goto(`/sessions/${id}/tasks/T-001`);
    await expect(page.getByTestId('task-review-page')).toBeVisible();
    await expect(page.getByTestId('diff-totals').first()).toBeVisible();
    await expectAccessible(page, 'task-review');
    // Each region of the task review has a name of its own (two attempts' outputs were both "Output of acceptance").
    const regions = await new AxeBuilder({ page }).withRules(['landmark-unique']).analyze();
    expect(regions.violations.map((v) => v.nodes.map((n) => n.target.join(' ')))).toEqual([]);

    await page.goto(`/sessions/${id}/review`);
    await expect(page.getByTestId('session-review-page')).toBeVisible();
    await expect(page.getByTestId('diff-totals').first()).toBeVisible();
    await expectAccessible(page, 'session-review');

    // Merged (the dialog's result is checked too), then cleansed: the archived badge, on its
    // review and in the list.
    await page.getByTestId('action-merge').click();
    const dialog = page.getByTestId('merge-dialog');
    await dialog.getByTestId('merge-preview-run').click();
    await expect(dialog.getByTestId('merge-preview')).toHaveAttribute('data-passed', 'true', { timeout: 30_000 });
    await dialog.getByTestId('merge-confirm').click();
    await expect(dialog.getByTestId('merge-result')).toBeVisible({ timeout: 30_000 });
    await expectAccessible(page, 'merge-result');
    await dialog.getByTestId('merge-close').click();
    await page.getByTestId('action-cleanse').click();
    await page.getByTestId('confirm-yes').click();
    await expect(page.getByTestId('session-review-page').getByTestId('status-badge')).toHaveAttribute('data-status', 'archived');
    await expectAccessible(page, 'session-review-archived');

    await page.goto('/');
    await page.getByTestId('sessions-show-archived').check();
    await expect(page.getByTestId('session-row')).toHaveAttribute('data-status', 'archived');
    await expectAccessible(page, 'sessions-list');
    expect(errors).toEqual([]);
  } finally {
    if (errors.length > 0) console.log(`page errors:\n${errors.join('\n')}`);
    await repo.cleanup();
  }
});
