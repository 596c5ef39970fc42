/**
 * Provider conformance (issue 11): the demo journey — interview, seed, run, evaluator — through
 * the real app and store, against every reply shape of `server/testing/provider-shapes.ts`,
 * served by the replay provider in that provider's wire form and with its history rules.
 *
 * A shape Tilth can normalise must end `all_done`. A shape it cannot (a server started without a
 * flag, a model without tools, a context too small, a content filter) must stop with one short
 * sentence that names the problem — never a TypeError, a zod dump, a page of HTML, or a loop.
 *
 * The journey is the one-task story (a due date, data only): T-001 with a failing check, its fix,
 * one evaluator reject and the accept. Every shape must pass: `all_done` where the runtime can
 * normalise it, otherwise a stop whose sentence names the problem.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { SessionDetailSchema, type SessionDetail } from '../../shared/api.ts';
import { QUESTIONS } from '../demo/demo-script.ts';
import { makeExampleRepo } from '../demo/example-repo.ts';
import { PROVIDER_SHAPES, startReplayProvider, type ProviderShape, type ReplayProvider } from '../testing/replay-provider.ts';
import { auth, makeTestApp, type TestApp } from '../testing/test-app.ts';

/** The one-task story: T-001 only. */
const ONE_TASK = ['A due date', 'Know what is late.', 'No, data only for now'] as const;

/** The one-task journey makes about twenty model calls; a stuck session makes far more. */
const MAX_MODEL_CALLS = 120;
/** How long a session may take to reach an end. */
const DRIVE_MS = 120_000;

const post = { ...auth, origin: 'http://localhost' };

type Outcome =
  | { kind: 'all_done' }
  | { kind: 'failed' | 'stopped'; stop: string | null; sentence: string | null }
  | { kind: 'refused'; status: number; sentence: string | null }
  | { kind: 'stuck'; why: string };

let replay: ReplayProvider;
let refusedUrl: string;

beforeAll(async () => {
  replay = await startReplayProvider();
  refusedUrl = `http://127.0.0.1:${await closedPort()}/v1`;
});
afterAll(async () => {
  await replay?.close();
});

/** A loopback port nothing listens on: bound, then let go. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function detail(t: TestApp, id: string): Promise<SessionDetail> {
  return SessionDetailSchema.parse((await t.app.inject({ url: `/api/sessions/${id}`, headers: auth })).json());
}

/**
 * Plays the user as the browser would, until the session ends one way or another: answers each
 * scripted question, presses Run once the seed is there. Unlike the demo driver it never throws on
 * a failed session: the failure is what a stop shape is about.
 */
