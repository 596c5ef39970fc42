import fs from 'node:fs';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { SessionStore } from '../../server/store/session-store.ts';
import { makeExampleRepo, type ExampleRepo } from '../../server/demo/example-repo.ts';
import type { ScriptedReplyInput } from '../../server/scripted-model/model-server.ts';
import { caseTurn, makePreparedSession, noLearning, nodeTest, verdictTurn, writeTurn } from '../../server/testing/run-fixtures.ts';
import { startTilth, type TilthProcess } from '../../server/testing/tilth-process.ts';
import { writeRunSession } from '../../bench/session-gen.ts';
import { appendScript, createSession, MODEL, MODEL_URL, modelState, script } from './helpers.ts';

/**
 * The run dashboard in a real browser against a real `tilth serve`: live updates while a scripted
 * run goes, a reload mid-run, a replay after a server restart, and Stop then Resume with the plan
 * shown first. The model is the shared scripted server; git, the checks and the server are real.
 * Every role shares one model name, so the queue is in call order.
 */
test.setTimeout(120_000);

const TASKS = [
  { id: 'T-001', title: 'Double a number', fn: 'double', input: '2', expected: '4', body: 'n * 2' },
  { id: 'T-002', title: 'Triple a number', fn: 'triple', input: '2', expected: '6', body: 'n * 3' },
] as const;
type Task = (typeof TASKS)[number];

const testFiles = Object.fromEntries(TASKS.map((t) => [`tests/t${t.id.slice(2)}_${t.fn}.test.js`, nodeTest(t.fn, t.fn, t.input, t.expected)]));

const seedTurn: ScriptedReplyInput = {
  tool_calls: [
    {
      name: 'write_seed',
      arguments: {
        prd_entries: TASKS.map((t) => ({
          id: t.id,
          title: t.title,
          description: `Add ${t.fn}(n) in src/${t.fn}.js.`,
          acceptance_criteria: [`${t.fn}(${t.input}) returns ${t.expected}`],
          // nodeTest's one case.
          criteria_tests: [[`${t.fn} works`]],
        })),
        test_files: testFiles,
        tldr: TASKS.map((t) => `- **${t.id}:** ${t.title}`).join('\n'),
        open_questions: [],
        blockers: [],
        scope_notes: 'Nothing else.',
      },
    },
  ],
};

const implement = (t: Task, delayMs = 0): ScriptedReplyInput => ({
  ...writeTurn(`src/${t.fn}.js`, `export function ${t.fn}(n) {\n  return ${t.body};\n}\n`),
  ...(delayMs > 0 ? { delay_ms: delayMs } : {}),
});
const submit = (t: Task, delayMs = 0): ScriptedReplyInput => ({
  ...caseTurn(`Added ${t.fn}() and ran its test.`, `${t.fn}(${t.input}) returns ${t.expected}`, `src/${t.fn}.js:${t.fn}()`),
  ...(delayMs > 0 ? { delay_ms: delayMs } : {}),
});
const accept = (t: Task): ScriptedReplyInput => verdictTurn('accept', { concern: `${t.fn}() does what the criterion asks.` });
const reject = verdictTurn('reject', { category: 'acceptance_gap', concern: 'Negative numbers are not covered.', next_step: 'Say what happens for -2.' });
/** Accepted at the first verdict. */
const acceptedTask = (t: Task): ScriptedReplyInput[] => [implement(t), submit(t), accept(t), noLearning];
/** Rejected once, then accepted; the worker's second case waits `pauseMs` so the reject can be seen. */
const rejectedThenAccepted = (t: Task, pauseMs: number): ScriptedReplyInput[] => [
  implement(t, 600),
  submit(t),
  reject,
  submit(t, pauseMs),
  accept(t),
  noLearning,
];

const board = (page: Page, id: string) => page.locator(`[data-testid="board-task"][data-task-id="${id}"]`);
const meter = (page: Page, key: string) => page.getByTestId(`meter-${key}`);

