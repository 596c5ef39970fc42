import fs from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { SessionStore } from '../../server/store/session-store.ts';
import { makeExampleRepo, type ExampleRepo } from '../../server/demo/example-repo.ts';
import { startScriptedModel, type ScriptedModel, type ScriptedReplyInput } from '../../server/scripted-model/model-server.ts';
import { makePreparedSession, nodeTest } from '../../server/testing/run-fixtures.ts';
import { startTilth, type TilthProcess } from '../../server/testing/tilth-process.ts';
import { git } from './helpers.ts';

/**
 * The provider down, as a new user meets it: no provider yet, then one that is not running, then
 * one that gives out mid-interview. Each step says what is wrong in the provider's words and
 * offers the way on, and nothing typed or answered is lost. Own server and own model, so the
 * model can be stopped and started on the same port.
 */
const WORKER = 'scripted-worker';
const KEY = 'sk-e2e-provider-down-0123456789';
const BRIEF = 'Todos should carry a due date.\nISO 8601 strings; overdue todos sort first.';
const NO_PROVIDER = { TILTH_BASE_URL: '', TILTH_API_KEY: '', TILTH_WORKER_MODEL: '', TILTH_PREP_MODEL: '', TILTH_EVALUATOR_MODEL: '' };
/** A provider out of quota: a 429 asking for an hour's wait, which Tilth does not sit through. */
const OUT_OF_QUOTA: ScriptedReplyInput = {
  fault: 'rate_limit',
  retry_after: 3600,
  error_message: 'You exceeded your current quota; check your plan and billing details.',
};

let tilth: TilthProcess | undefined;
let fake: ScriptedModel | undefined;
let repo: ExampleRepo | undefined;

test.afterEach(async () => {
  await tilth?.stop();
  if (tilth) fs.rmSync(tilth.home, { recursive: true, force: true });
  await fake?.close();
  await repo?.cleanup();
  tilth = undefined;
  fake = undefined;
  repo = undefined;
});

const setting = (page: Page, key: string) => page.locator(`[data-testid="setting"][data-key="${key}"]`);
const sessionBranches = (dir: string) => git(dir, 'branch', '--list', '--format=%(refname:short)', 'session/*');
const worktreeCount = (dir: string) => git(dir, 'worktree', 'list').split('\n').length;

/** A port where nothing listens (a model server started and closed again), for a provider that is down. */
async function downPort(): Promise<number> {
  const gone = await startScriptedModel();
  await gone.close();
  return gone.port;
}

