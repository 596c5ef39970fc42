import { expect, test, type Locator, type Page } from '@playwright/test';
import { makeExampleRepo, type ExampleRepo } from '../../server/demo/example-repo.ts';
import { doubleDoneTurns, modelState, runToAllDone } from './helpers.ts';

/**
 * Line comments in the browser: a one-task session run to all_done by the scripted model, then
 * comments written, edited and deleted on the task's diff (surviving a reload) and one written on
 * the session diff. The server, git and the comment file are real.
 */
test.setTimeout(120_000);

const SOURCE = "export function double(n) {\n  if (typeof n !== 'number') throw new TypeError('double() takes a number');\n  return n * 2;\n}\n";

const replies = doubleDoneTurns(SOURCE);

let repo: ExampleRepo | undefined;
test.afterEach(async () => {
  await repo?.cleanup();
  repo = undefined;
});

async function doubleDone(page: Page): Promise<string> {
  repo = await makeExampleRepo('js-todo');
  const id = await runToAllDone(page, repo.dir, 'Double a number', replies);
  expect((await modelState()).pending).toEqual([]);
  return id;
}

/** Opens the form under a line of `file` with its "+" button (hovering the line shows it). */
async function writeComment(file: Locator, line: number, text: string): Promise<void> {
  const add = file.locator(`[data-testid="comment-add"][data-line="${line}"][data-side="new"]`);
  await add.locator('xpath=ancestor::tr').hover();
  await expect(add).toHaveCSS('opacity', '1');
  await add.click();
  const form = file.getByTestId('comment-form');
  await expect(form.getByTestId('comment-input')).toBeFocused();
  await form.getByTestId('comment-input').fill(text);
  await form.getByTestId('comment-save').click();
  await expect(form).toHaveCount(0);
}

test('comments on a task diff line: written, shown inline and listed, edited, kept over a reload, deleted; and one on the session diff', async ({ page }) => {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  const id = await doubleDone(page);

  await page.goto(`/sessions/${id}/tasks/T-001`);
  const diff = page.getByTestId('task-diff');
  const file = diff.locator('[data-testid="diff-file"][data-path="src/double.js"]');
  await expect(file).toContainText('return n * 2;');
  await expect(page.getByTestId('comments-empty')).toBeVisible();

  // The "+" is hidden until the line is hovered, and shows when it is reached with the keyboard.
  const plus = file.locator('[data-testid="comment-add"][data-line="2"]');
  await expect(plus).toHaveCSS('opacity', '0');
  await plus.focus();
  await expect(plus).toHaveCSS('opacity', '1');
  await expect(plus).toHaveAccessibleName('Comment on src/double.js line 2');

  await writeComment(file, 3, 'Why multiply here?');
  await writeComment(file, 1, 'Name it twice()?');
  const inline = file.getByTestId('line-comment');
  await expect(inline).toHaveCount(2);
  await expect(inline.getByTestId('comment-text')).toHaveText(['Name it twice()?', 'Why multiply here?']);
  const list = page.getByTestId('comment-list-item');
  await expect(page.getByRole('heading', { name: 'Comments (2)' })).toBeVisible();
  await expect(list.getByTestId('comment-list-place')).toHaveText(['src/double.js:3', 'src/double.js:1']);
  await expect(list.first()).toContainText('not sent');

  // The comment sits right under its line: the row before it is line 3.
  const onThree = inline.filter({ hasText: 'Why multiply here?' });
  await expect(onThree.locator('xpath=ancestor::tr/preceding-sibling::tr[1]')).toContainText('return n * 2;');

  // Edit it.
  await onThree.getByTestId('comment-edit').click();
  const editor = file.getByTestId('comment-form');
  await expect(editor.getByTestId('comment-input')).toHaveValue('Why multiply here?');
  await editor.getByTestId('comment-input').fill('Why multiply here? A shift reads worse; keep it, but say why.');
  await editor.getByTestId('comment-save').click();
  await expect(list.first().getByTestId('comment-list-text')).toHaveText('Why multiply here? A shift reads worse; keep it, but say why.');

  // An open form beside the comments, for the picture.
  await file.locator('[data-testid="comment-add"][data-line="2"]').click();
  await file.getByTestId('comment-input').fill('A draft under line 2');
  await page.setViewportSize({ width: 1280, height: 900 });
  await file.screenshot({ path: 'test-results/screens/diff-comment.png' });
  await file.getByTestId('comment-cancel').click();
  await expect(file.getByTestId('comment-form')).toHaveCount(0);

  // Saved in the session: a reload shows both, inline and listed.
  await page.reload();
  await expect(file.getByTestId('line-comment')).toHaveCount(2);
  await expect(file.getByTestId('comment-text')).toHaveText(['Name it twice()?', 'Why multiply here? A shift reads worse; keep it, but say why.']);
  await expect(page.getByRole('heading', { name: 'Comments (2)' })).toBeVisible();

  // The split view shows them under the same lines.
  await page.getByTestId('diff-view-split').click();
  await expect(diff).toHaveAttribute('data-view', 'split');
  await expect(file.getByTestId('line-comment')).toHaveCount(2);
  await expect(file.locator('[data-testid="comment-add"][data-side="new"]')).toHaveCount(4);
  await file.screenshot({ path: 'test-results/screens/diff-comment-split.png' });
  await page.getByTestId('diff-view-unified').click();
  await expect(diff).toHaveAttribute('data-view', 'unified');

  // Delete the other one.
  await file.getByTestId('line-comment').filter({ hasText: 'Name it twice()?' }).getByTestId('comment-delete').click();
  await expect(file.getByTestId('line-comment')).toHaveCount(1);
  await expect(list).toHaveCount(1);
  await expect(page.getByRole('heading', { name: 'Comments (1)' })).toBeVisible();

  // Clicking a listed comment brings it into view and focus.
  await page.evaluate(() => window.scrollTo(0, 0));
  await list.first().getByTestId('comment-list-place').click();
  await expect(file.getByTestId('line-comment')).toBeFocused();
  await expect(file.getByTestId('line-comment')).toBeInViewport();

  // The session diff: its own comments inline, every comment in the list.
  await page.goto(`/sessions/${id}/review`);
  const sessionFile = page.getByTestId('session-diff').locator('[data-testid="diff-file"][data-path="src/double.js"]');
  await expect(sessionFile).toContainText('return n * 2;');
  await expect(sessionFile.getByTestId('line-comment')).toHaveCount(0);
  await writeComment(sessionFile, 2, 'Is a TypeError what callers expect?');
  await expect(sessionFile.getByTestId('line-comment')).toHaveCount(1);
  const all = page.getByTestId('comment-list-item');
  await expect(all).toHaveCount(2);
  await expect(all.nth(0)).toContainText('T-001');
  await expect(all.nth(1)).toContainText('session diff');
  await expect(all.nth(1).getByTestId('comment-list-place')).toHaveText('src/double.js:2');

  const saved = await page.evaluate(
    async (u) => (await (await fetch(u)).json()) as { comments: { task_id: string | null; line: number }[] },
    `/api/sessions/${id}/comments`,
  );
  expect(saved.comments.map((c) => [c.task_id, c.line])).toEqual([
    ['T-001', 3],
    [null, 2],
  ]);
  expect(problems).toEqual([]);
});