async function expectScriptDone(): Promise<void> {
  const state = await modelState();
  expect(state.failures).toEqual([]);
  expect(state.pending).toEqual([]);
}

async function startRun(page: Page, repo: ExampleRepo): Promise<string> {
  const id = await createSession(page, repo.dir, 'Add double and triple');
  await expect(page.getByTestId('seed-review')).toBeVisible({ timeout: 15_000 });
  await page.getByTestId('run-button').click();
  await expect(page.getByTestId('dashboard')).toBeVisible();
  return id;
}

/** Every event card the list renders, scrolling it from top to bottom; fails on a card shown twice at once. */
async function allCardSeqs(page: Page): Promise<number[]> {
  const scroller = page.getByTestId('event-scroll');
  await page.getByTestId('follow-toggle').click(); // stop following while we scroll
  const seen = new Set<number>();
  await scroller.evaluate((el) => (el.scrollTop = 0));
  for (let guard = 0; guard < 400; guard++) {
    const onScreen = await page.getByTestId('event-card').evaluateAll((cards) => cards.map((c) => Number(c.getAttribute('data-seq'))));
    expect(new Set(onScreen).size, 'no card rendered twice').toBe(onScreen.length);
    for (const seq of onScreen) seen.add(seq);
    const atEnd = await scroller.evaluate((el) => {
      const before = el.scrollTop;
      el.scrollTop = before + el.clientHeight * 0.6;
      return el.scrollTop === before;
    });
    if (atEnd) break;
    await page.evaluate(() => new Promise(requestAnimationFrame));
  }
  return [...seen].sort((a, b) => a - b);
}

/** The dashboard's figures as text, for comparing two renderings of the same session. */
async function figures(page: Page): Promise<Record<string, string>> {
  const text = async (l: Locator) => (await l.innerText()).replace(/\s+/g, ' ').trim();
  // Figures and charts redraw a few times a second: read them once they have caught up.
  await expect(page.getByTestId('dashboard')).toHaveAttribute('data-settled', 'true');
  const calls = await text(page.getByTestId('stat-calls').getByTestId('stat-value'));
  await expect(page.getByTestId('pressure-chart')).toHaveAttribute('data-calls', calls);
  const [accepts, rejects] = (await text(page.getByTestId('stat-verdicts').getByTestId('stat-value'))).match(/\d+/g)!.map(Number);
  await expect(page.getByTestId('timeline-mark')).toHaveCount(accepts! + rejects!);
  const out: Record<string, string> = {
    headline: await text(page.getByTestId('run-headline')),
    elapsed: await text(page.getByTestId('run-elapsed')),
    events: (await page.getByTestId('event-count').getAttribute('data-count')) ?? '',
    staff: await text(page.getByTestId('staff')),
    meters: await text(page.getByTestId('limit-meters')),
    stats: await text(page.getByTestId('stat-band')),
    board: await text(page.getByTestId('task-board')),
    calls: (await page.getByTestId('pressure-chart').getAttribute('data-calls')) ?? '',
    marks: String(await page.getByTestId('timeline-mark').count()),
  };
  return out;
}

let repo: ExampleRepo | undefined;
let tilth: TilthProcess | undefined;
test.afterEach(async () => {
  await tilth?.stop();
  if (tilth) fs.rmSync(tilth.home, { recursive: true, force: true });
  tilth = undefined;
  await repo?.cleanup();
  repo = undefined;
});

