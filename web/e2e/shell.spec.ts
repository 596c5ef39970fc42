import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { expect, test } from '@playwright/test';
import { makeExampleRepo } from '../../server/demo/example-repo.ts';
import { SessionStore } from '../../server/store/session-store.ts';
import { writeTurn } from '../../server/testing/run-fixtures.ts';
import { startTilth, type TilthProcess } from '../../server/testing/tilth-process.ts';
import { doubleSeedTurn, MODEL_URL, script } from './helpers.ts';

/** Writes a session folder the way another Tilth process would: the server only sees the disk. */
function writeSessionOnDisk(sessionsDir: string, title: string): string {
  const store = new SessionStore(sessionsDir);
  const checkpoint = store.create({ source: '/home/me/repo', brief: 'Add dark mode', title, baseBranch: 'main', baseSha: 'abc123', status: 'prepared' });
  store.close();
  return checkpoint.session_id;
}

let tilth: TilthProcess | undefined;
test.afterEach(async () => {
  await tilth?.stop();
  if (tilth) fs.rmSync(tilth.home, { recursive: true, force: true });
  tilth = undefined;
});

test('the app opens through the printed URL and drops the token from the address bar', async ({ page }) => {
  tilth = await startTilth();
  expect(tilth.output()).toContain('Open this link');
  await page.goto(tilth.url);
  await expect(page.getByTestId('sessions-empty')).toBeVisible();
  await expect(page.getByTestId('sessions-empty')).toContainText(tilth.sessionsDir);
  await expect(page.getByTestId('connection-indicator')).toHaveAttribute('data-state', 'open');
  expect(page.url()).not.toContain('token');
  await page.screenshot({ path: 'test-results/screens/sessions-empty.png', fullPage: true });

  // The cookie keeps the user in after a reload without the fragment.
  await page.reload();
  await expect(page.getByTestId('sessions-empty')).toBeVisible();
});

test('tilth serve --demo prints a link that opens the demo session itself', async ({ page }) => {
  tilth = await startTilth({ env: { TILTH_BASE_URL: '', TILTH_API_KEY: '', TILTH_WORKER_MODEL: '' }, args: ['--demo'] });
  const id = /\/sessions\/([\w-]+)#token=/.exec(tilth.url)?.[1];
  expect(id, tilth.output()).toBeDefined();
  await page.goto(tilth.url);
  await expect(page).toHaveURL(`${tilth.origin}/sessions/${id}`); // signed in, token dropped, still on the session
  await expect(page.getByTestId('demo-banner')).toBeVisible();
  await expect(page.getByTestId('interview-view')).toBeVisible();
  await page.screenshot({ path: 'test-results/screens/demo-link.png', fullPage: true });
});

test('a URL without the token explains to open the link printed in the terminal', async ({ page }) => {
  tilth = await startTilth();
  await page.goto(`${tilth.origin}/`);
  const gate = page.getByTestId('auth-required');
  await expect(gate).toBeVisible();
  await expect(gate).toContainText(/link printed in your terminal/i);
  // The token is kept between launches now: the page says so, not that it changes each start.
  await expect(gate).toContainText('Its token is kept between launches (tilth token --rotate replaces it)');
  await expect(gate).not.toContainText('changes every time the server starts');
  await expect(page.getByTestId('sessions-empty')).toHaveCount(0);
  await page.screenshot({ path: 'test-results/screens/auth-required.png', fullPage: true });
});

test('the sign-in outlives the browser session: the cookie the link is traded for lasts a month', async ({ page, context }) => {
  tilth = await startTilth();
  await page.goto(tilth.url);
  await expect(page.getByTestId('sessions-empty')).toBeVisible();
  const cookie = (await context.cookies()).find((c) => c.name.startsWith('tilth_token_'));
  expect(cookie).toBeDefined();
  // A session cookie has no expiry (-1); this one is kept for 30 days, give or take the test's own time.
  const days = (cookie!.expires - Date.now() / 1000) / 86_400;
  expect(days).toBeGreaterThan(29.9);
  expect(days).toBeLessThanOrEqual(30);
  expect(cookie!.httpOnly).toBe(true);
  expect(cookie!.sameSite).toBe('Strict');
});

