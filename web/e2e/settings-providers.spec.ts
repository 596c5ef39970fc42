/**
 * The settings page's provider presets, context windows and prices, against a Tilth of its own
 * (started without a provider) and a local server answering in vLLM's shape: GET /v1/models
 * with each model's max_model_len, as vLLM documents it.
 */
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { writeRunSession } from '../../bench/session-gen.ts';
import { SessionStore } from '../../server/store/session-store.ts';
import { startTilth, type TilthProcess } from '../../server/testing/tilth-process.ts';

let tilth: TilthProcess | undefined;
let vllm: http.Server | undefined;

test.afterEach(async () => {
  await tilth?.stop();
  if (tilth) fs.rmSync(tilth.home, { recursive: true, force: true });
  tilth = undefined;
  await new Promise<void>((resolve) => (vllm ? vllm.close(() => resolve()) : resolve()));
  vllm = undefined;
});

/** A vLLM-shaped server: the model list with max_model_len, nothing else. */
async function startVllm(models: Record<string, number>): Promise<string> {
  vllm = http.createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.method === 'GET' && req.url === '/v1/models') {
      res.end(
        JSON.stringify({
          object: 'list',
          data: Object.entries(models).map(([id, max]) => ({ id, object: 'model', created: 0, owned_by: 'vllm', root: id, parent: null, max_model_len: max })),
        }),
      );
      return;
    }
    res.statusCode = 404;
    res.end(JSON.stringify({ object: 'error', message: `Not Found: ${req.method} ${req.url}` }));
  });
  await new Promise<void>((resolve) => vllm!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(vllm.address() as net.AddressInfo).port}/v1`;
}

const setting = (page: Page, key: string) => page.locator(`[data-testid="setting"][data-key="${key}"]`);
const input = (page: Page, key: string) => setting(page, key).getByTestId('setting-input');
const facts = (page: Page, role: string) => page.locator(`[data-testid="model-facts"][data-role="${role}"]`);

test('provider presets fill the base URL and show what each provider needs; windows and prices save per role beside what the provider reports', async ({
  page,
}) => {
  const base = await startVllm({ coder: 65_536, judge: 32_768 });
  tilth = await startTilth();
  await page.goto(`${tilth.origin}/settings#token=${tilth.token}`);
  await expect(page.getByTestId('settings-page')).toBeVisible();

  // Presets: each fills the URL and shows its provider's requirements.
  const form = page.getByTestId('settings-form-provider');
  const baseUrl = input(page, 'TILTH_BASE_URL');
  const preset = setting(page, 'TILTH_BASE_URL').getByTestId('provider-preset');
  const requirements = setting(page, 'TILTH_BASE_URL').getByTestId('provider-requirements');
  await expect(preset).toHaveValue('');
  await expect(requirements).toHaveCount(0);

  await preset.selectOption({ label: 'Ollama' });
  await expect(baseUrl).toHaveValue('http://localhost:11434/v1');
  await expect(requirements).toHaveAttribute('data-preset', 'ollama');
  await expect(requirements).toContainText('OLLAMA_CONTEXT_LENGTH=32768');
  await expect(requirements).toContainText('PARAMETER num_ctx 32768');
  await expect(requirements).toContainText('tool support');
  await expect(input(page, 'TILTH_WORKER_MODEL')).toHaveAttribute('placeholder', 'e.g. qwen3:8b');

  await preset.selectOption({ label: 'vLLM' });
  await expect(baseUrl).toHaveValue('http://localhost:8000/v1');
  await expect(requirements).toContainText('--enable-auto-tool-choice --tool-call-parser');
  await preset.selectOption({ label: 'llama.cpp server' });
  await expect(requirements).toContainText('--jinja');
  await preset.selectOption({ label: 'LM Studio' });
  await expect(requirements).toContainText('tool use');
  await preset.selectOption({ label: 'DeepSeek' });
  await expect(baseUrl).toHaveValue('https://api.deepseek.com');
  await expect(requirements).toContainText('Thinking mode is on by default');
  await expect(requirements).toContainText('echoes it back automatically');
  await preset.selectOption({ label: 'Gemini (OpenAI endpoint)' });
  await expect(baseUrl).toHaveValue('https://generativelanguage.googleapis.com/v1beta/openai/');
  await preset.selectOption({ label: 'Azure OpenAI' });
  await expect(baseUrl).toHaveValue('https://YOUR-RESOURCE.openai.azure.com/openai/v1');
  await expect(requirements).toContainText("deployment's name as the model");
  await expect(requirements).toContainText('api-version');
  // Typing the resource name keeps the preset recognised; typing another server's URL leaves it.
  await baseUrl.fill('https://my-team.openai.azure.com/openai/v1');
  await expect(preset).toHaveValue('azure');
  await baseUrl.fill(base);
  await expect(preset).toHaveValue('');
  await expect(requirements).toHaveCount(0);

  await setting(page, 'TILTH_API_KEY').getByTestId('secret-input').fill('none');
  await input(page, 'TILTH_WORKER_MODEL').fill('coder');
  await input(page, 'TILTH_EVALUATOR_MODEL').fill('judge');
  await form.getByTestId('settings-save').click();
  await expect(form.getByTestId('settings-saved')).toBeVisible();

  // Each role's window as the server reports it; the interviewer runs the worker's model.
  const line = (role: string) => facts(page, role).getByTestId('window-line');
  await expect(line('worker')).toHaveAttribute('data-source', 'vllm');
  await expect(line('worker')).toHaveAttribute('data-tokens', '65536');
  await expect(line('worker').getByTestId('window-in-effect')).toHaveText('In effect: 65,536 tokens, from vLLM.');
  await expect(line('evaluator').getByTestId('window-in-effect')).toHaveText('In effect: 32,768 tokens, from vLLM.');
  await expect(line('prep').getByTestId('window-in-effect')).toHaveText('In effect: 65,536 tokens, from vLLM.');
  await expect(input(page, 'TILTH_WORKER_CONTEXT_WINDOW')).toHaveAttribute('placeholder', '65536 (from vLLM)');
  await expect(facts(page, 'evaluator')).toContainText('judge');

  // Garbage and half a price are refused with the variable's name; nothing is half-saved.
  const models = page.getByTestId('settings-form-models');
  await input(page, 'TILTH_WORKER_CONTEXT_WINDOW').fill('131072');
  await input(page, 'TILTH_WORKER_PRICE_IN').fill('0.27');
  await input(page, 'TILTH_WORKER_PRICE_OUT').fill('1.1');
  await input(page, 'TILTH_PREP_CONTEXT_WINDOW').fill('lots');
  await models.getByTestId('settings-save').click();
  await expect(models.locator('[data-key="TILTH_PREP_CONTEXT_WINDOW"]').getByTestId('setting-error')).toHaveText(
    'Context window must be a whole number, got "lots".',
  );
  await input(page, 'TILTH_PREP_CONTEXT_WINDOW').fill('');
  await input(page, 'TILTH_EVALUATOR_PRICE_IN').fill('2');
  await models.getByTestId('settings-save').click();
  await expect(models.locator('[data-key="TILTH_EVALUATOR_PRICE_OUT"]').getByTestId('setting-error')).toContainText(
    'Output price is needed too: a price has an input and an output side',
  );
  await expect(input(page, 'TILTH_EVALUATOR_PRICE_OUT')).toHaveAttribute('aria-invalid', 'true');
  expect(
    fs.existsSync(path.join(tilth.home, 'config.json')) ? JSON.parse(fs.readFileSync(path.join(tilth.home, 'config.json'), 'utf8')) : {},
  ).not.toHaveProperty('TILTH_WORKER_PRICE_IN');
  await input(page, 'TILTH_EVALUATOR_PRICE_OUT').fill('8');
  await models.getByTestId('settings-save').click();
  await expect(models.getByTestId('settings-saved')).toBeVisible();

  const saved = JSON.parse(fs.readFileSync(path.join(tilth.home, 'config.json'), 'utf8')) as Record<string, string>;
  expect(saved).toMatchObject({
    TILTH_WORKER_CONTEXT_WINDOW: '131072',
    TILTH_WORKER_PRICE_IN: '0.27',
    TILTH_WORKER_PRICE_OUT: '1.1',
    TILTH_EVALUATOR_PRICE_IN: '2',
    TILTH_EVALUATOR_PRICE_OUT: '8',
  });
  await expect(setting(page, 'TILTH_WORKER_CONTEXT_WINDOW').getByTestId('setting-source')).toHaveText('from config.json');

  // A window set larger than the server's is in effect, with a warning; the interviewer (the
  // worker's model) borrows the worker's figures, the evaluator (its own model) does not.
  await expect(line('worker')).toHaveAttribute('data-state', 'warning');
  await expect(line('worker').getByTestId('window-in-effect')).toContainText('131,072 tokens, as set here — more than the 65,536 vLLM reports');
  await expect(input(page, 'TILTH_PREP_CONTEXT_WINDOW')).toHaveAttribute('placeholder', "131072 (the worker's)");
  await expect(input(page, 'TILTH_PREP_PRICE_IN')).toHaveAttribute('placeholder', "0.27 (the worker's)");
  await expect(input(page, 'TILTH_EVALUATOR_CONTEXT_WINDOW')).toHaveAttribute('placeholder', '32768 (from vLLM)');
  await expect(line('evaluator').getByTestId('window-in-effect')).toHaveText('In effect: 32,768 tokens, from vLLM.');

  await setting(page, 'TILTH_BASE_URL').getByTestId('provider-preset').selectOption({ label: 'Ollama' });
  await expect(setting(page, 'TILTH_BASE_URL').getByTestId('provider-requirements')).toBeVisible();
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: 'test-results/screens/settings-providers.png', fullPage: true });
  // The two forms apart, clipped from the whole page so the sticky header does not cover them.
  for (const [name, part] of [
    ['settings-provider-form', form],
    ['settings-windows-prices', models],
  ] as const) {
    const box = (await part.boundingBox())!;
    await page.screenshot({ path: `test-results/screens/${name}.png`, fullPage: true, clip: { x: box.x, y: box.y, width: box.width, height: box.height } });
  }
});

