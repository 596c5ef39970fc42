/**
 * The demo reaches the end whatever happens on the way (issue 10): a server restart with a
 * question waiting or an interview turn in flight, Stop and Resume during a worker turn or while
 * the evaluator judges. Every scripted reply goes to the role that asked: the worker is never
 * handed the evaluator's `submit_verdict`.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TilthEvent } from '../../shared/events.ts';
import { REJECT_FEEDBACK_HEAD } from '../engine/case.ts';
import { EVALUATOR_LEDGER_HEADER } from '../engine/evaluator.ts';
import { startInterviewJob } from '../sessions/session-setup.ts';
import { recoverAfterCrash } from '../jobs/job-runner.ts';
import type { FakeRequestRecord } from '../scripted-model/model-server.ts';
import { demoDetail, demoStep, driveDemo, FULL_STORY, type DemoApi } from '../testing/demo-driver.ts';
import { auth, makeTestApp, silentLogger, type TestApp } from '../testing/test-app.ts';
import { QUESTIONS } from './demo-script.ts';

const post = { ...auth, origin: 'http://localhost' };
/** Slow enough that a test can catch a model call in flight, fast enough to keep the tests short. */
const REPLY_DELAY_MS = 150;
let t: TestApp;

const boot = (home?: string) => makeTestApp({ env: {}, demo: { replyDelayMs: REPLY_DELAY_MS }, ...(home ? { home } : {}) });

beforeEach(async () => {
  t = await boot();
});
afterEach(async () => {
  await t.close();
});

const api: DemoApi = async (method, url, body) => {
  const res = await t.app.inject({ method, url, headers: method === 'POST' ? post : auth, ...(body === undefined ? {} : { payload: body as object }) });
  return { status: res.statusCode, body: res.json() };
};

/** A restart of the server on the same sessions, continuing interviews as `tilth serve` does. */
async function restart(): Promise<void> {
  const home = t.home;
  await t.close({ keepHome: true });
  t = await boot(home);
  const demo = t.deps.demo!;
  recoverAfterCrash(t.store, silentLogger, (sid) =>
    startInterviewJob({ store: t.store, jobs: t.deps.jobs, llm: t.deps.llm, llmFor: (x) => demo.clientFor(x) ?? t.deps.llm }, sid),
  );
}

async function createDemo(): Promise<string> {
  const res = await t.app.inject({ method: 'POST', url: '/api/demo', headers: post });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().session.id as string;
}