test('the dashboard follows a run live: statuses flip, meters move, a reject shows on the board, then the accept', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  repo = await makeExampleRepo('js-todo');
  await script([seedTurn, ...rejectedThenAccepted(TASKS[0], 2_500), ...acceptedTask(TASKS[1])]);
  await startRun(page, repo);

  await expect(page.getByTestId('run-headline')).toHaveText(/^running/);
  await expect(board(page, 'T-001')).toHaveAttribute('data-status', 'in_progress');
  await expect(board(page, 'T-002')).toHaveAttribute('data-status', 'pending');
  await expect(page.getByTestId('sandbox')).not.toHaveText(/not recorded/);
  await expect(page.getByTestId('staff-worker')).toHaveText(MODEL);

  // The reject: on the board, in the stat band, as a mark on the timeline, while the worker works on.
  const verdict = board(page, 'T-001').getByTestId('board-verdict');
  await expect(verdict).toHaveAttribute('data-verdict', 'reject', { timeout: 20_000 });
  await expect(verdict).toContainText('acceptance gap');
  await expect(board(page, 'T-001')).toHaveAttribute('data-status', 'in_progress');
  await expect(page.getByTestId('stat-verdicts')).toContainText('acceptance gap 1');
  await expect(page.locator('[data-testid="timeline-mark"][data-verdict="reject"]')).toHaveCount(1);
  // Every call of the run so far is a point on the context-pressure chart, while the run goes.
  const callsShown = async () => {
    const calls = await page.getByTestId('stat-calls').getByTestId('stat-value').innerText();
    return calls !== '0' && (await page.getByTestId('pressure-chart').getAttribute('data-calls')) === calls;
  };
  await expect.poll(callsShown, { timeout: 2_000 }).toBe(true);
  const costAtReject = Number(await meter(page, 'cost').getAttribute('data-value'));
  expect(costAtReject).toBeGreaterThan(0);
  await page.screenshot({ path: 'test-results/screens/dashboard-live-reject.png', fullPage: true });

  // Then the accept, and the run moves on to T-002 and finishes.
  await expect(verdict).toHaveAttribute('data-verdict', 'accept', { timeout: 20_000 });
  await expect(board(page, 'T-001')).toHaveAttribute('data-status', 'done');
  await expect(board(page, 'T-002')).toHaveAttribute('data-status', 'done', { timeout: 20_000 });
  await expect(page.getByTestId('run-headline')).toHaveText('finished: all tasks done');
  await expect(page.getByTestId('task-progress')).toHaveText('2 of 2 done');
  await expect.poll(async () => Number(await meter(page, 'cost').getAttribute('data-value'))).toBeGreaterThan(costAtReject);
  await expect(page.getByTestId('stat-verdicts').getByTestId('stat-value')).toHaveText('2 ✓ · 1 ✗');
  await expect(page.getByTestId('stop-button')).toHaveCount(0);
  await expectScriptDone();

  // The stream: the verdict's card reads as words, the check output is there in full, raw JSON is one click away.
  await page.getByTestId('event-search').fill('negative numbers');
  const rejectCard = page.locator('[data-testid="event-card"][data-type="evaluator_verdict"]');
  await expect(rejectCard).toHaveCount(1);
  await expect(rejectCard).toContainText('Say what happens for -2.');
  await expect(rejectCard.getByTestId('event-raw')).toHaveCount(0);
  // The filtered list may render the card once more as the search settles, closing what a click
  // opened: click until the raw JSON stays open.
  await expect(async () => {
    if ((await rejectCard.getByTestId('event-raw').count()) === 0) await rejectCard.getByTestId('event-raw-toggle').click();
    await expect(rejectCard.getByTestId('event-raw')).toContainText('"rejection_category": "acceptance_gap"', { timeout: 1_000 });
  }).toPass({ timeout: 10_000 });
  await page.getByTestId('event-search').fill('');
  await page.getByTestId('kind-tools').uncheck();
  await page.getByTestId('kind-model').uncheck();
  await page.getByTestId('preset-dialogue').click();
  const checks = page.locator('[data-testid="event-card"][data-type="validator_run"]').first();
  await expect(checks.getByTestId('check-output').first()).toContainText('pass 1');
  await expect(checks.getByTestId('check-output').first()).toHaveCSS('white-space', 'pre-wrap');
  await page.getByTestId('preset-everything').click();
  await page.getByTestId('kind-tools').check();
  await page.getByTestId('kind-model').check();

  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: 'test-results/screens/dashboard-desktop.png', fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByTestId('dashboard')).toBeVisible();
  await page.screenshot({ path: 'test-results/screens/dashboard-narrow.png', fullPage: true });
});

