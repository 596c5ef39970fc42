/**
 * Plays the user of a demo session through the HTTP API, as the browser would: answers the
 * question that waits, presses Run on a prepared session and Resume on a stopped one, until the
 * session is all done. The same driver serves `inject` tests and a real `tilth serve`, so a test
 * can stop, restart or kill the server at any moment and simply drive on.
 */
import { SessionDetailSchema, type SessionDetail } from '../../shared/api.ts';
import { QUESTIONS } from '../demo/demo-script.ts';

export type DemoApi = (method: 'GET' | 'POST', url: string, body?: unknown) => Promise<{ status: number; body: unknown }>;

/** The user's answers, one per scripted question, in the order of QUESTIONS. */
export type DemoAnswers = readonly [string, string, string];

export const FULL_STORY: DemoAnswers = ['A priority', 'Sort out what matters first thing in the morning.', 'Yes, show it in the listing'];

export async function demoDetail(api: DemoApi, id: string): Promise<SessionDetail> {
  const res = await api('GET', `/api/sessions/${id}`);
  if (res.status !== 200) throw new Error(`GET session ${id} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return SessionDetailSchema.parse(res.body);
}

/**
 * One look at the session and, if the user has something to do, doing it. Returns the session
 * when it is all done, else null. A session that failed, or stopped for any reason but a
 * crash or a user's stop, is an error: the demo must always reach the end.
 */
export async function demoStep(api: DemoApi, id: string, answers: DemoAnswers): Promise<SessionDetail | null> {
  const d = await demoDetail(api, id);
  const status = d.session.status;
  if (status === 'all_done') return d;
  if (status === 'failed') throw new Error(`demo session ${id} failed: ${d.last_error}`);
  const pending = d.interview?.pending;
  if (status === 'interviewing' && pending && !d.interview?.running) {
    const index = QUESTIONS.findIndex((q) => q.question === pending.text);
    if (index < 0) throw new Error(`demo session ${id} asked a question the script does not have: ${pending.text}`);
    const res = await api('POST', `/api/sessions/${id}/answer`, { questionId: pending.question_id, answer: answers[index] });
    // 409: answered already (a reply lost to a restart); the next look shows what happened.
    if (res.status !== 200 && res.status !== 409) throw new Error(`answering ${id} gave ${res.status}: ${JSON.stringify(res.body)}`);
    return null;
  }
  if ((status === 'prepared' || status === 'stopped') && d.run.state === 'idle') {
    const stop = d.session.last_stop;
    if (status === 'stopped' && stop !== null && stop !== 'crash' && stop !== 'interrupted') {
      throw new Error(`demo session ${id} stopped (${stop}): ${d.last_error}`);
    }
    const res = await api('POST', `/api/sessions/${id}/run`, {});
    if (res.status !== 202 && res.status !== 200 && res.status !== 409) throw new Error(`running ${id} gave ${res.status}: ${JSON.stringify(res.body)}`);
  }
  return null;
}

export interface DriveOptions {
  answers?: DemoAnswers;
  timeoutMs?: number;
  /** Between looks at the session; each look is a GET of its detail. */
  pollMs?: number;
}

/** Drives the session to all done; throws on a dead end or after `timeoutMs`. */
export async function driveDemo(api: DemoApi, id: string, options: DriveOptions = {}): Promise<SessionDetail> {
  const { answers = FULL_STORY, timeoutMs = 90_000, pollMs = 40 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const done = await demoStep(api, id, answers);
    if (done) return done;
    if (Date.now() > deadline)
      throw new Error(`demo session ${id} did not reach all_done in ${timeoutMs} ms: ${JSON.stringify((await demoDetail(api, id)).session)}`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
