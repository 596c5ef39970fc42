import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { TilthEvent } from '../../shared/events.ts';
import { useTempStore } from '../testing/test-app.ts';
import { sessionState } from './session-handle.ts';
import { SessionStore } from './session-store.ts';

const temp = useTempStore();

const create = () => temp.store.create({ source: '/repo', brief: 'b', baseBranch: 'main', baseSha: 'abc', status: 'prepared' }).session_id;
const answer = (i: number) => ({ type: 'question_answered' as const, data: { question_id: `q${i}`, answer: 'a' } });

describe('SessionStore', () => {
  it('creates a session folder with a valid checkpoint and a log that opens with its version', () => {
    const id = create();
    const checkpoint = temp.store.session(id).checkpoint.read();
    expect(checkpoint).toMatchObject({ session_id: id, status: 'prepared', branch: `session/${id}`, base_sha: 'abc', last_stop: null });
    expect(checkpoint.worktree).toBe(`${temp.store.session(id).dir}/workspace`);
    expect(
      temp.store
        .session(id)
        .log()
        .readAfter(0, 10)
        .map((e) => e.type),
    ).toEqual(['log_opened', 'status_changed']);
  });

  it('publishes every stored event in order, the log header included', () => {
    const id = '20260101-000000-abcdef';
    fs.mkdirSync(temp.store.session(id).dir);
    const seen: number[] = [];
    temp.store.bus.subscribe(id, (e) => seen.push(e.seq));
    temp.store.session(id).emit(answer(1));
    temp.store.session(id).emit(answer(2));
    expect(seen).toEqual([1, 2, 3]);
  });

  it('keeps per-session state across handles, apart per session and per kind, and drops it with the session', () => {
    const [a, b] = [create(), create()];
    let made = 0;
    const counter = sessionState('counter', () => {
      made += 1;
      return { n: 0 };
    });
    const other = sessionState('other', () => ({ n: 100 }));
    temp.store.session(a).state(counter).n += 1;
    temp.store.session(a).state(counter).n += 1; // a second handle: the same state
    expect(temp.store.session(a).state(counter).n).toBe(2);
    expect(temp.store.session(b).state(counter).n).toBe(0); // another session: its own
    expect(temp.store.session(a).state(other).n).toBe(100); // another kind: its own
    expect(made).toBe(2);
    temp.store.session(a).forget();
    expect(temp.store.session(a).state(counter).n).toBe(0); // made again after forget
    expect(temp.store.session(b).state(counter).n).toBe(0);
    temp.store.session(b).state(counter).n = 5;
    temp.store.session(b).remove();
    expect(temp.store.session(b).state(counter).n).toBe(0); // and after remove
    expect(made).toBe(4);
  });

  it('records a stop with its reason and logs the status change', () => {
    const id = create();
    temp.store.session(id).checkpoint.setStatus('stopped', { reason: 'interrupted', phase: 'run' });
    expect(temp.store.session(id).checkpoint.read()).toMatchObject({ status: 'stopped', last_stop: 'interrupted' });
    const tail = temp.store.session(id).log().readAfter(2, 10);
    expect(tail.map((e) => [e.type, e.data])).toEqual([
      ['stop', { reason: 'interrupted', phase: 'run' }],
      ['status_changed', { from: 'prepared', to: 'stopped', reason: 'interrupted' }],
    ]);
  });

  it('publishes events another process appended, once each', () => {
    const id = create();
    const elsewhere = new SessionStore(temp.root);
    elsewhere.session(id).emit(answer(1));
    const seen: TilthEvent[] = [];
    temp.store.session(id).publishAppendedElsewhere(); // nobody listening: a later subscriber reads seq 3 from disk
    const stop = temp.store.bus.subscribe(id, (e) => seen.push(e));
    temp.store.session(id).publishAppendedElsewhere();
    expect(seen).toEqual([]);
    elsewhere.session(id).emit(answer(2));
    elsewhere.session(id).emit(answer(3));
    temp.store.session(id).publishAppendedElsewhere();
    temp.store.session(id).publishAppendedElsewhere();
    expect(seen.map((e) => e.type === 'question_answered' && e.data.question_id)).toEqual(['q2', 'q3']);
    stop();
    elsewhere.close();
  });

  it('closes the least recently used logs nobody follows once past its limits, leaving their index on disk', async () => {
    const store = new SessionStore(temp.root, { logCache: { bytes: 1024 * 1024, logs: 2, summaryRows: 1_000_000 } });
    const [a, b, c] = [create(), create(), create()];
    const stop = store.bus.subscribe(a, () => {}); // followed live: never closed
    await store.session(a).openLog();
    await store.session(b).openLog();
    expect(store.openLogCount).toBe(2);
    await store.session(c).openLog(); // three open, two allowed: b goes (a is followed, c is in use)
    expect(store.openLogCount).toBe(2);
    expect(fs.existsSync(`${store.session(b).dir}/events.idx`)).toBe(true);
    expect(fs.existsSync(`${store.session(c).dir}/events.idx`)).toBe(false);
    expect((await store.session(b).openLog()).lastSeq).toBe(2); // reopened from its index
    expect(store.openLogCount).toBe(2); // c went this time
    stop();
    store.close();
  });

  it('lets go of the least recently read summaries nobody follows once past its rows, and reads them again', async () => {
    const store = new SessionStore(temp.root, { logCache: { bytes: 1024 * 1024, logs: 64, summaryRows: 3 } });
    const [a, b, c] = [create(), create(), create()];
    for (const id of [a, b, c]) {
      // Two rows each: two worker calls.
      for (const iter of [1, 2]) {
        store
          .session(id)
          .emit({ type: 'model_call', data: { task_id: 'T-001', iter, prompt_tokens: 10, eval_tokens: 1, tokens_used_total: 11, role: 'worker' } });
      }
    }
    const stop = store.bus.subscribe(a, () => {}); // followed live: kept whatever its size
    const first = await store.session(a).summary.forReaders();
    await store.session(b).summary.forReaders();
    expect(store.heldSummaryCount).toBe(2); // four rows, but a is followed
    await store.session(c).summary.forReaders(); // b goes, the least recently read one nobody follows
    expect(store.heldSummaryCount).toBe(2);
    expect(await store.session(a).summary.forReaders()).toBe(first);
    const again = await store.session(b).summary.forReaders(); // read again from the log, same figures
    expect(again.timeline.iterations).toHaveLength(2);
    expect(again.last_seq).toBe(store.session(b).log().lastSeq);
    stop();
    store.close();
  });

  it("answers a finished run's whole view from summary.json's first line, only while it is the log's end and no summary is held", async () => {
    const id = create();
    const handle = temp.store.session(id);
    // No summary.json yet: nothing stored to answer from.
    expect(await new SessionStore(temp.root).session(id).summary.storedWholeView()).toBeNull();
    handle.emit({ type: 'model_call', data: { task_id: 'T-001', iter: 1, prompt_tokens: 10, eval_tokens: 1, tokens_used_total: 11, role: 'worker' } });
    handle.summary.save(handle.summary.current());
    // A server that never opened the session: its log cold.
    const fresh = new SessionStore(temp.root);
    const stored = await fresh.session(id).summary.storedWholeView();
    expect(stored?.head.last_seq).toBe(handle.log().lastSeq);
    expect(stored?.view.timeline.iterations).toHaveLength(1);
    expect(fresh.heldSummaryCount).toBe(0);
    // Indexed meanwhile (the events page comes next), and still the log's end.
    await new Promise((r) => setTimeout(r, 50));
    expect(fresh.session(id).log().indexed).toBe(true);
    expect((await fresh.session(id).summary.storedWholeView())?.head.last_seq).toBe(stored?.head.last_seq);
    // A held summary is current and answers itself.
    await fresh.session(id).summary.forReaders();
    expect(await fresh.session(id).summary.storedWholeView()).toBeNull();
    fresh.close();
    // The log moved past the file: the summary must be folded forward.
    handle.emit(answer(1));
    const later = new SessionStore(temp.root);
    expect(await later.session(id).summary.storedWholeView()).toBeNull();
    later.close();
  });

  it('notifies sessions-list listeners on create and on checkpoint updates', () => {
    let calls = 0;
    temp.store.bus.onSessionsChanged(() => calls++);
    const id = create();
    temp.store.session(id).checkpoint.update(() => ({ title: 'New title' }));
    expect(calls).toBe(2);
    expect(temp.store.session(id).listItem().title).toBe('New title');
  });

  it('says a session needs you while its interview waits for an answer, and only then', () => {
    const id = temp.store.create({ source: '/repo', brief: 'b', baseBranch: 'main', baseSha: 'abc' }).session_id;
    const interview = temp.store.session(id).interview;
    expect(temp.store.session(id).listItem().needs_you).toBe(false);
    const state = { trace_id: 't', started_at: '2026-01-01T00:00:00.000Z', iterations: 1, messages: [], pending: null, history: [] };
    interview.write(state);
    expect(temp.store.session(id).listItem().needs_you).toBe(false);
    const pending = { question_id: 'q1-abc', tool_call_id: 'call-1', text: 'Which field?', asked_at: '2026-01-01T00:00:01.000Z', skipped_tool_call_ids: [] };
    let calls = 0;
    temp.store.bus.onSessionsChanged(() => calls++);
    interview.write({ ...state, pending });
    expect(calls).toBe(1);
    expect(temp.store.session(id).listItem().needs_you).toBe(true);
    // A question left pending by an interview that then failed waits for nobody.
    temp.store.session(id).checkpoint.setStatus('failed', { reason: 'error', phase: 'interview' });
    expect(temp.store.session(id).listItem().needs_you).toBe(false);
  });
});