/** The server's own view of the log: its last seq. */
async function lastSeqOnServer(page: Page, id: string): Promise<number> {
  return page.evaluate(
    async (sessionId) => ((await (await fetch(`/api/sessions/${sessionId}/events?tail=1&limit=1`)).json()) as { last_seq: number }).last_seq,
    id,
  );
}

test('a reload in the middle of a run loses nothing and shows no event twice', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  repo = await makeExampleRepo('js-todo');
  await script([seedTurn, ...rejectedThenAccepted(TASKS[0], 5_000), ...acceptedTask(TASKS[1])]);
  const id = await startRun(page, repo);
  const verdict = board(page, 'T-001').getByTestId('board-verdict');
  await expect(verdict).toHaveAttribute('data-verdict', 'reject', { timeout: 20_000 });

  // Mid-run (the worker's next case is 5 s away): reload.
  const before = Number(await page.getByTestId('event-count').getAttribute('data-count'));
  await page.reload();
  await expect(page.locator('[data-testid="dashboard"][data-ready="true"]')).toBeVisible();
  await expect(page.getByTestId('run-headline')).toHaveText(/^running T-001/);
  await expect(verdict).toHaveAttribute('data-verdict', 'reject');
  expect(Number(await page.getByTestId('event-count').getAttribute('data-count'))).toBeGreaterThanOrEqual(before);
  await expect(page.getByTestId('stat-verdicts').getByTestId('stat-value')).toHaveText('0 ✓ · 1 ✗');

  // The rest arrives live after the reload.
  await expect(board(page, 'T-002')).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  await expect(page.getByTestId('run-headline')).toHaveText('finished: all tasks done');
  await expectScriptDone();
  const last = await lastSeqOnServer(page, id);
  await expect(page.getByTestId('event-count')).toHaveAttribute('data-count', String(last));
  await expect(page.getByTestId('event-stream-count')).toHaveAttribute('data-loaded', String(last));
  expect(await allCardSeqs(page)).toEqual(Array.from({ length: last }, (_, i) => i + 1));

  // What was folded live after the reload equals what the server summarises from its log.
  const live = await figures(page);
  await page.reload();
  await expect(page.locator('[data-testid="dashboard"][data-ready="true"]')).toBeVisible();
  await expect(page.getByTestId('event-count')).toHaveAttribute('data-count', String(last));
  expect(await figures(page)).toEqual(live);
});

