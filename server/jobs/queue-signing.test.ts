import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  CONTROL_WINDOW_MS,
  canonical,
  MAX_CONTROL_BYTES,
  openMessage,
  parseControl,
  ProblemLog,
  ReplayGuard,
  seal,
  type Envelope,
  type MessageKind,
} from './queue-signing.ts';

const KEY = Buffer.alloc(32, 7);
const OTHER_KEY = Buffer.alloc(32, 8);
const QUEUE = 'tilth-runs-0123456789ab';
const SESSION = '20260525-103149-3800ea';
const REQUEST = 'r-0123456789abcdef';
const to = { queue: QUEUE, session: SESSION };
const ALL: MessageKind[] = ['run', 'stop', 'note'];

const note = (text: string) => ({ request: REQUEST, note_id: 'n-0a1b2c3d', ts: '2026-05-25T10:31:49.000Z', text });

/** A message signed as the server would, whatever its fields: HMAC-SHA256 over the canonical encoding. */
function signedByHand(key: Buffer, fields: Omit<Envelope<MessageKind>, 'sig'> & { body: Record<string, string> }): Record<string, unknown> {
  return { ...fields, sig: createHmac('sha256', key).update(canonical(fields)).digest('hex') };
}

describe('signing the queue messages', () => {
  it('opens what it sealed, for the kind, queue and session it was sealed for', () => {
    const run = seal(KEY, 'run', to, { request: REQUEST }, 1_000);
    expect(run).toMatchObject({ v: 1, kind: 'run', queue: QUEUE, session: SESSION, at: 1_000, body: { request: REQUEST } });
    expect(run.nonce).toMatch(/^[0-9a-f]{32}$/);
    expect(run.sig).toMatch(/^[0-9a-f]{64}$/);
    expect(openMessage(KEY, { kinds: ['run'], queue: QUEUE }, JSON.parse(JSON.stringify(run)))).toEqual({ ok: true, message: run });
    const stop = seal(KEY, 'stop', to, { request: REQUEST, reason: 'stopped by user' });
    expect(openMessage(KEY, { kinds: ['stop', 'note'], queue: QUEUE }, stop)).toEqual({ ok: true, message: stop });
  });

  it('signs HMAC-SHA256 over the canonical encoding, with a fresh nonce each time', () => {
    const a = seal(KEY, 'run', to, { request: REQUEST }, 5);
    const { sig, ...fields } = a;
    expect(sig).toBe(createHmac('sha256', KEY).update(canonical(fields)).digest('hex'));
    expect(seal(KEY, 'run', to, { request: REQUEST }, 5).nonce).not.toBe(a.nonce);
  });

  it('encodes every field in a fixed order with the body sorted by name, so no two messages share an encoding', () => {
    const fields = { v: 1 as const, kind: 'stop' as const, queue: 'q', session: SESSION, at: 7, nonce: 'n', body: { reason: 'x', request: REQUEST } };
    expect(canonical(fields)).toBe(`["tilth run queue message",1,"stop","q","${SESSION}",7,"n",[["reason","x"],["request","${REQUEST}"]]]`);
    expect(canonical({ ...fields, body: { request: REQUEST, reason: 'x' } })).toBe(canonical(fields));
    expect(canonical({ ...fields, body: { a: 'b' } })).not.toBe(canonical({ ...fields, body: { ab: '' } }));
    expect(canonical({ ...fields, body: { b: '1', a: '2' } })).toContain('[["a","2"],["b","1"]]');
  });

  it('calls anything not signed with this key unsigned: no signature, the old unsigned shapes, another key, any field changed', () => {
    const expected = { kinds: ALL, queue: QUEUE };
    const stop = seal(KEY, 'stop', to, { request: REQUEST, reason: 'stopped by user' });
    const unsigned = { ok: false, problem: 'unsigned' };
    expect(openMessage(KEY, expected, { sessionId: SESSION })).toEqual(unsigned);
    expect(openMessage(KEY, expected, { stop: SESSION, reason: 'forged' })).toEqual(unsigned);
    expect(openMessage(KEY, expected, null)).toEqual(unsigned);
    expect(openMessage(KEY, expected, 'text')).toEqual(unsigned);
    const { sig: _, ...withoutSig } = stop;
    expect(openMessage(KEY, expected, withoutSig)).toEqual(unsigned);
    expect(openMessage(OTHER_KEY, expected, stop)).toEqual(unsigned);
    expect(openMessage(KEY, expected, seal(OTHER_KEY, 'stop', to, { request: REQUEST, reason: 'stopped by user' }))).toEqual(unsigned);
    const changes: Record<string, unknown>[] = [
      { kind: 'note' },
      { kind: 'run' },
      { queue: 'tilth-runs-ba9876543210' },
      { session: '20260525-103149-3800eb' },
      { at: stop.at + 1 },
      { nonce: randomBytes(16).toString('hex') },
      { body: { ...stop.body, reason: 'other words' } },
      { body: { ...stop.body, request: 'r-fedcba9876543210' } },
      { body: { ...stop.body, extra: 'x' } },
      { extra: 'x' },
      { v: 2 },
      { sig: stop.sig.replace(/^./, (c) => (c === '0' ? '1' : '0')) },
    ];
    for (const change of changes) expect(openMessage(KEY, expected, { ...stop, ...change }), JSON.stringify(change)).toEqual(unsigned);
  });

  it('calls an envelope of the wrong shape unsigned even when its signature matches', () => {
    const fields = { v: 1 as const, kind: 'run' as const, queue: QUEUE, session: SESSION, at: 1, nonce: 'a'.repeat(32), body: { request: REQUEST } };
    const expected = { kinds: ['run'] as const, queue: QUEUE };
    expect(openMessage(KEY, expected, signedByHand(KEY, fields))).toMatchObject({ ok: true });
    const shapes: Record<string, unknown>[] = [
      { at: -1 },
      { at: 1.5 },
      { nonce: 'a'.repeat(31) },
      { nonce: 'A'.repeat(32) },
      { session: 'not-a-session' },
      { queue: '' },
      { queue: 'q'.repeat(201) },
    ];
    for (const shape of shapes) {
      expect(openMessage(KEY, expected, signedByHand(KEY, { ...fields, ...shape } as typeof fields)), JSON.stringify(shape)).toEqual({
        ok: false,
        problem: 'unsigned',
      });
    }
    expect(openMessage(KEY, expected, signedByHand(KEY, { ...fields, queue: 'q'.repeat(200) }))).toEqual({ ok: false, problem: 'misplaced' });
    expect(() => seal(KEY, 'run', { queue: QUEUE, session: 'not-a-session' }, { request: REQUEST })).toThrow();
  });

  it('refuses a signed message of another kind or for another queue: a stop is never a run, another folder’s job never runs here', () => {
    const stop = seal(KEY, 'stop', to, { request: REQUEST, reason: 'stopped by user' });
    expect(openMessage(KEY, { kinds: ['run'], queue: QUEUE }, stop)).toEqual({ ok: false, problem: 'misplaced' });
    const run = seal(KEY, 'run', to, { request: REQUEST });
    expect(openMessage(KEY, { kinds: ['stop', 'note'], queue: QUEUE }, run)).toEqual({ ok: false, problem: 'misplaced' });
    expect(openMessage(KEY, { kinds: ['run'], queue: 'tilth-runs-ba9876543210' }, run)).toEqual({ ok: false, problem: 'misplaced' });
  });

  it('holds a note to the API’s own limits: sealing refuses a longer one, and a signed one over it is refused', () => {
    expect(() => seal(KEY, 'note', to, note('x'.repeat(4_001)))).toThrow(/4,000/);
    expect(() => seal(KEY, 'note', to, note('   '))).toThrow();
    expect(seal(KEY, 'note', to, note(`  ${'x'.repeat(4_000)}  `)).body.text).toHaveLength(4_000);
    const fields = { v: 1 as const, kind: 'note' as const, queue: QUEUE, session: SESSION, at: 1, nonce: 'a'.repeat(32) };
    const expected = { kinds: ['note'] as const, queue: QUEUE };
    expect(openMessage(KEY, expected, signedByHand(KEY, { ...fields, body: note('x'.repeat(4_001)) }))).toEqual({ ok: false, problem: 'outside_limits' });
    expect(openMessage(KEY, expected, signedByHand(KEY, { ...fields, body: { ...note('x'), extra: 'y' } }))).toEqual({ ok: false, problem: 'outside_limits' });
    expect(openMessage(KEY, expected, signedByHand(KEY, { ...fields, body: { ...note('x'), note_id: 'nope' } }))).toEqual({
      ok: false,
      problem: 'outside_limits',
    });
    expect(openMessage(KEY, expected, signedByHand(KEY, { ...fields, body: note('x'.repeat(4_000)) }))).toMatchObject({ ok: true });
    const stop = { ...fields, kind: 'stop' as const };
    expect(openMessage(KEY, { kinds: ['stop'], queue: QUEUE }, signedByHand(KEY, { ...stop, body: { request: REQUEST, reason: 'x'.repeat(201) } }))).toEqual({
      ok: false,
      problem: 'outside_limits',
    });
    expect(openMessage(KEY, { kinds: ['stop'], queue: QUEUE }, signedByHand(KEY, { ...stop, body: { request: REQUEST, reason: '' } }))).toEqual({
      ok: false,
      problem: 'outside_limits',
    });
    expect(openMessage(KEY, expected, signedByHand(KEY, { ...fields, body: { ...note('x'), note_id: `n-${'a'.repeat(33)}` } }))).toEqual({
      ok: false,
      problem: 'outside_limits',
    });
    expect(openMessage(KEY, { kinds: ['run'], queue: QUEUE }, signedByHand(KEY, { ...fields, kind: 'run', body: { request: 'r-1' } }))).toEqual({
      ok: false,
      problem: 'outside_limits',
    });
  });

  it('drops a control message larger than the largest note can make, unread; the largest note fits', () => {
    expect(parseControl('x'.repeat(3 * 1024 * 1024))).toEqual({ ok: false, problem: 'oversize' });
    expect(parseControl('x'.repeat(MAX_CONTROL_BYTES + 1))).toEqual({ ok: false, problem: 'oversize' });
    // Four bytes in UTF-8 per two characters: counted in bytes, not characters.
    expect(parseControl(`"${'😀'.repeat(MAX_CONTROL_BYTES / 4)}"`)).toEqual({ ok: false, problem: 'oversize' });
    const widest = JSON.stringify(seal(KEY, 'note', to, note('\u0001'.repeat(4_000))));
    expect(widest.length).toBeGreaterThan(24_000);
    expect(parseControl(widest)).toMatchObject({ ok: true });
    expect(parseControl('{"not json')).toEqual({ ok: false, problem: 'unsigned' });
    expect(parseControl(' 1 ')).toEqual({ ok: true, value: 1 });
    expect(parseControl(`${' '.repeat(MAX_CONTROL_BYTES - 1)}1`)).toEqual({ ok: true, value: 1 });
    expect(parseControl(`${' '.repeat(MAX_CONTROL_BYTES - 3)}"é"`)).toEqual({ ok: false, problem: 'oversize' });
    expect(parseControl(`${' '.repeat(MAX_CONTROL_BYTES - 4)}"é"`)).toEqual({ ok: true, value: 'é' });
  });
});

