import fs from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { makeExampleRepo, type ExampleRepo } from '../../server/demo/example-repo.ts';
import type { ScriptedReplyInput } from '../../server/scripted-model/model-server.ts';
import { caseTurn, noLearning, verdictTurn, workerTurn, writeTurn } from '../../server/testing/run-fixtures.ts';
import { createSession, DOUBLE_CRITERION, doubleSeedTurn, modelState, script, seedTurn } from './helpers.ts';

/**
 * The dashboard's "now" line through a scripted run (the worker thinking, a shell command, the
 * checks, the evaluator, done), a provider retry on it, the page's order (the now line and the
 * first events on screen without scrolling), a timeline mark that brings its card into view,
 * search marks that open the panel holding them, readable time ticks, and task rows that look
 * like links. Screenshots go to /tmp/shots-i16-dash/.
 */
test.setTimeout(120_000);

const SHOTS = process.env.E2E_SHOTS ?? '/tmp/shots-i16-dash';
fs.mkdirSync(SHOTS, { recursive: true });
const shot = (page: Page, name: string, fullPage = false) => page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage });

/** Records every distinct state of the now line, so short states (the checks) are seen too. */
const RECORD_NOW = `
  window.__now = [];
  const look = () => {
    const el = document.querySelector('[data-testid="now-line"]');
    if (el) {
      const entry = el.getAttribute('data-activity') + '|' + (el.querySelector('[data-testid="now-text"]')?.textContent ?? '');
      if (window.__now.at(-1) !== entry) window.__now.push(entry);
    }
    requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
`;
const nowHistory = (page: Page) => page.evaluate(() => (window as unknown as { __now: string[] }).__now);

const REASONING = 'The criterion wants double(2) to be 4, so the zebra-crossing plan is to multiply by two.';
const slow = (reply: ScriptedReplyInput, ms: number): ScriptedReplyInput => ({ ...reply, delay_ms: ms });

/** The one task: think (slowly), run a slow shell command, write the file, submit, and be accepted after a pause. */
const TASK_TURNS: ScriptedReplyInput[] = [
  slow({ ...workerTurn(['bash', { command: 'sleep 3 && echo looked' }]), reasoning: REASONING }, 4_000),
  // Long enough to be on screen for a frame: an instant reply made this "thinking" too short to see.
  slow(writeTurn('src/double.js', 'export function double(n) {\n  return n * 2;\n}\n'), 500),
  caseTurn('Added double() and ran its test.', DOUBLE_CRITERION, 'src/double.js:double()'),
  slow(verdictTurn('accept', { concern: 'double() does what the criterion asks.' }), 2_000),
  noLearning,
];

let repo: ExampleRepo | undefined;
test.afterEach(async () => {
  await repo?.cleanup();
  repo = undefined;
});

async function startRun(page: Page): Promise<string> {
  repo = await makeExampleRepo('js-todo');
  const id = await createSession(page, repo.dir, 'Add double');
  await expect(page.getByTestId('seed-review')).toBeVisible({ timeout: 15_000 });
  await page.getByTestId('run-button').click();
  await expect(page.getByTestId('dashboard')).toBeVisible();
  return id;
}