test('a finished session reopened after a server restart shows the same figures', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  repo = await makeExampleRepo('js-todo');
  const env = {
    TILTH_BASE_URL: `${MODEL_URL}/v1`,
    TILTH_API_KEY: 'e2e-key-not-secret',
    TILTH_WORKER_MODEL: MODEL,
    // Small caps, so the replay has amber and red to show: T-001 takes 3 of 4 iterations and the
    // run spends $0.012 of $0.013.
    TILTH_MAX_ITERATIONS_PER_TASK: '4',
    TILTH_MAX_DOLLARS: '0.013',
  };
  tilth = await startTilth({ env });
  const store = new SessionStore(tilth.sessionsDir);
  const id = await makePreparedSession(
    store,
    repo.dir,
    'node',
    TASKS.map((t) => ({
      id: t.id,
      title: t.title,
      criteria: [`${t.fn}(${t.input}) returns ${t.expected}`],
      tests: { [`tests/t${t.id.slice(2)}_${t.fn}.test.js`]: testFiles[`tests/t${t.id.slice(2)}_${t.fn}.test.js`]! },
    })),
  );
  store.close();
  await script([...rejectedThenAccepted(TASKS[0], 0), ...acceptedTask(TASKS[1])]);

  await page.goto(tilth.url);
  await page.goto(`${tilth.origin}/sessions/${id}`);
  await page.getByTestId('run-button').click();
  await expect(page.getByTestId('run-headline')).toHaveText('finished: all tasks done', { timeout: 30_000 });
  await expectScriptDone();
  await expect(meter(page, 'cost')).toHaveAttribute('data-level', 'red');
  await expect(board(page, 'T-001').getByTestId('board-iterations')).toHaveClass(/level-amber/);
  const live = await figures(page);

  await tilth.stop();
  tilth = await startTilth({ home: tilth.home, env });
  await page.goto(tilth.url);
  await page.goto(`${tilth.origin}/sessions/${id}`);
  await expect(page.locator('[data-testid="dashboard"][data-ready="true"]')).toBeVisible();
  await expect(page.getByTestId('event-count')).toHaveAttribute('data-count', live.events!);
  expect(await figures(page)).toEqual(live);
  await expect(meter(page, 'cost')).toHaveAttribute('data-level', 'red');
  await expect(meter(page, 'cost').getByTestId('meter-text')).toHaveText('$0.012 of $0.013');
  await expect(board(page, 'T-001').getByTestId('board-iterations')).toHaveClass(/level-amber/);

  // A click on the reject mark in the timeline shows that verdict's card in the stream.
  const rejectMark = page.locator('[data-testid="timeline-mark"][data-verdict="reject"]');
  const seq = await rejectMark.getAttribute('data-seq');
  await rejectMark.click();
  const card = page.locator(`[data-testid="event-card"][data-seq="${seq}"]`);
  await expect(card).toBeVisible();
  await expect(card).toHaveAttribute('data-type', 'evaluator_verdict');
  await expect(card).toHaveClass(/ev-highlight/);
  await expect(page.getByTestId('event-scroll')).toHaveAttribute('data-following', 'false');
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: 'test-results/screens/dashboard-replay-caps.png', fullPage: true });
});

/** A browser Notification that records what it was asked to show, and a page that is not in front. */
const FAKE_NOTIFICATIONS = `
  window.__notes = [];
  window.Notification = class {
    static permission = 'default';
    static async requestPermission() { window.Notification.permission = 'granted'; return 'granted'; }
    constructor(title, options) { window.__notes.push({ title, body: options?.body ?? '' }); }
  };
  document.hasFocus = () => false;
`;
const notes = (page: Page) => page.evaluate(() => (window as unknown as { __notes: { title: string; body: string }[] }).__notes);

