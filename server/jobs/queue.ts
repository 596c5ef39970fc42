/**
 * What the queue dispatcher (in `tilth serve`) and the queue workers (`tilth worker`, `serve
 * --worker-slots`) agree on: the BullMQ queue of a sessions folder on one Redis, its job ids, and
 * the control channel for stops. A server and its workers share the sessions folder in this
 * step (issue 18), so the queue is named after the folder's real path: two Tilths with different
 * folders can share one Redis without taking each other's runs.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { ConnectionOptions } from 'bullmq';

export interface RunJobData {
  sessionId: string;
}

/** Messages on the control channel, for whichever worker runs the session. */
export type ControlMessage =
  /** Stop the session's run. */
  | { stop: string; reason: string }
  /** Write this guidance note into the session and emit it. */
  | { note: string; note_id: string; ts: string; text: string };

export function queueName(sessionsRoot: string): string {
  const real = fs.realpathSync(sessionsRoot);
  return `tilth-runs-${createHash('sha256').update(real).digest('hex').slice(0, 12)}`;
}

export const controlChannel = (queue: string) => `${queue}:control`;

/** One job per session at a time (BullMQ ids cannot hold `:`); removed when it ends, so it can run again. */
export const runJobId = (sessionId: string) => `run-${sessionId}`;

/** ioredis options for BullMQ from a `redis://` or `rediss://` URL (blocking commands must not time out). */
export function connectionOf(url: string): ConnectionOptions {
  const u = new URL(url);
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') throw new Error(`TILTH_QUEUE must be a redis:// or rediss:// URL, not ${u.protocol}`);
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.pathname.length > 1 ? { db: Number(u.pathname.slice(1)) } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
    maxRetriesPerRequest: null,
  };
}

/** The URL as logs and the settings page show it: no password. */
export function shownQueueUrl(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}
