import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { E2E_TOKEN } from '../../playwright.config.ts';
import { committedRepo, script, seedTurn } from './helpers.ts';

/**
 * A TypeScript repository tested with vitest and installed with pnpm (issue 12): the new-session
 * page says what was detected, the interview's `.test.ts` is accepted, and seed review blocks Run
 * while the checkout has no node_modules — until they are there and the check runs again.
 */
const FILES: Record<string, string> = {
  'package.json': JSON.stringify(
    { name: 'slugs', type: 'module', private: true, scripts: { test: 'vitest run' }, devDependencies: { typescript: '^5.9.0', vitest: '^4.1.0' } },
    null,
    2,
  ),
  'pnpm-lock.yaml': "lockfileVersion: '9.0'\n",
  'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, module: 'ESNext', moduleResolution: 'Bundler', noEmit: true } }, null, 2),
  'vitest.config.ts': "import { defineConfig } from 'vitest/config';\n\nexport default defineConfig({ test: { include: ['tests/**/*.test.ts'] } });\n",
  'src/slug.ts': "export function slug(text: string): string {\n  return text.trim().toLowerCase().replace(/\\s+/g, '_');\n}\n",
  'tests/slug.test.ts':
    "import { expect, it } from 'vitest';\nimport { slug } from '../src/slug';\n\nit('lowercases', () => {\n  expect(slug('A b')).toBe('a_b');\n});\n",
};

const ACCEPTANCE = [
  "import { describe, expect, it } from 'vitest';",
  "import { kebab } from '../src/slug';",
  '',
  "describe('kebab', () => {",
  "  it('joins words with dashes', () => {",
  "    expect(kebab('Hello World')).toBe('hello-world');",
  '  });',
  '});',
  '',
].join('\n');

test('a TypeScript + vitest repository: its environment is shown, and Run waits until its tests can run', async ({ page, baseURL }) => {
  const { parent, repo } = committedRepo('slugs', FILES);
  try {
    await script([
      seedTurn(
        [
          {
            id: 'T-001',
            title: 'Kebab case',
            description: 'Add kebab(text) to src/slug.ts.',
            acceptance_criteria: ['kebab joins lowercased words with dashes'],
            criteria_tests: [['joins words with dashes']],
          },
        ],
        { 'tests/t001_kebab.test.ts': ACCEPTANCE },
        '- **T-001:** Kebab case — kebab(text)',
      ),
    ]);

    await page.goto(`/#token=${E2E_TOKEN}`);
    await page.getByTestId('new-session-button').first().click();
    await page.getByTestId('workspace-input').fill(repo);
    await expect(page.getByTestId('workspace-check')).toHaveAttribute('data-ok', 'true');
    await expect(page.getByTestId('workspace-env')).toHaveText('Detected: TypeScript · pnpm · vitest (vitest.config.ts) · tests in tests/');
    await expect(page.getByTestId('workspace-env-note')).toContainText('node_modules is not installed');
    await expect(page.getByTestId('preset-select')).toHaveValue('vitest');
    await expect(page.getByTestId('preset-select').locator('option[value="vitest"]')).toHaveText('Vitest — tests/t<NNN>_<slug>.test.ts');
    await page.getByTestId('brief-input').fill('Add kebab case');
    await page.screenshot({ path: 'test-results/screens/new-session-env.png', fullPage: true });
    await page.getByTestId('create-session').click();
    await expect(page).toHaveURL(/\/sessions\/\d{8}-\d{6}-[0-9a-f]{6}$/);
    const id = page.url().split('/').at(-1)!;

    // Seed review: the environment line, and the runner that is not there blocks Run.
    await expect(page.getByTestId('seed-review')).toBeVisible({ timeout: 20_000 });
    await expect(page.getByTestId('seed-env')).toHaveText('TypeScript · pnpm · vitest (vitest.config.ts) · tests in tests/');
    await expect(page.locator('[data-testid="seed-test-file"][data-path="tests/t001_kebab.test.ts"]')).toBeVisible();
    // The matrix names the case inside its describe block by its full name, as vitest shows it.
    await expect(page.getByTestId('criterion-tests').first()).toHaveText('kebab › joins words with dashes');
    const problem = page.locator('[data-testid="contract-warning"][data-kind="environment"]');
    await expect(problem).toContainText('Vitest is not installed in the worktree');
    await expect(page.getByTestId('run-button')).toBeDisabled();
    await expect(page.getByTestId('run-blocked')).toBeVisible();
    await page.screenshot({ path: 'test-results/screens/seed-review-env-blocked.png', fullPage: true });

    // What provisioning does at prep: the project's node_modules in the worktree. Then check again.
    const detail = (await (await fetch(`${baseURL}/api/sessions/${id}`, { headers: { authorization: `Bearer ${E2E_TOKEN}` } })).json()) as { worktree: string };
    fs.symlinkSync(fs.realpathSync('node_modules'), path.join(detail.worktree, 'node_modules'));
    await page.getByTestId('recheck').click();
    await expect(page.getByTestId('run-blocked')).toBeHidden({ timeout: 20_000 });
    await expect(problem).toHaveCount(0);
    await expect(page.getByTestId('run-button')).toBeEnabled();
    await page.screenshot({ path: 'test-results/screens/seed-review-env-ok.png', fullPage: true });
  } finally {
    fs.rmSync(parent, { recursive: true, force: true });
  }
});
