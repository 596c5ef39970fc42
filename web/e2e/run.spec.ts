import { expect, test, type Page } from '@playwright/test';
import { makeExampleRepo, type ExampleRepo } from '../../server/demo/example-repo.ts';
import type { ScriptedReplyInput } from '../../server/scripted-model/model-server.ts';
import { caseTurn, noLearning, nodeTest, verdictTurn, writeTurn } from '../../server/testing/run-fixtures.ts';
import { appendScript, createSession, git, modelRequests, modelState, script } from './helpers.ts';

/**
 * The run in the browser: a seed written by a (scripted) interview, Run from the seed review, the
 * worker and the evaluator at work, tasks turning done, Stop, guidance and Resume. The model is
 * the shared scripted server; git, the checks (`node --test`) and the server are real. Every role
 * shares one model name, so the queue is in call order: worker turns, the evaluator's verdict,
 * then the learnings reply.
 */
test.setTimeout(90_000);

const TASKS = [
  { id: 'T-001', title: 'Double a number', fn: 'double', input: '2', expected: '4', body: 'n * 2' },
  { id: 'T-002', title: 'Triple a number', fn: 'triple', input: '2', expected: '6', body: 'n * 3' },
];

/** The interview's one turn: write the seed straight away. */
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
        test_files: Object.fromEntries(TASKS.map((t) => [`tests/t${t.id.slice(2)}_${t.fn}.test.js`, nodeTest(t.fn, t.fn, t.input, t.expected)])),
        tldr: TASKS.map((t) => `- **${t.id}:** ${t.title}`).join('\n'),
        open_questions: [],
        blockers: [],
        scope_notes: 'Nothing else.',
      },
    },
  ],
};

const implement = (t: (typeof TASKS)[number]) => writeTurn(`src/${t.fn}.js`, `export function ${t.fn}(n) {\n  return ${t.body};\n}\n`);
/** A task from the first worker turn to the learnings reply, accepted at the first verdict. */
const acceptedTask = (t: (typeof TASKS)[number]): ScriptedReplyInput[] => [
  implement(t),
  caseTurn(`Added ${t.fn}() and ran its test.`, `${t.fn}(${t.input}) returns ${t.expected}`, `src/${t.fn}.js:${t.fn}()`),
  verdictTurn('accept', { concern: `${t.fn}() does what the criterion asks.` }),
  noLearning,
];

const task = (page: Page, id: string) => page.locator(`[data-testid="board-task"][data-task-id="${id}"]`);
const card = (page: Page, type: string) => page.locator(`[data-testid="event-card"][data-type="${type}"]`);

/** Everything scripted was asked for, and nothing unscripted was. */
async function expectScriptDone(): Promise<void> {
  const state = await modelState();
  expect(state.failures).toEqual([]);
  expect(state.pending).toEqual([]);
}

/** Interview → seed review; returns the session id with the page on the seed review. */
async function prepare(page: Page, repo: ExampleRepo): Promise<string> {
  const id = await createSession(page, repo.dir, 'Add double and triple');
  await expect(page.getByTestId('seed-review')).toBeVisible({ timeout: 15_000 });
  await expect(page.getByTestId('run-button')).toBeEnabled();
  return id;
}

let repo: ExampleRepo | undefined;
test.afterEach(async () => {
  await repo?.cleanup();
  repo = undefined;
});

