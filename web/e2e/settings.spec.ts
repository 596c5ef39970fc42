import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { E2E_TOKEN } from '../../playwright.config.ts';
import { startScriptedModel, type ScriptedModel } from '../../server/scripted-model/model-server.ts';
import { startTilth, type TilthProcess } from '../../server/testing/tilth-process.ts';
import { MODEL_URL } from './helpers.ts';

const KEY = 'sk-e2e-settings-key-0123456789abcdef';

/** Every API response body the page receives, to check that no key ever comes back. */
function recordApiBodies(page: Page): () => Promise<string[]> {
  const bodies: Promise<string>[] = [];
  page.on('response', (response) => {
    if (new URL(response.url()).pathname.startsWith('/api/')) bodies.push(response.text().catch(() => ''));
  });
  return () => Promise.all(bodies);
}

const setting = (page: Page, key: string) => page.locator(`[data-testid="setting"][data-key="${key}"]`);

test('the settings page shows each value with where it came from, and that the environment wins', async ({ page }) => {
  const bodies = recordApiBodies(page);
  await page.goto(`/#token=${E2E_TOKEN}`);
  await page.getByRole('link', { name: 'Settings', exact: true }).click();
  const table = page.getByTestId('config-table');
  await expect(table).toBeVisible();
  const model = table.locator('[data-testid="config-row"][data-key="TILTH_WORKER_MODEL"]');
  await expect(model).toHaveAttribute('data-source', 'env');
  await expect(model.getByTestId('config-value')).toHaveText('scripted-worker');
  const key = table.locator('[data-testid="config-row"][data-key="TILTH_API_KEY"]');
  await expect(key.getByTestId('config-value')).toHaveText('set');
  const dollars = table.locator('[data-testid="config-row"][data-key="TILTH_MAX_DOLLARS"]');
  await expect(dollars).toHaveAttribute('data-source', 'default');
  await expect(page.getByTestId('provider-banner')).toHaveCount(0);
  // On or off depends on the machine (bubblewrap installed, user namespaces allowed); either way it is said.
  await expect(page.getByTestId('sandbox-status')).toHaveText(/^Shell sandbox: (on \(bubblewrap\)|off — .+)$/);
  // No TILTH_QUEUE here: runs execute in the server, and the page says how to change that.
  await expect(page.getByTestId('queue-status')).toHaveAttribute('data-mode', 'local');
  await expect(page.getByTestId('queue-status')).toContainText('inside this server');

  // This server's provider comes from its environment: each field says so, and that it wins.
  const workerModel = setting(page, 'TILTH_WORKER_MODEL');
  await expect(workerModel).toHaveAttribute('data-overridden', 'true');
  await expect(workerModel.getByTestId('setting-source')).toHaveText('from environment');
  await expect(workerModel.getByTestId('override-note')).toContainText('set to "scripted-worker" by the environment, which wins over this page');
  await expect(setting(page, 'TILTH_API_KEY').getByTestId('secret-status')).toHaveText('set');
  await expect(setting(page, 'TILTH_MAX_DOLLARS').getByTestId('override-note')).toHaveCount(0);
  await expect(page.getByTestId('role-overrides')).not.toHaveAttribute('open');

  // Test connection against the scripted model server.
  const worker = page.locator('[data-testid="role-test"][data-role="worker"]');
  await worker.getByTestId('test-connection').click();
  await expect(worker.getByTestId('test-result')).toHaveAttribute('data-ok', 'true');
  await expect(worker.getByTestId('test-result')).toContainText(`${MODEL_URL}/v1 answered GET /models`);

  expect(await page.content()).not.toContain('e2e-key-not-secret');
  for (const body of await bodies()) expect(body).not.toContain('e2e-key-not-secret');
  await page.evaluate(() => window.scrollTo(0, 0)); // else the sticky header lands mid-picture
  await page.screenshot({ path: 'test-results/screens/settings.png', fullPage: true });
});

