import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SummaryView } from '../../../shared/api.ts';
import { emptySummary } from '../../../shared/summary.ts';
import { writeBigLog } from '../../testing/big-log.ts';
import { auth, makeTestApp, type TestApp } from '../../testing/test-app.ts';

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
    t.store.session(big).forget(); // as a server that never opened it: the log below is what a long run left
    writeBigLog(path.join(t.store.session(big).dir, 'events.jsonl'), big, 150_000, (seq) => `answer ${seq} ${'z'.repeat(80)}`); // ~20 MB
    const smallLast = t.store.session(small).emit({ type: 'question_answered', data: { question_id: 'q', answer: 'a' } }).seq;

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
    expect(fs.existsSync(path.join(t.store.session(big).dir, 'events.idx'))).toBe(true);
  }, 60_000);
});

describe('a long run’s summary', () => {
  it('comes thinned to a small view of the whole run, and a span comes back in detail', async () => {
    const id = session('Long summary');
    const lastSeq = t.store.session(id).log().lastSeq;
    const summary = emptySummary(id);
    summary.last_seq = lastSeq;
    const start = Date.UTC(2026, 10, 20, 9);
    summary.timeline.attempts.push(['T-001', 2, start, start + 150_000 * 1000, 'done']);
    for (let k = 0; k < 150_000; k++) {
      summary.timeline.iterations.push([k + 3, start + k * 1000, 'T-001', k + 1, 1000 + (k % 50)]);
      if (k % 10 === 5) summary.timeline.verdicts.push([k + 3, start + k * 1000, 'T-001', 'reject', 'weak_test']);
    }
    summary.timeline.verdicts.push([150_010, start + 150_000 * 1000, 'T-001', 'accept', null]);
    fs.writeFileSync(path.join(t.store.session(id).dir, 'summary.json'), JSON.stringify(summary));

    const whole = await t.app.inject({ method: 'GET', url: `/api/sessions/${id}/summary`, headers: auth });
    expect(whole.statusCode).toBe(200);
    expect(whole.body.length).toBeLessThan(200_000);
    const view = whole.json() as SummaryView;
    expect(view.timeline_view).toMatchObject({ thinned: true, full: { from: start, to: start + 150_000_000 } });
    expect(view.timeline.iterations.length).toBeLessThanOrEqual(600);
    expect(view.timeline.verdicts.filter((v) => v[3] === 'accept')).toHaveLength(1);
    expect(view.last_seq).toBe(lastSeq);

    const from = start + 1_000_000;
    const zoom = await t.app.inject({ method: 'GET', url: `/api/sessions/${id}/summary?from=${from}&to=${from + 299_000}`, headers: auth });
    const detail = zoom.json() as SummaryView;
    expect(detail.timeline_view).toMatchObject({ thinned: false, span: { from, to: from + 299_000 } });
    expect(detail.timeline.iterations.map((i) => i[3])).toEqual(Array.from({ length: 300 }, (_, k) => 1001 + k));

    const bad = await t.app.inject({ method: 'GET', url: `/api/sessions/${id}/summary?from=5&to=4`, headers: auth });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: { code: 'invalid_request' } });
    expect(bad.json().error.message).toContain('from must not be after to');
  });

  it("answers a finished run's first read from summary.json's stored view, exactly what its rows give, and reads the rows once the log moves on", async () => {
    const id = session('Stored view');
    const handle = t.store.session(id);
    const lastSeq = handle.log().lastSeq;
    const summary = emptySummary(id);
    summary.last_seq = lastSeq;
    const start = Date.UTC(2026, 10, 20, 9);
    summary.timeline.attempts.push(['T-001', 2, start, start + 50_000 * 1000, 'done']);
    for (let k = 0; k < 50_000; k++) summary.timeline.iterations.push([k + 3, start + k * 1000, 'T-001', k + 1, 1000 + (k % 50)]);
    handle.summary.save(summary);
    // As a server that never read it: nothing held.
    handle.forget();
    const fromView = await t.app.inject({ method: 'GET', url: `/api/sessions/${id}/summary`, headers: auth });
    expect(fromView.statusCode).toBe(200);
    expect(t.store.heldSummaryCount).toBe(0);
    // The same file without its stored view: the rows are read, and the answer is the same.
    const file = path.join(handle.dir, 'summary.json');
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const { whole_view: _, ...head } = JSON.parse(`${lines[0]!.slice(0, -',"timeline":{'.length)}}`);
    fs.writeFileSync(file, [`${JSON.stringify(head).slice(0, -1)},"timeline":{`, ...lines.slice(1)].join('\n'));
    handle.forget();
    const fromRows = await t.app.inject({ method: 'GET', url: `/api/sessions/${id}/summary`, headers: auth });
    expect(t.store.heldSummaryCount).toBe(1);
    expect(fromView.json()).toEqual(fromRows.json());
    expect((fromView.json() as SummaryView).timeline_view.thinned).toBe(true);

    // An event after the file: the stored view is behind, so the summary is read and folded forward.
    handle.summary.save(summary);
    handle.forget();
    handle.emit({ type: 'question_answered', data: { question_id: 'q', answer: 'a' } });
    handle.forget();
    const moved = (await t.app.inject({ method: 'GET', url: `/api/sessions/${id}/summary`, headers: auth })).json() as SummaryView;
    expect(moved.last_seq).toBe(lastSeq + 1);
    expect(t.store.heldSummaryCount).toBe(1);
  });
});
