import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { makeExampleRepo, type ExampleRepo } from '../../server/demo/example-repo.ts';
import { startTilth, type TilthProcess } from '../../server/testing/tilth-process.ts';

/**
 * `cd my-repo && tilth serve`: the new-session form starts from the repository the server was
 * started in. Own server, started inside a throwaway repository.
 */
const NO_PROVIDER = { TILTH_BASE_URL: '', TILTH_API_KEY: '', TILTH_WORKER_MODEL: '', TILTH_PREP_MODEL: '', TILTH_EVALUATOR_MODEL: '' };

let tilth: TilthProcess | undefined;
let repo: ExampleRepo | undefined;

test.afterEach(async () => {
  await tilth?.stop();
  if (tilth) fs.rmSync(tilth.home, { recursive: true, force: true });
  await repo?.cleanup();
  tilth = undefined;
  repo = undefined;
});

test('started inside a repository, the new-session form offers its root; a workspace the user types wins, even emptied, across page loads', async ({
  page,
}) => {
  repo = await makeExampleRepo('js-todo');
  const root = fs.realpathSync(repo.dir);
  tilth = await startTilth({ cwd: path.join(root, 'src'), env: NO_PROVIDER });

  await page.goto(tilth.url);
  await page.getByTestId('new-session-button').first().click();
  const workspace = page.getByTestId('workspace-input');
  await expect(workspace).toHaveValue(root);
  await expect(page.getByTestId('workspace-check')).toHaveAttribute('data-ok', 'true');

  // What the user types is kept in the tab's draft and shown instead of the default.
  const typed = path.join(root, 'tests');
  await workspace.fill(typed);
  await page.goto(`${tilth.origin}/new`);
  await expect(page.getByTestId('new-session-page')).toBeVisible();
  await expect(workspace).toHaveValue(typed);

  // An emptied field stays empty while the tab has a draft (the brief keeps it).
  await workspace.fill('');
  await page.getByTestId('brief-input').fill('Todos should carry a due date.');
  await page.goto(`${tilth.origin}/new`);
  await expect(page.getByTestId('brief-input')).toHaveValue('Todos should carry a due date.');
  await expect(workspace).toHaveValue('');
});
