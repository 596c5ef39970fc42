import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { E2E_TOKEN } from '../../playwright.config.ts';
import { makeExampleRepo } from '../../server/demo/example-repo.ts';
import { createSession, git, script } from './helpers.ts';

/**
 * The first half of the journey in the browser: workspace and brief → interview → seed review →
 * an edit committed as `seed: edited`. The model is the shared scripted server, driven over its
 * control routes; everything else is real.
 */
const TEST_FILE = [
  "import { test } from 'node:test';",
  "import assert from 'node:assert/strict';",
  "import { addTodo, setDue } from '../src/todo.js';",
  '',
  "test('a todo can carry a due date', () => {",
  "  const todo = setDue(addTodo([], 'water plants')[0], '2026-01-01');",
  "  assert.equal(todo.due, '2026-01-01');",
  '});',
  '',
  "test('an invalid date is refused', () => {",
  "  assert.throws(() => setDue({ title: 'x' }, 'soon'));",
  '});',
  '',
].join('\n');

test('from workspace and brief to a reviewed, edited seed, entirely in the browser', async ({ page, baseURL }) => {
  const repo = await makeExampleRepo('js-todo');
  try {
    await script([
      {
        tool_calls: [
          { name: 'glob', arguments: { pattern: 'src/**/*.js' } },
          { name: 'read_file', arguments: { path: 'src/todo.js' } },
        ],
      },
      { tool_calls: [{ name: 'ask_user', arguments: { question: 'Which date format should due dates use?', options: ['ISO 8601 strings', 'Date objects'] } }] },
      { tool_calls: [{ name: 'ask_user', arguments: { question: 'What should stay out of scope?' } }], expect: { last_message_contains: 'ISO 8601 strings' } },
      {
        tool_calls: [
          {
            name: 'write_seed',
            arguments: {
              prd_entries: [
                {
                  id: 'T-001',
                  title: 'Add due dates',
                  description: 'Add setDue(todo, isoDate) to src/todo.js.',
                  acceptance_criteria: ['setDue stores an ISO date on the todo', 'setDue refuses a string that is not a date'],
                  criteria_tests: [['a todo can carry a due date'], ['an invalid date is refused']],
                },
              ],
              test_files: { 'tests/t001_due_dates.test.js': TEST_FILE },
              tldr: '- **T-001:** Add due dates — todos carry an ISO due date',
              open_questions: ['Time zones are taken as UTC.'],
              blockers: [],
              scope_notes: 'No reminders.',
            },
          },
        ],
        expect: { last_message_contains: 'No reminders' },
      },
    ]);

    const id = await createSession(page, repo.dir, 'Add due dates to todos');
    await expect(page.getByTestId('interview-view')).toBeVisible();
    await expect(page.locator('[data-testid="exploration-line"][data-tool="read_file"]')).toContainText('src/todo.js');

    // An option question, answered with the keyboard.
    await expect(page.getByTestId('question-text')).toHaveText('Which date format should due dates use?');
    await page.screenshot({ path: 'test-results/screens/interview-question.png', fullPage: true });
    await page.getByTestId('question-form').click({ position: { x: 2, y: 2 } });
    await page.keyboard.press('1');
    await expect(page.locator('[data-testid="question-option"][data-index="1"]')).toBeChecked();
    await page.keyboard.press('Enter');

    // A free-form question.
    await expect(page.getByTestId('question-text')).toHaveText('What should stay out of scope?');
    await page.getByTestId('free-text-input').fill('No reminders, please');
    await page.getByTestId('free-text-input').press('Enter');
    await expect(page.getByTestId('qa-item')).toHaveCount(2);

    // Seed review.
    await expect(page.getByTestId('seed-review')).toBeVisible({ timeout: 15_000 });
    await expect(page.locator('[data-testid="seed-task"][data-task-id="T-001"]')).toContainText('Add due dates');
    await expect(page.locator('[data-testid="seed-test-file"][data-path="tests/t001_due_dates.test.js"]')).toContainText('setDue');
    await expect(page.getByTestId('seed-tldr')).toContainText('T-001');
    await expect(page.getByTestId('run-button')).toBeEnabled();
    await page.screenshot({ path: 'test-results/screens/seed-review.png', fullPage: true });

    // The matrix: each criterion with the case that checks it, and that case's red proof (setDue is not there yet).
    const task = page.locator('[data-testid="seed-task"][data-task-id="T-001"]');
    const rows = task.getByTestId('criterion-row');
    await expect(rows).toHaveCount(2);
    await expect(rows.nth(0).getByTestId('criterion-tests')).toHaveText('a todo can carry a due date');
    await expect(rows.nth(1).getByTestId('criterion-tests')).toHaveText('an invalid date is refused');
    for (const i of [0, 1]) {
      await expect(rows.nth(i)).toHaveAttribute('data-red', 'failed', { timeout: 15_000 });
      await expect(rows.nth(i).getByTestId('red-badge')).toHaveText('fails before the work ✓');
    }
    await task.screenshot({ path: 'test-results/screens/seed-matrix.png' });

    // A case the test file does not declare, then no case at all: the sink refuses each in its own words.
    await page.getByTestId('edit-seed').click();
    const testsField = task.getByTestId('edit-criterion-tests').nth(1);
    await expect(testsField).toHaveValue('an invalid date is refused');
    await testsField.fill('a date, in any format, is refused');
    await page.getByTestId('save-seed').click();
    const refusal = page.getByTestId('seed-error');
    await expect(refusal).toContainText(
      `criterion 2 ("setDue refuses a string that is not a date"): 'a date, in any format, is refused' is not a test case in tests/t001_due_dates.test.js`,
    );
    await expect(refusal).toContainText('"an invalid date is refused"');
    await page.screenshot({ path: 'test-results/screens/seed-matrix-refused.png', fullPage: true });
    await testsField.fill('');
    await page.getByTestId('save-seed').click();
    await expect(refusal).toContainText('criterion 2 ("setDue refuses a string that is not a date"): no test case checks it');
    await page.getByTestId('cancel-edit').click();
    await expect(rows.nth(1).getByTestId('criterion-tests')).toHaveText('an invalid date is refused');

    await page.getByTestId('edit-seed').click();
    await task.getByTestId('edit-criterion').first().fill('setDue stores an ISO 8601 date string on the todo');
    await page.getByTestId('save-seed').click();
    await expect(page.getByTestId('seed-criterion').first()).toHaveText('setDue stores an ISO 8601 date string on the todo');

    // The checks preset is editable too: the user's own command, with the {files} placeholder.
    await page.getByTestId('edit-seed').click();
    await page.getByTestId('edit-preset').selectOption('custom');
    await page.getByTestId('edit-custom-test').fill('node --test {files}');
    await page.screenshot({ path: 'test-results/screens/seed-edit-checks.png', fullPage: true });
    await page.getByTestId('save-seed').click();
    await expect(page.getByTestId('edit-seed')).toBeVisible();
    await expect(page.getByTestId('seed-review')).toContainText('checks: custom');

    const detail = (await (await fetch(`${baseURL}/api/sessions/${id}`, { headers: { authorization: `Bearer ${E2E_TOKEN}` } })).json()) as { worktree: string };
    expect(git(detail.worktree, 'log', '--format=%s', '-3').split('\n')).toEqual(['seed: edited', 'seed: edited', 'seed: 1 task(s) + 1 acceptance test(s)']);
    expect(fs.existsSync(path.join(detail.worktree, 'tests', 't001_due_dates.test.js'))).toBe(true);

    // The source repo: clean, and its only new branch is the session's.
    expect(git(repo.dir, 'status', '--porcelain')).toBe('');
    expect(git(repo.dir, 'branch', '--format=%(refname:short)').split('\n').sort()).toEqual(['main', `session/${id}`]);
  } finally {
    await repo.cleanup();
  }
});

test('a model that stops talking ends the interview as failed, with the reason on the page', async ({ page }) => {
  const repo = await makeExampleRepo('py-todo');
  try {
    await script([{ content: 'I have nothing to ask.' }]);
    await page.goto(`/#token=${E2E_TOKEN}`);
    await page.getByTestId('new-session-button').first().click();
    await page.getByTestId('workspace-input').fill(repo.dir);
    await expect(page.getByTestId('workspace-check')).toHaveAttribute('data-ok', 'true');
    await expect(page.getByTestId('preset-select')).toHaveValue('pytest');
    await page.getByTestId('brief-input').fill('Add priorities');
    await page.getByTestId('create-session').click();
    await expect(page.getByTestId('interview-failed')).toContainText('I have nothing to ask.');
  } finally {
    await repo.cleanup();
  }
});
