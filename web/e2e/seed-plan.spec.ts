import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { E2E_TOKEN } from '../../playwright.config.ts';
import { makeExampleRepo } from '../../server/demo/example-repo.ts';
import { createSession, git, script } from './helpers.ts';

/**
 * Editing the plan in seed review (issue 15): a task added with its own acceptance test, one
 * removed, one moved; one save, one `seed: edited` commit, and the run order the API reports.
 */
const testOf = (fn: string, name: string, body: string) =>
  [
    "import { test } from 'node:test';",
    "import assert from 'node:assert/strict';",
    `import { ${fn} } from '../src/todo.js';`,
    '',
    `test('${name}', () => {`,
    `  ${body}`,
    '});',
    '',
  ].join('\n');

const DUE_TEST = testOf('setDue', 'a todo can carry a due date', "assert.equal(setDue({ title: 'x' }, '2026-01-01').due, '2026-01-01');");
const TAG_TEST = testOf('tagTodo', 'a todo can carry a tag', "assert.deepEqual(tagTodo({ title: 'x' }, 'home').tags, ['home']);");
const NOTE_TEST = testOf('noteTodo', 'a todo can carry a note', "assert.equal(noteTodo({ title: 'x' }, 'call first').note, 'call first');");

const auth = { authorization: `Bearer ${E2E_TOKEN}` };

test('adds a task with its test, removes one, moves one, and saves the plan in its new order', async ({ page, baseURL }) => {
  const repo = await makeExampleRepo('js-todo');
  try {
    await script([
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
                  acceptance_criteria: ['setDue stores the date on the todo'],
                  criteria_tests: [['a todo can carry a due date']],
                },
                {
                  id: 'T-002',
                  title: 'Add tags',
                  description: 'Add tagTodo(todo, tag) to src/todo.js.',
                  acceptance_criteria: ['tagTodo adds the tag to the todo'],
                  criteria_tests: [['a todo can carry a tag']],
                },
              ],
              test_files: { 'tests/t001_due_dates.test.js': DUE_TEST, 'tests/t002_tags.test.js': TAG_TEST },
              tldr: '- **T-001:** Add due dates\n- **T-002:** Add tags',
              open_questions: [],
              blockers: [],
              scope_notes: '',
            },
          },
        ],
      },
    ]);
    const id = await createSession(page, repo.dir, 'Due dates and tags for todos');
    await expect(page.getByTestId('seed-review')).toBeVisible({ timeout: 15_000 });
    await page.getByTestId('edit-seed').click();
    const card = (taskId: string) => page.locator(`[data-testid="seed-task"][data-task-id="${taskId}"]`);

    // A new task: the next id, its test file named by the preset's rule, ready to be filled in.
    await page.getByTestId('add-task').click();
    const added = card('T-003');
    await expect(added.getByTestId('edit-test-path')).toHaveValue('tests/t003_new_task.test.js');
    // The header counts the tasks on screen, the new one too.
    await expect(page.getByTestId('seed-task-count')).toHaveText('3 tasks');
    await added.getByTestId('edit-title').fill('Add notes');
    await added.getByTestId('edit-description').fill('Add noteTodo(todo, note) to src/todo.js.');
    await added.getByTestId('edit-criterion').fill('noteTodo stores the note on the todo');
    await added.getByTestId('edit-criterion-tests').fill('a todo can carry a note');
    await added.getByTestId('edit-test-path').fill('tests/t003_notes.test.js');
    await added.getByTestId('edit-test-file').fill(NOTE_TEST);

    // T-003 moves above T-002 with the keyboard; the first task cannot move up.
    await expect(card('T-001').getByTestId('move-task-up')).toBeDisabled();
    await added.getByTestId('move-task-up').focus();
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('seed-task')).toHaveCount(3);
    expect(await page.getByTestId('seed-task').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-task-id')))).toEqual(['T-001', 'T-003', 'T-002']);

    // Removing asks first; "Keep it" keeps it.
    await card('T-001').getByTestId('remove-task').click();
    await expect(card('T-001').getByTestId('confirm-remove')).toContainText('Remove T-001 (Add due dates) and its test file tests/t001_due_dates.test.js?');
    await expect(card('T-001').getByTestId('cancel-remove-task')).toBeFocused();
    await page.screenshot({ path: 'test-results/screens/seed-plan-edit.png', fullPage: true });
    await card('T-001').getByTestId('cancel-remove-task').click();
    await card('T-001').getByTestId('remove-task').click();
    await card('T-001').getByTestId('confirm-remove-task').click();
    await expect(card('T-001')).toHaveCount(0);
    await expect(page.getByTestId('seed-changes')).toHaveText(
      'Changed: T-003 added, T-001 removed, order, tests/t003_notes.test.js, tests/t001_due_dates.test.js removed',
    );

    // Save from far down the page: the note it leaves comes into view.
    await added.getByTestId('edit-test-file').scrollIntoViewIfNeeded();
    await page.getByTestId('save-seed').click();
    await expect(page.getByTestId('edit-seed')).toBeVisible({ timeout: 15_000 });
    await expect(page.getByTestId('seed-saved')).toBeInViewport();
    await expect(page.getByTestId('seed-task-count')).toHaveText('2 tasks');
    // The interview's summary is kept, with what seed review changed since.
    await expect(page.getByTestId('seed-since').locator('li')).toHaveText(['added T-003 Add notes', 'removed T-001']);
    await page.getByTestId('seed-tldr').screenshot({ path: 'test-results/screens/seed-plan-in-short.png' });
    expect(await page.getByTestId('seed-task').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-task-id')))).toEqual(['T-003', 'T-002']);
    await expect(card('T-003').getByTestId('seed-test-file')).toHaveAttribute('data-path', 'tests/t003_notes.test.js');

    // The API agrees: the run order, the removed id retired, one commit, the removed test gone.
    const seed = (await (await fetch(`${baseURL}/api/sessions/${id}/seed`, { headers: auth })).json()) as {
      prd: { id: string }[];
      meta: { removed_task_ids?: string[] };
      test_files: Record<string, string>;
    };
    expect(seed.prd.map((t) => t.id)).toEqual(['T-003', 'T-002']);
    expect(seed.meta.removed_task_ids).toEqual(['T-001']);
    expect(Object.keys(seed.test_files).sort()).toEqual(['tests/t002_tags.test.js', 'tests/t003_notes.test.js']);
    const detail = (await (await fetch(`${baseURL}/api/sessions/${id}`, { headers: auth })).json()) as { worktree: string };
    expect(git(detail.worktree, 'log', '--format=%s', '-2').split('\n')).toEqual(['seed: edited', 'seed: 2 task(s) + 2 acceptance test(s)']);
    expect(git(detail.worktree, 'log', '-1', '--format=%b')).toContain('T-003 added, T-001 removed, order');
    expect(fs.existsSync(path.join(detail.worktree, 'tests', 't001_due_dates.test.js'))).toBe(false);

    // The next task added after a removal never takes the removed id.
    await page.getByTestId('edit-seed').click();
    await page.getByTestId('add-task').click();
    await expect(card('T-004')).toBeVisible();
    await page.getByTestId('cancel-edit').click();
  } finally {
    await repo.cleanup();
  }
});