test('provider down: the brief survives the trip to settings, creation is refused leaving nothing behind, and a failed interview offers Retry, Settings and Discard', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1280, height: 900 });
  repo = await makeExampleRepo('js-todo');
  const port = await downPort();
  // No provider in the environment (a blank one there would win over what settings save).
  tilth = await startTilth();

  // 1. No provider yet: the brief is typed, then the user goes to set one up and comes back.
  await page.goto(tilth.url);
  await page.getByTestId('new-session-button').first().click();
  await page.getByTestId('workspace-input').fill(repo.dir);
  await expect(page.getByTestId('workspace-check')).toHaveAttribute('data-ok', 'true');
  await page.getByTestId('brief-input').fill(BRIEF);
  await page.getByTestId('interview-provider-link').click();
  await expect(page.getByTestId('settings-page')).toBeVisible();
  await expect(page).toHaveURL(/\/settings\?back=%2Fnew$/);
  const form = page.getByTestId('settings-form-provider');
  await setting(page, 'TILTH_BASE_URL').getByTestId('setting-input').fill(`http://127.0.0.1:${port}/v1`);
  await setting(page, 'TILTH_API_KEY').getByTestId('secret-input').fill(KEY);
  await setting(page, 'TILTH_WORKER_MODEL').getByTestId('setting-input').fill(WORKER);
  await form.getByTestId('settings-save').click();
  await expect(form.getByTestId('settings-saved')).toBeVisible();
  await page.getByTestId('settings-back').click();
  await expect(page.getByTestId('new-session-page')).toBeVisible();
  await expect(page.getByTestId('brief-input')).toHaveValue(BRIEF);
  await expect(page.getByTestId('workspace-input')).toHaveValue(repo.dir);
  await expect(page.getByTestId('workspace-check')).toHaveAttribute('data-ok', 'true');
  await expect(page.getByTestId('interview-provider-note')).toHaveCount(0);

  // 2. The provider is not running: refused at once, in its words, and nothing is left behind.
  await page.getByTestId('create-session').click();
  const refused = page.getByTestId('create-error');
  await expect(refused).toHaveAttribute('data-code', 'provider_unreachable');
  await expect(refused).toContainText(`The interview model "${WORKER}" at http://127.0.0.1:${port}/v1 did not answer, so no session was created.`);
  await expect(refused).toContainText(`ECONNREFUSED 127.0.0.1:${port}`);
  await page.screenshot({ path: 'test-results/screens/new-session-provider-down.png', fullPage: true });
  expect(sessionBranches(repo.dir)).toBe('');
  expect(worktreeCount(repo.dir)).toBe(1);
  expect((await tilth.api('GET', '/api/sessions')).body).toEqual({ sessions: [] });
  await expect(page).toHaveURL(/\/new$/);

  // The settings link in the refusal comes back here too, with the brief still in the form.
  await refused.getByTestId('create-error-settings-link').click();
  await expect(page.getByTestId('settings-page')).toBeVisible();
  await page.getByTestId('settings-back').click();
  await expect(page.getByTestId('brief-input')).toHaveValue(BRIEF);

  // 3. The provider is up, then gives out after one turn: the interview fails, with its words.
  fake = await startScriptedModel({ port });
  fake.enqueue(WORKER, { tool_calls: [{ name: 'read_file', arguments: { path: 'src/todo.js' } }] }, OUT_OF_QUOTA);
  await page.getByTestId('create-session').click();
  await expect(page).toHaveURL(/\/sessions\/\d{8}-\d{6}-[0-9a-f]{6}$/);
  const id = page.url().split('/').at(-1)!;
  const failed = page.getByTestId('interview-failed');
  await expect(failed).toBeVisible({ timeout: 15_000 });
  await expect(failed).toHaveAttribute('data-reason', 'provider_failure');
  await expect(failed.getByRole('heading')).toHaveText('The interview stopped: the model provider failed');
  await expect(failed.getByTestId('interview-reason')).toContainText('HTTP 429: You exceeded your current quota');
  await expect(failed.getByTestId('interview-retry')).toBeEnabled();
  await expect(failed.getByTestId('interview-settings-link')).toBeVisible();
  await expect(failed.getByTestId('interview-discard')).toBeVisible();
  await expect(page.locator('[data-testid="exploration-line"][data-tool="read_file"]')).toContainText('src/todo.js');
  await page.screenshot({ path: 'test-results/screens/interview-failed-provider.png', fullPage: true });

  // A new form starts empty: the draft went with the session it became.
  await page.goto(`${tilth.origin}/new`);
  await expect(page.getByTestId('brief-input')).toHaveValue('');
  // The list says why, in the provider's words.
  await page.goto(`${tilth.origin}/`);
  const row = page.locator(`[data-testid="session-row"][data-session-id="${id}"]`);
  await expect(row.getByTestId('session-last-stop')).toContainText('interview stopped: the model provider failed');
  await expect(row.getByTestId('session-stop-detail')).toContainText('You exceeded your current quota');
  await row.getByTestId('session-title').click();
  await expect(failed).toBeVisible();

  // 4. Retry while the provider is down again: refused with the reason; the session stays as it was.
  await fake.close();
  await failed.getByTestId('interview-retry').click();
  await expect(failed.getByTestId('interview-retry-error')).toHaveAttribute('data-code', 'provider_unreachable');
  await expect(failed.getByTestId('interview-retry-error')).toContainText('so the interview was not restarted');
  await expect(failed.getByTestId('interview-retry')).toBeEnabled();

  // Settings, and back to this session.
  await failed.getByTestId('interview-settings-link').click();
  await expect(page.getByTestId('settings-page')).toBeVisible();
  await expect(page.getByTestId('settings-back')).toHaveText('← Back to the session');
  await page.getByTestId('settings-back').click();
  await expect(page).toHaveURL(new RegExp(`/sessions/${id}$`));
  await expect(failed).toBeVisible();

  // 5. The provider is back: Retry continues the same session from its saved conversation.
  fake = await startScriptedModel({ port });
  fake.enqueue(WORKER, {
    tool_calls: [{ name: 'ask_user', arguments: { question: 'Should overdue todos sort first everywhere, or only in the list view?' } }],
  });
  await failed.getByTestId('interview-retry').click();
  await expect(page.getByTestId('question-text')).toHaveText('Should overdue todos sort first everywhere, or only in the list view?');
  await expect(page).toHaveURL(new RegExp(`/sessions/${id}$`));
  const [retried] = fake.requests;
  const sent = retried!.messages as { role: string; content?: string }[];
  expect(sent[1]?.content).toContain(BRIEF);
  expect(sent.filter((m) => m.role === 'assistant')).toHaveLength(1); // the read_file turn, not asked again
  expect(sessionBranches(repo.dir)).toBe(`session/${id}`);

  // 6. It gives out again after the answer; this time the user discards the session.
  fake.enqueue(WORKER, OUT_OF_QUOTA);
  await page.getByTestId('free-text-input').fill('Everywhere');
  await page.getByTestId('free-text-input').press('Enter');
  await expect(failed).toBeVisible({ timeout: 15_000 });
  await expect(page.getByTestId('qa-item')).toHaveCount(1);
  await failed.getByTestId('interview-discard').click();
  await page.getByTestId('discard-confirm-input').fill(id);
  await page.getByTestId('discard-confirm').click();
  await expect(page.getByTestId('sessions-page')).toBeVisible();
  await expect(page.locator(`[data-testid="session-row"][data-session-id="${id}"]`)).toHaveCount(0);
  expect(sessionBranches(repo.dir)).toBe('');
  expect(worktreeCount(repo.dir)).toBe(1);
  expect(git(repo.dir, 'status', '--porcelain')).toBe('');
  expect(fs.existsSync(`${tilth.sessionsDir}/${id}`)).toBe(false);
});