async function drive(t: TestApp, id: string): Promise<Outcome> {
  const deadline = Date.now() + DRIVE_MS;
  let idleSince: number | null = null;
  for (;;) {
    const d = await detail(t, id);
    const status = d.session.status;
    if (status === 'all_done') return { kind: 'all_done' };
    if (status === 'failed' || (status === 'stopped' && d.run.state === 'idle')) {
      return { kind: status, stop: d.session.last_stop, sentence: d.last_error };
    }
    const pending = d.interview?.pending;
    const interviewIdle = status === 'interviewing' && d.interview?.running !== true;
    if (interviewIdle && pending) {
      const index = QUESTIONS.findIndex((q) => q.question === pending.text);
      if (index < 0) return { kind: 'stuck', why: `the interview asked a question the script does not have: ${pending.text.slice(0, 300)}` };
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/sessions/${id}/answer`,
        headers: post,
        payload: { questionId: pending.question_id, answer: ONE_TASK[index] },
      });
      if (res.statusCode !== 200 && res.statusCode !== 409) return { kind: 'stuck', why: `answering gave ${res.statusCode}: ${res.body.slice(0, 300)}` };
    } else if (status === 'prepared' && d.run.state === 'idle') {
      const res = await t.app.inject({ method: 'POST', url: `/api/sessions/${id}/run`, headers: post });
      if (res.statusCode !== 202 && res.statusCode !== 409) return { kind: 'stuck', why: `Run gave ${res.statusCode}: ${res.body.slice(0, 300)}` };
    }
    // An interview that ended with no question and no seed, and no job left to move it on.
    if (interviewIdle && !pending) {
      idleSince ??= Date.now();
      if (Date.now() - idleSince > 3_000) return { kind: 'stuck', why: 'the interview stopped with no question, no seed and no error' };
    } else {
      idleSince = null;
    }
    if (Date.now() > deadline) return { kind: 'stuck', why: `no end after ${DRIVE_MS} ms: ${JSON.stringify(d.session)} ${d.last_error ?? ''}` };
    await new Promise((r) => setTimeout(r, 40));
  }
}

/** One session on a fresh copy of the example, configured for the shape, driven to its end. */
async function journey(shape: ProviderShape): Promise<Outcome> {
  const baseUrl = shape.unreachable ? refusedUrl : replay.baseURL;
  const t = await makeTestApp({ env: { TILTH_BASE_URL: baseUrl, TILTH_API_KEY: 'replay-key-0123456789', TILTH_WORKER_MODEL: shape.name } });
  const repo = await makeExampleRepo('js-todo');
  try {
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/sessions',
      headers: post,
      payload: { workspace: repo.dir, brief: 'Todos should be able to carry a due date.' },
    });
    if (created.statusCode !== 201) {
      const body = created.json() as { error?: { message?: string } };
      return { kind: 'refused', status: created.statusCode, sentence: body.error?.message ?? null };
    }
    return await drive(t, created.json().session.id as string);
  } finally {
    await t.close();
    await repo.cleanup();
  }
}

/** What no stop sentence may contain: internals, dumps, markup, or a missing value. */
const LEAKS = /ZodError|TypeError|ReferenceError|undefined|\[object Object\]|<!DOCTYPE|<html|^\s*[[{]/i;

function describeOutcome(outcome: Outcome): string {
  return JSON.stringify(outcome);
}

/** Each shape's journey runs once; both of its tests read the same outcome. */
const journeys = new Map<string, Promise<{ outcome: Outcome; calls: number }>>();

function journeyOnce(shape: ProviderShape): Promise<{ outcome: Outcome; calls: number }> {
  let run = journeys.get(shape.name);
  if (!run) {
    run = journey(shape).then((outcome) => ({ outcome, calls: replay.calls(shape.name) }));
    journeys.set(shape.name, run);
  }
  return run;
}

// Concurrent: each shape has its own app, repository and model name, and most of a journey is
// waiting on git and the checks, so a few at once finish much sooner than one after another.
describe.concurrent('provider conformance: the demo journey against each real reply shape', () => {
  for (const shape of PROVIDER_SHAPES) {
    const label = `${shape.name} (${shape.provider}: ${shape.special})`;

    // Holds for every shape today, normalised or not: whatever the provider does, Tilth ends.
    it(
      `${label} ends within ${MAX_MODEL_CALLS} model calls, without a loop`,
      async ({ expect }) => {
        const { outcome, calls } = await journeyOnce(shape);
        expect(outcome.kind, describeOutcome(outcome)).not.toBe('stuck');
        expect(replay.capped(shape.name), `the replay capped ${shape.name}: a loop`).toBe(false);
        expect(calls, `model calls for ${shape.name}: ${describeOutcome(outcome)}`).toBeLessThanOrEqual(MAX_MODEL_CALLS);
      },
      DRIVE_MS + 30_000,
    );

    const what = shape.expected === 'all_done' ? 'ends all_done' : 'stops with a short sentence that names the problem';
    it(
      `${label} ${what}`,
      async ({ expect }) => {
        const { outcome } = await journeyOnce(shape);
        if (shape.expected === 'all_done') {
          expect(
            outcome,
            `refusals: ${JSON.stringify(
              replay
                .records(shape.name)
                .filter((r) => r.refusal)
                .slice(-3),
            )}`,
          ).toEqual({ kind: 'all_done' });
          return;
        }
        expect(['failed', 'stopped', 'refused'], describeOutcome(outcome)).toContain(outcome.kind);
        const sentence = 'sentence' in outcome ? (outcome.sentence ?? '') : '';
        expect(sentence.length, describeOutcome(outcome)).toBeGreaterThan(0);
        expect(sentence.length, sentence).toBeLessThanOrEqual(600);
        expect(sentence, 'the stop sentence leaks internals or markup').not.toMatch(LEAKS);
        expect(sentence, 'the stop sentence does not name the problem').toMatch(shape.stopNames ?? /./);
      },
      DRIVE_MS + 30_000,
    );
  }
});