test('the now line says what the run is doing, for how long, through worker, tool, checks, evaluator and done', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.addInitScript({ content: RECORD_NOW });
  await script([doubleSeedTurn(), ...TASK_TURNS]);
  await startRun(page);

  const now = page.getByTestId('now-line');
  const text = page.getByTestId('now-text');
  // The worker's first call is in flight: thinking, on T-001, with a live counter.
  await expect(now).toHaveAttribute('data-activity', 'thinking');
  await expect(text).toHaveText(/^The worker is thinking \(turn 1 of \d+\)$/);
  await expect(page.getByTestId('now-task')).toHaveText('T-001 Double a number');
  await expect(page.getByTestId('now-for')).toHaveText(/^for \d+ s$/);
  await expect(page.getByTestId('now-latest')).toContainText('Latest event #');
  // The header names the task in words, without "iteration 0".
  await expect(page.getByTestId('run-headline')).toHaveText('running T-001: Double a number');

  // The page's order at 1280×800: the now line at the very top and the first events on screen.
  await expect(page.locator('[data-testid="dashboard"] > :first-child')).toHaveAttribute('data-testid', 'now-line');
  expect((await now.boundingBox())!.y).toBeLessThan(250);
  const firstCard = page.getByTestId('event-card').first();
  await expect(firstCard).toBeVisible();
  expect((await firstCard.boundingBox())!.y + 20).toBeLessThan(800);
  expect((await page.getByTestId('event-scroll').boundingBox())!.y).toBeLessThan(500);
  await shot(page, 'now-thinking-1280');

  // The shell command runs for three seconds: its words and a counter that moves.
  await expect(now).toHaveAttribute('data-activity', 'tool', { timeout: 10_000 });
  await expect(text).toHaveText('The worker is running sleep 3 && echo looked');
  await expect(text.locator('code')).toHaveText('sleep 3 && echo looked');
  await expect(page.getByTestId('now-latest')).toContainText('bash: running sleep 3 && echo looked');
  await expect(page.getByTestId('now-for')).toHaveText(/^for [12] s$/, { timeout: 3_000 });
  await shot(page, 'now-tool-1280');

  // Then the evaluator takes two seconds to judge.
  await expect(now).toHaveAttribute('data-activity', 'evaluator', { timeout: 15_000 });
  await expect(text).toHaveText('The evaluator is judging the case');
  await shot(page, 'now-evaluator-1280');

  await expect(now).toHaveAttribute('data-activity', 'done', { timeout: 20_000 });
  await expect(text).toHaveText('Nothing is running: the run is over');
  await expect(page.getByTestId('now-for')).toHaveCount(0);
  const state = await modelState();
  expect(state.failures).toEqual([]);
  expect(state.pending).toEqual([]);

  // Every step was on the line, in order (the checks last well under a second, so the record is
  // what shows they were there).
  const seen = (await nowHistory(page)).map((entry) => entry.split('|')[0]!);
  const order = ['thinking', 'tool', 'thinking', 'checks', 'evaluator', 'done'];
  let at = -1;
  for (const activity of order) {
    const next = seen.indexOf(activity, at + 1);
    expect(next, `${activity} after ${order.slice(0, order.indexOf(activity)).join(', ')} in ${seen.join(', ')}`).toBeGreaterThan(at);
    at = next;
  }
  expect(await nowHistory(page)).toContain("checks|Running the checks on the worker's case: the acceptance tests and the project's own");
  await shot(page, 'now-done-1280');

  // A reload reads the same from the log.
  await page.reload();
  await expect(page.locator('[data-testid="dashboard"][data-ready="true"]')).toBeVisible();
  await expect(now).toHaveAttribute('data-activity', 'done');

  // The task row is a link that looks like one: the accent colour, an underline, "Review →".
  const link = page.getByTestId('board-task-link');
  await expect(link).toContainText('Review →');
  await expect(link.locator('.board-task-title')).toHaveCSS('text-decoration-line', 'underline');
  const accent = await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--accent').trim());
  const accentRgb = await page.evaluate((c) => {
    const probe = document.createElement('span');
    probe.style.color = c;
    document.body.append(probe);
    const rgb = getComputedStyle(probe).color;
    probe.remove();
    return rgb;
  }, accent);
  await expect(link).toHaveCSS('color', accentRgb);
  await link.focus();
  await expect(link).toHaveCSS('outline-style', 'solid');
  await link.locator('.board-task-go').scrollIntoViewIfNeeded();
  await link.hover();
  await shot(page, 'board-link-hover-1280');
});

