import fs from 'node:fs';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { E2E_TOKEN } from '../../playwright.config.ts';
import { makeExampleRepo, type ExampleRepo } from '../../server/demo/example-repo.ts';
import { noLearning, verdictTurn, workerTurn, writeTurn } from '../../server/testing/run-fixtures.ts';
import { createSession, DOUBLE_CRITERION, doubleSeedTurn, git, runToAllDone, script } from './helpers.ts';

/**
 * The words a newcomer reads (issue 16, items 4 and 5): a merged session's refusal says it is
 * merged, an accept's explanation is labelled as one, events have names instead of log types,
 * settings problems sit at their field, and seed review says what a save committed and checks
 * the edited plan again. Each page is also photographed at 1280 and 390 px, light and dark.
 */
test.setTimeout(120_000);

const SHOTS = '/tmp/shots-i16-words';

/**
 * Screenshots at desktop and phone width, in the light and the dark colour scheme: the viewport
 * with `focus` in the middle of it (a whole settings page is too tall to read in one image).
 */
async function shoot(page: Page, name: string, focus: Locator): Promise<void> {
  fs.mkdirSync(SHOTS, { recursive: true });
  const size = page.viewportSize() ?? { width: 1280, height: 720 };
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 844 });
      await focus.evaluate((el) => el.scrollIntoView({ block: 'center' }));
      await page.screenshot({ path: `${SHOTS}/${name}-${width}-${scheme}.png` });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(size);
}

/** A call to the app's API from the signed-in page (its cookie, its Origin). */
const api = (page: Page, method: 'GET' | 'POST', url: string, body?: unknown) =>
  page.evaluate(
    async ({ method, url, body }) => {
      const init: RequestInit = { method, headers: { 'content-type': 'application/json' } };
      if (body !== undefined) init.body = JSON.stringify(body);
      const res = await fetch(url, init);
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    },
    { method, url, body },
  );

const doubleDone = [
  writeTurn('src/double.js', 'export function double(n) {\n  return n * 2;\n}\n'),
  workerTurn(['submit_case', { summary: 'Added double().', ac_coverage: [{ criterion: DOUBLE_CRITERION, addressed_by: 'src/double.js:double()' }] }]),
  verdictTurn('accept', { concern: 'double(2) is 4 and the test passes.' }),
  noLearning,
];

let repo: ExampleRepo;
test.beforeEach(async () => {
  repo = await makeExampleRepo('js-todo');
});
test.afterEach(async () => {
  await repo.cleanup();
});

test("labels an accept's explanation, names events in words, and says a merged session is already merged", async ({ page }) => {
  const id = await runToAllDone(page, repo.dir, 'Add double(n) to the project.', [doubleSeedTurn(), ...doubleDone]);

  // The dashboard's events carry names, not log types.
  await page.goto(`/sessions/${id}`);
  const promptCard = page.locator('[data-testid="event-card"][data-type="prompt_assembled"]').first();
  await expect(promptCard.locator('.ev-type')).toHaveText('instructions sent');
  const names = await page.locator('[data-testid="event-card"] .ev-type').allTextContents();
  expect(names.length).toBeGreaterThan(5);
  for (const name of names) expect(name).not.toContain('_');
  await shoot(page, 'dashboard-event-names', promptCard);

  // The task review labels the evaluator's explanation by its verdict.
  await page.goto(`/sessions/${id}/tasks/T-001`);
  const entry = page.getByTestId('ledger-entry').first();
  await expect(entry).toHaveAttribute('data-verdict', 'accept');
  await expect(entry.getByTestId('ledger-concern-label')).toHaveText('Why accepted');
  await expect(entry.getByTestId('ledger-concern')).toHaveText('double(2) is 4 and the test passes.');
  await expect(page.getByText('Concern', { exact: true })).toHaveCount(0);
  await shoot(page, 'task-review-accepted', entry);

  // A squash merge: its subject is the brief without the full stop.
  const merged = await api(page, 'POST', `/api/sessions/${id}/merge`, { strategy: 'squash' });
  expect(merged.status, JSON.stringify(merged.json)).toBe(200);
  const sha = git(repo.dir, 'rev-parse', 'main');
  expect(git(repo.dir, 'log', '-1', '--format=%s', 'main')).toBe('Add double(n) to the project');

  // The review says it is merged, where and at which commit — not "finish the run first".
  await page.goto(`/sessions/${id}/review`);
  const reason = page.getByTestId('action-merge-reason');
  await expect(reason).toHaveText(`Not now: already merged into main at ${sha.slice(0, 8)}.`);
  const again = await api(page, 'POST', `/api/sessions/${id}/merge`, { strategy: 'squash' });
  expect(again.status).toBe(409);
  expect((again.json.error as { message: string }).message).toBe(`This session cannot be merged: already merged into main at ${sha.slice(0, 8)}.`);
  await shoot(page, 'session-review-merged', reason);

  // Cleansed after the merge, it still says it was merged.
  expect((await api(page, 'POST', `/api/sessions/${id}/cleanse`, {})).status).toBe(200);
  await page.reload();
  await expect(reason).toHaveText(`Not now: already merged into main at ${sha.slice(0, 8)}, and then cleansed: its branch is gone.`);
  await expect(page.getByText(/finish the run first|\ba archived\b/)).toHaveCount(0);
  await shoot(page, 'session-review-cleansed', reason);
});