test("the dashboard's context chart draws the worker's window when model calls report it", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  tilth = await startTilth();
  const store = new SessionStore(tilth.sessionsDir);
  const session = writeRunSession(store, 400, { tasks: 2, seed: 11, contextWindow: 32_768 });
  const plain = writeRunSession(store, 400, { tasks: 2, seed: 11 });
  store.close();
  await page.goto(tilth.url);
  await page.goto(`${tilth.origin}/sessions/${session.id}`);
  await expect(page.locator('[data-testid="dashboard"][data-ready="true"]')).toBeVisible();
  const chart = page.getByTestId('pressure-chart');
  await expect(chart).toHaveAttribute('data-window', 'true');
  await expect(chart.getByTestId('pressure-window-legend')).toHaveText(/worker.s context window/);
  await chart.scrollIntoViewIfNeeded();
  const box = (await chart.locator('.chart').boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.3, box.y + box.height / 2);
  await expect(chart).toContainText('of a 32,768-token window');
  await chart.screenshot({ path: 'test-results/screens/pressure-window.png' });

  // Without windows in the log, no line and no legend entry.
  await page.goto(`${tilth.origin}/sessions/${plain.id}`);
  await expect(page.locator('[data-testid="dashboard"][data-ready="true"]')).toBeVisible();
  await expect(page.getByTestId('pressure-chart')).toHaveAttribute('data-window', 'false');
  await expect(page.getByTestId('pressure-window-legend')).toHaveCount(0);
});