test('Stop interrupts the run, and Resume shows its plan before anything starts', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.addInitScript({ content: FAKE_NOTIFICATIONS });
  repo = await makeExampleRepo('js-todo');
  // The second worker turn never answers: the run is mid-call when Stop is clicked.
  await script([seedTurn, implement(TASKS[0]), { label: 'hangs until stopped', fault: 'hang' }]);
  const id = await startRun(page, repo);
  await expect(page.getByTestId('run-headline')).toHaveText(/^running T-001/);
  await expect.poll(async () => (await modelState()).pending.length).toBe(0);
  // Opted in to notifications: the browser is asked, and the stop is told while the page is behind others.
  await page.getByTestId('notify-toggle').locator('input').check();
  await expect(page.getByTestId('notify-toggle')).toHaveAttribute('data-setting', 'on');

  await page.getByTestId('stop-button').click();
  await expect(page.getByTestId('run-headline')).toHaveText(/^stopped: interrupted/);
  await expect.poll(() => notes(page)).toEqual([{ title: 'Add double and triple: run stopped', body: 'Stopped: interrupted.' }]);
  await expect(page.getByTestId('status-badge')).toHaveAttribute('data-status', 'stopped');
  await expect(board(page, 'T-001')).toHaveAttribute('data-status', 'interrupted');
  await expect(page.getByTestId('stop-button')).toHaveCount(0);

  // Resume asks first: the plan, and nothing started yet.
  await page.getByTestId('resume-button').click();
  const confirm = page.getByTestId('resume-confirm');
  await expect(confirm.getByTestId('resume-plan')).toHaveText('pending: T-001, T-002; last stop: interrupted');
  await expect(confirm).toContainText('Then work on T-001, T-002, in order.');
  const events = async () =>
    (
      await page.evaluate(
        async (sessionId) => (await (await fetch(`/api/sessions/${sessionId}/events?limit=5000`)).json()) as { events: { type: string }[] },
        id,
      )
    ).events;
  expect((await events()).filter((e) => e.type === 'session_resume')).toEqual([]);
  await expect(page.getByTestId('status-badge')).toHaveAttribute('data-status', 'stopped');
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: 'test-results/screens/dashboard-resume-plan.png' });

  // Cancel leaves it stopped; Resume now starts it.
  await confirm.getByTestId('resume-cancel').click();
  await expect(confirm).toHaveCount(0);
  await appendScript([...acceptedTask(TASKS[0]), ...acceptedTask(TASKS[1])]);
  await page.getByTestId('resume-button').click();
  await page.getByTestId('resume-confirm-button').click();
  await expect(page.getByTestId('resume-confirm')).toHaveCount(0);
  await expect(page.getByTestId('run-headline')).toHaveText('finished: all tasks done', { timeout: 30_000 });
  await expect(board(page, 'T-001')).toHaveAttribute('data-status', 'done');
  await expect(board(page, 'T-002')).toHaveAttribute('data-status', 'done');
  expect((await events()).filter((e) => e.type === 'session_resume')).toHaveLength(1);
  await expect.poll(async () => (await notes(page)).map((n) => n.title)).toEqual(['Add double and triple: run stopped', 'Add double and triple: run finished']);
  await expectScriptDone();
  // The run time is the resumed run's own: the wall clock restarts with each run.
  await expect(page.getByTestId('run-elapsed')).toHaveText(/^\d+ m?s$/);
});

test('a long session opens at its newest page, pages history in as you scroll up, and jumps to an old event', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  tilth = await startTilth();
  const store = new SessionStore(tilth.sessionsDir);
  const session = writeRunSession(store, 3_000, { tasks: 3, seed: 7 });
  store.close();
  await page.goto(tilth.url);
  await page.goto(`${tilth.origin}/sessions/${session.id}`);
  await expect(page.locator('[data-testid="dashboard"][data-ready="true"]')).toBeVisible();

  // One page of events, a bounded number of cards, and figures for the whole session.
  const count = page.getByTestId('event-stream-count');
  await expect(count).toHaveAttribute('data-loaded', '500');
  await expect(count).toHaveAttribute('data-last-seq', '3000');
  await expect(page.locator('[data-testid="event-card"][data-seq="3000"]')).toBeVisible();
  expect(await page.getByTestId('event-card').count()).toBeLessThan(40);
  const summary = await page.evaluate(
    async (id) => (await (await fetch(`/api/sessions/${id}/summary`)).json()) as { verdicts: { accepts: number; rejects: number } },
    session.id,
  );
  await expect(page.getByTestId('stat-verdicts').getByTestId('stat-value')).toHaveText(`${summary.verdicts.accepts} ✓ · ${summary.verdicts.rejects} ✗`);
  await expect(page.getByTestId('task-progress')).toHaveText('3 of 3 done');

  // Scrolling up stops following and loads older pages; the card under the pointer stays put.
  const list = page.getByTestId('event-scroll');
  await list.scrollIntoViewIfNeeded();
  const box = (await list.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  for (let i = 0; i < 80 && Number(await count.getAttribute('data-first-seq')) > 2_000; i++) await page.mouse.wheel(0, -3_000);
  await expect(list).toHaveAttribute('data-following', 'false');
  await expect.poll(async () => Number(await count.getAttribute('data-first-seq'))).toBeLessThan(2_501);
  const seqs = await page.getByTestId('event-card').evaluateAll((cards) => cards.map((c) => Number(c.getAttribute('data-seq'))));
  expect(new Set(seqs).size).toBe(seqs.length);
  expect(seqs).toEqual([...seqs].sort((a, b) => a - b));

  // The first verdict on the timeline is far older than anything loaded: a click fetches its page.
  const first = page.getByTestId('timeline-mark').first();
  const seq = Number(await first.getAttribute('data-seq'));
  expect(seq).toBeLessThan(Number(await count.getAttribute('data-first-seq')));
  await first.click();
  const card = page.locator(`[data-testid="event-card"][data-seq="${seq}"]`);
  await expect(card).toBeVisible();
  await expect(card).toHaveAttribute('data-type', 'evaluator_verdict');
  await expect(page.getByTestId('go-newest')).toBeVisible();

  // And back to the newest, following again.
  await page.getByTestId('go-newest').click();
  await expect(page.locator('[data-testid="event-card"][data-seq="3000"]')).toBeVisible();
  await expect(list).toHaveAttribute('data-following', 'true');
  await expect(page.getByTestId('go-newest')).toHaveCount(0);
});