test('puts a settings problem at its field, named as labelled, with aria-invalid and aria-describedby', async ({ page }) => {
  await page.goto(`/#token=${E2E_TOKEN}`);
  await page.goto('/settings');
  const field = page.locator('[data-testid="setting"][data-key="TILTH_MAX_DOLLARS"]');
  const input = field.getByTestId('setting-input');
  await input.fill('plenty');
  const caps = page.getByTestId('settings-form-caps');
  await caps.getByTestId('settings-save').click();

  const message = field.getByTestId('setting-error');
  await expect(message).toHaveText('Dollars per run must be a number, got "plenty".');
  await expect(message).not.toContainText('TILTH_');
  await expect(input).toHaveAttribute('aria-invalid', 'true');
  const messageId = await message.getAttribute('id');
  expect(messageId).toBeTruthy();
  await expect(input).toHaveAttribute('aria-describedby', messageId!);
  await expect(input).toBeFocused();
  // Under Save, only how many fields need fixing.
  await expect(caps.getByTestId('settings-error')).toHaveText('Not saved: one field needs fixing; each says what is wrong beside it.');
  // The message sits right under its input, not under Save.
  const [inputBox, messageBox] = [await input.boundingBox(), await message.boundingBox()];
  expect(messageBox!.y).toBeGreaterThan(inputBox!.y);
  expect(messageBox!.y - (inputBox!.y + inputBox!.height)).toBeLessThan(20);
  await shoot(page, 'settings-field-error', field);

  // Fixed and saved, the mark goes; then the default is put back for the other tests.
  await input.fill('5');
  await caps.getByTestId('settings-save').click();
  await expect(caps.getByTestId('settings-saved')).toBeVisible();
  await expect(field.getByTestId('setting-error')).toHaveCount(0);
  await expect(input).not.toHaveAttribute('aria-invalid', 'true');
  await input.fill('');
  await caps.getByTestId('settings-save').click();
  await expect(caps.getByTestId('settings-saved')).toBeVisible();
});

const LONG_CRITERION =
  'double(n) returns twice n for every whole number from -1,000,000 to 1,000,000, including 0 and negative numbers, and never rounds, clamps or changes the type of what it is given';