test.describe('on a server started without a provider', () => {
  let tilth: TilthProcess | undefined;
  const fakes: ScriptedModel[] = [];
  test.afterEach(async () => {
    await tilth?.stop();
    if (tilth) fs.rmSync(tilth.home, { recursive: true, force: true });
    tilth = undefined;
    await Promise.all(fakes.splice(0).map((f) => f.close()));
  });

  async function fake(options: Parameters<typeof startScriptedModel>[0]): Promise<ScriptedModel> {
    const f = await startScriptedModel(options);
    fakes.push(f);
    return f;
  }

  test('the new-session page sends the user to set up a provider, which the settings page saves without a restart; the key never comes back', async ({
    page,
  }) => {
    const model = await fake({ apiKey: KEY });
    model.enqueue('scripted-interviewer', { content: 'not asked for' });
    tilth = await startTilth();
    const bodies = recordApiBodies(page);

    await page.goto(tilth.url);
    await page.getByTestId('new-session-button').first().click();
    const note = page.getByTestId('interview-provider-note');
    await expect(note).toContainText('No model is configured for the interview');
    await page.screenshot({ path: 'test-results/screens/new-session-no-provider.png' });
    await note.getByTestId('interview-provider-link').click();
    await expect(page.getByTestId('settings-page')).toBeVisible();
    await expect(page.getByTestId('provider-banner')).toBeVisible();

    const form = page.getByTestId('settings-form-provider');
    const baseUrl = setting(page, 'TILTH_BASE_URL').getByTestId('setting-input');
    const preset = setting(page, 'TILTH_BASE_URL').getByTestId('provider-preset');
    await preset.selectOption({ label: 'OpenRouter' });
    await expect(baseUrl).toHaveValue('https://openrouter.ai/api/v1');
    await preset.selectOption({ label: 'Ollama' });
    await expect(baseUrl).toHaveValue('http://localhost:11434/v1');
    await baseUrl.fill(model.baseURL);
    await setting(page, 'TILTH_API_KEY').getByTestId('secret-input').fill(KEY);
    await setting(page, 'TILTH_WORKER_MODEL').getByTestId('setting-input').fill('scripted-worker');
    await setting(page, 'TILTH_PREP_MODEL').getByTestId('setting-input').fill('scripted-interviewer');
    await form.getByTestId('settings-save').click();

    await expect(form.getByTestId('settings-saved')).toContainText(path.join(tilth.home, 'config.json'));
    await expect(page.getByTestId('provider-banner')).toHaveCount(0);
    await expect(setting(page, 'TILTH_API_KEY').getByTestId('secret-status')).toHaveText('set');
    await expect(setting(page, 'TILTH_API_KEY').getByTestId('setting-source')).toHaveText('set · from config.json');
    await expect(setting(page, 'TILTH_API_KEY').getByTestId('secret-input')).toHaveValue('');
    await expect(setting(page, 'TILTH_BASE_URL').getByTestId('setting-source')).toHaveText('from config.json');
    expect(fs.statSync(path.join(tilth.home, 'config.json')).mode & 0o777).toBe(0o600);

    // Saved values are live: the interviewer's test reaches the provider with the saved key.
    const interviewer = page.locator('[data-testid="role-test"][data-role="prep"]');
    await expect(interviewer).toContainText('scripted-interviewer');
    await interviewer.getByTestId('test-connection').click();
    await expect(interviewer.getByTestId('test-result')).toHaveAttribute('data-ok', 'true');
    await expect(interviewer.getByTestId('test-result')).toContainText('"scripted-interviewer" is among them');

    // A bad cap is refused with the server's words; nothing is half-saved.
    const caps = page.getByTestId('settings-form-caps');
    await setting(page, 'TILTH_MAX_TOKENS').getByTestId('setting-input').fill('lots');
    await caps.getByTestId('settings-save').click();
    // The problem sits at the field, named as the field is labelled, and the input says it is invalid.
    await expect(setting(page, 'TILTH_MAX_TOKENS').getByTestId('setting-error')).toHaveText('Tokens per run must be a whole number, got "lots".');
    await expect(setting(page, 'TILTH_MAX_TOKENS').getByTestId('setting-input')).toHaveAttribute('aria-invalid', 'true');
    await expect(setting(page, 'TILTH_MAX_TOKENS').getByTestId('setting-input')).toBeFocused();
    await expect(caps.getByTestId('settings-error')).toHaveText('Not saved: one field needs fixing; each says what is wrong beside it.');
    await setting(page, 'TILTH_MAX_TOKENS').getByTestId('setting-input').fill('1_500_000');
    await caps.getByTestId('settings-save').click();
    await expect(caps.getByTestId('settings-saved')).toBeVisible();
    await expect(setting(page, 'TILTH_MAX_TOKENS').getByTestId('setting-source')).toHaveText('from config.json');

    // And the new-session page no longer warns.
    await page.getByTestId('nav-sessions').click();
    await page.getByTestId('new-session-button').first().click();
    await expect(page.getByTestId('new-session-page')).toBeVisible();
    await expect(page.getByTestId('interview-provider-note')).toHaveCount(0);

    expect(await page.content()).not.toContain(KEY);
    const seen = await bodies();
    expect(seen.length).toBeGreaterThan(5);
    for (const body of seen) expect(body).not.toContain(KEY);
    expect(fs.readFileSync(path.join(tilth.home, 'config.json'), 'utf8')).toContain(KEY);
    expect(tilth.output()).not.toContain(KEY);
  });

  test("Test connection shows the provider's own error text for a wrong key and a closed port", async ({ page }) => {
    const strict = await fake({ apiKey: 'sk-the-provider-wants-this-one' });
    const gone = await startScriptedModel();
    await gone.close();
    tilth = await startTilth();
    const bodies = recordApiBodies(page);
    await page.goto(`${tilth.origin}/settings#token=${tilth.token}`);

    const form = page.getByTestId('settings-form-provider');
    await setting(page, 'TILTH_BASE_URL').getByTestId('setting-input').fill(strict.baseURL);
    await setting(page, 'TILTH_API_KEY').getByTestId('secret-input').fill(KEY);
    await setting(page, 'TILTH_WORKER_MODEL').getByTestId('setting-input').fill('scripted-worker');
    await form.getByTestId('settings-save').click();
    await expect(form.getByTestId('settings-saved')).toBeVisible();

    // The evaluator gets its own endpoint, on a port where nothing listens.
    const overrides = page.getByTestId('settings-form-overrides');
    await expect(overrides).toBeHidden();
    await page.getByTestId('role-overrides').locator('summary').click();
    await setting(page, 'TILTH_EVALUATOR_BASE_URL').getByTestId('setting-input').fill(gone.baseURL);
    await overrides.getByTestId('settings-save').click();
    await expect(overrides.getByTestId('settings-saved')).toBeVisible();
    await expect(page.getByTestId('config-warnings')).toContainText("points the evaluator at another endpoint but it borrows the worker's key");

    const worker = page.locator('[data-testid="role-test"][data-role="worker"]');
    await worker.getByTestId('test-connection').click();
    const workerResult = worker.getByTestId('test-result');
    await expect(workerResult).toHaveAttribute('data-ok', 'false');
    await expect(workerResult).toContainText('HTTP 401: Incorrect API key provided: [redacted]');

    const evaluator = page.locator('[data-testid="role-test"][data-role="evaluator"]');
    await expect(evaluator).toContainText(gone.baseURL);
    await evaluator.getByTestId('test-connection').click();
    await expect(evaluator.getByTestId('test-result')).toHaveAttribute('data-ok', 'false');
    await expect(evaluator.getByTestId('test-result')).toContainText(`cannot reach ${gone.baseURL}`);
    await expect(evaluator.getByTestId('test-result')).toContainText('ECONNREFUSED');

    // The provider quoted the key it got; the page shows its words without the key.
    expect(await page.content()).not.toContain(KEY);
    for (const body of await bodies()) expect(body).not.toContain(KEY);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.evaluate(() => window.scrollTo(0, 0)); // else the sticky header lands mid-picture
    await page.screenshot({ path: 'test-results/screens/settings-edit.png', fullPage: true });
  });
});