test('a timeline mark brings its card into view, search marks its words and opens the reasoning that holds them, and the ticks read as times', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await script([doubleSeedTurn(), ...TASK_TURNS]);
  await startRun(page);
  await expect(page.getByTestId('now-line')).toHaveAttribute('data-activity', 'done', { timeout: 40_000 });
  await expect(page.getByTestId('dashboard')).toHaveAttribute('data-settled', 'true');

  // Ticks: a run of about ten seconds is labelled in whole seconds, evenly, with no date.
  const chart = page.getByTestId('timeline').locator('.uplot');
  await expect(chart).toHaveAttribute('data-ticks', /\d/);
  const labels = (await chart.getAttribute('data-ticks'))!.split('|');
  expect(labels.length).toBeGreaterThanOrEqual(2);
  for (const label of labels) expect(label).toMatch(/^\d{1,2}:\d{2}:\d{2}$/);
  const seconds = labels.map((l) => l.split(':').reduce((n, part) => n * 60 + Number(part), 0));
  const gaps = seconds.slice(1).map((s, i) => (s - seconds[i]! + 86_400) % 86_400);
  expect(new Set(gaps).size).toBe(1);
  expect(gaps[0]).toBeGreaterThanOrEqual(1);
  // At most one label per 70 px of plot: they cannot overlap.
  const plotWidth = (await chart.locator('.u-over').boundingBox())!.width;
  expect(labels.length).toBeLessThanOrEqual(Math.floor(plotWidth / 70) + 1);

  // The accept mark: a click scrolls the stream to its card and marks it for a moment.
  const scroller = page.getByTestId('event-scroll');
  await scroller.evaluate((el) => (el.scrollTop = 0));
  const mark = page.locator('[data-testid="timeline-mark"][data-verdict="accept"]');
  const seq = await mark.getAttribute('data-seq');
  await mark.scrollIntoViewIfNeeded();
  await mark.click();
  const card = page.locator(`[data-testid="event-card"][data-seq="${seq}"]`);
  await expect(card).toHaveAttribute('data-type', 'evaluator_verdict');
  await expect(card).toHaveClass(/ev-highlight/);
  await expect(card).toBeInViewport({ ratio: 1 });
  // All of it, below the page's sticky header.
  const header = (await page.locator('.app-header').boundingBox())!;
  expect((await card.boundingBox())!.y).toBeGreaterThanOrEqual(header.y + header.height);
  await shot(page, 'timeline-jump-1280');
  await expect(card).not.toHaveClass(/ev-highlight/, { timeout: 5_000 });

  // Search: the words are marked in the cards, and the closed reasoning that holds one opens.
  await page.getByTestId('event-search').fill('zebra-crossing');
  const call = page.locator('[data-testid="event-card"][data-type="model_call"]');
  await expect(call).toHaveCount(1);
  await expect(call.getByTestId('reasoning-toggle')).toHaveAttribute('aria-expanded', 'true');
  await expect(call.getByTestId('reasoning').locator('mark')).toHaveText('zebra-crossing');
  await page.getByTestId('event-search').fill('criterion asks');
  const verdict = page.locator('[data-testid="event-card"][data-type="evaluator_verdict"]');
  await expect(verdict.locator('mark')).toHaveText(['criterion', 'asks']);
  await page.getByTestId('event-scroll').scrollIntoViewIfNeeded();
  await shot(page, 'search-marks-1280');

  // The user can close the opened panel again; the search does not force it back open.
  await page.getByTestId('event-search').fill('zebra');
  await expect(call.getByTestId('reasoning-toggle')).toHaveAttribute('aria-expanded', 'true');
  await call.getByTestId('reasoning-toggle').click();
  await expect(call.getByTestId('reasoning')).toHaveCount(0);
  await page.waitForTimeout(300);
  await expect(call.getByTestId('reasoning')).toHaveCount(0);

  // 390 px: the same page, narrow.
  await page.getByTestId('event-search').fill('');
  await page.setViewportSize({ width: 390, height: 844 });
  await page.evaluate(() => window.scrollTo(0, 0));
  await expect(page.getByTestId('now-line')).toBeInViewport();
  await shot(page, 'dashboard-done-390');
  await shot(page, 'dashboard-done-390-full', true);
  const narrowLabels = (await chart.getAttribute('data-ticks'))!.split('|');
  const narrowWidth = (await chart.locator('.u-over').boundingBox())!.width;
  expect(narrowLabels.length).toBeLessThanOrEqual(Math.floor(narrowWidth / 70) + 1);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot(page, 'dashboard-done-1280-full', true);
});

