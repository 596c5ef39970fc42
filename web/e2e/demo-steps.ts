import { expect, type Page } from '@playwright/test';

/** The demo interview's three questions, answered by clicking: a priority, urgent first, and the listing too. */
export async function answerDemoInterview(page: Page): Promise<void> {
  // 1: an option question; the answer picks the feature.
  await expect(page.getByTestId('question-text')).toHaveText('Which field should a todo gain?', { timeout: 30_000 });
  await page.locator('label.option', { hasText: 'A priority' }).click();
  await page.getByTestId('submit-answer').click();
  // 2: free-form; the words land in the seed.
  await expect(page.getByTestId('question-text')).toHaveText(/what should a user be able to do/, { timeout: 30_000 });
  await page.getByTestId('free-text-input').fill('Put the urgent things first.');
  await page.getByTestId('submit-answer').click();
  // 3: an option question; "yes" plans a second task.
  await expect(page.getByTestId('question-text')).toHaveText('Should the text listing show the new field too?', { timeout: 30_000 });
  await page.locator('label.option', { hasText: 'Yes, show it' }).click();
  await page.getByTestId('submit-answer').click();
}
