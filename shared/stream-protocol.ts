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
    code: z.string(),
    message: z.string(),
    sessionId: SessionIdSchema.optional(),
  }),
]);
export type ServerFrame = z.infer<typeof ServerFrameSchema>;

/** Server → client heartbeat period; a client that hears nothing for 2.5× this reconnects. */
export const HEARTBEAT_MS = 15_000;