test('a task left with no criterion is refused at Save in the words of the form, before anything is sent', async ({ page }) => {
  await script([doubleSeedTurn()]);
  await createSession(page, repo.dir, 'Add double(n) to the project.');
  await expect(page.getByTestId('seed-review')).toBeVisible({ timeout: 15_000 });
  await page.getByTestId('edit-seed').click();
  let puts = 0;
  page.on('request', (r) => {
    if (r.method() === 'PUT' && r.url().includes('/seed')) puts++;
  });
  await page.getByTestId('edit-criterion').first().fill('   ');
  await page.getByTestId('save-seed').click();
  const error = page.getByTestId('seed-error');
  await expect(error).toContainText('T-001 has no acceptance criterion: write at least one thing that is true when the task is done.');
  await expect(error).not.toContainText('prd_entries');
  expect(puts).toBe(0);
  await shoot(page, 'seed-edit-no-criterion', error);
  // Written again, the problem goes at once.
  await page.getByTestId('edit-criterion').first().fill(DOUBLE_CRITERION);
  await expect(error).toHaveCount(0);
});

test('grows a long criterion in view, says which commit a save made, and checks the edited plan again', async ({ page }) => {
  await script([doubleSeedTurn()]);
  const id = await createSession(page, repo.dir, 'Add double(n) to the project.');
  const review = page.getByTestId('seed-review');
  await expect(review).toBeVisible({ timeout: 15_000 });
  // The contract check says what it checked.
  await expect(page.getByTestId('contract-ok')).toContainText('at least one assertion per acceptance criterion');
  await expect(page.getByTestId('contract-ok')).not.toContainText("matches its task's criteria");
  await expect(page.getByTestId('criterion-row').first()).toHaveAttribute('data-red', 'failed');

  await page.getByTestId('edit-seed').click();
  const criterion = page.getByTestId('edit-criterion').first();
  await expect(criterion).toHaveJSProperty('tagName', 'TEXTAREA');
  await expect(criterion).toHaveCSS('font-weight', '400');
  const oneLine = (await criterion.boundingBox())!.height;
  await criterion.fill(LONG_CRITERION);
  // The whole criterion is in view: the box grew to its text and nothing scrolls inside it.
  await expect.poll(async () => (await criterion.boundingBox())!.height).toBeGreaterThan(oneLine * 1.5);
  expect(await criterion.evaluate((el) => el.scrollHeight <= el.clientHeight + 1)).toBe(true);
  await shoot(page, 'seed-edit-long-criterion', criterion);
  await page.setViewportSize({ width: 390, height: 844 });
  // The box refits when its resize observer fires, in the frame after the narrower layout.
  await expect.poll(() => criterion.evaluate((el) => el.scrollHeight <= el.clientHeight + 1)).toBe(true);
  await page.setViewportSize({ width: 1280, height: 720 });

  // Hold the save's answer a moment, so the re-check it runs can be seen.
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route('**/api/sessions/*/seed', async (route) => {
    if (route.request().method() !== 'PUT') return route.fallback();
    await held;
    return route.fallback();
  });
  await page.getByTestId('save-seed').click();
  await expect(page.getByTestId('save-seed')).toHaveText('Saving and checking…');
  await expect(page.getByTestId('contract-checking')).toHaveText('Checking the tests again on the plan as it is now…');
  await shoot(page, 'seed-saving-rechecking', page.getByTestId('contract-checking'));
  release();

  const saved = page.getByTestId('seed-saved');
  await expect(saved).toBeVisible({ timeout: 30_000 });
  const head = git(repo.dir, 'rev-parse', `session/${id}`);
  expect(git(repo.dir, 'log', '-1', '--format=%s', `session/${id}`)).toBe('seed: edited');
  await expect(saved).toContainText(`Saved — committed as ${head.slice(0, 8)}`);
  await expect(saved).toHaveAttribute('role', 'status');
  await expect(page.getByTestId('contract-checking')).toHaveCount(0);
  // The reworded criterion was checked again: its test case is proven red for the saved plan.
  await expect(page.getByTestId('seed-criterion').first()).toHaveText(LONG_CRITERION);
  await expect(page.getByTestId('criterion-row').first()).toHaveAttribute('data-red', 'failed');
  await expect(page.getByTestId('contract-ok')).toBeVisible();
  await shoot(page, 'seed-saved', saved);
});
