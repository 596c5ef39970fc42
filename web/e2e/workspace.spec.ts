import fs from 'node:fs';
import { expect, test } from '@playwright/test';
import { E2E_TOKEN } from '../../playwright.config.ts';
import { committedRepo, script, seedTurn } from './helpers.ts';

/**
 * An npm workspace (issue 29, step 4): the new-session page names its packages and each one's
 * runner; the seed's acceptance test sits in the package whose code it tests, under that package's
 * rule, and is proved red there, run from the package's folder with node's runner.
 */
const pkg = (name: string) => JSON.stringify({ name, version: '1.0.0', private: true, type: 'module', scripts: { test: 'node --test' } }, null, 2);

const FILES: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'tasks', private: true, workspaces: ['packages/*'], scripts: { test: 'npm test --workspaces' } }, null, 2),
  'packages/clock/package.json': pkg('@tasks/clock'),
  'packages/clock/src/clock.js': 'export const minutes = (h) => h * 60;\n',
  'packages/clock/test/clock.test.js':
    "import assert from 'node:assert/strict';\nimport { test } from 'node:test';\nimport { minutes } from '../src/clock.js';\n\ntest('an hour is 60 minutes', () => {\n  assert.equal(minutes(1), 60);\n});\n",
  'packages/notes/package.json': pkg('@tasks/notes'),
  'packages/notes/src/notes.js': 'export const title = (note) => note.split("\\n")[0];\n',
  'packages/notes/test/notes.test.js':
    "import assert from 'node:assert/strict';\nimport { test } from 'node:test';\nimport { title } from '../src/notes.js';\n\ntest('the first line is the title', () => {\n  assert.equal(title('a\\nb'), 'a');\n});\n",
};

const WORDS_TEST = [
  "import assert from 'node:assert/strict';",
  "import { describe, it } from 'node:test';",
  "import { words } from '../src/notes.js';",
  '',
  "describe('words', () => {",
  "  it('counts the words of a note', () => {",
  "    assert.equal(words('buy milk today'), 3);",
  '  });',
  '});',
  '',
].join('\n');

test('an npm workspace: its packages named with their runners, the test in one package proved red from its folder', async ({ page }) => {
  test.setTimeout(90_000);
  const { parent, repo } = committedRepo('tasks', FILES);
  try {
    await script([
      seedTurn(
        [
          {
            id: 'T-001',
            title: 'Word count',
            description: 'Add words(note) to packages/notes/src/notes.js.',
            acceptance_criteria: ['words counts the words of a note'],
            criteria_tests: [['counts the words of a note']],
          },
        ],
        { 'packages/notes/test/t001_words.test.js': WORDS_TEST },
        '- **T-001:** Word count — words(note)',
      ),
    ]);

    await page.goto(`/#token=${E2E_TOKEN}`);
    await page.getByTestId('new-session-button').first().click();
    await page.getByTestId('workspace-input').fill(repo);
    await expect(page.getByTestId('workspace-check')).toHaveAttribute('data-ok', 'true');
    await expect(page.getByTestId('workspace-env')).toHaveText(
      'Detected: JavaScript · npm workspace of 2 packages: packages/clock (node), packages/notes (node)',
    );
    await expect(page.getByTestId('preset-select')).toHaveValue('node');
    await page.getByTestId('brief-input').fill('Count the words of a note');
    await page.screenshot({ path: 'test-results/screens/new-session-workspace.png', fullPage: true });
    await page.getByTestId('create-session').click();
    await expect(page).toHaveURL(/\/sessions\/\d{8}-\d{6}-[0-9a-f]{6}$/);

    await expect(page.getByTestId('seed-review')).toBeVisible({ timeout: 60_000 });
    await expect(page.getByTestId('seed-review')).toContainText('packages/notes/test/t001_words.test.js');
    const rows = page.getByTestId('criterion-row');
    await expect(rows).toHaveCount(1);
    // Run alone from packages/notes with node's runner, on the seed commit: red, words not being written.
    await expect(rows.nth(0)).toHaveAttribute('data-red', 'failed');
    await expect(rows.nth(0)).toContainText('words › counts the words of a note');
    await expect(page.getByTestId('contract-warning')).toHaveCount(0);
    await page.screenshot({ path: 'test-results/screens/seed-review-workspace.png', fullPage: true });
    // Editing: the naming rule names each package's folder.
    await page.getByTestId('edit-seed').click();
    await expect(page.getByTestId('seed-review')).toContainText(
      'Test files must be named packages/clock/test/t<NNN>_<slug>.test.js (or .test.mjs, .test.cjs), or packages/notes/test/t<NNN>_<slug>.test.js (or .test.mjs, .test.cjs) (in the package whose code it tests)',
    );
  } finally {
    fs.rmSync(parent, { recursive: true, force: true });
  }
});
