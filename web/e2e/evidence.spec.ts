import { expect, test } from '@playwright/test';
import { makeExampleRepo, type ExampleRepo } from '../../server/demo/example-repo.ts';
import { doubleDoneTurns, runToAllDone } from './helpers.ts';

/**
 * The evidence receipt in the browser (issue 28): the task review leads with the receipt's status
 * and each gap in one sentence; the session review counts the done tasks per status. The run is
 * real (checks with the test-machinery check, red and green proofs, the mutation probe). The
 * worker's double() has a branch its test never reaches, so mutants of it survive: the receipt
 * has that gap, said as a sentence.
 */
test.setTimeout(120_000);

let repo: ExampleRepo | undefined;
test.afterEach(async () => {
  await repo?.cleanup();
  repo = undefined;
});

test('the task review leads with the evidence status and its gaps, and the session review counts tasks per status', async ({ page }) => {
  repo = await makeExampleRepo('js-todo');
  const id = await runToAllDone(
    page,
    repo.dir,
    'Double a number',
    doubleDoneTurns('export function double(n) {\n  if (n > 1000) return 2 * n;\n  return n * 2;\n}\n'),
  );

  await page.goto(`/sessions/${id}/review`);
  const counts = page.getByTestId('evidence-counts');
  await expect(counts).toHaveAttribute('data-with-gaps', '1');
  await expect(counts).toHaveAttribute('data-verified', '0');
  await expect(counts).toContainText('Evidence of the done task: 0 verified· 1 with gaps· 0 not verified');
  await expect(page.getByTestId('review-task').getByTestId('evidence-badge')).toHaveAttribute('data-evidence', 'with_gaps');
  await page.screenshot({ path: 'test-results/screens/evidence-session-review.png', fullPage: true });

  await page.getByTestId('task-review-link').first().click();
  const summary = page.getByTestId('evidence-summary');
  await expect(summary).toHaveAttribute('data-evidence', 'with_gaps');
  // The status comes first on the page, before the task's stats and its case.
  const first = await page.locator('.task-review > *').first().getAttribute('data-testid');
  expect(first).toBe('evidence-summary');
  await expect(summary.getByRole('heading')).toContainText('Evidence: With gaps');
  await expect(summary.getByTestId('evidence-gap')).toHaveCount(1);
  await expect(summary.getByTestId('evidence-gap')).toHaveText(/^\d+ changes? to the task’s code went unnoticed by its tests \(of \d+ tried\)\.$/);
  await summary.getByText('The receipt').click();
  await expect(summary.getByTestId('evidence-receipt')).toContainText('1 of 1 named cases passed, each run alone');
  await expect(summary.getByTestId('evidence-receipt')).toContainText('Test machineryuntouched');
  await expect(summary.getByTestId('evidence-receipt')).toContainText('What the models said (not evidence)');
  await summary.screenshot({ path: 'test-results/screens/evidence-task-review.png' });

  // The survivors sit on the row of the criterion whose test runs their line (line coverage).
  await expect(page.getByTestId('mutant-badge')).toHaveText(/^misses \d+ mistakes$/);
  await expect(page.getByTestId('criterion').first().locator('.criterion-mark')).toHaveText('!');
  await expect(page.getByTestId('criterion-survivor').first()).toContainText(/^Its tests run src\/double\.js:2, and none notices if it /);
  await page.screenshot({ path: 'test-results/screens/evidence-task-review-page.png', fullPage: true });
});
