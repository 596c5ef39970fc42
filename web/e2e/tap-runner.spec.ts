import { expect, test } from '@playwright/test';
import { E2E_TOKEN } from '../../playwright.config.ts';
import { makeExampleRepo } from '../../server/demo/example-repo.ts';
import { installExample } from '../../server/testing/example-installs.ts';
import { script, seedTurn } from './helpers.ts';

/**
 * A node-tap project (issue 29), installed with `npm ci` as its README says: detected as node-tap
 * from its test script, the seed's test goes where tap's default include finds it, and each case
 * is proved red by tap itself, read from its TAP report by its full name — a subtest named by its
 * bare title is stored with its group's title in front, and a skipped subtest proves nothing.
 */
const DUE_TEST = [
  "const t = require('tap');",
  "const todo = require('../src/todo.js');",
  '',
  "t.test('setDue', async (t) => {",
  "  t.test('sets the due date', async (t) => {",
  "    t.equal(todo.setDue({ title: 'a', done: false }, '2026-01-31').due, '2026-01-31');",
  '  });',
  "  t.test('keeps the original', { skip: 'written later' }, async (t) => {",
  '    t.ok(true);',
  '  });',
  '});',
  '',
].join('\n');

test('a node-tap project: detected from npm test, the test under test/, each subtest proved red by its full name', async ({ page }) => {
  test.setTimeout(180_000);
  const repo = await makeExampleRepo('tap-todo');
  try {
    await installExample(repo.dir, 'tap-todo');
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
        { 'test/t001_due.test.js': DUE_TEST },
        '- **T-001:** Due dates — setDue(todo, date)',
      ),
    ]);

    await page.goto(`/#token=${E2E_TOKEN}`);
    await page.getByTestId('new-session-button').first().click();
    await page.getByTestId('workspace-input').fill(repo.dir);
    await expect(page.getByTestId('workspace-check')).toHaveAttribute('data-ok', 'true');
    await expect(page.getByTestId('workspace-env')).toHaveText('Detected: JavaScript (CommonJS) · npm · node-tap (package.json "tap") · tests in test/');
    await expect(page.getByTestId('workspace-env-note')).toHaveCount(0);
    await expect(page.getByTestId('preset-select')).toHaveValue('tap');
    await expect(page.getByTestId('preset-select').locator('option:checked')).toHaveText('node-tap — test/t<NNN>_<slug>.test.js (or .test.mjs, .test.cjs)');
    await page.getByTestId('brief-input').fill('Add due dates');
    await page.screenshot({ path: 'test-results/screens/new-session-tap.png', fullPage: true });
    await page.getByTestId('create-session').click();
    await expect(page).toHaveURL(/\/sessions\/\d{8}-\d{6}-[0-9a-f]{6}$/);

    await expect(page.getByTestId('seed-review')).toBeVisible({ timeout: 60_000 });
    await expect(page.getByTestId('seed-env')).toHaveText('JavaScript (CommonJS) · npm · node-tap (package.json "tap") · tests in test/');
    await expect(page.getByTestId('seed-review')).toContainText('checks: tap');
    const rows = page.getByTestId('criterion-row');
    await expect(rows).toHaveCount(2);
    // tap ran each subtest alone on the seed commit: the first fails for the missing function,
    // named with its group; the second is skipped, which proves nothing.
    await expect(rows.nth(0)).toHaveAttribute('data-red', 'failed');
    await expect(rows.nth(0)).toContainText('setDue › sets the due date');
    await expect(rows.nth(1)).toHaveAttribute('data-red', 'not_run');
    await expect(rows.nth(1)).toContainText('was skipped by node-tap');
    await expect(page.getByTestId('seed-review')).toContainText('test/t001_due.test.js');
    await page.screenshot({ path: 'test-results/screens/seed-review-tap.png', fullPage: true });
  } finally {
    await repo.cleanup();
  }
});
