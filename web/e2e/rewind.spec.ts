import fs from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { makeExampleRepo, type ExampleRepo } from '../../server/demo/example-repo.ts';
import type { ScriptedReplyInput } from '../../server/scripted-model/model-server.ts';
import { noLearning, nodeTest, verdictTurn, workerTurn, writeTurn } from '../../server/testing/run-fixtures.ts';
import { createSession, git, modelState, script } from './helpers.ts';

/**
 * Rewind in the browser: a two-task session run to all done with the scripted model, then the
 * session review's Rewind dialog — choose "after T-001", read the plan the server computed,
 * confirm — and the session is stopped with T-002 pending, its first attempt kept.
 */
test.setTimeout(120_000);

const TASKS = [
  { id: 'T-001', title: 'Double a number', fn: 'double', factor: 2 },
  { id: 'T-002', title: 'Triple a number', fn: 'triple', factor: 3 },
] as const;
type Task = (typeof TASKS)[number];

function seedTurn(): ScriptedReplyInput {
  return {
    tool_calls: [
      {
        name: 'write_seed',
        arguments: {
          prd_entries: TASKS.map((t) => ({
            id: t.id,
            title: t.title,
            description: `Add ${t.fn}(n) in src/${t.fn}.js.`,
            acceptance_criteria: [`${t.fn}(2) returns ${2 * t.factor}`],
            criteria_tests: [[`${t.fn} works`]],
          })),
          test_files: Object.fromEntries(TASKS.map((t) => [`tests/t${t.id.slice(2)}_${t.fn}.test.js`, nodeTest(t.fn, t.fn, '2', String(2 * t.factor))])),
          tldr: TASKS.map((t) => `- **${t.id}:** ${t.title}`).join('\n'),
          open_questions: [],
          blockers: [],
          scope_notes: 'Nothing else.',
        },
      },
    ],
  };
}

const acceptedAtOnce = (t: Task): ScriptedReplyInput[] => [
  writeTurn(`src/${t.fn}.js`, `export function ${t.fn}(n) {\n  return n * ${t.factor};\n}\n`),
  workerTurn([
    'submit_case',
    { summary: `Added ${t.fn}().`, ac_coverage: [{ criterion: `${t.fn}(2) returns ${2 * t.factor}`, addressed_by: `src/${t.fn}.js` }] },
  ]),
  verdictTurn('accept', { concern: `${t.fn}() does what the criterion asks.` }),
  noLearning,
];

async function status(page: Page, id: string): Promise<string> {
  return page.evaluate(async (u) => ((await (await fetch(u)).json()) as { session: { status: string } }).session.status, `/api/sessions/${id}`);
}

let repo: ExampleRepo | undefined;
test.afterEach(async () => {
  await repo?.cleanup();
  repo = undefined;
});

