/**
 * WebSocket frames on `/api/stream`. One socket per tab carries any number of session
 * subscriptions plus the sessions-list channel.
 *
 * Protocol: the client sends `subscribe {sessionId, afterSeq}`; the server replies with every
 * stored event after `afterSeq`, then `caught-up`, then live events as they are appended. The
 * client ignores `seq <= lastSeq` and re-subscribes from its last seq after a gap or reconnect.
 *
 * Rules both sides rely on:
 * - A second `subscribe` for the same session replaces the first and replays from its afterSeq.
 * - Every `subscribe` ends its replay in exactly one `caught-up`, or one `error` carrying the
 *   sessionId (unknown session, unreadable log).
 * - Heartbeats are application frames: the server answers `ping` with `pong` (same id) and also
 *   sends an id-less `pong` every heartbeatMs; browsers cannot see protocol-level pings. The
 *   server also uses protocol pings to drop peers that stopped answering.
 * - A bad frame gets an `error` frame with code `bad_frame`; the socket stays open.
 *
 * Limits, so one connection cannot grow the server without bound or starve other requests:
 * - At most MAX_SUBSCRIPTIONS sessions per connection. A subscribe past that is answered with an
 *   `error` {code `too_many_subscriptions`, sessionId} and not served; the socket stays open.
 * - A budget of FRAME_BUDGET.burst frames, refilled at FRAME_BUDGET.perSecond. A client that
 *   overdraws it gets an `error` {code `too_many_frames`} and the socket is closed with
 *   CLOSE_TOO_MANY_FRAMES (policy violation); a well-behaved client never comes near it.
 * - A client that does not read is cut off, live or during a backlog: past the server's send
 *   buffer limit, or when a backlog chunk has not drained within the server's drain timeout.
 *   The server drops the TCP connection without a close frame (which would only queue behind
 *   the unread data), so the client sees 1006; like any lost connection, it reconnects and
 *   resubscribes from its last seq.
 */
import { z } from 'zod';
import { TilthEventSchema } from './events.ts';
import { SessionIdSchema } from './files.ts';

export const ClientFrameSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('subscribe'),
    sessionId: SessionIdSchema,
    afterSeq: z.number().int().nonnegative(),
  }),
  z.strictObject({ type: z.literal('unsubscribe'), sessionId: SessionIdSchema }),
  z.strictObject({ type: z.literal('subscribe-sessions') }),
  z.strictObject({ type: z.literal('ping'), id: z.number().int().optional() }),
]);
export type ClientFrame = z.infer<typeof ClientFrameSchema>;

export const ServerFrameSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('hello'), serverId: z.string(), heartbeatMs: z.number().int().positive() }),
  z.object({ type: z.literal('event'), sessionId: SessionIdSchema, event: TilthEventSchema }),
  z.object({ type: z.literal('caught-up'), sessionId: SessionIdSchema, lastSeq: z.number().int().nonnegative() }),
  /** Something under the sessions root changed: refetch the list. */
  z.object({ type: z.literal('sessions-changed') }),
  z.object({ type: z.literal('pong'), id: z.number().int().optional() }),
  z.object({
    type: z.literal('error'),
    /** Stable snake_case: the codes named above, or a REST error code (e.g. `corrupt_file`). */
    code: z.string().regex(/^[a-z][a-z0-9_]*$/),
    message: z.string(),
    sessionId: SessionIdSchema.optional(),
  }),
]);
export type ServerFrame = z.infer<typeof ServerFrameSchema>;

/** Server → client heartbeat period; a client that hears nothing for 2.5× this reconnects. */
export const HEARTBEAT_MS = 15_000;

/** Session subscriptions one connection may hold at once. */
export const MAX_SUBSCRIPTIONS = 32;

/**
 * Client → server frame budget (a token bucket). The web client sends one subscribe per open
 * session plus a ping per heartbeat, a few dozen frames at a reconnect; 4,000 is an attack.
 */
export const FRAME_BUDGET = { burst: 100, perSecond: 20 } as const;

/** WebSocket close code for a client that overdrew its frame budget: 1008, policy violation. */
export const CLOSE_TOO_MANY_FRAMES = 1008;