test('a provider retry shows on the now line, counting down, until the call answers', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await script([doubleSeedTurn(), { label: 'busy', fault: 'rate_limit', retry_after: 6, error_message: 'Rate limit reached' }, ...TASK_TURNS]);
  await startRun(page);
  const now = page.getByTestId('now-line');
  await expect(now).toHaveAttribute('data-activity', 'retry', { timeout: 15_000 });
  const text = page.getByTestId('now-text');
  await expect(text).toHaveText(/^The provider returned 429; retrying in [1-6] s \(attempt 2 of \d+\)$/);
  const first = Number((await text.innerText()).match(/in (\d) s/)![1]);
  await expect(text).not.toHaveText(new RegExp(`in ${first} s`), { timeout: 3_000 });
  await expect(page.getByTestId('now-task')).toHaveText('T-001 Double a number');
  await shot(page, 'now-retry-390');
  await page.setViewportSize({ width: 1280, height: 800 });
  await shot(page, 'now-retry-1280');
  // The retried call answers: the worker thinks again, and the run finishes.
  await expect(now).toHaveAttribute('data-activity', 'thinking', { timeout: 15_000 });
  await expect(now).toHaveAttribute('data-activity', 'done', { timeout: 30_000 });
});

test('after the last task the now line names the mutation probe, with its number of mutants, until it reports', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.addInitScript({ content: RECORD_NOW });
  // A test that takes a second and a half: each of the probe's mutants runs it, so the probe is seen.
  const slowTest = [
    "import { test } from 'node:test';",
    "import assert from 'node:assert/strict';",
    "import { double } from '../src/double.js';",
    '',
    "test('double works', async () => {",
    '  await new Promise((resolve) => setTimeout(resolve, 1500));',
    '  assert.equal(double(2), 4);',
    '});',
    '',
  ].join('\n');
  const seed = seedTurn(
    [
      {
        id: 'T-001',
        title: 'Double a number',
        description: 'Add double(n) in src/double.js.',
        acceptance_criteria: [DOUBLE_CRITERION],
        criteria_tests: [['double works']],
      },
    ],
    { 'tests/t001_double.test.js': slowTest },
    '- **T-001:** Double a number',
  );
  await script([
    seed,
    writeTurn('src/double.js', 'export function double(n) {\n  return n * 2;\n}\n'),
    caseTurn('Added double().', DOUBLE_CRITERION, 'src/double.js:double()'),
    verdictTurn('accept'),
    noLearning,
  ]);
  await startRun(page);

  const now = page.getByTestId('now-line');
  const text = page.getByTestId('now-text');
  await expect(text).toHaveText(/^Checking T-001's tests against \d+ small changes? to its code \(the mutation probe\)$/, { timeout: 30_000 });
  await expect(now).toHaveAttribute('data-activity', 'checks');
  await expect(page.getByTestId('now-task')).toHaveText('T-001 Double a number');
  await shot(page, 'now-probe-1280');
  await expect(now).toHaveAttribute('data-activity', 'done', { timeout: 60_000 });
  // Never "picking the next task" while only the probe ran.
  const seen = await nowHistory(page);
  const probeAt = seen.findIndex((e) => e.includes('(the mutation probe)'));
  expect(probeAt).toBeGreaterThan(-1);
  expect(seen.slice(probeAt).filter((e) => e.includes('Picking the next task'))).toEqual([]);
});