test('a long run’s timeline comes thinned, and zooming in fetches that span in detail', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  tilth = await startTilth();
  const store = new SessionStore(tilth.sessionsDir);
  const session = writeRunSession(store, 30_000, { tasks: 1, seed: 11 });
  store.close();
  await page.goto(tilth.url);
  await page.goto(`${tilth.origin}/sessions/${session.id}`);
  await expect(page.locator('[data-testid="dashboard"][data-ready="true"]')).toBeVisible();

  const whole = await page.evaluate(
    async (id) => (await (await fetch(`/api/sessions/${id}/summary`)).json()) as { timeline_view: { thinned: boolean }; timeline: { iterations: unknown[] } },
    session.id,
  );
  expect(whole.timeline_view.thinned).toBe(true);
  const chart = page.getByTestId('timeline');
  await expect(chart).toHaveAttribute('data-iterations', String(whole.timeline.iterations.length));
  expect(whole.timeline.iterations.length).toBeLessThanOrEqual(600);
  await expect(page.getByTestId('pressure-chart')).toHaveAttribute('data-sampled', 'true');
  await expect(page.getByTestId('pressure-chart')).toContainText('the peak call of each stretch');

  // Drag across a tenth of the plot: the chart asks for that span and draws every call in it.
  const over = chart.locator('.u-over');
  await over.scrollIntoViewIfNeeded();
  const box = (await over.boundingBox())!;
  const detail = page.waitForResponse((res) => /\/summary\?from=\d+&to=\d+/.test(res.url()));
  await page.mouse.move(box.x + box.width * 0.45, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.55, box.y + box.height / 2, { steps: 5 });
  await page.mouse.up();
  await expect(chart).toHaveAttribute('data-zoomed', 'true');
  const zoomed = (await (await detail).json()) as { timeline_view: { thinned: boolean }; timeline: { iterations: [number, number][] } };
  expect(zoomed.timeline_view.thinned).toBe(false);
  await expect(chart).toHaveAttribute('data-iterations', String(zoomed.timeline.iterations.length));
  // More calls in that tenth than the whole-run view held there.
  const [from, to] = [zoomed.timeline.iterations[0]![1], zoomed.timeline.iterations.at(-1)![1]];
  const wholeInSpan = (whole.timeline.iterations as [number, number][]).filter(([, ms]) => ms >= from && ms <= to).length;
  expect(zoomed.timeline.iterations.length).toBeGreaterThan(wholeInSpan);

  // Back to the whole run: the thinned view again, with no further request.
  await page.getByTestId('timeline-reset').click();
  await expect(chart).toHaveAttribute('data-zoomed', 'false');
  await expect(chart).toHaveAttribute('data-iterations', String(whole.timeline.iterations.length));
  await chart.screenshot({ path: 'test-results/screens/timeline-thinned.png' });
});
