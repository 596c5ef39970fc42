/**
 * Everything `tilth serve` and its queue workers tell each other through Redis — a run job, a
 * stop, a guidance note — travels signed with the key only they share (queue-key.ts), because
 * reaching Redis must not be enough to start a run (spending the user's budget), stop one, or
 * steer one (issue 27).
 *
 * A message is an envelope: what it is (`kind`), the queue (one sessions folder) and the session
 * it is for, when it was made, a nonce, its body, and an HMAC-SHA256 over all of these in one
 * canonical encoding. A signature made for one kind, queue or session never verifies as another,
 * and any change to a field breaks it. Bodies are held to the API's own limits (a note's text is
 * the API's note schema), and the control channel refuses anything larger than the largest
 * message the API can cause before even parsing it.
 *
 * What signing cannot stop: whoever reaches Redis can still delete, delay or reorder jobs, and
 * replay a message they saw. Replays are held off where that is cheap: a control message is
 * taken only within a minute of being made and only once (ReplayGuard), and only for the run it
 * names (its run request); a run job only while its session's run request is still open (the
 * worker checks and closes it). Hence the README: the queue's Redis must be reachable by Tilth
 * alone.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { NoteRequestSchema } from '../../shared/api.ts';
import { RunRequestIdSchema, SessionIdSchema } from '../../shared/files.ts';

const VERSION = 1 as const;
/** Leads every signed encoding: no other use of the key can produce a valid message. */
const DOMAIN = 'tilth run queue message';

/** A note's text exactly as the API takes it (trimmed, 1 to 4,000 characters). */
const NoteTextSchema = NoteRequestSchema.shape.text;

/** What each kind of message carries. Every one names the run request it belongs to. */
const BODIES = {
  /** Run the session: the job a worker takes. */
  run: z.strictObject({ request: RunRequestIdSchema }),
  /** Stop the session's run (the API's stop has no body: the reason is the server's own words). */
  stop: z.strictObject({ request: RunRequestIdSchema, reason: z.string().min(1).max(200) }),
  /** Write this guidance note into the session (the worker running it is the session's one writer). */
  note: z.strictObject({ request: RunRequestIdSchema, note_id: z.string().regex(/^n-[0-9a-f]{8,32}$/), ts: z.iso.datetime(), text: NoteTextSchema }),
};

export type MessageKind = keyof typeof BODIES;
export type MessageBody<K extends MessageKind> = z.infer<(typeof BODIES)[K]>;

export interface Envelope<K extends MessageKind> {
  v: typeof VERSION;
  kind: K;
  queue: string;
  session: string;
  /** When it was made, ms since the epoch. */
  at: number;
  nonce: string;
  body: MessageBody<K>;
  sig: string;
}

/** One of the kinds in K, told apart by `kind`. */
export type SignedMessage<K extends MessageKind = MessageKind> = K extends MessageKind ? Envelope<K> : never;

const EnvelopeSchema = z.strictObject({
  v: z.literal(VERSION),
  kind: z.enum(Object.keys(BODIES) as [MessageKind, ...MessageKind[]]),
  queue: z.string().min(1).max(200),
  session: SessionIdSchema,
  at: z.number().int().nonnegative(),
  nonce: z.string().regex(/^[0-9a-f]{32}$/),
  // Flat: the canonical encoding below needs no recursion, and a deep body cannot cost much.
  body: z.record(z.string(), z.string()),
  sig: z.string().regex(/^[0-9a-f]{64}$/),
});

/**
 * The largest control message a worker reads: the envelope around the longest note the API takes,
 * where JSON may spend six bytes on one character (`\u0001`).
 */
export const MAX_CONTROL_BYTES = 6 * (NoteTextSchema.maxLength ?? 0) + 2_048;

/** How long after it was made (either way, for clocks apart) a control message is still taken. */
export const CONTROL_WINDOW_MS = 60_000;

/** Why a message was ignored; each is logged once per process (ProblemLog). */
export type Problem = 'oversize' | 'unsigned' | 'misplaced' | 'outside_limits' | 'stale' | 'not_requested';

/**
 * The bytes signed: the fields in a fixed order, the body's entries sorted by name, as one JSON
 * array (strings and integers only, so JSON gives exactly one spelling of each).
 */
export function canonical(fields: Omit<z.infer<typeof EnvelopeSchema>, 'sig'>): string {
  // An object's names are distinct: no two compare equal.
  const body = Object.entries(fields.body).sort(([a], [b]) => (a < b ? -1 : 1));
  return JSON.stringify([DOMAIN, fields.v, fields.kind, fields.queue, fields.session, fields.at, fields.nonce, body]);
}

