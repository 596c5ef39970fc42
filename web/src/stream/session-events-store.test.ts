import { describe, expect, it } from 'vitest';
import type { TilthEvent } from '../../../shared/events.ts';
import { SessionEventsRegistry, SessionEventsStore } from './session-events-store.ts';
import type { SubscriptionHandler } from './stream-client.ts';

const SESSION = '20260525-103149-3800ea';
const commit = (seq: number): TilthEvent => ({
  seq,
  ts: '2026-05-25T10:00:00.000Z',
  type: 'commit',
  data: { task_id: 'T-001', trace_id: 'a'.repeat(32), sha: null },
});

/** Stands in for the StreamClient: records subscriptions and lets the test push events. */
function fakeClient() {
  const calls: Array<{ sessionId: string; afterSeq: number }> = [];
  let handler: SubscriptionHandler | null = null;
  return {
    calls,
    get subscribed() {
      return handler !== null;
    },
    push: (...seqs: number[]) => {
      for (const s of seqs) handler?.onEvent(commit(s));
    },
    caughtUp: (lastSeq: number) => handler?.onCaughtUp?.(lastSeq),
    subscribe(sessionId: string, afterSeq: number, h: SubscriptionHandler) {
      calls.push({ sessionId, afterSeq });
      handler = h;
      return () => {
        handler = null;
      };
    },
  };
}

function manualFrames() {
  const pending: Array<() => void> = [];
  return {
    schedule: (flush: () => void) => pending.push(flush),
    get scheduled() {
      return pending.length;
    },
    runFrame: () => {
      for (const flush of pending.splice(0)) flush();
    },
  };
}

describe('SessionEventsStore', () => {
  it('folds a burst of events into one update per animation frame', () => {
    const client = fakeClient();
    const frames = manualFrames();
    const store = new SessionEventsStore(client, SESSION, frames.schedule);
    let renders = 0;
    store.subscribe(() => renders++);

    client.push(...Array.from({ length: 1000 }, (_, i) => i + 1));
    client.caughtUp(1000);
    expect(frames.scheduled).toBe(1);
    expect(store.getSnapshot().view.lastSeq).toBe(0); // nothing applied before the frame

    frames.runFrame();
    expect(renders).toBe(1);
    expect(store.getSnapshot().view.lastSeq).toBe(1000);
    expect(store.getSnapshot().caughtUp).toBe(true);
  });

  it('subscribes with the first listener, unsubscribes with the last, and resumes from its last seq', () => {
    const client = fakeClient();
    const frames = manualFrames();
    const store = new SessionEventsStore(client, SESSION, frames.schedule);

    const offA = store.subscribe(() => {});
    const offB = store.subscribe(() => {});
    expect(client.calls).toEqual([{ sessionId: SESSION, afterSeq: 0 }]);
    client.push(1, 2, 3);
    offA();
    expect(client.subscribed).toBe(true);
    offB();
    expect(client.subscribed).toBe(false);

    // Events queued but not yet folded still count as received.
    store.subscribe(() => {});
    expect(client.calls[1]).toEqual({ sessionId: SESSION, afterSeq: 3 });
    frames.runFrame();
    expect(store.getSnapshot().view.recent.map((e) => e.seq)).toEqual([1, 2, 3]);
  });
});

describe('SessionEventsStore opening at the tail', () => {
  it('loads the newest page first and subscribes from its last seq', async () => {
    const client = fakeClient();
    const frames = manualFrames();
    let resolveTail!: (events: TilthEvent[]) => void;
    const store = new SessionEventsStore(client, SESSION, frames.schedule, () => new Promise((r) => (resolveTail = r)));
    store.subscribe(() => {});
    expect(client.calls).toEqual([]); // not before the page is in
    resolveTail([commit(98), commit(99), commit(100)]);
    await new Promise((r) => setTimeout(r, 0));
    expect(client.calls).toEqual([{ sessionId: SESSION, afterSeq: 100 }]);
    client.push(101);
    frames.runFrame();
    expect(store.getSnapshot().view.recent.map((e) => e.seq)).toEqual([98, 99, 100, 101]);
    expect(store.getSnapshot().view.lastSeq).toBe(101);
  });

  it('falls back to replaying from the start when the page cannot be loaded', async () => {
    const client = fakeClient();
    const store = new SessionEventsStore(client, SESSION, manualFrames().schedule, () => Promise.reject(new Error('offline')));
    store.subscribe(() => {});
    await new Promise((r) => setTimeout(r, 0));
    expect(client.calls).toEqual([{ sessionId: SESSION, afterSeq: 0 }]);
  });

  it('does not subscribe if everyone left while the page was loading', async () => {
    const client = fakeClient();
    let resolveTail!: (events: TilthEvent[]) => void;
    const store = new SessionEventsStore(client, SESSION, manualFrames().schedule, () => new Promise((r) => (resolveTail = r)));
    const off = store.subscribe(() => {});
    off();
    resolveTail([commit(5)]);
    await new Promise((r) => setTimeout(r, 0));
    expect(client.calls).toEqual([]);
    store.subscribe(() => {});
    expect(client.calls).toEqual([{ sessionId: SESSION, afterSeq: 5 }]);
  });
});

describe('SessionEventsRegistry', () => {
  it('hands out one store per session and drops the oldest idle ones beyond the limit', () => {
    const registry = new SessionEventsRegistry(fakeClient(), manualFrames().schedule, undefined, 2);
    const a = registry.get('20260525-103149-00000a');
    expect(registry.get('20260525-103149-00000a')).toBe(a);
    const offA = a.subscribe(() => {});
    const b = registry.get('20260525-103149-00000b');
    registry.get('20260525-103149-00000c');
    registry.get('20260525-103149-00000d'); // b is the oldest idle store: dropped
    expect(registry.get('20260525-103149-00000a')).toBe(a); // in use: kept
    expect(registry.get('20260525-103149-00000b')).not.toBe(b);
    offA();
  });
});
