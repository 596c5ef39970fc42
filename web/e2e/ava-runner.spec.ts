import { expect, test } from '@playwright/test';
import { E2E_TOKEN } from '../../playwright.config.ts';
import { makeExampleRepo } from '../../server/demo/example-repo.ts';
import { installExample } from '../../server/testing/example-installs.ts';
import { script, seedTurn } from './helpers.ts';

/**
 * An AVA project (issue 29), installed with `npm ci` as its README says: detected as AVA from its
 * test script, the seed's test goes where AVA's default files find it, and each case named by its
 * title is proved red by AVA itself, read from its TAP report — one not written yet, one whose
 * function is missing, one `test.todo` that proves nothing.
 */
const DUE_TEST = [
  "import test from 'ava';",
  "import * as todo from '../src/todo.js';",
  '',
  "test('setDue sets the due date', (t) => {",
  "  t.is(todo.setDue({ title: 'a', done: false }, '2026-01-31').due, '2026-01-31');",
  '});',
  '',
  "test.todo('setDue keeps the original');",
  '',
].join('\n');

test('an AVA project: detected from npm test, the test under test/, each case proved red by its title', async ({ page }) => {
  test.setTimeout(180_000);
  const repo = await makeExampleRepo('ava-todo');
  try {
    await installExample(repo.dir, 'ava-todo');
    await script([
      seedTurn(
        [
          {
            id: 'T-001',
            title: 'Due dates',
            description: 'Add setDue(todo, date) to src/todo.js.',
            acceptance_criteria: ['setDue sets the due date', 'setDue keeps the original unchanged'],
            criteria_tests: [['setDue sets the due date'], ['setDue keeps the original']],
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
    await expect(page.getByTestId('workspace-env')).toHaveText('Detected: JavaScript · npm · AVA (scripts.test: ava) · tests in test/');
    await expect(page.getByTestId('workspace-env-note')).toHaveCount(0);
    await expect(page.getByTestId('preset-select')).toHaveValue('ava');
    await expect(page.getByTestId('preset-select').locator('option:checked')).toHaveText('AVA — test/t<NNN>_<slug>.test.js (or .test.mjs, .test.cjs)');
    await page.getByTestId('brief-input').fill('Add due dates');
    await page.screenshot({ path: 'test-results/screens/new-session-ava.png', fullPage: true });
    await page.getByTestId('create-session').click();
    await expect(page).toHaveURL(/\/sessions\/\d{8}-\d{6}-[0-9a-f]{6}$/);

    await expect(page.getByTestId('seed-review')).toBeVisible({ timeout: 60_000 });
    await expect(page.getByTestId('seed-env')).toHaveText('JavaScript · npm · AVA (scripts.test: ava) · tests in test/');
    await expect(page.getByTestId('seed-review')).toContainText('checks: ava');
    const rows = page.getByTestId('criterion-row');
    await expect(rows).toHaveCount(2);
    // AVA ran each case alone on the seed commit: the first fails for the missing function; the
    // second is a todo AVA never runs, which proves nothing.
    await expect(rows.nth(0)).toHaveAttribute('data-red', 'failed');
    await expect(rows.nth(0)).toContainText('setDue sets the due date');
    await expect(rows.nth(1)).toHaveAttribute('data-red', 'not_run');
    await expect(rows.nth(1)).toContainText('was skipped by AVA');
    await expect(page.getByTestId('seed-review')).toContainText('test/t001_due.test.js');
    await page.screenshot({ path: 'test-results/screens/seed-review-ava.png', fullPage: true });
  } finally {
    await repo.cleanup();
  }
});
