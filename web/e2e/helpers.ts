/**
 * Shared by the specs that drive the shared test server: the scripted model's control routes,
 * git, and starting a session in the browser. The model server is the one playwright.config.ts
 * starts; every role (interview, worker, evaluator, learnings) uses the one model name, so one
 * queue serves them all in call order.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, type Page } from '@playwright/test';
import { E2E_TOKEN } from '../../playwright.config.ts';
import type { ScriptedModelState, ScriptedReplyInput } from '../../server/scripted-model/model-server.ts';
import { nodeTest, noLearning, verdictTurn, workerTurn, writeTurn } from '../../server/testing/run-fixtures.ts';

export const MODEL_URL = `http://127.0.0.1:${process.env.E2E_MODEL_PORT ?? 5392}`;
export const MODEL = 'scripted-worker';

export const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

/** Appends replies to the model's queue. */
export async function appendScript(replies: ScriptedReplyInput[]): Promise<void> {
  const res = await fetch(`${MODEL_URL}/_control/script`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ models: { [MODEL]: replies } }),
  });
  expect(res.status, await res.text()).toBe(200);
}

/** Forgets everything scripted and recorded, then scripts `replies`. */
export async function script(replies: ScriptedReplyInput[]): Promise<void> {
  await fetch(`${MODEL_URL}/_control/reset`, { method: 'POST' });
  await appendScript(replies);
}

export async function modelState(): Promise<ScriptedModelState> {
  return (await (await fetch(`${MODEL_URL}/_control/state`)).json()) as ScriptedModelState;
}

export async function modelRequests(): Promise<{ messages: unknown[]; status: number }[]> {
  return ((await (await fetch(`${MODEL_URL}/_control/requests`)).json()) as { requests: { messages: unknown[]; status: number }[] }).requests;
}

/** Signs in, fills the new-session form and creates the session; returns its id. */
export async function createSession(page: Page, workspace: string, brief: string): Promise<string> {
  await page.goto(`/#token=${E2E_TOKEN}`);
  await page.getByTestId('new-session-button').first().click();
  await expect(page.getByTestId('new-session-page')).toBeVisible();
  await page.getByTestId('workspace-input').fill(workspace);
  await expect(page.getByTestId('workspace-check')).toHaveAttribute('data-ok', 'true');
  await page.getByTestId('brief-input').fill(brief);
  await page.getByTestId('create-session').click();
  await expect(page).toHaveURL(/\/sessions\/\d{8}-\d{6}-[0-9a-f]{6}$/);
  return page.url().split('/').at(-1)!;
}

/** A repository of `files` committed on `main`, in a fresh temp folder; remove `parent` when done. */
export function committedRepo(name: string, files: Record<string, string>): { parent: string; repo: string } {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), `tilth-e2e-${name}-`));
  const repo = path.join(parent, name);
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
    fs.writeFileSync(path.join(repo, file), content);
  }
  const as = ['-c', 'user.name=Dev', '-c', 'user.email=dev@example.com', '-c', 'commit.gpgsign=false'];
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, ...as, 'add', '-A');
  git(repo, ...as, 'commit', '-qm', name);
  return { parent, repo };
}

/** The interview's turn that writes a seed: its tasks and their test files, nothing left open. */
export function seedTurn(prdEntries: object[], testFiles: Record<string, string>, tldr: string, scopeNotes = ''): ScriptedReplyInput {
  return {
    tool_calls: [
      {
        name: 'write_seed',
        arguments: { prd_entries: prdEntries, test_files: testFiles, tldr, open_questions: [], blockers: [], scope_notes: scopeNotes },
      },
    ],
  };
}

/** The interview's one turn for a one-task seed of js-todo: double(n) in src/double.js, one criterion, one case. */
export const DOUBLE_CRITERION = 'double(2) returns 4';
export function doubleSeedTurn(): ScriptedReplyInput {
  return seedTurn(
    [
      {
        id: 'T-001',
        title: 'Double a number',
        description: 'Add double(n) in src/double.js.',
        acceptance_criteria: [DOUBLE_CRITERION],
        criteria_tests: [['double works']],
      },
    ],
    { 'tests/t001_double.test.js': nodeTest('double', 'double', '2', '4') },
    '- **T-001:** Double a number',
    'Nothing else.',
  );
}

/** The replies that take the one-task double seed to all done: `source` written, the case, an accept, no learning. */
export function doubleDoneTurns(source: string): ScriptedReplyInput[] {
  return [
    doubleSeedTurn(),
    writeTurn('src/double.js', source),
    workerTurn(['submit_case', { summary: 'Added double().', ac_coverage: [{ criterion: DOUBLE_CRITERION, addressed_by: 'src/double.js:double()' }] }]),
    verdictTurn('accept'),
    noLearning,
  ];
}

const sessionStatusOf = (page: Page, id: string) =>
  page.evaluate(async (u) => ((await (await fetch(u)).json()) as { session: { status: string } }).session.status, `/api/sessions/${id}`);

/** Waits, through the API, until the session's status is `status`. */
export async function untilStatus(page: Page, id: string, status: string): Promise<void> {
  await expect.poll(() => sessionStatusOf(page, id), { timeout: 60_000, intervals: [250, 500, 1000] }).toBe(status);
}

/** Scripts `replies` (the seed's turn first), creates a session on `workspace`, runs it from seed review and waits for all_done. */
export async function runToAllDone(page: Page, workspace: string, brief: string, replies: ScriptedReplyInput[]): Promise<string> {
  await script(replies);
  const id = await createSession(page, workspace, brief);
  await expect(page.getByTestId('seed-review')).toBeVisible({ timeout: 15_000 });
  await page.getByTestId('run-button').click();
  await untilStatus(page, id, 'all_done');
  return id;
}