test('rewind after T-001: the dialog shows the plan, confirming leaves the session stopped with T-002 pending and its first attempt kept', async ({ page }) => {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  repo = await makeExampleRepo('js-todo');
  await script([seedTurn(), ...acceptedAtOnce(TASKS[0]), ...acceptedAtOnce(TASKS[1])]);
  const id = await createSession(page, repo.dir, 'Double and triple');
  await expect(page.getByTestId('seed-review')).toBeVisible({ timeout: 15_000 });
  await page.getByTestId('run-button').click();
  await expect.poll(() => status(page, id), { timeout: 60_000, intervals: [250, 500, 1000] }).toBe('all_done');
  expect((await modelState()).failures).toEqual([]);
  const branch = `refs/heads/session/${id}`;
  const oldTip = git(repo.dir, 'rev-parse', branch);
  const t001 = git(repo.dir, 'rev-parse', `${oldTip}^`);

  await page.getByTestId('session-review-link').click();
  await expect(page.getByTestId('action-row-rewind')).toHaveAttribute('data-allowed', 'true');
  await page.getByTestId('action-rewind').click();
  const dialog = page.getByTestId('rewind-dialog');
  await expect(dialog).toBeVisible();
  // Nothing is chosen first, and nothing can be confirmed: every choice undoes work.
  await expect(dialog.getByTestId('rewind-choose')).toBeVisible();
  await expect(dialog.getByTestId('rewind-after-seed')).not.toBeChecked();
  await expect(dialog.getByTestId('rewind-confirm')).toBeDisabled();
  await dialog.getByTestId('rewind-after-seed').check();
  await expect(dialog.getByTestId('rewind-tasks')).toHaveText('T-001, T-002');
  // Pick T-001 and read its plan.
  await dialog.getByTestId('rewind-after-T-001').check();
  await expect(dialog.getByTestId('rewind-tasks')).toHaveText('T-002');
  await expect(dialog.getByTestId('rewind-target')).toContainText('T-001: Double a number');
  await expect(dialog.getByTestId('rewind-target')).toContainText(t001.slice(0, 7));
  await expect(dialog.getByTestId('rewind-leaving')).toContainText('T-002: Triple a number');
  await expect(dialog.getByTestId('rewind-backup')).toHaveText(`refs/tilth/backups/${id}-rewind-1`);
  fs.mkdirSync('test-results/screens', { recursive: true });
  await page.screenshot({ path: 'test-results/screens/rewind-plan.png' });

  await dialog.getByTestId('rewind-confirm').click();
  await expect(dialog.getByTestId('rewind-result')).toContainText('The session is stopped');
  expect(git(repo.dir, 'rev-parse', branch)).toBe(t001);
  expect(git(repo.dir, 'rev-parse', `refs/tilth/backups/${id}-rewind-1`)).toBe(oldTip);
  await expect(page.getByTestId('session-review-page')).toHaveAttribute('data-status', 'stopped');

  // The link leads to the session page, where Resume continues.
  await dialog.getByTestId('rewind-resume-link').click();
  await expect(page).toHaveURL(new RegExp(`/sessions/${id}$`));
  expect(await status(page, id)).toBe('stopped');
  await expect(page.getByTestId('resume-button')).toBeVisible();
  // The board says what the plan says: T-001 done, T-002 pending again — after a reload too.
  const board = page.getByTestId('task-board');
  const boardSays = async (done: number, states: Record<string, string>) => {
    await expect(board.getByTestId('task-progress')).toContainText(`${done} of 2 done`);
    for (const [task, state] of Object.entries(states))
      await expect(board.locator(`[data-testid="board-task"][data-task-id="${task}"]`)).toHaveAttribute('data-status', state);
  };
  await boardSays(1, { 'T-001': 'done', 'T-002': 'pending' });
  await page.reload();
  await boardSays(1, { 'T-001': 'done', 'T-002': 'pending' });

  // Rewound again, to right after the seed: nothing is done, on the board either.
  await page.goto(`/sessions/${id}/review`);
  await page.getByTestId('action-rewind').click();
  await page.getByTestId('rewind-dialog').getByTestId('rewind-after-seed').check();
  await page.getByTestId('rewind-dialog').getByTestId('rewind-confirm').click();
  await expect(page.getByTestId('rewind-dialog').getByTestId('rewind-result')).toContainText('The session is stopped');
  await page.getByTestId('rewind-dialog').getByTestId('rewind-resume-link').click();
  await boardSays(0, { 'T-001': 'pending', 'T-002': 'pending' });
  await page.reload();
  await boardSays(0, { 'T-001': 'pending', 'T-002': 'pending' });
  // The verdicts were on the work set aside: none shows beside "pending".
  await expect(board.getByTestId('board-verdict')).toHaveText(['—', '—']);
  await board.screenshot({ path: 'test-results/screens/board-after-rewind.png' });

  // T-002's review keeps its first attempt, collapsed.
  await page.goto(`/sessions/${id}/tasks/T-002`);
  const earlier = page.getByTestId('earlier-attempt');
  await expect(earlier).toHaveCount(1);
  await expect(earlier).toHaveAttribute('data-rewind', '1');
  await expect(earlier.getByTestId('ledger-entry')).toBeHidden();
  await earlier.locator(':scope > summary').click();
  await expect(earlier.getByTestId('ledger-entry')).toHaveCount(1);
  await expect(earlier.getByTestId('ledger-concern')).toHaveText('triple() does what the criterion asks.');
  expect(problems).toEqual([]);
});
