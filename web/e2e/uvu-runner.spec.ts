import { expect, test } from '@playwright/test';
import { E2E_TOKEN } from '../../playwright.config.ts';
import { makeExampleRepo } from '../../server/demo/example-repo.ts';
import { installExample } from '../../server/testing/example-installs.ts';
import { script, seedTurn } from './helpers.ts';

/**
 * A uvu project (issue 29), installed with `npm ci` as its README says: detected as uvu from its
 * test script (`uvu tests`), the seed's test goes under that folder, and each case is proved red
 * through Tilth's own uvu runner by its full name — a suite's case named by its bare title is
 * stored with the suite's name in front, and a skipped case proves nothing.
 */
const DUE_TEST = [
  "import { suite } from 'uvu';",
  "import * as assert from 'uvu/assert';",
  "import * as todo from '../src/todo.js';",
  '',
  "const SetDue = suite('setDue');",
  "SetDue('sets the due date', () => {",
  "  assert.is(todo.setDue({ title: 'a', done: false }, '2026-01-31').due, '2026-01-31');",
  '});',
  "SetDue.skip('keeps the original', () => {",
  '  assert.ok(true);',
  '});',
  'SetDue.run();',
  '',
].join('\n');

test("a uvu project: detected from npm test, the test under tests/, each case proved red by its full name through Tilth's uvu runner", async ({ page }) => {
  test.setTimeout(180_000);
  const repo = await makeExampleRepo('uvu-todo');
  try {
    await installExample(repo.dir, 'uvu-todo');
    await script([
      seedTurn(
        [
          {
            id: 'T-001',
            title: 'Due dates',
            description: 'Add setDue(todo, date) to src/todo.js.',
            acceptance_criteria: ['setDue sets the due date', 'setDue keeps the original unchanged'],
            criteria_tests: [['sets the due date'], ['setDue › keeps the original']],
          },
        ],
        { 'tests/t001_due.test.js': DUE_TEST },
        '- **T-001:** Due dates — setDue(todo, date)',
      ),
    ]);

    await page.goto(`/#token=${E2E_TOKEN}`);
    await page.getByTestId('new-session-button').first().click();
    await page.getByTestId('workspace-input').fill(repo.dir);
    await expect(page.getByTestId('workspace-check')).toHaveAttribute('data-ok', 'true');
    await expect(page.getByTestId('workspace-env')).toHaveText('Detected: JavaScript · npm · uvu (scripts.test: uvu tests) · tests in tests/');
    await expect(page.getByTestId('workspace-env-note')).toHaveCount(0);
    await expect(page.getByTestId('preset-select')).toHaveValue('uvu');
    await expect(page.getByTestId('preset-select').locator('option:checked')).toHaveText('uvu — tests/t<NNN>_<slug>.test.js (or .test.mjs, .test.cjs)');
    await page.getByTestId('brief-input').fill('Add due dates');
    await page.screenshot({ path: 'test-results/screens/new-session-uvu.png', fullPage: true });
    await page.getByTestId('create-session').click();
    await expect(page).toHaveURL(/\/sessions\/\d{8}-\d{6}-[0-9a-f]{6}$/);

    await expect(page.getByTestId('seed-review')).toBeVisible({ timeout: 60_000 });
    await expect(page.getByTestId('seed-env')).toHaveText('JavaScript · npm · uvu (scripts.test: uvu tests) · tests in tests/');
    await expect(page.getByTestId('seed-review')).toContainText('checks: uvu');
    const rows = page.getByTestId('criterion-row');
    await expect(rows).toHaveCount(2);
    // Tilth's uvu runner ran each case alone on the seed commit: the first fails for the missing
    // function, named with its suite; the second is skipped, which proves nothing.
    await expect(rows.nth(0)).toHaveAttribute('data-red', 'failed');
    await expect(rows.nth(0)).toContainText('setDue › sets the due date');
    await expect(rows.nth(1)).toHaveAttribute('data-red', 'not_run');
    await expect(rows.nth(1)).toContainText('was skipped by uvu');
    await expect(page.getByTestId('seed-review')).toContainText('tests/t001_due.test.js');
    await page.screenshot({ path: 'test-results/screens/seed-review-uvu.png', fullPage: true });
  } finally {
    await repo.cleanup();
  }
});