test('a link from an older launch is refused with a clear note', async ({ page }) => {
  tilth = await startTilth();
  await page.goto(`${tilth.origin}/#token=not-this-launch`);
  await expect(page.getByTestId('auth-required')).toBeVisible();
  await expect(page.getByTestId('auth-required')).toHaveAttribute('data-reason', 'stale_link');
});

test('the sessions list updates live when a session appears on disk', async ({ page }) => {
  tilth = await startTilth();
  await page.goto(tilth.url);
  await expect(page.getByTestId('sessions-empty')).toBeVisible();
  const id = writeSessionOnDisk(tilth.sessionsDir, 'Dark mode toggle');
  const row = page.locator(`[data-testid="session-row"][data-session-id="${id}"]`);
  await expect(row).toBeVisible();
  await expect(row).toContainText('Dark mode toggle');
  await expect(row).toHaveAttribute('data-status', 'prepared');
  await page.screenshot({ path: 'test-results/screens/sessions-list.png', fullPage: true });
});

test('after a server restart the page reconnects on its own and keeps updating', async ({ page }) => {
  const token = 'restart-test-token-0123456789';
  tilth = await startTilth({ env: { TILTH_TOKEN: token } });
  const { port, home } = tilth;
  await page.goto(tilth.url);
  const indicator = page.getByTestId('connection-indicator');
  await expect(indicator).toHaveAttribute('data-state', 'open');

  await tilth.stop();
  await expect(indicator).not.toHaveAttribute('data-state', 'open');
  tilth = await startTilth({ port, home, env: { TILTH_TOKEN: token } });
  await expect(indicator).toHaveAttribute('data-state', 'open', { timeout: 20_000 });

  const id = writeSessionOnDisk(tilth.sessionsDir, 'After restart');
  await expect(page.locator(`[data-testid="session-row"][data-session-id="${id}"]`)).toBeVisible();
});

test('a restart keeps the tab signed in (the token is kept in TILTH_HOME); after tilth token --rotate it asks for the new link', async ({ page }) => {
  tilth = await startTilth();
  const { port, home } = tilth;
  await page.goto(tilth.url);
  const indicator = page.getByTestId('connection-indicator');
  await expect(indicator).toHaveAttribute('data-state', 'open');
  const firstUrl = tilth.url;
  await tilth.stop();
  tilth = await startTilth({ port, home });
  expect(tilth.url).toBe(firstUrl);
  await expect(indicator).toHaveAttribute('data-state', 'open', { timeout: 20_000 });
  await page.reload();
  await expect(page.getByTestId('sessions-page')).toBeVisible();

  await tilth.stop();
  const rotated = execFileSync('node', ['bin/tilth.js', 'token', '--rotate'], { env: { ...process.env, TILTH_HOME: home }, encoding: 'utf8' });
  expect(rotated).toContain(`A new access token is in ${home}/token`);
  tilth = await startTilth({ port, home });
  expect(tilth.url).not.toBe(firstUrl);
  await expect(page.getByTestId('auth-required')).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId('auth-required')).toHaveAttribute('data-reason', 'expired');
});

test('a session page shows the stored events, then follows new ones live', async ({ page }) => {
  tilth = await startTilth();
  const id = writeSessionOnDisk(tilth.sessionsDir, 'Streaming');
  const writer = new SessionStore(tilth.sessionsDir);
  for (let i = 0; i < 30; i++) writer.session(id).emit({ type: 'question_answered', data: { question_id: `q${i}`, answer: `answer ${i}` } });
  const stored = writer.session(id).log().lastSeq;

  await page.goto(tilth.url);
  await page.locator(`[data-testid="session-row"][data-session-id="${id}"]`).getByTestId('session-title').click();
  await expect(page.getByTestId('session-page')).toHaveAttribute('data-session-id', id);
  await expect(page.getByTestId('session-stream-status')).toHaveAttribute('data-caught-up', 'true');
  await expect(page.getByTestId('event-count')).toHaveAttribute('data-count', String(stored));

  // Another process (think: a headless run) appends; the server follows the log and streams it.
  for (let i = 0; i < 3; i++) writer.session(id).emit({ type: 'stop', data: { reason: 'interrupted', phase: 'run' } });
  writer.close();
  await expect(page.getByTestId('event-count')).toHaveAttribute('data-count', String(stored + 3));
  await expect(page.locator(`[data-testid="event-row"][data-seq="${stored + 3}"]`)).toHaveAttribute('data-type', 'stop');
  const seqs = await page.getByTestId('event-row').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-seq'))));
  expect(seqs).toEqual([...new Set(seqs)]);
  expect(seqs.length).toBe(stored + 3);
  await page.screenshot({ path: 'test-results/screens/session-page.png', fullPage: true });
});

