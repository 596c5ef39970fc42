/**
 * Shared by the specs that drive the shared test server: the scripted model's control routes,
 * git, and starting a session in the browser. The model server is the one playwright.config.ts
 * starts; every role (interview, worker, evaluator, learnings) uses the one model name, so one
 * queue serves them all in call order.
 */
import { execFileSync } from 'node:child_process';
import { expect, type Page } from '@playwright/test';
import { E2E_TOKEN } from '../../playwright.config.ts';
import type { FakeModelState, ScriptedReplyInput } from '../../server/scripted-model/fake-model.ts';

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

export async function modelState(): Promise<FakeModelState> {
  return (await (await fetch(`${MODEL_URL}/_control/state`)).json()) as FakeModelState;
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