function mac(key: Buffer, fields: Omit<z.infer<typeof EnvelopeSchema>, 'sig'>): string {
  return createHmac('sha256', key).update(canonical(fields)).digest('hex');
}

/** A message of `kind` for `session` on `queue`, signed with `key`. Throws if the body is outside its limits. */
export function seal<K extends MessageKind>(key: Buffer, kind: K, to: { queue: string; session: string }, body: MessageBody<K>, now = Date.now()): Envelope<K> {
  const fields = {
    v: VERSION,
    kind,
    queue: to.queue,
    session: SessionIdSchema.parse(to.session),
    at: now,
    nonce: randomBytes(16).toString('hex'),
    body: BODIES[kind].parse(body) as MessageBody<K>,
  };
  return { ...fields, sig: mac(key, fields) };
}

export type Opened<K extends MessageKind> = { ok: true; message: SignedMessage<K> } | { ok: false; problem: Problem };

/**
 * The message in `value` (a job's data, a parsed control message) if it is one `key` signed, of
 * one of `kinds`, for `queue`, with a body within its limits; otherwise why not. Whatever fails
 * is never looked at further.
 */
export function openMessage<K extends MessageKind>(key: Buffer, expected: { kinds: readonly K[]; queue: string }, value: unknown): Opened<K> {
  const parsed = EnvelopeSchema.safeParse(value);
  if (!parsed.success) return { ok: false, problem: 'unsigned' };
  const { sig, ...fields } = parsed.data;
  if (!timingSafeEqual(Buffer.from(sig, 'hex'), Buffer.from(mac(key, fields), 'hex'))) return { ok: false, problem: 'unsigned' };
  if (!(expected.kinds as readonly MessageKind[]).includes(fields.kind) || fields.queue !== expected.queue) return { ok: false, problem: 'misplaced' };
  const body = BODIES[fields.kind].safeParse(fields.body);
  if (!body.success) return { ok: false, problem: 'outside_limits' };
  return { ok: true, message: { ...parsed.data, body: body.data } as SignedMessage<K> };
}

/** A control message as it came off the channel: refused unread when larger than any the server sends. */
export function parseControl(text: string): { ok: true; value: unknown } | { ok: false; problem: Problem } {
  // Characters first: never more than bytes, and counted without a pass over a flood.
  if (text.length > MAX_CONTROL_BYTES || Buffer.byteLength(text, 'utf8') > MAX_CONTROL_BYTES) return { ok: false, problem: 'oversize' };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, problem: 'unsigned' };
  }
}

/**
 * Takes each control message once, and only while it is fresh: a stop or a note replayed from
 * Redis later, or twice, is refused. Only verified messages are remembered, so what it keeps is
 * bounded by what the server itself sent in the last window.
 */
export class ReplayGuard {
  /** nonce → when it may be forgotten (its message is stale by then anyway). */
  private readonly seen = new Map<string, number>();

  constructor(private readonly windowMs = CONTROL_WINDOW_MS) {}

  admit(message: { at: number; nonce: string }, now = Date.now()): boolean {
    for (const [nonce, until] of this.seen) if (until < now) this.seen.delete(nonce);
    if (Math.abs(now - message.at) > this.windowMs) return false;
    if (this.seen.has(message.nonce)) return false;
    this.seen.set(message.nonce, message.at + this.windowMs);
    return true;
  }
}

const MEANING: Record<Problem, string> = {
  oversize: 'it is larger than any message the API can cause (a note is at most 4,000 characters)',
  unsigned: "it is not signed with this Tilth's queue key",
  misplaced: "it is signed for another kind of message or another Tilth's queue",
  outside_limits: "it is signed, but outside the API's limits",
  stale: 'it is an old or repeated control message (a replay)',
  not_requested: 'its session was not asked to run, or that request was already taken (a replay)',
};

/**
 * Says each kind of problem once per process: whoever floods Redis with forged messages must not
 * flood the log too, and one line is enough to tell the user to close Redis to others.
 */
export class ProblemLog {
  private readonly said = new Set<Problem>();

  constructor(
    private readonly logger: { warn(msg: string): void },
    private readonly who: string,
    private readonly keyFile: string,
  ) {}

  report(problem: Problem, what: string): void {
    if (this.said.has(problem)) return;
    this.said.add(problem);
    this.logger.warn(
      `${this.who}: ignored ${what}: ${MEANING[problem]}. Something other than this Tilth writes to its Redis (it must be reachable by Tilth alone; ` +
        `see the README), or a worker has another TILTH_HOME and so another key than ${this.keyFile}. Further messages with this problem are ignored without a word.`,
    );
  }
}
