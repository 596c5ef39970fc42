import { expect, test } from '@playwright/test';
import { E2E_TOKEN } from '../../playwright.config.ts';

test('the settings page shows each value with where it came from, keys masked', async ({ page }) => {
  await page.goto(`/#token=${E2E_TOKEN}`);
  await page.getByRole('link', { name: 'Settings' }).click();
  const table = page.getByTestId('config-table');
  await expect(table).toBeVisible();
  const model = table.locator('[data-testid="config-row"][data-key="TILTH_WORKER_MODEL"]');
  await expect(model).toHaveAttribute('data-source', 'env');
  await expect(model.getByTestId('config-value')).toHaveText('scripted-worker');
  const key = table.locator('[data-testid="config-row"][data-key="TILTH_API_KEY"]');
  await expect(key.getByTestId('config-value')).not.toContainText('e2e-key-not-secret');
  const dollars = table.locator('[data-testid="config-row"][data-key="TILTH_MAX_DOLLARS"]');
  await expect(dollars).toHaveAttribute('data-source', 'default');
  await expect(page.getByTestId('provider-banner')).toHaveCount(0);
  // On or off depends on the machine (bubblewrap installed, user namespaces allowed); either way it is said.
  await expect(page.getByTestId('sandbox-status')).toHaveText(/^Shell sandbox: (on \(bubblewrap\)|off — .+)$/);
  expect(await page.content()).not.toContain('e2e-key-not-secret');
  await page.screenshot({ path: 'test-results/screens/settings.png', fullPage: true });
});
