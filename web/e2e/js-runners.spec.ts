import { expect, test } from '@playwright/test';
import { E2E_TOKEN } from '../../playwright.config.ts';
import { makeExampleRepo, type ExampleName } from '../../server/demo/example-repo.ts';
import { installExample } from '../../server/testing/example-installs.ts';
import { script, seedTurn } from './helpers.ts';

/**
 * The JavaScript runners driven since issue 29, each on its example installed with `npm ci` as its
 * README says: detected from the project's test script or config, the seed's test put where the
 * runner's own files setting finds it, and each case proved red by that runner on the seed
 * commit, read from its report — the first fails for the function not written yet, the second
 * is one the runner never runs (AVA's `test.todo`, a skipped tap subtest or uvu case), which
 * proves nothing. tap and uvu name a case by its group or suite and its title: a bare title in
 * the seed is stored that way. (uvu runs under Tilth's own uvu runner.)
 */
interface RunnerCase {
  preset: 'ava' | 'tap' | 'uvu';
  /** The runner's name on the page. */
  name: string;
  example: ExampleName;
  testFile: string;
  test: string[];
  /** The matrix as the seed gives it, and the first case as the page then shows it. */
  criteriaTests: string[][];
  shown: string;
  /** The environment line, after "Detected: " on the new-session page. */
  env: string;
  option: string;
}

const CASES: RunnerCase[] = [
  {
    preset: 'ava',
    name: 'AVA',
    example: 'ava-todo',
    testFile: 'test/t001_due.test.js',
    test: [
      "import test from 'ava';",
      "import * as todo from '../src/todo.js';",
      '',
      "test('setDue sets the due date', (t) => {",
      "  t.is(todo.setDue({ title: 'a', done: false }, '2026-01-31').due, '2026-01-31');",
      '});',
      '',
      "test.todo('setDue keeps the original');",
    ],
    criteriaTests: [['setDue sets the due date'], ['setDue keeps the original']],
    shown: 'setDue sets the due date',
    env: 'JavaScript · npm · AVA (scripts.test: ava) · tests in test/',
    option: 'AVA — test/t<NNN>_<slug>.test.js (or .test.mjs, .test.cjs)',
  },
  {
    preset: 'tap',
    name: 'node-tap',
    example: 'tap-todo',
    testFile: 'test/t001_due.test.js',
    test: [
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
    ],
    criteriaTests: [['sets the due date'], ['setDue › keeps the original']],
    shown: 'setDue › sets the due date',
    env: 'JavaScript (CommonJS) · npm · node-tap (package.json "tap") · tests in test/',
    option: 'node-tap — test/t<NNN>_<slug>.test.js (or .test.mjs, .test.cjs)',
  },
  {
    preset: 'uvu',
    name: 'uvu',
    example: 'uvu-todo',
    testFile: 'tests/t001_due.test.js',
    test: [
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
    ],
    criteriaTests: [['sets the due date'], ['setDue › keeps the original']],
    shown: 'setDue › sets the due date',
    env: 'JavaScript · npm · uvu (scripts.test: uvu tests) · tests in tests/',
    option: 'uvu — tests/t<NNN>_<slug>.test.js (or .test.mjs, .test.cjs)',
  },
];

for (const c of CASES) {
  test(`${c.name}: the project detected, the test where the runner finds it, each case proved red by its name`, async ({ page }) => {
    test.setTimeout(180_000);
    const repo = await makeExampleRepo(c.example);
    try {
      await installExample(repo.dir, c.example);
      await script([
        seedTurn(
          [
            {
              id: 'T-001',
              title: 'Due dates',
              description: 'Add setDue(todo, date) to src/todo.js.',
              acceptance_criteria: ['setDue sets the due date', 'setDue keeps the original unchanged'],
              criteria_tests: c.criteriaTests,
            },
          ],
          { [c.testFile]: `${c.test.join('\n')}\n` },
          '- **T-001:** Due dates — setDue(todo, date)',
        ),
      ]);

      await page.goto(`/#token=${E2E_TOKEN}`);
      await page.getByTestId('new-session-button').first().click();
      await page.getByTestId('workspace-input').fill(repo.dir);
      await expect(page.getByTestId('workspace-check')).toHaveAttribute('data-ok', 'true');
      await expect(page.getByTestId('workspace-env')).toHaveText(`Detected: ${c.env}`);
      await expect(page.getByTestId('workspace-env-note')).toHaveCount(0);
      await expect(page.getByTestId('preset-select')).toHaveValue(c.preset);
      await expect(page.getByTestId('preset-select').locator('option:checked')).toHaveText(c.option);
      await page.getByTestId('brief-input').fill('Add due dates');
      await page.screenshot({ path: `test-results/screens/new-session-${c.preset}.png`, fullPage: true });
      await page.getByTestId('create-session').click();
      await expect(page).toHaveURL(/\/sessions\/\d{8}-\d{6}-[0-9a-f]{6}$/);

      await expect(page.getByTestId('seed-review')).toBeVisible({ timeout: 60_000 });
      await expect(page.getByTestId('seed-env')).toHaveText(c.env);
      await expect(page.getByTestId('seed-review')).toContainText(`checks: ${c.preset}`);
      const rows = page.getByTestId('criterion-row');
      await expect(rows).toHaveCount(2);
      await expect(rows.nth(0)).toHaveAttribute('data-red', 'failed');
      await expect(rows.nth(0)).toContainText(c.shown);
      await expect(rows.nth(1)).toHaveAttribute('data-red', 'not_run');
      await expect(rows.nth(1)).toContainText(`was skipped by ${c.name}`);
      await expect(page.getByTestId('seed-review')).toContainText(c.testFile);
      await page.screenshot({ path: `test-results/screens/seed-review-${c.preset}.png`, fullPage: true });
    } finally {
      await repo.cleanup();
    }
  });
}
