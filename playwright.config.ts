import { defineConfig } from '@playwright/test';

/**
 * Browser tests run in Debian's Chromium (Playwright cannot download its own browser here).
 * The web server pair is the scripted fake model plus `tilth serve` pointed at it, on test ports
 * with a pinned token; tests that need their own server (printed URL, restart) spawn one.
 */
const PORT = Number(process.env.E2E_PORT ?? 5391);
const MODEL_PORT = Number(process.env.E2E_MODEL_PORT ?? 5392);
const HOME = process.env.E2E_TILTH_HOME ?? `/tmp/tilth-e2e-${process.pid}`;
export const E2E_TOKEN = 'e2e-token-for-the-shared-test-server';
/**
 * Where the shared server's detection looks for Pipenv's virtualenvs (WORKON_HOME). By port, not
 * by process: the test workers load this file too, in processes of their own.
 */
export const E2E_WORKON_HOME = `/tmp/tilth-e2e-virtualenvs-${PORT}`;

export default defineConfig({
  testDir: 'web/e2e',
  workers: 1,
  timeout: 30_000,
  expect: { timeout: 7_000 },
  reporter: [['list']],
  outputDir: 'test-results',
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    browserName: 'chromium',
    trace: 'off',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-dev-shm-usage',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  webServer: [
    {
      command: `node --import tsx server/scripted-model/cli.ts --port ${MODEL_PORT}`,
      url: `http://127.0.0.1:${MODEL_PORT}/v1/models`,
      reuseExistingServer: false,
      timeout: 30_000,
    },
    {
      command: `node bin/tilth.js serve --port ${PORT} --sessions-dir ${HOME}/sessions`,
      url: `http://127.0.0.1:${PORT}/`,
      reuseExistingServer: false,
      timeout: 60_000,
      env: {
        TILTH_HOME: HOME,
        TILTH_TOKEN: E2E_TOKEN,
        TILTH_BASE_URL: `http://127.0.0.1:${MODEL_PORT}/v1`,
        TILTH_API_KEY: 'e2e-key-not-secret',
        TILTH_WORKER_MODEL: 'scripted-worker',
        WORKON_HOME: E2E_WORKON_HOME,
      },
    },
  ],
});
