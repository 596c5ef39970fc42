import fs from 'node:fs';
import { expect, test } from '@playwright/test';
import { startRedis, type RedisProcess } from '../../server/testing/redis.ts';
import { startTilth, type TilthProcess } from '../../server/testing/tilth-process.ts';
import { answerDemoInterview } from './demo-steps.ts';

/**
 * With TILTH_QUEUE set (a real redis-server) and a queue worker inside tilth serve
 * (--worker-slots 1, where the demo's scripted model lives): the demo's run goes through the
 * queue, the dashboard says which worker runs it, and the settings page lists that worker.
 */
test.setTimeout(180_000);

let redis: RedisProcess;
let server: TilthProcess;

test.beforeAll(async () => {
  redis = await startRedis();
  server = await startTilth({
    args: ['--worker-slots', '1'],
    env: { TILTH_QUEUE: redis.url, TILTH_BASE_URL: '', TILTH_API_KEY: '', TILTH_WORKER_MODEL: '', TILTH_PREP_MODEL: '', TILTH_EVALUATOR_MODEL: '' },
  });
});
test.afterAll(async () => {
  await server?.stop();
  await redis?.stop();
  if (server) fs.rmSync(server.home, { recursive: true, force: true });
});

test('a run through the queue names its worker on the dashboard and the settings page lists it', async ({ page }) => {
  await page.goto(server.url);
  await page.getByTestId('try-demo').click();
  await expect(page).toHaveURL(/\/sessions\/\d{8}-\d{6}-[0-9a-f]{6}$/, { timeout: 30_000 });
  await answerDemoInterview(page);
  await expect(page.getByTestId('seed-review')).toBeVisible({ timeout: 30_000 });
  await page.getByTestId('run-button').click();

  const runner = page.getByTestId('runner');
  await expect(runner).toHaveText(/^runs on worker [^:\s]+:\d+ \(in tilth serve\)$/, { timeout: 30_000 });
  await expect(page.getByText(/all tasks done/i).first()).toBeVisible({ timeout: 90_000 });
  await page.screenshot({ path: 'test-results/screens/queue-dashboard.png' });

  await page.goto(`${new URL(server.url).origin}/settings`);
  const status = page.getByTestId('queue-status');
  await expect(status).toHaveAttribute('data-mode', 'queue');
  await expect(status).toContainText(`through the queue at redis://127.0.0.1:${redis.port}`);
  await expect(status).toContainText('1 worker connected');
  await expect(page.getByTestId('queue-workers')).toContainText(`:${server.pgid}`);
  await status.screenshot({ path: 'test-results/screens/queue-settings.png' });
});
