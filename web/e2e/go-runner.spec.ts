import fs from 'node:fs';
import { expect, test } from '@playwright/test';
import { E2E_TOKEN } from '../../playwright.config.ts';
import { committedRepo, script, seedTurn } from './helpers.ts';

/**
 * A Go module (issue 29): detected as go test from its go.mod, with the package that has tests
 * named; the seed's acceptance test sits beside the package it tests, a subtest named in the seed
 * by its t.Run title is shown by go's own name, and each case is proved red by go before any work
 * (the function the task adds does not compile yet).
 */
const FILES: Record<string, string> = {
  'go.mod': 'module example.com/calc\n\ngo 1.19\n',
  'calc/calc.go': 'package calc\n\n// Double returns n twice.\nfunc Double(n int) int { return n * 2 }\n',
  'calc/calc_test.go': 'package calc\n\nimport "testing"\n\nfunc TestDouble(t *testing.T) {\n\tif Double(2) != 4 {\n\t\tt.Error("2*2")\n\t}\n}\n',
};

const HALVE_TEST = [
  'package calc',
  '',
  'import "testing"',
  '',
  'func TestHalve(t *testing.T) {',
  '\tt.Run("halves even numbers", func(t *testing.T) {',
  '\t\tif Halve(4) != 2 {',
  '\t\t\tt.Error("4/2")',
  '\t\t}',
  '\t})',
  '\tt.Run("rounds odd numbers down", func(t *testing.T) {',
  '\t\tif Halve(5) != 2 {',
  '\t\t\tt.Error("5/2")',
  '\t\t}',
  '\t})',
  '}',
  '',
].join('\n');

test('a Go module: go test detected, the test beside its package, each subtest proved red by its go name', async ({ page }) => {
  // Room for the seed review's 90 s wait below: the test's own limit must not end it first.
  test.setTimeout(150_000);
  const { parent, repo } = committedRepo('calc', FILES);
  try {
    await script([
      seedTurn(
        [
          {
            id: 'T-001',
            title: 'Halve',
            description: 'Add Halve(n int) int to calc/calc.go.',
            acceptance_criteria: ['Halve divides even numbers by two', 'Halve rounds odd numbers down'],
            criteria_tests: [['halves even numbers'], ['TestHalve/rounds odd numbers down']],
          },
        ],
        { 'calc/t001_halve_test.go': HALVE_TEST },
        '- **T-001:** Halve — Halve(n)',
      ),
    ]);

    await page.goto(`/#token=${E2E_TOKEN}`);
    await page.getByTestId('new-session-button').first().click();
    await page.getByTestId('workspace-input').fill(repo);
    await expect(page.getByTestId('workspace-check')).toHaveAttribute('data-ok', 'true');
    await expect(page.getByTestId('workspace-env')).toHaveText('Detected: Go · go test (go.mod) · tests in calc/');
    await expect(page.getByTestId('workspace-env-note')).toHaveCount(0);
    await expect(page.getByTestId('preset-select')).toHaveValue('go');
    await page.getByTestId('brief-input').fill('Add Halve');
    await page.screenshot({ path: 'test-results/screens/new-session-go.png', fullPage: true });
    await page.getByTestId('create-session').click();
    await expect(page).toHaveURL(/\/sessions\/\d{8}-\d{6}-[0-9a-f]{6}$/);

    // The contract check and the red proof build the package with go each time (a cold build cache): slower than a script runner.
    await expect(page.getByTestId('seed-review')).toBeVisible({ timeout: 90_000 });
    await expect(page.getByTestId('seed-env')).toHaveText('Go · go test (go.mod) · tests in calc/');
    await expect(page.getByTestId('seed-review')).toContainText('checks: go');
    const rows = page.getByTestId('criterion-row');
    await expect(rows).toHaveCount(2);
    // The red proof ran each subtest alone with go, on the seed commit: both fail, Halve not being written.
    await expect(rows.nth(0)).toHaveAttribute('data-red', 'failed');
    await expect(rows.nth(1)).toHaveAttribute('data-red', 'failed');
    await expect(rows.nth(0)).toContainText('TestHalve/halves_even_numbers');
    await expect(rows.nth(1)).toContainText('TestHalve/rounds_odd_numbers_down');
    await expect(page.getByTestId('seed-review')).toContainText('calc/t001_halve_test.go');
    // Highlighted as Go, keywords coloured by the code view's palette.
    await expect(page.getByTestId('seed-test-file').locator('pre.language-go .token.keyword').first()).toHaveText('package');
    await page.screenshot({ path: 'test-results/screens/seed-review-go.png', fullPage: true });
  } finally {
    fs.rmSync(parent, { recursive: true, force: true });
  }
});
