import fs from 'node:fs';
import { expect, test } from '@playwright/test';
import { E2E_TOKEN } from '../../playwright.config.ts';
import { committedRepo, script, seedTurn } from './helpers.ts';

/**
 * A project whose `npm test` runs node-tap after a linter (issue 29): Tilth names the runner it
 * does not drive yet on the new-session page and in seed review, and gives the session the custom
 * preset — never Node's own runner in its place, which would run tap's files in a way its users
 * do not.
 */
const FILES: Record<string, string> = {
  'package.json': JSON.stringify(
    { name: 'doubler', type: 'module', private: true, scripts: { test: 'xo && tap' }, devDependencies: { tap: '^21.1.0', xo: '^1.2.0' } },
    null,
    2,
  ),
  'src/double.js': 'export function double(n) {\n  return n * 2;\n}\n',
  'test/double.js': "import t from 'tap';\nimport { double } from '../src/double.js';\n\nt.test('doubles', async (t) => {\n  t.equal(double(2), 4);\n});\n",
};

const NOTE =
  'This project runs its tests with node-tap, which Tilth does not drive yet. The checks use your own test command instead: set it in seed review under Custom (for example node_modules/.bin/tap --disable-coverage {files}).';

test('a node-tap project: the runner is named as not driven yet, and the session gets the custom preset instead of a stand-in', async ({ page }) => {
  const { parent, repo } = committedRepo('doubler', FILES);
  try {
    await script([
      seedTurn(
        [
          {
            id: 'T-001',
            title: 'Halve',
            description: 'Add halve(n) to src/double.js.',
            acceptance_criteria: ['halve divides by two'],
            criteria_tests: [['halves']],
          },
        ],
        {
          'tests/t001_halve.js':
            "import t from 'tap';\nimport { halve } from '../src/double.js';\n\nt.test('halves', async (t) => {\n  t.equal(halve(4), 2);\n});\n",
        },
        '- **T-001:** Halve — halve(n)',
      ),
    ]);

    await page.goto(`/#token=${E2E_TOKEN}`);
    await page.getByTestId('new-session-button').first().click();
    await page.getByTestId('workspace-input').fill(repo);
    await expect(page.getByTestId('workspace-check')).toHaveAttribute('data-ok', 'true');
    await expect(page.getByTestId('workspace-env')).toHaveText(
      'Detected: JavaScript · npm · node-tap (scripts.test: xo && tap), not driven by Tilth yet · tests in test/',
    );
    await expect(page.getByTestId('workspace-env-note')).toHaveText(NOTE);
    await expect(page.getByTestId('preset-select')).toHaveValue('custom');
    await page.getByTestId('brief-input').fill('Add halve');
    await page.screenshot({ path: 'test-results/screens/new-session-undriven-runner.png', fullPage: true });
    await page.getByTestId('create-session').click();
    await expect(page).toHaveURL(/\/sessions\/\d{8}-\d{6}-[0-9a-f]{6}$/);

    await expect(page.getByTestId('seed-review')).toBeVisible({ timeout: 20_000 });
    await expect(page.getByTestId('seed-env')).toHaveText('JavaScript · npm · node-tap (scripts.test: xo && tap), not driven by Tilth yet · tests in test/');
    await expect(page.getByTestId('seed-env-note')).toHaveText(NOTE);
    await expect(page.getByTestId('seed-review')).toContainText('checks: custom');
    await page.screenshot({ path: 'test-results/screens/seed-review-undriven-runner.png', fullPage: true });
  } finally {
    fs.rmSync(parent, { recursive: true, force: true });
  }
});
