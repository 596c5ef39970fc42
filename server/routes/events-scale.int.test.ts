import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeBigLog } from '../testing/big-log.ts';
import { auth, makeTestApp, type TestApp } from '../testing/test-app.ts';

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(async () => t.close());

function session(title: string): string {
  return t.store.create({ source: '/repo', brief: title, title, baseBranch: 'main', baseSha: 'abc', status: 'stopped' }).session_id;
}

describe('a cold, large event log', () => {
  it('is indexed without holding up /api/health or another session; the index is kept for the next open', async () => {
    const big = session('Long run');
    const small = session('Short run');
    t.store.forget(big); // as a server that never opened it: the log below is what a long run left
    writeBigLog(path.join(t.store.dir(big), 'events.jsonl'), big, 150_000, (seq) => `answer ${seq} ${'z'.repeat(80)}`); // ~20 MB
    const smallLast = t.store.emit(small, { type: 'question_answered', data: { question_id: 'q', answer: 'a' } }).seq;

    const order: string[] = [];
    const bigTail = t.app.inject({ method: 'GET', url: `/api/sessions/${big}/events?tail=1&limit=20`, headers: auth }).then((res) => {
      order.push('big');
      return res;
    });
    let healthy = 0;
    const polls = (async () => {
      for (let i = 0; i < 5; i++) {
        const res = await t.app.inject({ method: 'GET', url: '/api/health', headers: auth });
        expect(res.statusCode).toBe(200);
        healthy++;
        order.push('health');
      }
      const other = await t.app.inject({ method: 'GET', url: `/api/sessions/${small}/events`, headers: auth });
      expect(other.json()).toMatchObject({ last_seq: smallLast });
      order.push('small');
    })();
    const [res] = await Promise.all([bigTail, polls]);
    expect(healthy).toBe(5);
    // The small session and every health check were answered while the big log was being indexed.
    expect(order.indexOf('small')).toBeLessThan(order.indexOf('big'));
    const body = res.json() as { last_seq: number; events: { seq: number }[] };
    expect(body.last_seq).toBe(150_000);
    expect(body.events.map((e) => e.seq)).toEqual(Array.from({ length: 20 }, (_, i) => 149_981 + i));
    expect(fs.existsSync(path.join(t.store.dir(big), 'events.idx'))).toBe(true);
  }, 60_000);
});
