import { expect, test } from '@playwright/test';
import { makeExampleRepo, type ExampleRepo } from '../../server/demo/example-repo.ts';
import { noLearning, verdictTurn, workerTurn, writeTurn } from '../../server/testing/run-fixtures.ts';
import { DOUBLE_CRITERION, doubleSeedTurn, runToAllDone } from './helpers.ts';

/**
 * The installed packages the checks run on (env/dependency-guard.ts), in the browser: a worker
 * that leaves a virtualenv of its own in the worktree (where the checks would take its `python3`)
 * gets a failed `dependencies` check saying what to remove; it removes it, the checks pass, and
 * the task review shows both attempts with the check's own words.
 */
test.setTimeout(120_000);

let repo: ExampleRepo | undefined;
test.afterEach(async () => {
  await repo?.cleanup();
  repo = undefined;
});

const submit = workerTurn([
  'submit_case',
  { summary: 'Added double().', ac_coverage: [{ criterion: DOUBLE_CRITERION, addressed_by: 'src/double.js:double()' }] },
]);

test('a virtualenv the worker made fails the checks with what to remove; once it is gone they pass, and the review shows both attempts', async ({ page }) => {
  repo = await makeExampleRepo('js-todo');
  const id = await runToAllDone(page, repo.dir, 'Double a number', [
    doubleSeedTurn(),
    writeTurn('src/double.js', 'export function double(n) {\n  return n * 2;\n}\n'),
    workerTurn(['bash', { command: "mkdir -p .venv/bin && printf 'home = /usr/bin\\n' > .venv/pyvenv.cfg && echo made" }]),
    submit,
    workerTurn(['bash', { command: 'rm -rf .venv && echo removed' }]),
    submit,
    verdictTurn('accept'),
    noLearning,
  ]);

  await page.goto(`/sessions/${id}/tasks/T-001`);
  const attempts = page.getByTestId('check-attempt');
  await expect(attempts).toHaveCount(2);
  await expect(attempts.nth(0)).toHaveAttribute('data-passed', 'false');
  await expect(attempts.nth(1)).toHaveAttribute('data-passed', 'true');
  const refused = attempts.nth(0).getByTestId('check-result');
  await expect(refused).toHaveCount(1);
  await expect(refused).toHaveAttribute('data-name', 'dependencies');
  await expect(refused.getByTestId('check-output')).toContainText(
    'These folders of installed packages are not the environment the session was given, and a test run would load them before it: .venv. Remove them (rm -rf .venv).',
  );
  await expect(attempts.nth(1).locator('[data-name="dependencies"]')).toHaveCount(0);
  await attempts.nth(0).scrollIntoViewIfNeeded();
  await page.screenshot({ path: 'test-results/screens/task-review-dependencies.png', fullPage: true });
});