/** A provider's rate limit as the fake model answers it: 429 with `retry-after`. */
const rateLimited = (seconds: number): ScriptedReplyInput => ({
  fault: 'rate_limit',
  retry_after: seconds,
  error_message: 'Rate limit reached for requests per minute',
});

test('a model call being retried shows in the interview and on the dashboard now line, and goes once the call answers', async ({ page }) => {
  test.setTimeout(90_000);
  await page.setViewportSize({ width: 1280, height: 900 });
  repo = await makeExampleRepo('js-todo');
  fake = await startScriptedModel();
  tilth = await startTilth({ env: { ...NO_PROVIDER, TILTH_BASE_URL: fake.baseURL, TILTH_API_KEY: KEY, TILTH_WORKER_MODEL: WORKER } });
  const store = new SessionStore(tilth.sessionsDir);
  try {
    // The interview: its first call is rate limited; the server reports the retry it waits for.
    fake.enqueue(WORKER, rateLimited(6), { tool_calls: [{ name: 'ask_user', arguments: { question: 'Which date format?' } }] });
    await page.goto(tilth.url);
    await page.getByTestId('new-session-button').first().click();
    await page.getByTestId('workspace-input').fill(repo.dir);
    await expect(page.getByTestId('workspace-check')).toHaveAttribute('data-ok', 'true');
    await page.getByTestId('brief-input').fill('Add due dates to todos');
    await page.getByTestId('create-session').click();
    await expect(page.getByTestId('interview-waiting')).toBeVisible();
    const status = page.getByTestId('interview-retry-status');
    await expect(status).toHaveText(/^Provider busy, retrying in \d+ s — attempt 2 of 6: HTTP 429: Rate limit reached for requests per minute/);
    await expect(page.getByTestId('interview-waiting')).toHaveAttribute('data-retrying', 'true');
    await page.screenshot({ path: 'test-results/screens/interview-retrying.png', fullPage: true });
    await expect(page.getByTestId('question-text')).toHaveText('Which date format?', { timeout: 15_000 });
    await expect(status).toHaveCount(0);

    // A run: the worker's first call is slow; the retry shows on the now line until Stop.
    const runId = await makePreparedSession(store, repo.dir, 'node', [
      { id: 'T-001', title: 'Add due dates', tests: { 'tests/t001_due.test.js': nodeTest('due', 'due', '', '1') } },
    ]);
    fake.enqueue(WORKER, rateLimited(40));
    await page.goto(`${tilth.origin}/sessions/${runId}`);
    await page.getByTestId('run-button').click();
    await expect(page.getByTestId('run-headline')).toHaveText(/^running/);
    const line = page.getByTestId('now-line');
    await expect(line).toHaveAttribute('data-activity', 'retry');
    await expect(line.getByTestId('now-text')).toHaveText(/^The provider returned 429; retrying in \d+ s \(attempt 2 of 6\)$/);
    await expect(line.getByTestId('now-latest')).toContainText('HTTP 429');
    await page.screenshot({ path: 'test-results/screens/dashboard-retrying.png' });
    // It stays while the attempt waits: the retry is the newest thing the run has to say.
    await page.waitForTimeout(1_000);
    await expect(line).toBeVisible();
    await page.getByTestId('stop-button').click();
    await expect(page.getByTestId('run-headline')).toHaveText(/^stopped/, { timeout: 15_000 });
    await expect(line).toHaveAttribute('data-activity', 'paused');
  } finally {
    store.close();
  }
});