test('Run from the seed review: each task turns done and the session reaches all_done', async ({ page }) => {
  repo = await makeExampleRepo('js-todo');
  await script([seedTurn, ...acceptedTask(TASKS[0]!), ...acceptedTask(TASKS[1]!)]);
  const id = await prepare(page, repo);

  await page.getByTestId('run-button').click();
  await expect(page.getByTestId('dashboard')).toBeVisible();
  await expect(page.getByTestId('session-page')).toHaveAttribute('data-mode', 'run');

  await expect(task(page, 'T-001')).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  await expect(task(page, 'T-002')).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  await expect(page.getByTestId('status-badge')).toHaveAttribute('data-status', 'all_done');
  await expect(page.getByTestId('run-headline')).toHaveText('finished: all tasks done');
  await expect(page.getByTestId('stat-calls').getByTestId('stat-value')).toHaveText('8');
  await expect(page.getByTestId('task-progress')).toHaveText('2 of 2 done');
  // A finished run offers neither Stop, Resume nor guidance.
  await expect(page.getByTestId('stop-button')).toHaveCount(0);
  await expect(page.getByTestId('resume-button')).toHaveCount(0);
  await expect(page.getByTestId('guidance-input')).toHaveCount(0);

  // The event stream, a card per event, with the worker's tools and the evaluator's verdict.
  await page.getByTestId('event-search').fill('src/double.js write_file');
  await expect(card(page, 'tool_call').first()).toContainText('T-001 · iteration 1');
  await expect(card(page, 'tool_call').first()).toContainText('src/double.js');
  await page.getByTestId('event-search').fill('T-001');
  await page.getByTestId('preset-dialogue').click();
  await expect(card(page, 'validator_run').first()).toContainText('checks passed');
  await expect(card(page, 'evaluator_verdict').first()).toContainText('double() does what the criterion asks.');
  await page.getByTestId('event-search').fill('');
  await page.getByTestId('preset-everything').click();
  for (const kind of ['model', 'tools', 'checks', 'verdicts', 'session', 'interview']) await page.getByTestId(`kind-${kind}`).uncheck();
  await expect(card(page, 'commit')).toHaveCount(2);

  await page.screenshot({ path: 'test-results/screens/run-all-done.png', fullPage: true });
  await expectScriptDone();
  const worktree = (await page.evaluate(async (sessionId) => (await (await fetch(`/api/sessions/${sessionId}`)).json()) as { worktree: string }, id)).worktree;
  expect(git(worktree, 'log', '--format=%s', '-2').split('\n')).toEqual(['T-002: Triple a number', 'T-001: Double a number']);
});

test('Stop interrupts the run, guidance waits for the worker, and Resume finishes it', async ({ page }) => {
  repo = await makeExampleRepo('js-todo');
  // The second worker turn never answers: the run is mid-call when Stop is clicked.
  await script([seedTurn, implement(TASKS[0]!), { label: 'hangs until stopped', fault: 'hang' }]);
  await prepare(page, repo);

  await page.getByTestId('run-button').click();
  await expect(page.getByTestId('run-headline')).toHaveText(/^running/);
  await expect(task(page, 'T-001')).toHaveAttribute('data-status', 'in_progress');
  await page.getByTestId('event-search').fill('write_file');
  await expect(card(page, 'tool_result')).toHaveCount(1);
  await page.getByTestId('event-search').fill('');
  await expect.poll(async () => (await modelState()).pending.length).toBe(0);

  await page.getByTestId('stop-button').click();
  await expect(page.getByTestId('run-headline')).toHaveText(/^stopped: interrupted/);
  await expect(page.getByTestId('status-badge')).toHaveAttribute('data-status', 'stopped');
  await expect(page.getByTestId('stop-button')).toHaveCount(0);
  // The plan still says in_progress; with no run going the page calls it interrupted.
  await expect(task(page, 'T-001').getByTestId('board-task-status')).toHaveText('interrupted');

  // A note the server refuses shows its message inline; a good one is recorded as an event.
  await page.getByTestId('guidance-input').fill('x'.repeat(4_001));
  await page.getByTestId('guidance-send').click();
  await expect(page.getByTestId('guidance-error')).toContainText('at most 4,000 characters');
  const note = 'Keep each function in its own file under src/.';
  await page.getByTestId('guidance-input').fill(note);
  await page.getByTestId('guidance-send').click();
  await expect(page.getByTestId('guidance-sent')).toBeVisible();
  await expect(page.getByTestId('guidance-error')).toHaveCount(0);
  await expect(page.getByTestId('guidance-input')).toHaveValue('');
  await page.getByTestId('event-search').fill(note);
  await expect(card(page, 'steering_note')).toContainText(note);
  await page.getByTestId('event-search').fill('');

  await page.screenshot({ path: 'test-results/screens/run-stopped.png', fullPage: true });

  await appendScript([...acceptedTask(TASKS[0]!), ...acceptedTask(TASKS[1]!)]);
  await page.getByTestId('resume-button').click();
  await page.getByTestId('resume-confirm-button').click();
  await page.getByTestId('event-search').fill('session_resume');
  await expect(card(page, 'session_resume')).toHaveCount(1);
  await expect(page.getByTestId('status-badge')).toHaveAttribute('data-status', 'all_done', { timeout: 30_000 });
  await expect(task(page, 'T-001')).toHaveAttribute('data-status', 'done');
  await expect(task(page, 'T-002')).toHaveAttribute('data-status', 'done');
  await expect(page.getByTestId('run-headline')).toHaveText('finished: all tasks done');
  await expectScriptDone();

  // The worker was shown the note after the resume.
  const requests = await modelRequests();
  expect(requests.some((r) => JSON.stringify(r.messages).includes(note))).toBe(true);
});