async function until<T>(what: string, probe: () => T | Promise<T>, timeoutMs = 30_000): Promise<NonNullable<T>> {
  for (const deadline = Date.now() + timeoutMs; ; ) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const toolNames = (r: FakeRequestRecord) => r.tools.map((x) => (x as { function?: { name?: string } }).function?.name);
type Role = 'prep' | 'worker' | 'evaluator';
const isRole = (r: FakeRequestRecord, role: Role) => toolNames(r).includes(role === 'prep' ? 'ask_user' : role === 'worker' ? 'submit_case' : 'submit_verdict');
const mentions = (r: FakeRequestRecord, text: string) => JSON.stringify(r.messages).includes(JSON.stringify(text).slice(1, -1));

/**
 * Waits for a request of `role` (that also mentions `text`) that the scripted model has not
 * answered yet, sent after request `after`: a model call in flight. Returns its seq.
 */
async function inFlight(role: Role, after: number, text = ''): Promise<number> {
  const found = await until(`a ${role} request mentioning "${text}" in flight`, () =>
    t.deps.demo!.model.requests.find((r) => r.seq > after && r.status === 0 && isRole(r, role) && mentions(r, text)),
  );
  return found.seq;
}

const events = (id: string): TilthEvent[] => t.store.session(id).log().readAfter(0, 100_000);

/** The end of the story, whatever the detours: all done, both tasks, every reply to its own role. */
function expectTheEnd(id: string, requests: FakeRequestRecord[]): void {
  const all = events(id);
  expect(t.store.session(id).checkpoint.read().status).toBe('all_done');
  const tasks = all.filter((e) => e.type === 'commit').map((e) => (e.type === 'commit' ? e.data.task_id : ''));
  expect(tasks).toEqual(['T-001', 'T-002']);
  expect(all.filter((e) => e.type === 'task_failed' || e.type === 'evaluator_parse_error' || e.type === 'case_parse_error')).toEqual([]);
  // The worker's own tool calls are logged as tool_call events: none may be the evaluator's tool.
  expect(all.filter((e) => e.type === 'tool_call' && e.data.tool === 'submit_verdict')).toEqual([]);
  // Nor was any worker conversation ever sent back with a submit_verdict in it.
  for (const r of requests.filter((x) => isRole(x, 'worker'))) {
    for (const m of r.messages as { tool_calls?: { function: { name: string } }[] }[]) {
      expect(m.tool_calls?.map((c) => c.function.name) ?? []).not.toContain('submit_verdict');
    }
  }
  const verdicts = all.filter((e) => e.type === 'evaluator_verdict').map((e) => (e.type === 'evaluator_verdict' ? `${e.data.task_id} ${e.data.verdict}` : ''));
  expect(verdicts.at(-1)).toBe('T-002 accept');
  expect(verdicts).toContain('T-001 accept');
}

describe('demo resume', () => {
  it('the interview goes on after a restart with a question waiting, and after one with a turn in flight; the run then reaches all_done', async () => {
    const id = await createDemo();
    await until('the first question', async () => (await demoDetail(api, id)).interview?.pending);
    await demoStep(api, id, FULL_STORY);
    await until('the second question', async () => (await demoDetail(api, id)).interview?.pending?.text.startsWith('In a sentence'));
    let requests = [...t.deps.demo!.model.requests];
    await restart();
    expect((await demoDetail(api, id)).interview?.pending?.text).toMatch(/^In a sentence/);

    await demoStep(api, id, FULL_STORY);
    await inFlight('prep', 0, FULL_STORY[1]);
    requests = [...requests, ...t.deps.demo!.model.requests];
    await restart();
    await driveDemo(api, id);
    expectTheEnd(id, [...requests, ...t.deps.demo!.model.requests]);
    const asked = events(id)
      .filter((e) => e.type === 'question_asked')
      .map((e) => (e.type === 'question_asked' ? e.data.text : ''));
    expect(asked).toEqual(QUESTIONS.map((q) => q.question));
  }, 120_000);

  it('Stop and Resume at five points of one run — a worker turn, the first verdict, the turn after the reject, the second verdict, the next task — still reach all_done', async () => {
    const id = await createDemo();
    await until('a prepared seed', async () => {
      const status = (await demoDetail(api, id)).session.status;
      if (status === 'interviewing') await demoStep(api, id, FULL_STORY);
      return status === 'prepared';
    });
    expect((await api('POST', `/api/sessions/${id}/run`, {})).status).toBe(202);
    const stops: [Role, string][] = [
      ['worker', 'submit_case'], // a worker turn after its first case
      ['evaluator', ''], // the first judgement of T-001
      ['worker', REJECT_FEEDBACK_HEAD], // the worker's turn after the reject
      ['evaluator', EVALUATOR_LEDGER_HEADER], // a judgement that knows the earlier reject
      ['worker', '**ID:** T-002'], // the next task
    ];
    let after = 0;
    for (const [role, text] of stops) {
      after = await inFlight(role, after, text);
      const stop = await api('POST', `/api/sessions/${id}/stop`, {});
      expect(stop.status, JSON.stringify(stop.body)).toBe(200);
      expect(t.store.session(id).checkpoint.read().status).toBe('stopped');
      expect((await api('POST', `/api/sessions/${id}/run`, {})).status).toBe(202);
    }
    await driveDemo(api, id);
    expectTheEnd(id, [...t.deps.demo!.model.requests]);
    expect(events(id).filter((e) => e.type === 'session_resume')).toHaveLength(stops.length);
  }, 180_000);
});
