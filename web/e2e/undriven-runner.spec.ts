import fs from 'node:fs';
import { expect, test } from '@playwright/test';
import { E2E_TOKEN } from '../../playwright.config.ts';
import { committedRepo, script, seedTurn } from './helpers.ts';

/**
 * A project whose `npm test` runs node-tap 16 after a linter (issue 29): Tilth drives tap from 18
 * on, so it names this one as not driven yet on the new-session page and in seed review, and gives the session the custom
 * preset — never Node's own runner in its place, which would run tap's files in a way its users
 * do not. A bun project's seed review starts the custom command from bun's own, with `{junit}`.
 */
const FILES: Record<string, string> = {
  'package.json': JSON.stringify(
    { name: 'doubler', type: 'module', private: true, scripts: { test: 'xo && tap' }, devDependencies: { tap: '^16.3.10', xo: '^1.2.0' } },
    null,
    2,
  ),
  'src/double.js': 'export function double(n) {\n  return n * 2;\n}\n',
  'test/double.js': "import t from 'tap';\nimport { double } from '../src/double.js';\n\nt.test('doubles', async (t) => {\n  t.equal(double(2), 4);\n});\n",
};

const NOTE =
  'This project runs its tests with node-tap, which Tilth does not drive yet. The checks use your own test command instead: set it in seed review under Custom (for example node_modules/.bin/tap --no-coverage {files}).';

test('a node-tap 16 project: the runner is named as not driven yet, and the session gets the custom preset instead of a stand-in', async ({ page }) => {
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
      'Detected: JavaScript · npm · node-tap (scripts.test: xo && tap; tap 16: Tilth drives 18 and later), not driven by Tilth yet · tests in test/',
    );
    await expect(page.getByTestId('workspace-env-note')).toHaveText(NOTE);
    await expect(page.getByTestId('preset-select')).toHaveValue('custom');
    await page.getByTestId('brief-input').fill('Add halve');
    await page.screenshot({ path: 'test-results/screens/new-session-undriven-runner.png', fullPage: true });
    await page.getByTestId('create-session').click();
    await expect(page).toHaveURL(/\/sessions\/\d{8}-\d{6}-[0-9a-f]{6}$/);

    await expect(page.getByTestId('seed-review')).toBeVisible({ timeout: 20_000 });
    await expect(page.getByTestId('seed-env')).toHaveText(
      'JavaScript · npm · node-tap (scripts.test: xo && tap; tap 16: Tilth drives 18 and later), not driven by Tilth yet · tests in test/',
    );
    await expect(page.getByTestId('seed-env-note')).toHaveText(NOTE);
    await expect(page.getByTestId('seed-review')).toContainText('checks: custom');
    await page.screenshot({ path: 'test-results/screens/seed-review-undriven-runner.png', fullPage: true });
  } finally {
    fs.rmSync(parent, { recursive: true, force: true });
  }
});

test("a bun project: seed review starts the custom command from bun's own, with {junit} for its report, and saves a one-case command beside it", async ({
  page,
  baseURL,
}) => {
  const { parent, repo } = committedRepo('bun-doubler', {
    'package.json': JSON.stringify({ name: 'doubler', type: 'module', private: true, scripts: { test: 'bun test' } }, null, 2),
    'src/double.js': 'export function double(n) {\n  return n * 2;\n}\n',
    'test/double.test.js':
      "import { expect, test } from 'bun:test';\nimport { double } from '../src/double.js';\n\ntest('doubles', () => {\n  expect(double(2)).toBe(4);\n});\n",
  });
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
          'tests/t001_halve.test.js':
            "import { expect, test } from 'bun:test';\nimport { halve } from '../src/double.js';\n\ntest('halves', () => {\n  expect(halve(4)).toBe(2);\n});\n",
        },
        '- **T-001:** Halve — halve(n)',
      ),
    ]);
    await page.goto(`/#token=${E2E_TOKEN}`);
    await page.getByTestId('new-session-button').first().click();
    await page.getByTestId('workspace-input').fill(repo);
    await expect(page.getByTestId('workspace-env-note')).toContainText('This project runs its tests with bun test, which Tilth does not drive yet.');
    await page.getByTestId('brief-input').fill('Add halve');
    await page.getByTestId('create-session').click();
    await expect(page.getByTestId('seed-review')).toBeVisible({ timeout: 20_000 });
    const id = /\/sessions\/([^/]+)$/.exec(page.url())![1]!;

    await page.getByTestId('edit-seed').click();
    await expect(page.getByTestId('edit-preset')).toHaveValue('custom');
    const testCommand = page.getByTestId('edit-custom-test');
    await expect(testCommand).toHaveValue('bun test {files} --reporter=junit --reporter-outfile={junit}');
    const evidence = page.getByTestId('custom-evidence');
    await expect(evidence).toHaveText('Each case is read from the JUnit report: the acceptance check, and the red and green proofs of each named case.');
    await page.getByTestId('edit-custom-case').fill('bun test {file} -t {case_pattern} --reporter=junit --reporter-outfile={junit}');
    await page.screenshot({ path: 'test-results/screens/seed-edit-custom-junit.png', fullPage: true });
    // Without {junit} the editor says what is lost.
    await testCommand.fill('bun test {files}');
    await expect(evidence).toHaveText('Without {junit} only the exit code speaks: no per-case results, no red or green proofs.');
    await testCommand.fill('bun test {files} --reporter=junit --reporter-outfile={junit}');
    await page.getByTestId('save-seed').click();
    await expect(page.getByTestId('edit-seed')).toBeVisible();

    const seed = (await (await fetch(`${baseURL}/api/sessions/${id}/seed`, { headers: { authorization: `Bearer ${E2E_TOKEN}` } })).json()) as {
      meta: { custom_checks: unknown };
    };
    expect(seed.meta.custom_checks).toEqual({
      test: 'bun test {files} --reporter=junit --reporter-outfile={junit}',
      case: 'bun test {file} -t {case_pattern} --reporter=junit --reporter-outfile={junit}',
    });
  } finally {
    fs.rmSync(parent, { recursive: true, force: true });
  }
});
