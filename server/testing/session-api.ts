/**
 * A session read through the API as a test waits on it: its detail, a wait for a state, its
 * interview answered, its events. For the demo's tests, which drive sessions with no provider.
 */
import { expect } from 'vitest';
import { SessionDetailSchema, type SessionDetail } from '../../shared/api.ts';
import type { TilthEvent } from '../../shared/events.ts';
import { auth, type TestApp } from './test-app.ts';

export const post = { ...auth, origin: 'http://localhost' };

export function sessionApi(app: () => TestApp, waitMs: number) {
  const detail = async (id: string): Promise<SessionDetail> =>
    SessionDetailSchema.parse((await app().app.inject({ url: `/api/sessions/${id}`, headers: auth })).json());
  const until = async (id: string, what: string, test: (d: SessionDetail) => boolean): Promise<SessionDetail> => {
    for (const deadline = Date.now() + waitMs; ; ) {
      const d = await detail(id);
      if (test(d)) return d;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(d.session)} ${d.last_error}`);
      await new Promise((r) => setTimeout(r, 30));
    }
  };
  /** Answers the question the interview waits on. */
  const answer = async (id: string, text: string): Promise<void> => {
    const d = await until(id, 'a question', (x) => x.interview?.pending != null && !x.interview.running);
    const res = await app().app.inject({
      method: 'POST',
      url: `/api/sessions/${id}/answer`,
      headers: post,
      payload: { questionId: d.interview!.pending!.question_id, answer: text },
    });
    expect(res.statusCode, res.body).toBe(200);
  };
  const events = (id: string): TilthEvent[] => app().store.session(id).log().readAfter(0, 100_000);
  return { detail, until, answer, events };
}