describe('the replay guard', () => {
  const at = 1_000_000;
  it('takes a control message once, only within the window either side of when it was made', () => {
    const guard = new ReplayGuard();
    expect(guard.admit({ at, nonce: 'a' }, at + 5)).toBe(true);
    expect(guard.admit({ at, nonce: 'a' }, at + 6)).toBe(false);
    expect(guard.admit({ at, nonce: 'b' }, at + CONTROL_WINDOW_MS)).toBe(true);
    expect(guard.admit({ at, nonce: 'c' }, at + CONTROL_WINDOW_MS + 1)).toBe(false);
    expect(guard.admit({ at, nonce: 'd' }, at - CONTROL_WINDOW_MS)).toBe(true);
    expect(guard.admit({ at, nonce: 'e' }, at - CONTROL_WINDOW_MS - 1)).toBe(false);
    expect(CONTROL_WINDOW_MS).toBe(60_000);
  });

  it('forgets a nonce only once its message is too old to be taken anyway', () => {
    const guard = new ReplayGuard(100);
    expect(guard.admit({ at, nonce: 'a' }, at)).toBe(true);
    // Another message's arrival sweeps the memory; the first is still within its window.
    expect(guard.admit({ at: at + 100, nonce: 'b' }, at + 100)).toBe(true);
    expect(guard.admit({ at, nonce: 'a' }, at + 100)).toBe(false);
    expect(guard.admit({ at, nonce: 'a' }, at + 101)).toBe(false);
    // Made again later under the same nonce (a signature covers both): a new message.
    expect(guard.admit({ at: at + 200, nonce: 'a' }, at + 200)).toBe(true);
  });
});

describe('the problem log', () => {
  it('says each kind of problem once, naming what was ignored, why, and the key file', () => {
    const lines: string[] = [];
    const log = new ProblemLog({ warn: (m) => lines.push(m) }, 'queue worker h:1', '/home/u/.tilth/queue.key');
    log.report('unsigned', 'run job run-a');
    log.report('unsigned', 'run job run-b');
    log.report('oversize', 'a control message');
    log.report('oversize', 'a control message');
    log.report('not_requested', 'the run job for s');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^queue worker h:1: ignored run job run-a: it is not signed with this Tilth's queue key\. /);
    expect(lines[0]).toContain('/home/u/.tilth/queue.key');
    expect(lines[0]).toContain('reachable by Tilth alone');
    expect(lines[1]).toMatch(/ignored a control message: it is larger than any message the API can cause/);
    expect(lines[2]).toMatch(/ignored the run job for s: its session was not asked to run/);
  });
});