test('a long session opens at its newest page instead of replaying the whole log', async ({ page }) => {
  tilth = await startTilth();
  const id = writeSessionOnDisk(tilth.sessionsDir, 'Long one');
  const writer = new SessionStore(tilth.sessionsDir);
  for (let i = 0; i < 5_000; i++) writer.session(id).emit({ type: 'tool_result', data: { tool: 'bash', result_preview: `line ${i}`, result_chars: 8 } });
  const last = writer.session(id).log().lastSeq;
  writer.close();

  const frames: number[] = [];
  page.on('websocket', (ws) =>
    ws.on('framereceived', (f) => {
      const frame = JSON.parse(String(f.payload)) as { type: string; event?: { seq: number } };
      if (frame.type === 'event' && frame.event) frames.push(frame.event.seq);
    }),
  );
  await page.goto(tilth.url);
  await page.goto(`${tilth.origin}/sessions/${id}`);
  await expect(page.getByTestId('event-count')).toHaveAttribute('data-count', String(last));
  await expect(page.getByTestId('event-list-truncated')).toContainText(`of ${last} events`);
  await expect(page.locator(`[data-testid="event-row"][data-seq="${last}"]`)).toBeVisible();
  await expect(page.locator('[data-testid="event-row"][data-seq="1"]')).toHaveCount(0);
  expect(frames).toEqual([]); // the history came as one REST page, not over the socket
});

test('a tab whose server is gone says so: the run as last seen, no counter, and Stop waits for the server', async ({ page }) => {
  const repo = await makeExampleRepo('js-todo');
  try {
    tilth = await startTilth({ env: { TILTH_BASE_URL: `${MODEL_URL}/v1`, TILTH_API_KEY: 'e2e-key-not-secret', TILTH_WORKER_MODEL: 'scripted-worker' } });
    // The worker's first call never answers in time: the run is busy when the server goes.
    await script([doubleSeedTurn(), { ...writeTurn('src/double.js', 'export const double = (n) => n * 2;\n'), delay_ms: 120_000 }]);
    const created = await tilth.api('POST', '/api/sessions', { workspace: repo.dir, brief: 'Double a number' });
    const id = (created.body as { session: { id: string } }).session.id;
    const status = async () => ((await tilth!.api('GET', `/api/sessions/${id}`)).body as { session: { status: string } }).session.status;
    await expect.poll(status, { timeout: 30_000 }).toBe('prepared');
    expect((await tilth.api('POST', `/api/sessions/${id}/run`, {})).status).toBe(202);
    await page.goto(tilth.url);
    await page.goto(`${tilth.origin}/sessions/${id}`);
    const now = page.getByTestId('now-line');
    await expect(now).toHaveAttribute('data-activity', 'thinking', { timeout: 15_000 });
    await expect(page.getByTestId('stop-button')).toBeEnabled();

    // A crash: nothing is said before the connection goes.
    await tilth.kill();
    await expect(now).toHaveAttribute('data-activity', 'offline', { timeout: 30_000 });
    await expect(page.getByTestId('now-text')).toHaveText('The server is not answering: this is the run as last seen, and it updates when the server is back');
    await expect(page.getByTestId('now-for')).toHaveCount(0);
    await expect(page.getByTestId('run-headline')).toHaveText(/^last seen running/);
    await expect(page.getByTestId('stop-button')).toBeDisabled();
    // The run time stands still too.
    const shown = await page.getByTestId('run-elapsed').textContent();
    await page.waitForTimeout(2_100);
    await expect(page.getByTestId('run-elapsed')).toHaveText(shown!);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: 'test-results/screens/server-gone.png' });
  } finally {
    await repo.cleanup();
  }
});