test('by keyboard: one tab stop for a file’s lines, the arrows move along them, and focus stays on the comment saved or the line cancelled', async ({
  page,
}) => {
  const id = await doubleDone(page);
  await page.goto(`/sessions/${id}/tasks/T-001`);
  const file = page.getByTestId('task-diff').locator('[data-testid="diff-file"][data-path="src/double.js"]');
  const adds = file.getByTestId('comment-add');
  await expect(adds).toHaveCount(4);
  // Only the first "+" is in the tab order.
  expect(await adds.evaluateAll((buttons) => buttons.map((b) => (b as HTMLElement).tabIndex))).toEqual([0, -1, -1, -1]);
  await adds.first().focus();
  await page.keyboard.press('ArrowDown');
  await expect(adds.nth(1)).toBeFocused();
  await page.keyboard.press('End');
  await expect(adds.nth(3)).toBeFocused();
  expect(await adds.evaluateAll((buttons) => buttons.map((b) => (b as HTMLElement).tabIndex))).toEqual([-1, -1, -1, 0]);
  // Tab leaves the file's lines at once.
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).not.toBe('comment-add');

  // Enter opens the form; Cancel puts the keyboard back on the line's "+".
  await adds.nth(1).focus();
  await page.keyboard.press('Enter');
  const form = file.getByTestId('comment-form');
  await expect(form.getByTestId('comment-input')).toBeFocused();
  await form.getByRole('button', { name: 'Cancel' }).click();
  await expect(adds.nth(1)).toBeFocused();
  // Saved: the keyboard is on the comment, not the page's body.
  await page.keyboard.press('Enter');
  await form.getByTestId('comment-input').fill('Say why it throws.');
  await form.getByTestId('comment-save').click();
  const saved = file.getByTestId('line-comment');
  await expect(saved).toBeFocused();
  await expect(saved).toContainText('Say why it throws.');
});
